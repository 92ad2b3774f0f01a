"""What every Results page builds its tables from: cells, tables, a scrolling page, and
wheel turns over a table or a plot that scroll the page.

A table is a `QTableView` over a `CellTableModel` holding rows of `Cell` (`cell_table`,
filled with `fill_table`): the rows are plain Python, the view keeps no copy of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from widgets.table_model import Index, RowTableModel

RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


@dataclass(frozen=True)
class Cell:
    """A cell of a `CellTableModel`: its text, right-aligned (numbers) or not, an optional
    tooltip, background shade, bold and italic, and a word saying what kind of row it is
    in (`Qt.UserRole`, e.g. "baseline"), for tests and accessibility."""

    text: str
    right: bool = True
    tip: str = ""
    shade: QColor | None = None
    bold: bool = False
    italic: bool = False
    mark: str = ""


def text_row(texts: Sequence[str]) -> list[Cell]:
    """A row of plain text: the first cell (the row's name) left-aligned, the rest right."""
    return [Cell(text, right=c > 0) for c, text in enumerate(texts)]


class CellTableModel(RowTableModel):
    """A read-only results table over rows of `Cell`; a column head is its title, or
    (title, tooltip)."""

    def __init__(self, columns: Sequence[str | tuple[str, str]] = (), parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[Sequence[Cell]] = []
        self.columns: list[tuple[str, str]] = _heads(columns)

    def row_list(self) -> list[Sequence[Cell]]:
        return self.rows

    def set_rows(
        self, rows: Sequence[Sequence[Cell]], columns: Sequence[str | tuple[str, str]] | None = None
    ) -> None:
        """Show these rows (and, if given, these column heads instead)."""
        self.beginResetModel()
        self.rows = list(rows)
        if columns is not None:
            self.columns = _heads(columns)
        self.endResetModel()

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.columns):
            return None
        title, tip = self.columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return title
        if role == Qt.ItemDataRole.ToolTipRole and tip:
            return tip
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        cell = self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return cell.text
        if role == Qt.ItemDataRole.ToolTipRole:
            return cell.tip or None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(RIGHT) if cell.right else None
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(cell.shade) if cell.shade is not None else None
        if role == Qt.ItemDataRole.FontRole and (cell.bold or cell.italic):
            font = QFont()  # only what the cell changes: the rest is the table's own font
            if cell.bold:
                font.setBold(True)
            if cell.italic:
                font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.UserRole:
            return cell.mark or None
        return None


def _heads(columns: Sequence[str | tuple[str, str]]) -> list[tuple[str, str]]:
    return [(c, "") if isinstance(c, str) else (c[0], c[1]) for c in columns]


def _read_only(table: QTableView, alternating: bool) -> None:
    """A results table's look: no row numbers, no editing; the first column stretches, the
    others fit their text."""
    table.verticalHeader().hide()
    table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(alternating)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    if table.model().columnCount():
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)


def cell_table(
    columns: Sequence[str | tuple[str, str]] = (), *, alternating: bool = False
) -> QTableView:
    """A read-only results table over a `CellTableModel` (its `model()`): the first column
    stretches, the others fit their text; fill it with `fill_table`."""
    table = QTableView()
    table.setModel(CellTableModel(columns, table))
    _read_only(table, alternating)
    return table


def fill_table(
    table: QTableView,
    rows: Sequence[Sequence[Cell]],
    columns: Sequence[str | tuple[str, str]] | None = None,
    *,
    margin: int = 6,
    first_stretches: bool = False,
) -> None:
    """Show `rows` in a `cell_table` (with new column heads if given), as tall as its rows.
    `first_stretches`: the first column takes the room left, as in a table made with its
    columns (a table made without any fits every column to its text)."""
    table.model().set_rows(rows, columns)
    if first_stretches and table.model().columnCount():
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    fit_table_height(table, margin=margin)


