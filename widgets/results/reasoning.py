"""JRDB-Reasoning results: accuracy by difficulty level, step-by-step curves, rating study.

Shows the `reasoning` dict of `reasonscope metrics --json`
(app.jobs.metrics.project_reasoning_metrics); it never reads the project itself. The
tables follow the paper's Tables 2-4 (models, then a "Human eval" row, by D1 / D2 / D3)
and its Figure 5 (accuracy after each intermediate step); the definitions are in
docs/jrdb-questions.md, "Evaluation".
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from annotation.metric_text import settings_text
from widgets.results.models import ModelsTable
from widgets.results.plots import ResultsPlot
from widgets.results.table import Cell, cell_table, fill_table, scrolling_page, settings_label

HUMAN_ROW = "Human eval"
HUMAN_TIP = "mean of the annotators who answered, as the paper's rows"
TASK_TITLES = {
    "vg": "Visual grounding (VG): a box is correct when IoU > 0.5",
    "vqa-wh": "VQA, what / which / who: accuracy",
    "vqa-count": "VQA, how many: accuracy",
}
LEVEL_COLUMNS = ("D1", "D2", "D3", "other")
# Okabe-Ito: told apart with the common colour-vision deficiencies.
LINE_COLOURS = (
    QColor(0, 114, 178),
    QColor(230, 159, 0),
    QColor(0, 158, 115),
    QColor(204, 121, 167),
    QColor(86, 180, 233),
    QColor(213, 94, 0),
    QColor(240, 228, 66),
    QColor(0, 0, 0),
)
EMPTY_TEXT = (
    "No JRDB-Reasoning results yet. Import a model's answers with <code>reasonscope import "
    "predictions FILE.jsonl --model NAME --db PROJECT</code> (one JSON object a line, see "
    "docs/jrdb-questions.md); difficulty ratings and human-baseline answers appear here as "
    "annotators give them."
)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def cell_text(cell: dict[str, Any], *, boxes: bool) -> tuple[str, str]:
    """A level cell as shown ("49.9", with mean IoU for VG) and its tooltip."""
    if not cell["n"]:
        return "–", "no answers at this level"
    text = _pct(cell["accuracy_pct"])
    if boxes and cell.get("mean_iou") is not None:
        text += f"  (IoU {cell['mean_iou']:.2f})"
    tip = f"{cell['correct']} of {cell['n']} correct"
    if "annotators" in cell:
        tip += f"; mean of {cell['annotators']} annotator{'s' * (cell['annotators'] != 1)}"
    return text, tip


def task_title(benchmark: str, task: str) -> str:
    title = TASK_TITLES.get(task, f"Task {task}")
    return title if benchmark == "jrdb" else f"{benchmark}: {title}"


class StepPlot(ResultsPlot):
    """Accuracy (%) after each intermediate step, one line per model; the legend below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(None, "accuracy (%)", parent, min_height=280)
        self.setLabel("bottom", "step")
        self.lines: dict[str, pg.PlotDataItem] = {}

    def draw(self, curves: list[tuple[str, list[dict[str, Any]]]]) -> None:
        """`curves`: (model, [{"step", "accuracy_pct", "n"}, ...]) per line."""
        self.clear()
        self.legend.clear()
        self.lines = {}
        longest = 1
        for k, (model, curve) in enumerate(curves):
            colour = LINE_COLOURS[k % len(LINE_COLOURS)]
            xs = [p["step"] for p in curve]
            ys = [p["accuracy_pct"] for p in curve]
            longest = max(longest, len(xs))
            self.lines[model] = self.plot(
                xs,
                ys,
                pen=pg.mkPen(colour, width=2),
                symbol="o",
                symbolSize=7,
                symbolBrush=colour,
                symbolPen=None,
            )
            self.legend.addItem(self.lines[model], model)
        self.getAxis("bottom").setTicks([[(k, str(k)) for k in range(1, longest + 1)]])
        self.setXRange(0.8, longest + 0.2, padding=0)
        self.setYRange(0, 100, padding=0.03)
        self.refit()


