"""What every Results page builds its tables from: cells, tables, a scrolling page, and
wheel turns over a table or a plot that scroll the page."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)


def table_cell(text: str, *, right: bool = True, tip: str = "") -> QTableWidgetItem:
    """A results-table cell: numbers right-aligned, with an optional tooltip."""
    item = QTableWidgetItem(text)
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    if tip:
        item.setToolTip(tip)
    return item


def results_table(columns, *, alternating: bool = False) -> QTableWidget:
    """A read-only results table: the first column stretches, the others fit their text."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(alternating)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    if columns:
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    return table


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
        if isinstance(part, QTableWidget):
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


def _refit(table: QTableWidget, width: int | None = None) -> None:
    """The first column takes the room left, or shows its longest name whole and the
    table scrolls sideways when the columns do not fit; the height shows every row and
    the horizontal scroll bar when there is one."""
    header = table.horizontalHeader()
    shown = [c for c in range(table.columnCount()) if not table.isColumnHidden(c)]
    need = sum(max(table.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in shown)
    room = (table.width() if width is None else width) - 2 * table.frameWidth()
    wide = need > room
    if table.property("first_column_stretches") and table.columnCount():
        mode = QHeaderView.ResizeMode
        header.setSectionResizeMode(0, mode.ResizeToContents if wide else mode.Stretch)
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    bar = table.horizontalScrollBar().sizeHint().height() if wide else 0
    table.setFixedHeight(rows + header.height() + bar + table.property("fit_margin"))


def fit_table_height(table: QTableWidget, margin: int = 6) -> None:
    """Make a table exactly as tall as its rows (the page scrolls, not the table; wheel
    turns over it scroll the page), with a horizontal scroll bar when it is too wide."""
    header = table.horizontalHeader()
    if table.property("fit_margin") is None and table.columnCount():
        stretches = header.sectionResizeMode(0) == QHeaderView.ResizeMode.Stretch
        table.setProperty("first_column_stretches", stretches)
    table.setProperty("fit_margin", margin)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setHorizontalScrollMode(QTableWidget.ScrollMode.ScrollPerPixel)
    pass_wheel_to_page(table)
    _refit(table)


def settings_label() -> QLabel:
    """A footnote under a results table saying how its numbers were computed."""
    label = QLabel(wordWrap=True)
    label.setObjectName("settings_note")
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet("color: palette(placeholder-text); font-size: 11px;")
    return label


def average_cell(value: str, missing: Sequence[str], tip: str, lacking: str) -> QTableWidgetItem:
    """A row's Avg. cell: `value` (with `tip`), or "incomplete" when the row lacks columns,
    its tooltip saying which (`lacking` with "{}" where their names go)."""
    if missing:
        return table_cell("incomplete", tip="no average: no " + lacking.format(", ".join(missing)))
    return table_cell(value, tip=tip)
