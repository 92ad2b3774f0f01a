"""Dual-arm results: success per task and model, and what went wrong, by the error categories
of the dual-arm benchmark's analysis (papers/003, appendix D).

Shows the `bimanual` dict of `reasonscope metrics --json` (built by
`annotation.bimanual.metrics.bimanual_metrics`); it never reads the project itself.
The page keeps a slot, below the tables, for the spatial-grounding scores
(`set_spatial_widget`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout, QWidget

from annotation.bimanual.metrics import BIMANUAL_ERROR_KINDS, error_key
from annotation.metric_text import settings_text
from widgets.results.bimanual_paper import PaperTablesView
from widgets.results.models import ModelsTable
from widgets.results.plots import BarPlot
from widgets.results.table import Cell, average, cell_table, fill_table, scrolling_page

SCRIPTED = ("reference",)  # scripted plans, not models: set apart like a baseline
# bar colours by top category (Okabe-Ito, told apart with colour-vision deficiencies)
CATEGORY_COLOURS = {
    "environment": ("Environment", QColor(150, 150, 150)),
    "perceptual_reasoning": ("Perceptual reasoning", QColor(0, 114, 178)),
    "strategic_planning": ("Strategic planning", QColor(230, 159, 0)),
    "format": ("Format (labelled)", QColor(213, 94, 0)),
}
AUTOMATIC_COLOUR = QColor(204, 121, 167)
SHORT_LABELS = {
    "execution_flaw": "Execution\nflaw",
    "scene_randomization": "Scene\nrandom-\nization",
    "state_estimation": "State\nestimation",
    "end_effector_allocation": "End-effector\nallocation",
    "physical_attribute": "Physical\nattribute",
    "action_sequencing": "Action\nsequencing",
    "bimanual_conflict": "Bimanual\nconflict",
    "action_parameters": "Action\nparameters",
    "format": "Format\n(labelled)",
}
AUTOMATIC_LABEL = "Format errors\n(automatic)"
EMPTY_TEXT = (
    "No dual-arm episodes yet. Import evaluation logs with <code>reasonscope import episodes "
    "PATH --format bimanibench</code> (or <code>--format embodiedbench</code>), or record "
    "runs in the dual-arm world with <code>reasonscope run-agent --benchmark bimanual</code>."
)
NO_ERRORS_TEXT = (
    "No error labels on dual-arm episodes yet: label the failed steps in Replay episodes "
    "(Error labels tab). Unreadable replies are counted on their own, as automatic format "
    "errors."
)


def rate_text(cell: dict[str, Any] | None) -> tuple[str, str]:
    """A success cell as shown ("50 (1/2)") and its tooltip."""
    if not cell or not cell["episodes"]:
        return "–", "no episodes"
    text = f"{100 * cell['rate']:.0f} ({cell['success']}/{cell['episodes']})"
    tip = f"{cell['success']} of {cell['episodes']} episodes succeeded"
    if cell.get("unknown"):
        tip += f"; {cell['unknown']} without a recorded outcome (counted as not succeeded)"
    return text, tip


class BimanualResultsView(QWidget):
    """The `bimanual` metrics: a success table and an error-category bar plot."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(wordWrap=True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.success_table = cell_table()
        self.success_table.setObjectName("bimanual_success")
        self.success_note = QLabel(wordWrap=True)
        success_box = QGroupBox("Success rate (%) per task and model: successes / episodes")
        inner = QVBoxLayout(success_box)
        inner.addWidget(self.success_table)
        inner.addWidget(self.success_note)
        self.paper_tables = PaperTablesView()
        self.error_plot = BarPlot(
            "Error categories (ST-BiBench, appendix D)", "labelled steps", min_height=320
        )
        self.error_plot.set_legend_columns(3)  # five long names: three a row at most
        self.error_plot.getAxis("bottom").setHeight(60)  # up to three lines a label
        self.error_note = QLabel(wordWrap=True)
        errors_box = QGroupBox("What went wrong: labelled steps per error category")
        inner = QVBoxLayout(errors_box)
        inner.addWidget(self.error_plot)
        inner.addWidget(self.error_note)
        self.spatial_box = QWidget()  # the spatial-grounding scores go here
        self.spatial_slot = QVBoxLayout(self.spatial_box)
        self.spatial_slot.setContentsMargins(0, 0, 0, 0)
        self.spatial_widget: QWidget | None = None
        self.models = ModelsTable()
        self.sections = (success_box, self.models, self.paper_tables, errors_box)
        self.content = scrolling_page(self, self.summary, (*self.sections, self.spatial_box))
        self.error_counts: dict[str, int] = {}
        self.set_metrics(None)

    def set_spatial_widget(self, widget: QWidget | None) -> None:
        """Show `widget` (e.g. the spatial-grounding score table) below the error plot."""
        if self.spatial_widget is not None:
            self.spatial_slot.removeWidget(self.spatial_widget)
            self.spatial_widget.setParent(None)
        self.spatial_widget = widget
        if widget is not None:
            self.spatial_slot.addWidget(widget)

    # -- filling -----------------------------------------------------------------------------
    def set_metrics(self, m: dict[str, Any] | None) -> None:
        if not m or not m.get("episodes"):
            self.summary.setText("No project open." if m is None else EMPTY_TEXT)
            self.success_table.model().set_rows([])
            self.error_plot.draw([], [])
            self.error_counts = {}
            self.content.setVisible(bool(self.spatial_widget))
            for box in self.sections:
                box.setVisible(False)
            return
        self.content.show()
        for box in self.sections:
            box.setVisible(True)
        tasks, replays = m["tasks"], m.get("replays_in_sim", 0)
        models = [x for x in m["models"] if x not in SCRIPTED]
        scripted = len(m["models"]) - len(models)
        self.summary.setText(
            f"{m['episodes']} dual-arm episode{'s' * (m['episodes'] != 1)} of {len(models)} "
            f"model{'s' * (len(models) != 1)}"
            + (f" and {scripted} scripted plan{'s' * (scripted != 1)}" if scripted else "")
            + f" on {len(tasks)} task{'s' * (len(tasks) != 1)}; "
            f"{m['format_error_steps']} unreadable repl{'ies' if m['format_error_steps'] != 1 else 'y'}"
            + (
                f"; {replays} replay{'s' * (replays != 1)} in our simulator (not counted)."
                if replays
                else "."
            )
        )
        self._fill_success(m)
        self.models.set_rows(m.get("per_model"))
        self.paper_tables.set_tables(m.get("paper"))
        self._draw_errors(m)

    def _fill_success(self, m: dict[str, Any]) -> None:
        tasks = m["tasks"]
        rows = []
        for model in m["models"]:
            row = m["success_by_task"][model]
            scripted = model in SCRIPTED
            cells = [Cell(model + (" (scripted)" if scripted else ""), right=False)]
            for task in tasks:
                text, tip = rate_text(row.get(task))
                cells.append(Cell(text, tip=tip))
            average_of = m.get("average_by_model", {}).get(model, {})
            rate = average_of.get("rate")
            cells.append(
                average(
                    "–" if rate is None else f"{100 * rate:.0f}",
                    average_of.get("missing") or [],
                    "mean of every task's rate",
                    "episodes of {}",
                )
            )
            cells.append(
                Cell(
                    str(m["format_error_by_model"].get(model, 0)),
                    tip="steps whose reply could not be read",
                )
            )
            rows.append([replace(c, italic=True) for c in cells] if scripted else cells)
        fill_table(self.success_table, rows, ["Model", *tasks, "Average", "Format errors"])
        unknown = sum(
            c.get("unknown", 0) for row in m["success_by_task"].values() for c in row.values()
        )
        note = "A task's rate is the share of its episodes that ended in success."
        if unknown:
            note += f" {unknown} episode{'s' * (unknown != 1)} without a recorded outcome count"
            note += " as not succeeded."
        self.success_note.setText(note + " " + settings_text(m.get("settings")))

    def _draw_errors(self, m: dict[str, Any]) -> None:
        keys = [error_key(c, s) for c, s in BIMANUAL_ERROR_KINDS]
        labels = [SHORT_LABELS.get(k, k) for k in keys] + [AUTOMATIC_LABEL]
        series = []
        for category, (name, colour) in CATEGORY_COLOURS.items():
            values = [
                float(m["errors"].get(error_key(c, s), 0)) if c == category else None
                for c, s in BIMANUAL_ERROR_KINDS
            ]
            series.append((name, [*values, None], colour))
        automatic = [None] * len(keys) + [float(m["format_error_steps"])]
        series.append(("Format (automatic)", automatic, AUTOMATIC_COLOUR))
        self.error_counts = {**m["errors"], "format_error_steps": m["format_error_steps"]}
        self.error_plot.draw(labels, series, stacked=True)
        top = max([*m["errors"].values(), m["format_error_steps"]])
        axis = self.error_plot.getAxis("left")
        if top <= 8:
            axis.setTickSpacing(major=1, minor=1)  # counts: whole numbers
        else:
            axis.setTickSpacing()
        labelled = sum(m["errors"].values())
        other = sum(m.get("other_errors", {}).values())
        if not labelled:
            self.error_note.setText(NO_ERRORS_TEXT)
        else:
            text = (
                f"{labelled} labelled step{'s' * (labelled != 1)} (a step labelled with a "
                "category by two annotators counts once). Format errors (automatic) are the "
                "steps whose reply could not be read, whether or not anyone labelled them."
            )
            if other:
                text += f" {other} label{'s' * (other != 1)} of other kinds are not shown."
            self.error_note.setText(text)