class ReasoningResultsView(QWidget):
    """Level tables per task, step curves and the rating study; `set_metrics(None)` clears."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._metrics: dict[str, Any] | None = None
        self.summary = QLabel(wordWrap=True)
        self.summary.setObjectName("reasoning_results_summary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.level_tables: dict[tuple[str, str], QTableView] = {}

        self.levels_box = QGroupBox("Accuracy (%) by difficulty level")
        self.levels_layout = QVBoxLayout(self.levels_box)
        self.levels_note = QLabel(wordWrap=True)
        self.levels_note.setStyleSheet("color: #555")
        self.levels_note.setText(
            "D1: S = 1, R = 0, T = 1 (one person or object, no relation). D2: S = 2, "
            "R ≥ 1, T = 1. D3: S = 3, R ≥ 2, T = 1. Other: anything else, e.g. video "
            "questions. Human eval is the mean of the annotators' own accuracies, each "
            "answering without seeing the answer."
        )

        self.settings = settings_label()
        self.steps_box = QGroupBox("Step-by-step accuracy")
        self.step_task = QComboBox()
        self.step_task.setObjectName("reasoning_step_task")
        self.step_level = QComboBox()
        self.step_level.setObjectName("reasoning_step_level")
        self.step_plot = StepPlot()
        self.steps_note = QLabel(wordWrap=True)
        self.steps_note.setStyleSheet("color: #555")
        pickers = QHBoxLayout()
        pickers.addWidget(QLabel("Task"))
        pickers.addWidget(self.step_task)
        pickers.addWidget(QLabel("Level"))
        pickers.addWidget(self.step_level)
        pickers.addStretch(1)
        inner = QVBoxLayout(self.steps_box)
        inner.addLayout(pickers)
        inner.addWidget(self.step_plot)
        inner.addWidget(self.steps_note)
        self.step_task.currentIndexChanged.connect(self._draw_steps)
        self.step_level.currentIndexChanged.connect(self._draw_steps)

        self.ratings_box = QGroupBox("Rated difficulty vs computed D (Spearman)")
        self.spearman_table = cell_table(
            ["Task", "Benchmark", "Questions (n)", "Ratings", "Annotators", "rho", "In words"],
            alternating=True,
        )
        self.spearman_table.setObjectName("reasoning_spearman_table")
        self.ratings_note = QLabel(wordWrap=True)
        self.ratings_note.setStyleSheet("color: #555")
        inner = QVBoxLayout(self.ratings_box)
        inner.addWidget(self.spearman_table)
        inner.addWidget(self.ratings_note)

        self.models = ModelsTable("Models: questions, correct, latency and tokens", "question")
        boxes = (self.levels_box, self.models, self.steps_box, self.ratings_box)
        self.content = scrolling_page(self, self.summary, boxes)
        self.set_metrics(None)

    # -- filling ---------------------------------------------------------------------------
    def set_metrics(self, m: dict[str, Any] | None) -> None:
        self._metrics = m
        counts = (m or {}).get("counts", {})
        if not m or not any(counts.get(k) for k in ("predictions", "human_answers", "ratings")):
            self.summary.setText("No project open." if m is None else EMPTY_TEXT)
            self.content.hide()
            self._fill_levels([])
            self.spearman_table.model().set_rows([])
            self._fill_step_pickers([])
            self.models.set_rows(None)
            return
        self.content.show()
        stale = counts["stale_predictions"] + counts["stale_human_answers"]
        self.summary.setText(
            f"{counts['predictions']} predictions from {len(m['models'])} "
            f"model{'s' * (len(m['models']) != 1)}, {counts['human_answers']} human-baseline "
            f"answers, {counts['ratings']} difficulty ratings."
            + (
                f" {stale} scores belong to questions corrected since; import or answer "
                "again to score them against the correction."
                if stale
                else ""
            )
        )
        self.settings.setText(settings_text(m.get("settings")))
        self._fill_levels(m["accuracy"] + m["human"])
        self._fill_spearman(m["spearman"])
        self._fill_step_pickers(m["steps"])
        self.models.set_rows(m.get("per_model"))

    def _fill_levels(self, rows: list[dict[str, Any]]) -> None:
        for table in self.level_tables.values():
            self.levels_layout.removeWidget(table.parentWidget())
            table.parentWidget().deleteLater()
        self.levels_layout.removeWidget(self.levels_note)
        self.levels_layout.removeWidget(self.settings)
        self.level_tables = {}
        # one table per task and modality: image and video questions are never pooled
        kinds = sorted({(r["benchmark"], r["task"], r.get("modality", "image")) for r in rows})
        for benchmark, task, modality in kinds:
            group = [
                r
                for r in rows
                if (r["benchmark"], r["task"], r.get("modality", "image"))
                == (benchmark, task, modality)
            ]
            group.sort(key=lambda r: (r["model"] == "human", r["model"].lower()))
            self.levels_layout.addWidget(self._level_table(benchmark, task, group, modality))
        self.levels_layout.addWidget(self.levels_note)
        self.levels_layout.addWidget(self.settings)

    def _level_table(
        self, benchmark: str, task: str, rows: list[dict[str, Any]], modality: str = "image"
    ) -> QWidget:
        holder = QWidget()
        inner = QVBoxLayout(holder)
        inner.setContentsMargins(0, 6, 0, 6)
        on = "images" if modality == "image" else "videos"
        title = QLabel(f"{task_title(benchmark, task)} on {on}")
        font = QFont(title.font())
        font.setBold(True)
        title.setFont(font)
        table = cell_table(["Model", "n", "D1", "D2", "D3", "Other", "All"], alternating=True)
        suffix = "" if modality == "image" else f"_{modality}"
        table.setObjectName(f"reasoning_levels_{benchmark}_{task}{suffix}")
        boxes = task == "vg"
        cells = []
        for row in rows:
            human = row["model"] == "human"
            people = row["all"].get("annotators", 0)
            n_tip = f"answers from {people} annotator{'s' * (people != 1)}" if human else ""
            line = [
                Cell(HUMAN_ROW, right=False, tip=HUMAN_TIP, bold=True)
                if human
                else Cell(row["model"], right=False),
                Cell(str(row["all"]["n"]), tip=n_tip or "questions answered"),
            ]
            for key in (*LEVEL_COLUMNS, "all"):
                cell = row["all"] if key == "all" else row["levels"][key]
                text, tip = cell_text(cell, boxes=boxes)
                line.append(Cell(text, tip=tip))
            cells.append(line)
        other_used = any(row["levels"]["other"]["n"] for row in rows)
        table.setColumnHidden(5, not other_used)
        fill_table(table, cells)
        inner.addWidget(title)
        inner.addWidget(table)
        # keyed (benchmark, task) for images, (benchmark, task, "video") for videos
        key = (benchmark, task) if modality == "image" else (benchmark, task, modality)
        self.level_tables[key] = table
        return holder

    def _fill_spearman(self, rows: list[dict[str, Any]]) -> None:
        cells = []
        for row in rows:
            p = row["p"]
            rho = "–" if row["rho"] is None else f"{row['rho']:.2f}"
            cells.append(
                [
                    Cell("all tasks" if row["task"] == "all" else row["task"], right=False),
                    Cell(row["benchmark"], right=False),
                    Cell(str(row["n"])),
                    Cell(str(row["ratings"])),
                    Cell(str(row["annotators"])),
                    Cell(rho, tip="" if p is None else f"p = {p:.3g} (two-sided)"),
                    Cell(row["words"], right=False),
                ]
            )
        fill_table(self.spearman_table, cells)
        self.ratings_note.setText(
            "No difficulty ratings yet."
            if not rows
            else "Each question counts once, with the mean of its 1-5 ratings; rho is "
            "Spearman's rank correlation (ties share ranks) with the question's D = S + R + T, "
            "which the raters did not see."
        )

    def _fill_step_pickers(self, curves: list[dict[str, Any]]) -> None:
        tasks = sorted({c["task"] for c in curves})
        levels = [("all", "All levels"), *((lv, lv) for lv in LEVEL_COLUMNS)]
        self._refill(self.step_task, [(t, t) for t in tasks], default="vg")
        self._refill(self.step_level, levels, default="all")
        self.steps_box.setVisible(bool(curves))
        self._draw_steps()

    @staticmethod
    def _refill(combo: QComboBox, items: list[tuple[str, str]], *, default: str) -> None:
        """Replace a picker's items, keeping the person's choice when it is still there."""
        keep = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        for value, label in items:
            combo.addItem(label, value)
        index = combo.findData(keep)
        combo.setCurrentIndex(index if index >= 0 else max(combo.findData(default), 0))
        combo.blockSignals(False)

    def _draw_steps(self) -> None:
        curves = (self._metrics or {}).get("steps", [])
        task, level = self.step_task.currentData(), self.step_level.currentData()
        shown = [
            (c["model"], c["curve"]) for c in curves if c["task"] == task and c["level"] == level
        ]
        self.step_plot.draw(shown)
        self.steps_note.setText(
            "No model gave per-step answers for this task and level."
            if not shown
            else "Step k is correct when the model's entity set after step k matches the "
            "question's: boxes one-to-one with IoU > 0.5, or the entity count. n per step: "
            + "; ".join(f"{m} " + "/".join(str(p["n"]) for p in curve) for m, curve in shown)
        )
