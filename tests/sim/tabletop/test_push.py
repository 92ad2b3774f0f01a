"""The push tool moves an object the commanded way through real contacts, and leaves the arm at home."""

from __future__ import annotations

import numpy as np
import pytest

from sim.render import render
from sim.tabletop.push import push
from sim.tabletop.world import HOME_JOINTS, TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

CAM = TOP_DOWN.with_size(256, 256)


@pytest.mark.parametrize(
    ("direction", "axis", "sign"), [("right", 0, 1), ("up", 1, 1), ("left", 0, -1)]
)
def test_push_moves_the_object_the_commanded_way(direction, axis, sign):
    x, y = WORKSPACE_CENTRE
    with TabletopWorld() as world:
        box = world.add_primitive(
            "box",
            "box",
            (0.025, 0.025, 0.025),
            (x, y, TABLE_TOP_Z + 0.025),
            rgba=(1, 0, 0, 1),
            mass=0.2,
            name="red box",
        )
        world.step(60)
        before = np.array(world.client.getBasePositionAndOrientation(box.uid)[0])
        mask = render(world, CAM).segmentation == box.uid
        result = push(world, CAM, mask, direction)
        after = np.array(world.client.getBasePositionAndOrientation(box.uid)[0])
        moved = after - before
        assert result.ok and result.feedback == "Action succeeded."
        assert sign * moved[axis] > 0.03  # pushed the commanded way
        assert abs(moved[1 - axis]) < 0.02  # and not much sideways
        assert after[2] > TABLE_TOP_Z  # still on the table
        pan = world.client.getJointState(world.robot_uid, world.arm_joints["shoulder_pan_joint"])[0]
        assert pan == pytest.approx(HOME_JOINTS["shoulder_pan_joint"], abs=0.05)


def test_push_refuses_an_unknown_direction():
    with TabletopWorld(with_robot=True) as world:
        result = push(world, CAM, np.ones((256, 256), bool), "sideways")
        assert not result.ok and "direction" in result.feedback


def test_a_push_towards_the_image_edge_keeps_the_object_in_view():
    """Pushed from near the edge of the camera's view towards it, the box travels only as
    far as keeps its far side inside the image (it used to be pushed half out of view,
    where no grasp could be planned on it)."""
    x, y = WORKSPACE_CENTRE
    cam = TOP_DOWN.with_size(256, 256)
    with TabletopWorld() as world:
        box = world.add_primitive(
            "box",
            "box",
            (0.025, 0.025, 0.025),
            (x - 0.25, y, TABLE_TOP_Z + 0.025),
            rgba=(1, 0, 0, 1),
            mass=0.2,
            name="red box",
        )
        world.step(60)
        before = np.array(world.client.getBasePositionAndOrientation(box.uid)[0])
        result = push(world, cam, render(world, cam).segmentation == box.uid, "left")
        after = np.array(world.client.getBasePositionAndOrientation(box.uid)[0])
        assert result.ok
        assert before[0] - after[0] > 0.01  # it moved the commanded way
        seen = render(world, cam).segmentation == box.uid
        assert seen.any() and not seen[:, 0].any()  # wholly in view: clear of the left edge


def test_the_push_starts_the_same_distance_behind_the_object_at_any_image_size():
    """The start is measured in metres from the object's lifted pixels: at 1024 px (the
    model's image) as at 512 px. A fixed pixel scale fitted 512 px only and put the start
    twice as far back at 1024 px (and half as far at 256 px)."""
    x, y = WORKSPACE_CENTRE
    starts = {}
    for size in (256, 512, 1024):
        cam = TOP_DOWN.with_size(size, size)
        with TabletopWorld() as world:
            box = world.add_primitive(
                "box",
                "box",
                (0.03, 0.02, 0.025),
                (x, y, TABLE_TOP_Z + 0.025),
                rgba=(1, 0, 0, 1),
                mass=0.2,
                name="red box",
            )
            world.step(60)
            result = push(world, cam, render(world, cam).segmentation == box.uid, "right")
            assert result.ok
            starts[size] = np.array(result.start)
    for size in (256, 1024):
        assert np.linalg.norm(starts[size][:2] - starts[512][:2]) < 0.005
    # behind the box's far side (3 cm behind its centre) by the closed fingers' room
    assert x - 0.03 - 0.06 < starts[512][0] < x - 0.03 - 0.03


def test_the_closed_fingers_come_down_where_the_depth_image_shows_room():
    """A can stands where the push would usually start (5 cm behind the box): the closed
    fingers come down nearer the box, where the depth image shows the table, instead of
    onto the can (coming down on a neighbour, they went into a mug and carried it home,
    where every later grasp hit it). The can stays put; the box goes the commanded way."""
    x, y = WORKSPACE_CENTRE
    cam = TOP_DOWN.with_size(512, 512)
    with TabletopWorld() as world:
        box = world.add_primitive(
            "box",
            "box",
            (0.025, 0.025, 0.025),
            (x, y, TABLE_TOP_Z + 0.025),
            rgba=(1, 0, 0, 1),
            mass=0.2,
            name="red box",
        )
        # the can's near side 6 cm behind the box's far side
        can = world.add_primitive(
            "can",
            "cylinder",
            (0.035, 0.09),
            (x - 0.025 - 0.06 - 0.035, y, TABLE_TOP_Z + 0.045),
            rgba=(0, 0, 1, 1),
            mass=0.3,
            name="blue can",
        )
        world.step(60)
        box_before = np.array(world.client.getBasePositionAndOrientation(box.uid)[0])
        can_before = np.array(world.client.getBasePositionAndOrientation(can.uid)[0])
        result = push(world, cam, render(world, cam).segmentation == box.uid, "right")
        assert result.ok
        # nearer than the usual 5 cm behind the box's far side, clear of the can
        assert x - 0.025 - 0.045 < result.start[0] < x - 0.025 - 0.025
        box_after = np.array(world.client.getBasePositionAndOrientation(box.uid)[0])
        can_after = np.array(world.client.getBasePositionAndOrientation(can.uid)[0])
        assert box_after[0] - box_before[0] > 0.03
        assert np.linalg.norm(can_after - can_before) < 0.01
