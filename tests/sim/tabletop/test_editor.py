"""The scene editor on a live world: objects added, dragged onto others, rotated, deleted,
duplicated; the robot parked; every edit undone and redone exactly."""

from __future__ import annotations

import math

import pytest

from sim.tabletop.authoring.editor import SceneEditor
from sim.tabletop.authoring.scenes import DROP_GAP
from sim.tabletop.world import TABLE_TOP_Z, TabletopWorld


@pytest.fixture
def editor():
    world = TabletopWorld()
    yield SceneEditor(world, derived_from=7)
    world.close()


def _pose(world, key):
    return world.client.getBasePositionAndOrientation(world.bodies[key].uid)


def _yaw(world, key):
    return math.degrees(world.client.getEulerFromQuaternion(_pose(world, key)[1])[2])


def test_objects_rest_on_the_table_or_on_the_object_under_them(editor):
    world = editor.world
    book = editor.add("red book", (0.0, 0.05))
    assert world.aabb(book)[0][2] == pytest.approx(TABLE_TOP_Z + DROP_GAP, abs=2e-3)
    cube = editor.add("blue cube", (0.25, 0.05))
    editor.move(cube, 0.0, 0.05)  # onto the book
    assert world.aabb(cube)[0][2] == pytest.approx(world.aabb(book)[1][2] + DROP_GAP, abs=2e-3)
    editor.move(cube, 5.0, 0.05)  # dragged off the edge: kept on the table top
    assert world.aabb(cube)[1][0] <= 0.72
    assert editor.problems() == [f"{cube} is outside the top-down view"]
    editor.undo()
    report = editor.settle()
    assert report.at_rest and editor.problems() == []


def test_a_drag_is_one_edit_and_every_edit_undoes_exactly(editor):
    world = editor.world
    mug = editor.add("red mug", (-0.1, 0.1))
    start = _pose(world, mug)
    editor.begin("drag red mug")
    for i in range(12):
        editor.move(mug, -0.1 + 0.01 * i, 0.1)
    assert editor.commit()
    assert _pose(world, mug)[0][0] == pytest.approx(0.01, abs=1e-6)
    assert editor.undo() == "drag red mug"
    assert _pose(world, mug) == start
    assert editor.redo() == "drag red mug"
    editor.rotate(mug, 30)
    assert _yaw(world, mug) == pytest.approx(30, abs=0.01)
    copy = editor.duplicate(mug)
    assert _pose(world, copy)[0][0] == pytest.approx(_pose(world, mug)[0][0] + 0.07, abs=1e-6)
    editor.delete(mug)
    assert mug not in world.bodies
    editor.set_table_texture(None)  # no change: not an edit
    assert editor.log[-1] == f"delete {mug}"
    assert editor.undo() == f"delete {mug}"
    assert mug in world.bodies and _yaw(world, mug) == pytest.approx(30, abs=0.01)
    while editor.undo():
        pass
    assert [b.key for b in world.objects()] == [] and editor.dirty  # changed, though back
    editor.saved()
    assert not editor.dirty
    while editor.redo():
        pass  # the last edit redone is the delete
    assert [b.key for b in world.objects()] == [copy] and editor.dirty
    assert editor.add("red cube") != mug  # a deleted object's key is never given again


def test_the_robot_parks_upright_and_the_record_says_where_the_scene_came_from(editor):
    world = editor.world
    c = world.client

    def gripper_low():
        return min(c.getAABB(world.gripper_uid, j)[0][2] for j in range(-1, 8))

    home = gripper_low()
    editor.park_robot(True)
    assert editor.robot_parked and gripper_low() > home + 0.5
    world.step(240)  # the motors hold it there
    assert gripper_low() > home + 0.5
    editor.add("green cube")
    record = editor.record("hard scene 1")
    generation = record["state"]["generation"]
    assert generation["derived_from"] == 7 and generation["robot_parked"]
    assert generation["edits"] == ["park robot", "add green cube"]
    assert [b["id"] for b in record["bodies"] if b["role"] == "object"] == ["obj_00"]
    editor.undo()
    editor.undo()
    assert not editor.robot_parked and gripper_low() == pytest.approx(home, abs=1e-6)
