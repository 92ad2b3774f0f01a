"""The paper-layout tables of the Bimanual results page: each a view of a `CellTableModel`
whose column heads carry the task in a tooltip and whose average columns are shaded (bold
where there is a value)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush

from annotation.bimanual.paper_tables import (
    FINE,
    FINE_COLUMNS,
    PLANNING,
    PLANNING_TASKS,
    paper_tables,
)
from widgets.results.bimanual_paper import AVERAGE_SHADE, PaperTablesView, short_id
from widgets.results.table import CellTableModel

TIP = Qt.ItemDataRole.ToolTipRole
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def test_the_tables_are_models_with_shaded_averages(qtbot):
    planning = {task: {"success": 1, "episodes": 2} for task in PLANNING_TASKS}
    fine = {task: {"success": 3, "episodes": 4} for _id, task in FINE_COLUMNS}
    counts = {PLANNING: {"a": planning, "b": {"handover_block": planning["handover_block"]}}}
    counts[FINE] = {"a": fine}
    view = PaperTablesView()
    qtbot.addWidget(view)
    view.set_tables(paper_tables(counts, ["a", "b"]))
    model = view.planning_table.model()
    assert isinstance(model, CellTableModel) and view.planning_table.objectName() == (
        "bimanual_paper_planning"
    )
    assert (model.rowCount(), model.columnCount()) == (2, 18)
    heads = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(18)]
    assert heads[:3] == ["Models", "Indep.\nAvg.", "Place1"] and heads[-1] == "Total\nAvg."
    assert model.headerData(0, Qt.Orientation.Horizontal, TIP) is None
    assert model.headerData(2, Qt.Orientation.Horizontal, TIP) == "Place1: place_cans_plasticbox"
    a, b = (model.index(r, 0) for r in range(2))
    assert (a.data(), b.data()) == ("a", "b")
    assert a.data(Qt.ItemDataRole.TextAlignmentRole) is None  # the model's name, left
    rate = model.index(0, 2)
    assert (rate.data(), rate.data(TIP)) == (
        "50",
        "place_cans_plasticbox: 1 of 2 episodes succeeded",
    )
    assert rate.data(Qt.ItemDataRole.TextAlignmentRole) == RIGHT
    assert rate.data(Qt.ItemDataRole.BackgroundRole) is None
    average = model.index(0, 1)
    assert average.data() == "50.00" and average.data(Qt.ItemDataRole.FontRole).bold()
    assert average.data(Qt.ItemDataRole.BackgroundRole) == QBrush(AVERAGE_SHADE)
    missing = model.index(1, 1)  # b ran one planning task: no average
    assert missing.data() == "incomplete" and missing.data(TIP).startswith("no average: no ")
    assert missing.data(Qt.ItemDataRole.BackgroundRole) == QBrush(AVERAGE_SHADE)
    assert missing.data(Qt.ItemDataRole.FontRole) is None  # no value: not bold
    none = model.index(1, 2)
    assert (
        none.data() == "–" and none.data(TIP) == "no episodes of place_cans_plasticbox in this tier"
    )
    fine_model = view.fine_table.model()
    assert [fine_model.index(0, c).data() for c in range(7)] == [
        "a",
        "75",
        "75",
        "75",
        "75",
        "75",
        "75.00",
    ]
    fine_heads = [fine_model.headerData(c, Qt.Orientation.Horizontal) for c in range(7)]
    assert fine_heads[1:6] == [short_id(i) for i, _ in FINE_COLUMNS]
    view.set_tables(None)
    assert view.planning_box.isHidden() and view.fine_box.isHidden()
