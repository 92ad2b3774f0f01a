"""The window shown while the app starts: its name, what it is doing, drawn at once.

Importing the simulator, the OpenGL viewport and every mode takes seconds on a
small machine; the splash is up before any of that, so a person sees the app
start instead of nothing. It needs only QtGui/QtWidgets.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QFrame, QLabel, QVBoxLayout, QWidget

SIZE = (460, 160)


def splash_pixmap(icon: QIcon) -> QPixmap:
    """The splash's picture: the app icon and name on a calm background."""
    w, h = SIZE
    pixmap = QPixmap(w, h)
    pixmap.fill(QColor(250, 250, 252))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
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


class StartSplash(QWidget):
    """The splash with a status line at the bottom (`say`), painted at once.

    A plain frameless window rather than QSplashScreen: that one waits up to a second
    for the window manager to expose it, which is the delay the splash is for."""

    def __init__(self, icon: QIcon) -> None:
        flags = Qt.WindowType.SplashScreen | Qt.WindowType.FramelessWindowHint
        super().__init__(None, flags | Qt.WindowType.WindowStaysOnTopHint)
        self.setObjectName("start_splash")
        # not the app's name alone (Qt's default title): that one is the main window's
        self.setWindowTitle("Starting ReasonScope")
        self.text = ""
        frame = QFrame()
        frame.setObjectName("splash_frame")
        frame.setStyleSheet("#splash_frame { background: #fafafc; border: 1px solid #d2d6de; }")
        picture = QLabel()
        picture.setPixmap(splash_pixmap(icon))
        self.status = QLabel()
        self.status.setStyleSheet("color: #3c4250; padding: 0px 28px 14px;")
        inner = QVBoxLayout(frame)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.setSpacing(0)
        inner.addWidget(picture)
        inner.addWidget(self.status)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(frame)
        screen = QApplication.primaryScreen()
        if screen is not None:
            self.adjustSize()
            centre = screen.availableGeometry().center()
            self.move(centre.x() - self.width() // 2, centre.y() - self.height() // 2)

    def say(self, text: str) -> None:
        """Show what is happening now and paint it before the next slow step."""
        self.text = text
        self.status.setText(text)
        self.repaint()
        QApplication.processEvents()

    def finish(self, window: QWidget) -> None:
        """The main window is up: the splash goes."""
        self.close()
