"""One consistent look: Fusion style, a readable font, light or dark as the system says."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

MIN_POINT_SIZE = 10


def _dark_palette() -> QPalette:
    p = QPalette()
    base, window, text = QColor(37, 39, 43), QColor(48, 50, 55), QColor(225, 227, 230)
    accent = QColor(79, 139, 230)
    for role, color in (
        (QPalette.ColorRole.Window, window),
        (QPalette.ColorRole.WindowText, text),
        (QPalette.ColorRole.Base, base),
        (QPalette.ColorRole.AlternateBase, window),
        (QPalette.ColorRole.ToolTipBase, window),
        (QPalette.ColorRole.ToolTipText, text),
        (QPalette.ColorRole.Text, text),
        (QPalette.ColorRole.Button, window),
        (QPalette.ColorRole.ButtonText, text),
        (QPalette.ColorRole.Highlight, accent),
        (QPalette.ColorRole.HighlightedText, QColor(255, 255, 255)),
        (QPalette.ColorRole.Link, accent.lighter(130)),
        (QPalette.ColorRole.PlaceholderText, QColor(140, 144, 150)),
    ):
        p.setColor(role, color)
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.ButtonText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(120, 123, 128))
    return p


def is_dark() -> bool:
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def apply_theme(app: QApplication) -> None:
    """Set style, font and palette now and whenever the system scheme changes."""
    app.setStyle("Fusion")
    font = QFont(app.font())
    if font.pointSizeF() < MIN_POINT_SIZE:
        font.setPointSizeF(MIN_POINT_SIZE)
    app.setFont(font)

    def follow_system(*_: object) -> None:
        app.setPalette(_dark_palette() if is_dark() else app.style().standardPalette())

    follow_system()
    QGuiApplication.styleHints().colorSchemeChanged.connect(follow_system)
