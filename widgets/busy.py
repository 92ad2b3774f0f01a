"""A view's stand-in while its content is being made (a scene restored, a frame loaded,
a whole mode built): it says what is coming, where the content will be, so nothing stale
or blank is shown."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QWidget

STYLE = "background: #2a2d33; color: #e8e8e8; font-size: 15px; padding: 24px;"


def busy_page(name: str) -> QLabel:
    """A dark page with centred text (set it with `setText`), the viewport's colours."""
    page = QLabel()
    page.setObjectName(name)
    page.setAlignment(Qt.AlignmentFlag.AlignCenter)
    page.setWordWrap(True)
    page.setStyleSheet(STYLE)
    return page


class OpeningPage(QLabel):
    """A busy page that says when it is on screen: `painted` is emitted once, from the
    event loop, after its first paint, so slow work that blocks the GUI thread (building
    a mode) starts only once the person can read what is coming."""

    painted = Signal()

    def __init__(self, name: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setObjectName(name)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setStyleSheet(STYLE)
        self.was_painted = False

    def paintEvent(self, event) -> None:  # noqa: N802
        super().paintEvent(event)
        if not self.was_painted:
            self.was_painted = True
            # after this paint is flushed to the screen, not from inside it
            QTimer.singleShot(0, self.painted.emit)
