"""The Explore scene list on a real project: the table's rows are the state's scenes, the
filters typed in narrow them, and choosing a row asks to open that scene."""

from __future__ import annotations

import pytest
from explore_scenes import add_listed_scene, add_three_boxes
from PySide6.QtCore import Qt

from widgets.explore.scene_list import SceneListPanel
from widgets.explore.state import ExploreState, SceneFilter

LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def scenes(project):
    return {
        "two": add_listed_scene(project, seed=11, objects=2),
        "six": add_listed_scene(project, seed=12, objects=6),
        "boxes": add_three_boxes(project),
    }


@pytest.fixture
def listed(qtbot, project, scenes):
    state = ExploreState()
    panel = SceneListPanel(state)
    qtbot.addWidget(panel)
    panel.resize(360, 400)
    panel.show()
    qtbot.waitExposed(panel)
    state.set_source(project.scenes)
    return panel, state


def _rows(panel) -> list[list[str]]:
    m = panel.model
    return [[m.index(r, c).data() for c in range(m.columnCount())] for r in range(m.rowCount())]


def _type(qtbot, field, text):
    field.setFocus()
    qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def test_the_rows_are_the_scenes(listed, scenes):
    panel, _state = listed
    assert sorted(_rows(panel)) == sorted(
        [
            [f"#{scenes['two']}", "11", "2"],
            [f"#{scenes['six']}", "12", "6"],
            [f"#{scenes['boxes']}", "3", "3"],
        ]
    )
    assert panel.count_label.text() == "3 scenes"
    row = next(r for r in range(3) if _rows(panel)[r][0] == f"#{scenes['boxes']}")
    tip = panel.model.index(row, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("three boxes, created 20") and tip.endswith(
        "; the robot carries a Robotiq 2F-85"
    )
    listed_only = next(r for r in range(3) if _rows(panel)[r][0] == f"#{scenes['two']}")
    assert "robot" not in panel.model.index(listed_only, 0).data(Qt.ItemDataRole.ToolTipRole)


def test_the_typed_filters_narrow_the_list(qtbot, listed, scenes):
    panel, state = listed
    _type(qtbot, panel.min_objects, "3")
    assert state.filter == SceneFilter(3, None, None)
    assert {r[0] for r in _rows(panel)} == {f"#{scenes['six']}", f"#{scenes['boxes']}"}
    _type(qtbot, panel.seed, "12")
    assert state.filter == SceneFilter(3, None, 12)
    assert _rows(panel) == [[f"#{scenes['six']}", "12", "6"]]
    assert panel.count_label.text() == "1 scene"
    _type(qtbot, panel.seed, "twelve")  # not a number: shown in red, any seed
    assert panel.seed.styleSheet() == "color: #c0392b" and state.filter.seed is None
    _type(qtbot, panel.max_objects, "5")
    assert state.filter == SceneFilter(3, 5, None)
    assert _rows(panel) == [[f"#{scenes['boxes']}", "3", "3"]]
    _type(qtbot, panel.min_objects, "7")
    assert panel.model.rowCount() == 0 and panel.count_label.text() == "0 scenes"


def test_choosing_a_row_asks_to_open_its_scene(qtbot, listed, scenes):
    panel, _state = listed
    rect = panel.view.visualRect(panel.model.index(1, 1))
    with qtbot.waitSignal(panel.open_requested) as asked:
        qtbot.mouseClick(panel.view.viewport(), LEFT, pos=rect.center())
    assert asked.args == [panel.model.scene_id(1)]
    with qtbot.waitSignal(panel.open_requested) as asked:
        qtbot.keyClick(panel.view, Qt.Key.Key_Down)  # the next row, from the keyboard
    assert asked.args == [panel.model.scene_id(2)]
    with qtbot.waitSignal(panel.open_requested) as asked:
        panel.select_row(0)  # the mode restores the row of the scene it opened
    assert asked.args == [panel.model.scene_id(0)]
    assert set(panel.model.scene_id(r) for r in range(3)) == set(scenes.values())
