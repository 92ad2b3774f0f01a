"""The keyboard-shortcut sheet, generated from the window's real actions.

The mode on screen comes first, under a heading that names it; then the menus, which work in
every mode; then each other mode. Typing in the filter box keeps the rows whose action, keys
or place contain the text. The table is a view over a `ShortcutTableModel` of the sheet's
lines; filtering hides the view's rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QBrush, QFont, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from widgets.table_model import Index, RowTableModel

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


@dataclass(frozen=True)
class SheetLine:
    """A line of the sheet: a heading (no `row`; `where` its words, `size` how many rows its
    section has) or a shortcut row, `where` its place ("" when its heading names it)."""

    where: str
    row: ShortcutRow | None = None
    size: int = 0


def sheet_lines(rows: list[ShortcutRow], current: str | None) -> list[SheetLine]:
    """The sheet's lines: each section's heading, then its rows (see `sections`)."""
    lines = []
    for heading, group, section in sections(rows, current):
        lines.append(SheetLine(heading, size=len(section)))
        # a mode's rows need not repeat its name; a menu's say which
        lines += [SheetLine("" if row.group == group else row.group, row) for row in section]
    return lines


class ShortcutTableModel(RowTableModel):
    """The sheet's lines as a read-only table (Where, Action, Keys). A heading's cells are
    shaded with `shade` and carry HEADING in Qt.UserRole; its words, bold, are in the first
    (the view spans it across the row)."""

    HEADERS = ("Where", "Action", "Keys")

    def __init__(self, lines: list[SheetLine], shade: QBrush, parent: Any = None) -> None:
        super().__init__(parent)
        self.lines = lines
        self.shade = shade

    def row_list(self) -> list[SheetLine]:
        return self.lines

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        line, column = self.lines[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if line.row is None:
                return line.where if column == 0 else ""
            return (line.where, line.row.action, line.row.keys)[column]
        if line.row is not None:
            return None
        if role == Qt.ItemDataRole.UserRole:
            return HEADING
        if role == Qt.ItemDataRole.BackgroundRole:
            return self.shade
        if role == Qt.ItemDataRole.FontRole and column == 0:
            font = QFont()
            font.setBold(True)
            return font
        return None


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
        shade = self.palette().brush(QPalette.ColorRole.AlternateBase)
        self.model = ShortcutTableModel(sheet_lines(rows, self.current), shade, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 10)
        for r in self.headings:
            self.table.setSpan(r, 0, 1, 3)
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

    @property
    def rows(self) -> list[ShortcutRow | None]:
        """The shortcut of each table row; None for a heading."""
        return [line.row for line in self.model.lines]

    @property
    def headings(self) -> dict[int, int]:
        """Heading row: how many rows its section has."""
        return {r: line.size for r, line in enumerate(self.model.lines) if line.row is None}

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
            self.model.index(r, 0).data() for r in self.headings if not self.table.isRowHidden(r)
        ]
