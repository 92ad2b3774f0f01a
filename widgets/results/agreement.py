"""Verifier agreement at a glance: kappa, percent agreement and disagreements, and the backlog."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGroupBox,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

ROWS = (
    ("decision", "Decision (approve / correct / reject)"),
    ("unambiguous", "Wording, options and answer unambiguous"),
    ("evidence_withheld", "First view withholds the evidence"),
    ("evidence_recoverable", "Clearing clutter reveals it"),
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


def kappa_words(kappa: float | None) -> str:
    """Landis and Koch's reading of a kappa value."""
    if kappa is None:
        return "no pairs yet"
    for limit, words in (
        (0.0, "poor"),
        (0.2, "slight"),
        (0.4, "fair"),
        (0.6, "moderate"),
        (0.8, "substantial"),
    ):
        if kappa <= limit:
            return words
    return "almost perfect"


class AgreementView(QWidget):
    """Shows the `verification` metrics dict of `reasonscope metrics`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(wordWrap=True)
        self.table = QTableWidget(len(ROWS), 4)
        self.table.setHorizontalHeaderLabels(["", "Cohen's kappa", "Agreement", "Disagreements"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.setAlternatingRowColors(True)
        self.status = QLabel(wordWrap=True)
        box = QGroupBox("Question verification: agreement between the two verifiers")
        inner = QVBoxLayout(box)
        inner.addWidget(self.summary)
        inner.addWidget(self.table)
        inner.addWidget(self.status)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        layout.addWidget(box)
        layout.addStretch(1)

    def set_metrics(self, v: dict[str, Any] | None) -> None:
        if not v:
            self.summary.setText("No project open.")
            self.table.clearContents()
            self.status.setText("")
            return
        n = v.get("n", 0)
        self.summary.setText(
            f"{n} question{'s' if n != 1 else ''} verified by two annotators."
            + ("" if n else " Agreement appears once both verifiers of a question have submitted.")
        )
        for r, (key, title) in enumerate(ROWS):
            m = v["decision"] if key == "decision" else v["criteria"][key]
            kappa = m.get("kappa")
            pct = m.get("percent_agreement")
            cells = (
                title,
                "n/a" if kappa is None else f"{kappa:.2f} ({kappa_words(kappa)})",
                "n/a" if pct is None else f"{pct:.0f} %",
                str(m.get("disagreements", 0)),
            )
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.table.setItem(r, c, item)
        rows_height = sum(self.table.rowHeight(r) for r in range(self.table.rowCount()))
        self.table.setFixedHeight(rows_height + self.table.horizontalHeader().height() + 4)
        counts = v.get("status_counts", {})
        time_on_task = v.get("time_on_task", {})
        median = time_on_task.get("median_s")
        self.status.setText(
            "Questions: "
            + ", ".join(
                f"{counts.get(k, 0)} {k}" for k in ("approved", "corrected", "excluded", "pending")
            )
            + f". Waiting for a third annotator: {v.get('adjudication_pending', 0)}."
            + (f" Median time per verdict: {median:.0f} s." if median else "")
        )
