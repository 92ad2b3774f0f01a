"""Episode results: success per task and mode, manipulation effort, failure patterns.

Shows the `episodes` dict of `reasonscope metrics --json` (built by
`annotation.tabletop.episode_metrics.episode_metrics`); it never reads the project itself.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from annotation.metric_text import settings_text
from widgets.results.models import ModelsTable
from widgets.results.plots import BarPlot
from widgets.results.table import (
    Cell,
    average,
    cell_table,
    fill_table,
    scrolling_page,
    settings_label,
)

MODE_COLOURS = {
    "direct": QColor(120, 144, 176),
    "perception": QColor(230, 159, 0),
    "manipulation": QColor(0, 158, 115),
}
OTHER_COLOURS = (QColor(204, 121, 167), QColor(86, 180, 233), QColor(213, 94, 0))
CHANCE_COLOUR = QColor(150, 150, 150)
BASELINE_BRUSH = QColor(128, 128, 128, 55)
BASELINE = "baseline"  # Qt.UserRole of a baseline row's cells
COUNT_SEGMENTS = (
    ("under", "Under", QColor(213, 94, 0)),
    ("exact", "Exact", QColor(0, 158, 115)),
    ("over", "Over", QColor(86, 180, 233)),
    ("no_number", "No number", QColor(150, 150, 150)),
)
RECOVERY_COLUMNS = (
    "Model / agent",
    "Mode",
    "Run",
    "N",
    "Push",
    "Grasp",
    "None (answered)",
    "Scene + seg.",
    "Seg. only",
    "No new seg.",
)
EMPTY_TEXT = (
    "No episodes yet. Import recorded runs with <code>reasonscope import episodes FILE "
    "--format reasonscope</code> (or <code>--format mgvqa</code> for tool-calling "
    "transcripts), or record them with <code>reasonscope run-agent</code>."
)


def percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def share(count: int, pct_value: float | None) -> str:
    return f"{count}" if pct_value is None else f"{count} ({pct_value:.0f} %)"


def row_label(row: dict[str, Any]) -> str:
    who = row["model"] if row["agent"] in ("", row["model"]) else f"{row['model']} / {row['agent']}"
    return who + (" (baseline)" if row["baseline"] else "")


def short_label(row: dict[str, Any]) -> str:
    return f"{row['model']}\n{row['mode'] or '-'}"


def mode_colour(mode: str, modes: list[str]) -> QColor:
    if mode in MODE_COLOURS:
        return MODE_COLOURS[mode]
    return OTHER_COLOURS[modes.index(mode) % len(OTHER_COLOURS)] if mode in modes else CHANCE_COLOUR


def success_row(row: dict[str, Any], tasks: list[str]) -> list[Cell]:
    """A row of the success table: who and how, each task's success, the average, the
    manipulation effort and format errors; a baseline's cells italic, shaded and marked."""
    manip = row["manipulation"]
    median = manip["median_calls"]
    cells = [
        Cell(row_label(row), right=False),
        Cell(row["mode"], right=False),
        Cell(row.get("run_label", ""), right=False, tip="the run's settings: rows never mix runs"),
        Cell(str(row["n"])),
    ]
    for t in tasks:
        s = row["success"][t]
        tip = f"{s['successes']} of {s['n']} episodes succeeded"
        cells.append(Cell(f"{percent(s['success_pct'])} ({s['n']})", tip=tip))
    cells += [
        average(
            percent(row["average_pct"]),
            row.get("missing_tasks") or [],
            "mean over all the tasks",
            "episodes of {}",
        ),
        Cell(
            "–" if manip["mean_calls"] is None else f"{manip['mean_calls']:.2f}",
            tip="" if median is None else f"median {median:g}",
        ),
        Cell(str(manip["acted_episodes"]), tip="episodes with a grasp or push"),
        Cell(str(row["format_error_steps"]), tip=f"of {row['steps']} steps"),
    ]
    if not row["baseline"]:
        return cells
    return [replace(c, italic=True, shade=BASELINE_BRUSH, mark=BASELINE) for c in cells]


