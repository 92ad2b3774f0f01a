"""The window shown while the app starts: its name, what it is doing, drawn at once.

Importing the simulator, the OpenGL viewport and every mode takes seconds on a
small machine; the splash is up before any of that, so a person sees the app
start instead of nothing. It needs only QtGui/QtWidgets.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QSplashScreen

SIZE = (460, 200)


def splash_pixmap(icon: QIcon) -> QPixmap:
    """The splash's picture: the app icon and name on a calm background."""
    w, h = SIZE
    pixmap = QPixmap(w, h)
    pixmap.fill(QColor(250, 250, 252))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QColor(210, 214, 222))
    painter.drawRect(0, 0, w - 1, h - 1)
    icon.paint(painter, QRect(28, 44, 72, 72))
    title = QFont()
    title.setPointSizeF(20)
    title.setBold(True)
    painter.setFont(title)
    painter.setPen(QColor(30, 36, 48))
    painter.drawText(QRect(118, 44, w - 130, 40), Qt.AlignmentFlag.AlignVCenter, "ReasonScope")
    body = QFont()
    body.setPointSizeF(10)
    painter.setFont(body)
    painter.setPen(QColor(90, 98, 112))
    painter.drawText(
        QRect(118, 84, w - 130, 40),
        Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
        "Visual-reasoning benchmarks for robots: build, check, study",
    )
    painter.end()
    return pixmap


class StartSplash(QSplashScreen):
    """The splash with a status line at the bottom (`say`), painted at once."""

    def __init__(self, icon: QIcon) -> None:
        super().__init__(splash_pixmap(icon))
        self.setObjectName("start_splash")
        self.text = ""

    def say(self, text: str) -> None:
        """Show what is happening now and paint it before the next slow step."""
        self.text = text
        self.showMessage(
            text, Qt.AlignmentFlag.AlignBottom | Qt.AlignmentFlag.AlignLeft, QColor(60, 66, 80)
        )
        QApplication.processEvents()
