"""What every Results page builds its tables from: cells, tables, a scrolling page."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
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


def fit_table_height(table: QTableWidget, margin: int = 6) -> None:
    """Make a table exactly as tall as its rows (the page scrolls, not the table)."""
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    table.setFixedHeight(rows + table.horizontalHeader().height() + margin)


def settings_label() -> QLabel:
    """A footnote under a results table saying how its numbers were computed."""
    label = QLabel(wordWrap=True)
    label.setObjectName("settings_note")
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet("color: palette(placeholder-text); font-size: 11px;")
    return label


def settings_text(settings: dict | None) -> str:
    """The `settings` object of a metric as a footnote: "Computed with: key: value; ..."."""
    if not settings:
        return ""
    parts = [f"{key.replace('_', ' ')}: {value}" for key, value in settings.items()]
    return "Computed with: " + "; ".join(parts) + "."
