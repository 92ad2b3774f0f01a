"""The Explore object table: the open scene's objects (from a restored scene, as the mode
builds them), sorted by how much the model sees, a click announcing the object and a
selection from elsewhere shown without announcing it."""

from __future__ import annotations

import pytest
from explore_scenes import add_three_boxes, restored
from PySide6.QtCore import QPoint, Qt

from widgets.explore.object_table import ObjectRow, ObjectTablePanel

LEFT = Qt.MouseButton.LeftButton
MUGS = [
    ObjectRow("mug_1", "red mug", "mug", 0.5),
    ObjectRow("box_1", "cereal box", "box", None),  # not measured
    ObjectRow("mug_2", "blue mug", "mug", 0.05),
    ObjectRow("bowl_1", "bowl", "bowl", 1.0),
]


@pytest.fixture
def table(qtbot):
    panel = ObjectTablePanel()
    qtbot.addWidget(panel)
    panel.resize(360, 300)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def _shown(panel) -> list[list[str]]:
    """The rows as the view shows them (sorted by the proxy)."""
    p = panel.proxy
    return [[p.index(r, c).data() for c in range(p.columnCount())] for r in range(p.rowCount())]


def test_the_rows_of_a_restored_scene(table, project):
    loaded = restored(project, add_three_boxes(project))
    rows = [
        ObjectRow(b.key, b.name, b.category, loaded.visibility[b.key].fraction)
        for b in loaded.world.objects()
    ]
    loaded.world.close()
    table.set_rows(rows)
    assert sorted(_shown(table)) == [
        ["blue_box", "", "100 %"],
        ["red_box", "", "100 %"],
        ["wide_box", "", "100 %"],
    ]
    row = table.model.row_of("wide_box")
    assert table.model.index(row, 0).data(Qt.ItemDataRole.ToolTipRole) == "wide_box: wide_box"
    assert table.model.row_of("mug_9") == -1


def test_sorted_by_visibility_then_by_a_clicked_header(qtbot, table):
    table.set_rows(MUGS)
    assert [r[0] for r in _shown(table)] == ["cereal box", "blue mug", "red mug", "bowl"]
    assert _shown(table)[0][2] == "" and _shown(table)[1][2] == "5 %"
    header = table.view.horizontalHeader()
    x = header.sectionViewportPosition(0) + header.sectionSize(0) // 2
    qtbot.mouseClick(header.viewport(), LEFT, pos=QPoint(x, 5))
    assert [r[0] for r in _shown(table)] == ["blue mug", "bowl", "cereal box", "red mug"]
    qtbot.mouseClick(header.viewport(), LEFT, pos=QPoint(x, 5))  # again: the other way
    assert [r[0] for r in _shown(table)] == ["red mug", "cereal box", "bowl", "blue mug"]


def test_a_click_announces_the_object_a_selection_from_elsewhere_does_not(qtbot, table):
    table.set_rows(MUGS)
    rect = table.view.visualRect(table.proxy.index(2, 0))  # red mug, third by visibility
    with qtbot.waitSignal(table.object_clicked) as clicked:
        qtbot.mouseClick(table.view.viewport(), LEFT, pos=rect.center())
    assert clicked.args == ["mug_1"] and table.selected_key() == "mug_1"
    with qtbot.assertNotEmitted(table.object_clicked):
        table.select_key("bowl_1")  # the viewport selected it
    assert table.selected_key() == "bowl_1"
    assert [i.row() for i in table.view.selectionModel().selectedRows()] == [3]
    with qtbot.assertNotEmitted(table.object_clicked):
        table.select_key("")
        table.set_rows(MUGS[:2])
    assert table.view.selectionModel().selectedRows() == []