class EpisodeResultsView(QWidget):
    """Tables and plots for the `episodes` metrics dict; `set_metrics(None)` clears them.
    Above them, a choice of questions (all, or those with a tag such as hard) emits
    `tag_changed(tag or None)`; whoever fills the page computes the metrics for it."""

    tag_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(wordWrap=True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.success_table = cell_table()
        self.recovery_table = cell_table(RECOVERY_COLUMNS)
        self.recovery_note = QLabel(wordWrap=True)
        self.format_errors = QLabel(wordWrap=True)
        self.settings = settings_label()
        self.task_plot = BarPlot("Success per task and mode (mean over models)", "success (%)")
        self.calls_plot = BarPlot("Manipulation calls per question", "grasp + push calls")
        self.find_plot = BarPlot("Find: object present vs absent", "success (%)")
        self.count_plot = BarPlot("Count: under, exact and over", "share of answers (%)")

        success_box = QGroupBox("Success rate (%) per task; average over all tasks")
        inner = QVBoxLayout(success_box)
        inner.addWidget(self.success_table)
        inner.addWidget(self.format_errors)
        inner.addWidget(self.settings)
        plots = QGridLayout()
        for i, plot in enumerate(
            (self.task_plot, self.calls_plot, self.find_plot, self.count_plot)
        ):
            plots.addWidget(plot, i // 2, i % 2)
        plots.setColumnStretch(0, 1)  # two plots of one width, whatever their contents
        plots.setColumnStretch(1, 1)
        recovery_box = QGroupBox("After the first failed grasp: next manipulation and re-grounding")
        inner = QVBoxLayout(recovery_box)
        inner.addWidget(self.recovery_table)
        inner.addWidget(self.recovery_note)

        self.models = ModelsTable()
        sections = (success_box, self.models, plots, recovery_box)
        self.content = scrolling_page(self, self.summary, sections)
        self.tag_box = QComboBox()
        self.tag_box.setObjectName("episodes_tag")
        self.tag_box.setToolTip(
            "Results on every question, or only on those with a tag "
            "(questions add --tag): a Hard table is one choice away"
        )
        self.tag_box.currentIndexChanged.connect(
            lambda _i: self.tag_changed.emit(self.tag_box.currentData())
        )
        self.tag_row = QWidget()
        row = QHBoxLayout(self.tag_row)
        row.setContentsMargins(24, 0, 24, 6)
        row.addWidget(QLabel("Questions"))
        row.addWidget(self.tag_box)
        row.addStretch(1)
        self.layout().insertWidget(0, self.tag_row)
        self.set_tags([], None)
        self.set_metrics(None)

    def set_tags(self, tags: list[str], current: str | None) -> None:
        """The tags to offer (the row hides when there are none), `current` chosen."""
        self.tag_box.blockSignals(True)
        self.tag_box.clear()
        self.tag_box.addItem("All questions", None)
        for tag in tags:
            self.tag_box.addItem(f"Tagged {tag}", tag)
        self.tag_box.setCurrentIndex(max(0, self.tag_box.findData(current)))
        self.tag_box.blockSignals(False)
        self.tag_row.setVisible(bool(tags))

    @property
    def selected_tag(self) -> str | None:
        return self.tag_box.currentData()

    # -- filling ---------------------------------------------------------------------------
    def set_metrics(self, m: dict[str, Any] | None) -> None:
        if not m or not m.get("rows"):
            self.summary.setText("No project open." if m is None else EMPTY_TEXT)
            self.content.hide()
            for table in (self.success_table, self.recovery_table):
                table.model().set_rows([])
            self.models.set_rows(None)
            for plot in (self.task_plot, self.calls_plot, self.find_plot, self.count_plot):
                plot.draw([], [])
            return
        self.content.show()
        rows = m["rows"]
        models = {r["model"] for r in rows if not r["baseline"]}
        self.summary.setText(
            f"{m['n']} episode{'s' if m['n'] != 1 else ''} from {len(models)} "
            f"model{'s' if len(models) != 1 else ''} in {len(m['modes'])} "
            f"mode{'s' if len(m['modes']) != 1 else ''}."
            + (" Baseline rows are shaded." if any(r["baseline"] for r in rows) else "")
        )
        self._fill_success(m)
        self.models.set_rows(m.get("per_model"))
        self._fill_recovery(rows)
        self._draw_plots(m)

    def _fill_success(self, m: dict[str, Any]) -> None:
        tasks = m["tasks"]
        columns = ["Model / agent", "Mode", "Run", "n", *[t.capitalize() for t in tasks], "Average"]
        columns += ["Manip. / q", "Acted", "Format errors"]
        rows = [success_row(row, tasks) for row in m["rows"]]
        fill_table(self.success_table, rows, columns, first_stretches=True)
        self.settings.setText("Cells: success % (episodes). " + settings_text(m.get("settings")))
        errors = m.get("format_errors", [])
        total = sum(e["format_error_steps"] for e in errors)
        worst = max(errors, key=lambda e: e["format_error_steps"], default=None)
        self.format_errors.setText(
            "No unreadable model replies."
            if not total
            else f"{total} unreadable replies recorded as format errors; most from "
            f"{worst['model']} ({worst['format_error_steps']} in "
            f"{worst['episodes_with_format_errors']} episodes)."
        )

    def _fill_recovery(self, rows: list[dict[str, Any]]) -> None:
        shown = [r for r in rows if r["recovery"]["failed_grasp_episodes"]]
        cells = []
        for row in shown:
            rec = row["recovery"]
            nxt, npct = rec["next"], rec["next_pct"]
            reg, rpct = rec["regrounding"], rec["regrounding_pct"]
            cells.append(
                [
                    Cell(row_label(row), right=False),
                    Cell(row["mode"], right=False),
                    Cell(row.get("run_label", ""), right=False),
                    Cell(str(rec["failed_grasp_episodes"])),
                    *[Cell(share(nxt[k], npct[k])) for k in ("push", "grasp", "none")],
                    *[
                        Cell(share(reg[k], rpct[k]))
                        for k in ("scene_and_seg", "seg_only", "no_seg")
                    ],
                ]
            )
        fill_table(self.recovery_table, cells)
        self.recovery_note.setText(
            "No failed grasps recorded."
            if not shown
            else "N: episodes with at least one failed grasp. Re-grounding shares are of "
            "the episodes that pushed next: a new perceive_scene before the find_object "
            "(scene + seg.), find_object on the old scene graph (seg. only), or a mask "
            "segmented before the failure (no new seg.)."
        )

    def _draw_plots(self, m: dict[str, Any]) -> None:
        tasks, rows, modes = m["tasks"], m["rows"], m["modes"]
        labels = [t.capitalize() for t in tasks] + ["Average"]
        series = []
        for key, means in m["mode_means"].items():  # "mode" or "mode, run" (several runs)
            mode = key.split(",", 1)[0]
            if any(means.get(t) is not None for t in tasks):
                values = [means.get(t) for t in tasks] + [means.get("average")]
                series.append((key.capitalize() or "-", values, mode_colour(mode, modes)))
        for row in (r for r in rows if r["baseline"]):
            values = [row["success"][t]["success_pct"] for t in tasks] + [row["average_pct"]]
            series.append((f"Chance ({row['mode'] or '-'})", values, CHANCE_COLOUR))
        self.task_plot.draw(labels, series, y_max=100)

        acted = [r for r in rows if r["mode"] == "manipulation" or r["manipulation"]["mean_calls"]]
        self.calls_plot.draw(
            [short_label(r) for r in acted],
            [
                ("Mean", [r["manipulation"]["mean_calls"] for r in acted], QColor(0, 114, 178)),
                (
                    "Median",
                    [r["manipulation"]["median_calls"] for r in acted],
                    QColor(86, 180, 233),
                ),
            ],
        )

        finds = [r for r in rows if r["find"]["present"]["n"] or r["find"]["absent"]["n"]]
        self.find_plot.draw(
            [short_label(r) for r in finds],
            [
                (
                    "Present",
                    [r["find"]["present"]["success_pct"] for r in finds],
                    QColor(0, 158, 115),
                ),
                (
                    "Absent",
                    [r["find"]["absent"]["success_pct"] for r in finds],
                    QColor(230, 159, 0),
                ),
            ],
            y_max=100,
        )

        counts = [r for r in rows if r["count"]["n"]]
        segments = []
        for key, name, colour in COUNT_SEGMENTS:
            values = []
            for r in counts:
                c = r["count"]
                k = c["invalid"] + c["unanswered"] if key == "no_number" else c[key]
                values.append(100.0 * k / c["n"])
            segments.append((name, values, colour))
        self.count_plot.draw([short_label(r) for r in counts], segments, stacked=True, y_max=100)

    def baseline_rows(self) -> list[int]:
        """Rows of the success table shown as baseline (for tests and accessibility)."""
        model = self.success_table.model()
        return [
            r
            for r in range(model.rowCount())
            if model.index(r, 0).data(Qt.ItemDataRole.UserRole) == BASELINE
        ]
