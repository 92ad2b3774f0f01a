"""Explore scenes > Edit scene as an author uses it: add from the catalog, drag in the 3D
view onto another object, turn, undo, settle, save as a new derived scene; the model's
visibility of every object kept live, and unsaved edits kept as a draft."""

from __future__ import annotations

import numpy as np
import pytest
from gestures import open_as_ada, press_shortcut
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox

from sim.camera import project_points
from sim.render import visibility
from sim.tabletop.scenes import generate_scene, scene_record
from store import open_project


@pytest.fixture
def scene_project(tmp_path):
    path = tmp_path / "scenes.reasonscope"
    with open_project(path, create=True) as project:
        scene = generate_scene(31, objects=(3, 4))
        project.scenes.add(scene_record(scene))
        scene.world.close()
    return path


@pytest.fixture
def explore(qtbot, scene_project):
    window = open_as_ada(qtbot, scene_project, "explore")
    explore = window.mode("explore")
    explore.scene_list.select_row(0)
    qtbot.waitUntil(lambda: explore.state.loaded is not None, timeout=30000)
    yield explore
    window.close()


def _pixel(viewport, world, key):
    """Where the object's top centre shows in the 3D view (widget pixels)."""
    lo, hi = world.aabb(key)
    point = [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2]]
    uv, _depth = project_points(viewport.camera_spec(), np.array([point]))
    return QPoint(int(uv[0][0]), int(uv[0][1]))


def _drag(qtbot, viewport, start: QPoint, end: QPoint, steps: int = 8):
    view = viewport.gl_view
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=start)
    for i in range(1, steps + 1):
        qtbot.mouseMove(view, start + (end - start) * (i / steps))
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=end)


def test_add_drag_onto_another_rotate_undo_settle_and_save(qtbot, explore):
    editing, viewport, window = explore.editing, explore.viewport, explore.mode.window()
    press_shortcut(qtbot, window, Qt.Key.Key_T)  # top-down camera
    press_shortcut(qtbot, window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert editing.editing and editing.actions["edit"].isChecked()
    assert not explore.live_action.isEnabled()  # no free-running physics under the editor
    world = editing.editor.world
    target = next(b.key for b in world.objects() if b.name == "wooden cutting board")
    before = {r.key: r.visibility for r in explore.objects.model.rows}[target]
    assert editing.catalog_dock.isVisible()
    qtbot.keyClicks(editing.catalog.search, "yellow cube")  # the catalog, as an author adds
    qtbot.keyClick(editing.catalog.search, Qt.Key.Key_Return)
    book = explore.state.selected
    assert world.bodies[book].name == "yellow cube"
    assert editing.actions["undo"].isEnabled()
    # drag the book from where it shows onto the first object
    _drag(qtbot, viewport, _pixel(viewport, world, book), _pixel(viewport, world, target))
    (tlo, thi), (blo, bhi) = world.aabb(target), world.aabb(book)
    assert np.allclose((blo + bhi)[:2] / 2, (tlo + thi)[:2] / 2, atol=0.02)  # over it
    assert blo[2] >= thi[2] - 0.005  # resting on it (or higher), not on the table
    assert editing.editor.log[-1] == f"drag {book}"  # the whole drag is one edit
    # the live list agrees with a full measure of the model's view
    full = visibility(world, editing.camera, [b.key for b in world.objects()])
    shown = {r.key: r.visibility for r in explore.objects.model.rows}
    assert shown[target] == pytest.approx(full[target].fraction, abs=1e-6)
    assert shown[target] < before - 0.05  # the cube now covers part of it
    press_shortcut(qtbot, window, Qt.Key.Key_BracketLeft)
    yaw = world.client.getEulerFromQuaternion(
        world.client.getBasePositionAndOrientation(world.bodies[book].uid)[1]
    )[2]
    assert np.degrees(yaw) == pytest.approx(15, abs=0.1)
    press_shortcut(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editing.editor.log[-1] == "undo rotate " + book
    # unsaved work is in the project already
    draft = explore.session.project.scenes.draft(1)
    assert draft["derived_from"] == 1 and book in [r["id"] for r in draft["objects"]]
    editing.settle()
    assert editing.editor.log[-1] == "settle"
    press_shortcut(qtbot, window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    project = explore.session.project
    assert [s.id for s in explore.state.scenes] == [1, 2]
    saved = project.scenes.get(2)
    assert saved.state["generation"]["derived_from"] == 1
    assert book in {b.key for b in saved.bodies}
    assert project.scenes.draft(1) is None and not editing.editor.dirty
    # leaving and entering Edit again: the same editor, derived from what was saved
    press_shortcut(qtbot, window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert not editing.editing and explore.live_action.isEnabled()
    press_shortcut(qtbot, window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert editing.editor.derived_from == 2 and editing.editor.can_undo


def test_unsaved_edits_come_back_after_the_editor_closes(qtbot, explore):
    editing = explore.editing
    editing.start()
    duck = editing.add("rubber duck")
    editing.stop()
    editing.resume_answer = lambda box: QMessageBox.StandardButton.Yes
    explore.open_scene(1)  # the scene again, as restored from the project
    qtbot.waitUntil(lambda: duck not in explore.state.loaded.world.bodies, timeout=30000)
    assert editing.start()
    assert duck in editing.editor.world.bodies  # the draft, brought back
    assert editing.editor.log == ["resume unsaved edits"]


def test_authoring_find_questions_by_clicking_objects(qtbot, explore):
    editing, window = explore.editing, explore.mode.window()
    assert editing.start()
    for body in list(editing.editor.world.objects()):  # a clean table, as an author starts
        explore.state.select(body.key)
        press_shortcut(qtbot, window, Qt.Key.Key_Delete)
    assert editing.editor.world.objects() == []
    box = editing.add("red matchbox", (0.05, 0.10))
    duck = editing.add("rubber duck", (-0.15, 0.0))
    editing.add("wooden cutting board", (0.05, 0.10))  # laid over the matchbox
    editing.settle()
    shown = {r.key: r.visibility for r in explore.objects.model.rows}
    assert shown[box] <= 0.10 and shown[duck] > 0.9
    panel = editing.authoring.panel
    assert editing.authoring.dock.isVisible()
    panel.task.setCurrentIndex(1)  # Find
    explore.state.select(box)
    press_shortcut(qtbot, window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert panel.target_keys() == ["red matchbox"]
    qtbot.keyClicks(panel.tags, "hard")
    qtbot.mouseClick(panel.submit, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: editing.authoring.task is None, timeout=60000)
    report = editing.authoring.last
    assert report["ok"] and "Stored question" in panel.result.text()
    project = explore.session.project
    question = project.questions.get(report["question_id"])
    assert question.status == "pending" and question.answer["answer"] == "yes"
    assert "Answer: yes" in panel.result.text()
    assert question.criteria["tags"] == ["authored", "hard"]
    assert project.scenes.get(question.scene_id).state["generation"]["derived_from"] == 1
    # the duck stands in plain view: the question is refused, saying by how much
    explore.state.select(duck)
    press_shortcut(qtbot, window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert panel.target_keys() == ["rubber duck"]
    qtbot.mouseClick(panel.submit, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: editing.authoring.task is None, timeout=60000)
    assert not editing.authoring.last["ok"]
    assert (
        "shows 100.0% of itself" in panel.result.text() and "at most 10.0%" in panel.result.text()
    )
    assert len(project.questions.page(limit=50).rows) == 1
