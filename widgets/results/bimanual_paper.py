"""Dual-arm success in the layout of the ST-BiBench paper's Tables 1 and 3.

Shows `bimanual["paper"]` of `reasonscope metrics --json` (built by
`annotation.bimanual.paper_tables.paper_tables`): the planning tier with its two groups of
columns (each led by its average) and the total average, and the fine-control tier with
its five tasks and their average. Cells are success rates in percent; a task without
episodes is "–", and an average over a group that lacks a task is "incomplete".
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout, QWidget

from annotation.metric_text import settings_text
from widgets.results.table import Cell, average, cell_table, fill_table

AVERAGE_SHADE = QColor(236, 240, 246)  # the average columns, set apart as the paper's are
SHORT_GROUP = {"Independent Parallel": "Indep.", "Sequential Collaborative": "Seq."}
# the paper's own column heads in Table 1 (Rank1, Hand2); the full id is in the tooltip
SHORT_ID = (("Ranking", "Rank"), ("Handover", "Hand"))


def short_id(task_id: str) -> str:
    for long, short in SHORT_ID:
        if task_id.startswith(long):
            return short + task_id[len(long) :]
    return task_id


def _rate_cell(cell: dict[str, Any] | None, task: str) -> Cell:
    if not cell:
        return Cell("–", tip=f"no episodes of {task} in this tier")
    tip = f"{task}: {cell['success']} of {cell['episodes']} episodes succeeded"
    return Cell(f"{cell['rate_pct']:.0f}", tip=tip)


def _average(value: float | None, missing: list[str], what: str) -> Cell:
    cell = average("–" if value is None else f"{value:.2f}", missing, what, "episodes of {}")
    return Cell(cell.text, tip=cell.tip, shade=AVERAGE_SHADE, bold=value is not None)


class PaperTablesView(QWidget):
    """Two group boxes: Table 1 (planning tier) and Table 3 (fine-control tier)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.planning_table = cell_table()
        self.planning_table.setObjectName("bimanual_paper_planning")
        self.fine_table = cell_table()
        self.fine_table.setObjectName("bimanual_paper_fine")
        self.note = QLabel(wordWrap=True)
        self.planning_box = QGroupBox()
        QVBoxLayout(self.planning_box).addWidget(self.planning_table)
        self.fine_box = QGroupBox()
        QVBoxLayout(self.fine_box).addWidget(self.fine_table)
        layout.addWidget(self.planning_box)
        layout.addWidget(self.fine_box)
        layout.addWidget(self.note)

    def set_tables(self, paper: dict[str, Any] | None) -> None:
        planning = (paper or {}).get("planning") or {"rows": [], "groups": [], "title": ""}
        fine = (paper or {}).get("fine") or {"rows": [], "columns": [], "title": ""}
        self.planning_box.setVisible(bool(planning["rows"]))
        self.fine_box.setVisible(bool(fine["rows"]))
        self.note.setVisible(bool(planning["rows"] or fine["rows"]))
        if planning["rows"]:
            self._fill_planning(planning)
        if fine["rows"]:
            self._fill_fine(fine)
        self.note.setText(
            "Success rate (%) per task, in the ST-BiBench layout (hover a cell for its "
            "episodes, a column for its task). " + settings_text((paper or {}).get("settings"))
        )

    def _fill_planning(self, p: dict[str, Any]) -> None:
        self.planning_box.setTitle(f"{p['title']} (ST-BiBench Table 1 layout)")
        headers = [("Models", "")]
        for g in p["groups"]:
            short = SHORT_GROUP.get(g["name"], g["name"])
            headers.append((f"{short}\nAvg.", f"{g['name']} tasks: mean success rate"))
            headers += [(short_id(c["id"]), f"{c['id']}: {c['task']}") for c in g["columns"]]
        headers.append(("Total\nAvg.", "mean over all fourteen planning tasks"))
        rows = []
        for r in p["rows"]:
            cells = [Cell(r["model"], right=False)]
            for g in p["groups"]:
                ids = [c["id"] for c in g["columns"]]
                lacking = [i for i in ids if r["cells"][i] is None]
                cells.append(_average(r["group_avg"][g["name"]], lacking, f"{g['name']} mean"))
                cells += [_rate_cell(r["cells"][c["id"]], c["task"]) for c in g["columns"]]
            cells.append(_average(r["total_avg"], r["missing"], "mean of all 14 tasks"))
            rows.append(cells)
        fill_table(self.planning_table, rows, headers)

    def _fill_fine(self, p: dict[str, Any]) -> None:
        self.fine_box.setTitle(f"{p['title']} (ST-BiBench Table 3 layout)")
        headers = [("Models", "")] + [(c["id"], f"{c['id']}: {c['task']}") for c in p["columns"]]
        headers.append(("Avg.", "mean over the five fine-control tasks"))
        rows = []
        for r in p["rows"]:
            cells = [Cell(r["model"], right=False)]
            cells += [_rate_cell(r["cells"][c["id"]], c["task"]) for c in p["columns"]]
            cells.append(_average(r["avg"], r["missing"], "mean of the five tasks"))
            rows.append(cells)
        fill_table(self.fine_table, rows, headers)
