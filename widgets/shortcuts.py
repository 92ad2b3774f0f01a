"""The keyboard-shortcut sheet, generated from the window's real actions.

The mode on screen comes first, under a heading that names it; then the menus, which work in
every mode; then each other mode. Typing in the filter box keeps the rows whose action, keys
or place contain the text.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QFont, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

MENUS = ("File", "Mode", "View", "Help")  # the window's menus, which work in every mode
HEADING = "heading"  # Qt.UserRole of a heading row's cells


@dataclass(frozen=True)
class ShortcutRow:
    group: str
    action: str
    keys: str

    def matches(self, text: str) -> bool:
        """Whether the filter `text` is in the action, its keys or its place (any case)."""
        wanted = text.strip().casefold()
        return not wanted or any(
            wanted in part.casefold() for part in (self.action, self.keys, self.group)
        )


def shortcut_rows(actions: list[tuple[str, QAction]]) -> list[ShortcutRow]:
    """One row per (group, action) that has a shortcut, in native key notation."""
    rows = []
    for group, action in actions:
        keys = [s.toString(QKeySequence.SequenceFormat.NativeText) for s in action.shortcuts()]
        keys = [k for k in keys if k]
        if keys:
            rows.append(ShortcutRow(group, action.text().replace("&", ""), ", ".join(keys)))
    return rows


def sections(
    rows: list[ShortcutRow], current: str | None
) -> list[tuple[str, str | None, list[ShortcutRow]]]:
    """(heading, the group it stands for, rows) in the sheet's order: the current mode (even
    without keys of its own), the menus, then every other mode in the order their keys come."""
    groups: dict[str, list[ShortcutRow]] = {}
    for row in rows:
        groups.setdefault(row.group, []).append(row)
    menus = [r for name in MENUS for r in groups.pop(name, [])]
    order: list[tuple[str, str | None, list[ShortcutRow]]] = []
    if current is not None:
        mine = groups.pop(current, [])
        heading = f"{current} (this mode)" if mine else f"{current}: no keys of its own"
        order.append((heading, current, mine))
    if menus:
        order.append(("Menus, in every mode", None, menus))
    order.extend((group, group, section) for group, section in groups.items())
    return order


class ShortcutSheet(QDialog):
    """Every key of the window, the current mode's first; a filter box narrows the rows."""

    def __init__(
        self,
        rows: list[ShortcutRow],
        parent: QWidget | None = None,
        *,
        current: str | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.setObjectName("shortcut_sheet")
        self.current = current
        self.filter = QLineEdit()
        self.filter.setObjectName("shortcut_filter")
        self.filter.setPlaceholderText("Filter by action or key, e.g. 'undo' or 'ctrl+z'")
        self.filter.setClearButtonEnabled(True)
        self.no_match = QLabel()
        self.no_match.setObjectName("shortcut_no_match")
        self.no_match.hide()
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Where", "Action", "Keys"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 10)
        self.rows: list[ShortcutRow | None] = []  # per table row; None for a heading
        self.headings: dict[int, int] = {}  # heading row: how many rows its section has
        for heading, group, section in sections(rows, self.current):
            self._add_heading(heading, len(section))
            for row in section:  # a mode's rows need not repeat its name; a menu's say which
                self._add_row(row, place="" if row.group == group else row.group)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the action's words
        self.filter.textChanged.connect(self.apply_filter)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter)
        layout.addWidget(self.table)
        layout.addWidget(self.no_match)
        layout.addWidget(buttons)
        self.filter.setFocus()
        self.resize(600, 560)

    def _add_heading(self, text: str, size: int) -> None:
        r = self.table.rowCount()
        self.table.insertRow(r)
        for c in range(3):  # every cell exists, so that each row reads the same way
            item = QTableWidgetItem(text if c == 0 else "")
            item.setData(Qt.ItemDataRole.UserRole, HEADING)
            self.table.setItem(r, c, item)
        font = QFont(self.table.font())
        font.setBold(True)
        self.table.item(r, 0).setFont(font)
        shade = self.palette().brush(QPalette.ColorRole.AlternateBase)
        for c in range(3):
            self.table.item(r, c).setBackground(shade)
        self.table.setSpan(r, 0, 1, 3)
        self.rows.append(None)
        self.headings[r] = size

    def _add_row(self, row: ShortcutRow, *, place: str) -> None:
        r = self.table.rowCount()
        self.table.insertRow(r)
        for c, text in enumerate((place, row.action, row.keys)):
            self.table.setItem(r, c, QTableWidgetItem(text))
        self.rows.append(row)

    def apply_filter(self, text: str) -> None:
        """Show the rows matching `text`, and the headings of the sections that have any
        (a mode without keys keeps its heading until something is typed)."""
        shown: dict[int, int] = {}
        heading = -1
        for r, row in enumerate(self.rows):
            if row is None:
                heading, shown[r] = r, 0
                continue
            visible = row.matches(text)
            self.table.setRowHidden(r, not visible)
            shown[heading] += visible
        filtering = bool(text.strip())
        for r, size in self.headings.items():
            self.table.setRowHidden(r, not shown[r] and (filtering or size > 0))
        matched = sum(shown.values())
        self.no_match.setText(f"No action or key matches “{text.strip()}”." if not matched else "")
        self.no_match.setVisible(filtering and not matched)

    def visible_rows(self) -> list[ShortcutRow]:
        """The rows shown (headings left out), top to bottom."""
        return [row for r, row in enumerate(self.rows) if row and not self.table.isRowHidden(r)]

    def visible_headings(self) -> list[str]:
        """The section headings shown, top to bottom."""
        return [
            self.table.item(r, 0).text() for r in self.headings if not self.table.isRowHidden(r)
        ]
