"""The app's look: Fusion, a readable font, and the palette that follows the system scheme."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from widgets.theme import MIN_POINT_SIZE, apply_theme, is_dark


def test_fusion_a_readable_font_and_the_palette_of_the_scheme(qtbot):
    app = QApplication.instance()
    style, font, palette = app.style().name(), QFont(app.font()), QPalette(app.palette())
    try:
        app.setFont(QFont(font.family(), 7))
        apply_theme(app)
        assert app.style().name().lower() == "fusion"
        assert app.font().pointSizeF() >= MIN_POINT_SIZE  # a small system font is raised
        window = app.palette().color(QPalette.ColorRole.Window)
        text = app.palette().color(QPalette.ColorRole.WindowText)
        if is_dark():
            assert window.lightness() < 100 < text.lightness()
        else:
            assert window.lightness() > 150 > text.lightness()
        assert is_dark() == (QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark)
    finally:
        app.setStyle(style)
        app.setFont(font)
        app.setPalette(palette)
