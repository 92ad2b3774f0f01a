"""What a mode shows before it has data: what it is for and how data gets in."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget


class EmptyState(QWidget):
    """A calm, centred explanation; `set_status` updates the line about this project."""

    def __init__(
        self, *, title: str, purpose: str, how_to: str, icon: QIcon, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("empty_state")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 48, 48, 48)
        layout.setSpacing(14)
        layout.addStretch(2)

        self.icon_label = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.icon_label.setPixmap(icon.pixmap(72, 72))
        self.title_label = QLabel(title, alignment=Qt.AlignmentFlag.AlignCenter)
        font = self.title_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.title_label.setFont(font)
        self.purpose_label = QLabel(purpose, alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.status_label = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        status_font = self.status_label.font()
        status_font.setBold(True)
        self.status_label.setFont(status_font)
        self.how_to_label = QLabel(how_to, alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.how_to_label.setTextFormat(Qt.TextFormat.RichText)
        self.how_to_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Wrapped labels need a width to wrap to: a centred column of at most 640 px.
        column = QWidget()
        column.setMaximumWidth(640)
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(0, 0, 0, 0)
        column_layout.setSpacing(14)
        for w in (
            self.icon_label,
            self.title_label,
            self.purpose_label,
            self.status_label,
            self.how_to_label,
        ):
            column_layout.addWidget(w)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(column, 4)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(3)

    def set_status(self, text: str) -> None:
        self.status_label.setText(text)
