"""The Author question dock: a task, the objects it is about (a stored scene's bodies), tags
and the hidden threshold from the keyboard; the check is asked for only when the task has
the objects it needs."""

from __future__ import annotations

import pytest
from explore_scenes import add_listed_scene
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListView

from widgets.explore.author_panel import HINTS, KEY_ROLE, NEEDED, TASKS, AuthorPanel

LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def mugs(project):
    """(key, name) of the objects of a stored scene of four mugs (the table is a fixture)."""
    scene = project.scenes.get(add_listed_scene(project, seed=1, objects=4))
    return [(b.key, b.name) for b in scene.bodies if b.role == "object"]


@pytest.fixture
def panel(qtbot):
    p = AuthorPanel()
    qtbot.addWidget(p)
    p.show()
    qtbot.waitExposed(p)
    return p


def choose_task(qtbot, panel: AuthorPanel, task: str) -> None:
    """Pick `task` in the combo with the arrow keys, as a person would."""
    panel.task.setFocus()
    steps = TASKS.index(task) - TASKS.index(panel.current_task())
    for _ in range(abs(steps)):
        qtbot.keyClick(panel.task, Qt.Key.Key_Down if steps > 0 else Qt.Key.Key_Up)
    assert panel.current_task() == task


def listed(panel: AuthorPanel) -> list[str]:
    model = panel.targets.model()
    return [model.index(r, 0).data() for r in range(model.rowCount())]


def count(panel: AuthorPanel) -> int:
    """How many objects the list shows."""
    return panel.targets.model().rowCount()


def test_count_takes_one_object_and_a_new_one_replaces_it(qtbot, panel, mugs):
    assert panel.current_task() == "count" and panel.hint.text() == HINTS["count"]
    assert not panel.submit.isEnabled() and panel.submit.toolTip() == "Click 1 object(s)"
    assert not panel.extreme.isVisible()  # largest / smallest is for Compare
    (k1, n1), (k2, n2) = mugs[:2]
    assert panel.add_target(k1, n1)
    assert not panel.add_target(k1, n1)  # once
    assert panel.add_target(k2, n2)  # replaces it
    assert listed(panel) == ["mug 2"] and panel.target_keys() == ["mug_2"]
    assert panel.submit.isEnabled() and panel.submit.toolTip() == ""
    with qtbot.waitSignal(panel.submit_requested, timeout=1000):
        qtbot.mouseClick(panel.submit, LEFT)


def test_compare_letters_three_objects_and_refuses_a_fourth(qtbot, panel, mugs):
    choose_task(qtbot, panel, "compare")
    assert panel.hint.text() == HINTS["compare"] and panel.extreme.isVisible()
    for key, name in mugs[:3]:
        assert panel.add_target(key, f"{name} ({key})")
        assert panel.submit.isEnabled() == (count(panel) == NEEDED["compare"])
    assert not panel.add_target(*mugs[3])
    assert listed(panel) == ["A  mug 1 (mug_1)", "B  mug 2 (mug_2)", "C  mug 3 (mug_3)"]
    assert panel.target_keys() == ["mug_1", "mug_2", "mug_3"]
    panel.extreme.setFocus()
    qtbot.keyClick(panel.extreme, Qt.Key.Key_Down)
    assert panel.extreme.currentText() == "smallest"
    qtbot.mouseClick(panel.clear_button, LEFT)
    assert count(panel) == 0 and not panel.submit.isEnabled()
    assert panel.submit.toolTip() == "Click 3 object(s)"


def test_another_task_starts_afresh(qtbot, panel, mugs):
    panel.add_target(*mugs[0])
    panel.show_result(False, "Not stored: fails hidden")
    choose_task(qtbot, panel, "beneath")
    assert count(panel) == 0 and panel.result.text() == ""
    assert panel.hint.text() == HINTS["beneath"]
    for key, name in mugs[:2]:
        panel.add_target(key, name)
    assert panel.submit.isEnabled() and listed(panel) == ["mug 1", "mug 2"]
    choose_task(qtbot, panel, "find")  # one object again: Find takes one
    assert count(panel) == 0 and NEEDED["find"] == 1


def test_tags_threshold_and_the_add_button_from_the_keyboard_and_mouse(qtbot, panel):
    qtbot.keyClicks(panel.tags, " hard, ,occluded  ,")
    assert panel.tag_list() == ["hard", "occluded"]
    line = panel.threshold.lineEdit()
    line.selectAll()
    qtbot.keyClicks(line, "25")
    assert panel.fraction() == pytest.approx(0.25)
    line.selectAll()
    qtbot.keyClicks(line, "99")  # at most 50 %: the second 9 is refused
    qtbot.keyClick(line, Qt.Key.Key_Return)
    assert panel.fraction() == pytest.approx(0.09)
    with qtbot.waitSignal(panel.add_target_requested, timeout=1000):
        qtbot.mouseClick(panel.add_button, LEFT)


def test_the_verdict_is_shown_green_or_red(panel):
    panel.show_result(True, "Stored question #4, pending for two verifiers")
    assert "#1b7f3a" in panel.result.text() and "Stored question #4" in panel.result.text()
    panel.show_result(False, "Not stored: fails hidden")
    assert "#b3261e" in panel.result.text()


def test_the_objects_are_a_model_of_the_pairs_added(qtbot, qtmodeltester, panel, mugs):
    """One row a (key, name) added, the key in KEY_ROLE, lettered only for Compare; a person
    can pick a row with the arrow keys; Qt's model checker accepts the model."""
    model = panel.targets.model()
    assert model is panel.target_model and isinstance(panel.targets, QListView)
    qtmodeltester.check(model)
    panel.add_target(*mugs[0])
    assert model.targets == [mugs[0]] and model.index(0, 0).data(KEY_ROLE) == mugs[0][0]
    choose_task(qtbot, panel, "compare")
    assert model.targets == [] and model.lettered
    for key, name in mugs[:3]:
        panel.add_target(key, name)
    qtmodeltester.check(model)
    assert [model.index(r, 0).data(KEY_ROLE) for r in range(3)] == panel.target_keys()
    assert panel.target_keys() == [key for key, _name in mugs[:3]]
    panel.targets.setFocus()
    panel.targets.setCurrentIndex(model.index(0, 0))
    qtbot.keyClick(panel.targets, Qt.Key.Key_Down)
    assert panel.targets.selectionModel().isSelected(model.index(1, 0))
    choose_task(qtbot, panel, "beneath")
    assert not model.lettered and model.rowCount() == 0
