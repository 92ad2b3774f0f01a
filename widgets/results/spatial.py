"""Foundational spatial grounding results: one row per model, the paper's Table layout.

Shows the dict of `app.jobs.spatial.spatial_metrics` (`project.spatial.summary()`); it
never reads the project itself. Columns: the Gaussian-weighted spatial score (0-100) in the
sparse, dense and cluttered settings, their mean (Avg., each setting weighing the same, as
in the paper) and the number of items scored. docs/spatial-grounding.md has the definitions.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from annotation.metric_text import settings_text
from widgets.results.table import Cell, average, cell_table, fill_table, settings_label

SETTINGS = ("sparse", "dense", "cluttered")
COLUMNS = ("Model", "Sparse", "Dense", "Cluttered", "Avg.", "Items")
EMPTY_TEXT = (
    "No spatial grounding results yet. Generate items with <code>reasonscope spatial "
    "generate --setting all --n N --seed S --out DIR</code>, run a model on DIR/items.jsonl, "
    "then import its replies with <code>reasonscope import spatial-predictions FILE.jsonl "
    "--model NAME</code> (docs/spatial-grounding.md)."
)


def score_text(score: float | None) -> str:
    """A score as shown: one decimal, or a dash when there is none."""
    return "–" if score is None else f"{score:.1f}"


class SpatialResultsTable(QWidget):
    """Spatial grounding scores per model and setting; `set_summary(None or {})` shows the
    empty state."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._summary: dict[str, Any] | None = None
        self.message = QLabel(wordWrap=True)
        self.message.setObjectName("spatial_results_message")
        self.message.setTextFormat(Qt.TextFormat.RichText)
        self.table = cell_table(COLUMNS, alternating=True)
        self.table.setObjectName("spatial_results_table")
        self.note = QLabel(wordWrap=True)
        self.note.setStyleSheet("color: #555")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.message)
        layout.addWidget(self.table)
        layout.addWidget(self.note)
        self.settings = settings_label()
        layout.addWidget(self.settings)
        layout.addStretch(1)
        self.set_summary(None)

    def set_summary(self, summary: dict[str, Any] | None) -> None:
        """Show `spatial_metrics(project)`: ``{"sigma", "by_model": {model: {...}}}``."""
        self._summary = summary
        by_model = (summary or {}).get("by_model") or {}
        if not by_model:
            self.message.setText(EMPTY_TEXT)
            self.message.show()
            self.table.model().set_rows([])
            self.table.hide()
            self.note.hide()
            self.settings.hide()
            return
        self.message.hide()
        self.table.show()
        self.note.show()
        self.settings.show()
        sigma = summary.get("sigma")
        models = sorted(by_model, key=str.lower)
        fill_table(self.table, [self._row(model, by_model[model]) for model in models])
        self.note.setText(
            "Gaussian-weighted spatial score, 0-100 per asked object: 100 for the arm on the "
            "object's side of the centreline, 100 exp(-x² / 2σ²) for the other arm, 0 when "
            f"the reply names no arm; σ = {sigma:g} m. Avg. is the mean of the three "
            "settings; a model without items in one is incomplete."
            if sigma is not None
            else "Gaussian-weighted spatial score, 0-100. Avg. is the mean of the settings."
        )
        self.settings.setText(settings_text(summary.get("settings")))

    @staticmethod
    def _row(model: str, row: dict[str, Any]) -> list[Cell]:
        cells = [Cell(model, right=False)]
        counts = []
        for setting in SETTINGS:
            cell = row.get(setting)
            if cell is None:
                cells.append(Cell("–", tip=f"no {setting} items scored"))
                continue
            n = cell["items"]
            counts.append(f"{n} {setting}")
            cells.append(Cell(score_text(cell["score"]), tip=f"mean of {n} item{'s' * (n != 1)}"))
        cells.append(
            average(
                score_text(row.get("average")),
                row.get("missing") or [],
                "mean of the three settings (Avg.)",
                "{} items",
            )
        )
        total = sum(row[s]["items"] for s in SETTINGS if s in row)
        cells.append(Cell(str(total), tip=", ".join(counts)))
        return cells

    def rows(self) -> list[list[str]]:
        """The table's cells as shown, row by row (for tests and copying)."""
        model = self.table.model()
        return [
            [model.index(r, c).data() for c in range(model.columnCount())]
            for r in range(model.rowCount())
        ]
