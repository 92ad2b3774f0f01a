"""Results > Paper tables: any results table laid out as a paper prints it, on screen.

The same tables `reasonscope metrics --table NAME` writes as CSV or LaTeX (MG-VQA Tables
2-4, ST-BiBench Tables 1, 3, 4 and Figure 3, the episodes table, ...): pick one, read its
rows and the notes saying how it was computed. The view is handed each table as plain
data (title, columns, rows of text, notes); whoever hosts it builds them from the
project's metrics when `chosen(name)` fires or the data changes.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from widgets.results.table import Cell, cell_table, fill_table, scrolling_page, settings_label


class PaperTablesView(QWidget):
    """A choice of tables and the chosen one; emits `chosen(name)` when another is picked."""

    chosen = Signal(str)

    def __init__(self, tables: Sequence[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choice = QComboBox()
        self.choice.setObjectName("paper_table_choice")
        for name, title in tables:
            self.choice.addItem(title, name)
        self.choice.currentIndexChanged.connect(lambda _i: self.chosen.emit(self.name))
        self.title = QLabel()
        self.title.setObjectName("paper_table_title")
        self.table = cell_table(alternating=True)
        self.table.setObjectName("paper_table")
        self.notes = settings_label()
        top = QHBoxLayout()
        top.addWidget(QLabel("Table:"))
        top.addWidget(self.choice)
        top.addStretch(1)
        summary = QLabel(
            "Each table as the papers lay it out, from this project's episodes and labels; "
            "Export saves it as CSV or LaTeX."
        )
        summary.setWordWrap(True)
        scrolling_page(self, summary, [top, self.title, self.table, self.notes])

    @property
    def name(self) -> str:
        return str(self.choice.currentData() or "")

    def show_table(
        self,
        title: str,
        columns: Sequence[str],
        rows: Sequence[Sequence[str]],
        notes: Sequence[str],
    ) -> None:
        """Show one table: numbers right-aligned, the first column (who) left."""
        self.title.setText(f"<b>{title}</b>")
        cells = [
            [Cell(text, right=k > 0 and _numeric(text)) for k, text in enumerate(row)]
            for row in rows
        ]
        fill_table(self.table, cells, list(columns), first_stretches=True)
        self.notes.setText(" ".join(notes) if rows else "No rows yet. " + " ".join(notes))


def _numeric(text: str) -> bool:
    head = text.split(" ", 1)[0].replace(".", "", 1).replace("-", "", 1)
    return head.isdigit()