def scrolling_page(owner: QWidget, summary: QLabel, sections) -> QWidget:
    """Lay `owner` out as a results page: `summary` on top, then `sections` (widgets, or
    layouts) in a scrolling column; returns the column's widget."""
    content = QWidget()
    column = QVBoxLayout(content)
    column.setContentsMargins(24, 12, 24, 24)
    for section in sections:
        if isinstance(section, QWidget):
            column.addWidget(section)
        else:
            column.addLayout(section)
    column.addStretch(1)
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setWidget(content)
    layout = QVBoxLayout(owner)
    layout.setContentsMargins(0, 12, 0, 0)
    summary.setContentsMargins(24, 0, 24, 0)
    layout.addWidget(summary)
    layout.addWidget(scroll, 1)
    return content


def page_of(widget: QWidget) -> QScrollArea | None:
    """The scrolling page `widget` sits on, if any."""
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QScrollArea):
        parent = parent.parentWidget()
    return parent


class _PagePart(QObject):
    """On a plot or a table that is as tall as its rows: an up-or-down wheel turn scrolls the
    page it sits on (the part has nothing to scroll that way; a plot would otherwise take
    the turn over its axes), and a table is refitted when its width changes. A sideways
    turn stays the part's own."""

    def __init__(self, part: QAbstractScrollArea) -> None:
        super().__init__(part)
        self.part = part
        part.viewport().installEventFilter(self)
        if isinstance(part, QTableView):
            part.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        kind = event.type()
        if kind == QEvent.Type.Wheel and watched is self.part.viewport():
            delta = event.angleDelta()
            page = page_of(self.part)
            if page is None or abs(delta.x()) > abs(delta.y()):
                return False
            QApplication.sendEvent(page.verticalScrollBar(), event)
            return True
        if kind == QEvent.Type.Resize and watched is self.part:
            _refit(self.part, event.size().width())
        return False


def pass_wheel_to_page(part: QAbstractScrollArea) -> None:
    """Let up-or-down wheel turns over `part` (a plot, a fixed-height table) scroll the
    page it sits on."""
    if part.findChild(_PagePart, options=Qt.FindChildOption.FindDirectChildrenOnly) is None:
        _PagePart(part)


def _refit(table: QTableView, width: int | None = None) -> None:
    """The first column takes the room left, or shows its longest name whole and the
    table scrolls sideways when the columns do not fit; the height shows every row and
    the horizontal scroll bar when there is one."""
    header, model = table.horizontalHeader(), table.model()
    shown = [c for c in range(model.columnCount()) if not table.isColumnHidden(c)]
    need = sum(max(table.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in shown)
    room = (table.width() if width is None else width) - 2 * table.frameWidth()
    wide = need > room
    if table.property("first_column_stretches") and model.columnCount():
        mode = QHeaderView.ResizeMode
        header.setSectionResizeMode(0, mode.ResizeToContents if wide else mode.Stretch)
    rows = sum(table.rowHeight(r) for r in range(model.rowCount()))
    bar = table.horizontalScrollBar().sizeHint().height() if wide else 0
    table.setFixedHeight(rows + header.height() + bar + table.property("fit_margin"))


def fit_table_height(table: QTableView, margin: int = 6) -> None:
    """Make a table exactly as tall as its rows (the page scrolls, not the table; wheel
    turns over it scroll the page), with a horizontal scroll bar when it is too wide."""
    header = table.horizontalHeader()
    if table.property("fit_margin") is None and table.model().columnCount():
        stretches = header.sectionResizeMode(0) == QHeaderView.ResizeMode.Stretch
        table.setProperty("first_column_stretches", stretches)
    table.setProperty("fit_margin", margin)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setHorizontalScrollMode(QTableView.ScrollMode.ScrollPerPixel)
    pass_wheel_to_page(table)
    _refit(table)


def settings_label() -> QLabel:
    """A footnote under a results table saying how its numbers were computed."""
    label = QLabel(wordWrap=True)
    label.setObjectName("settings_note")
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet("color: palette(placeholder-text); font-size: 11px;")
    return label


def average(value: str, missing: Sequence[str], tip: str, lacking: str) -> Cell:
    """A row's Avg. cell: `value` (with `tip`), or "incomplete" when the row lacks columns,
    its tooltip saying which (`lacking` with "{}" where their names go)."""
    if missing:
        return Cell("incomplete", tip="no average: no " + lacking.format(", ".join(missing)))
    return Cell(value, tip=tip)
