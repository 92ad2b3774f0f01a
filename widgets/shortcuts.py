"""The keyboard-shortcut sheet, generated from the window's real actions."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)


@dataclass(frozen=True)
class ShortcutRow:
    group: str
    action: str
    keys: str


def shortcut_rows(actions: list[tuple[str, QAction]]) -> list[ShortcutRow]:
    """One row per (group, action) that has a shortcut, in native key notation."""
    rows = []
    for group, action in actions:
        keys = [s.toString(QKeySequence.SequenceFormat.NativeText) for s in action.shortcuts()]
        keys = [k for k in keys if k]
        if keys:
            rows.append(ShortcutRow(group, action.text().replace("&", ""), ", ".join(keys)))
    return rows


class ShortcutSheet(QDialog):
    def __init__(self, rows: list[ShortcutRow], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.setObjectName("shortcut_sheet")
        self.table = QTableWidget(len(rows), 3)
        self.table.setHorizontalHeaderLabels(["Where", "Action", "Keys"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        for r, row in enumerate(rows):
            for c, text in enumerate((row.group, row.action, row.keys)):
                self.table.setItem(r, c, QTableWidgetItem(text))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(520, 420)
