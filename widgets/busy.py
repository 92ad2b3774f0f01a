"""A view's stand-in while its content is being made (a scene restored, a frame loaded):
it says what is coming, where the content will be, so nothing stale or blank is shown."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def busy_page(name: str) -> QLabel:
    """A dark page with centred text (set it with `setText`), the viewport's colours."""
    page = QLabel()
    page.setObjectName(name)
    page.setAlignment(Qt.AlignmentFlag.AlignCenter)
    page.setWordWrap(True)
    page.setStyleSheet("background: #2a2d33; color: #e8e8e8; font-size: 15px; padding: 24px;")
    return page
