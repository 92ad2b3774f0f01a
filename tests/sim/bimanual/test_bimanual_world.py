"""The dual-arm world: frame, home poses against the paper's, state round trip."""

from __future__ import annotations

import numpy as np
import pytest

from sim.bimanual.frames import from_wire, to_wire
from sim.bimanual.world import ORIGIN_POSES, TABLE_TOP_Z, DualArmWorld


@pytest.fixture(scope="module")
def world():
    with DualArmWorld() as w:
        yield w


def test_home_poses_match_the_papers_origin_poses(world):
    for tag in ("left", "right"):
        pose = np.array(world.ee_wire_pose(tag))
        paper = np.array(ORIGIN_POSES[tag])
        assert np.allclose(pose[:3], paper[:3], atol=0.002)
        assert abs(abs(float(np.dot(pose[3:], paper[3:]))) - 1) < 1e-4
    assert world.ee_pose("left")[0][0] < 0 < world.ee_pose("right")[0][0]


def test_table_top_and_open_grippers(world):
    lo, hi = world.aabb("table")
    assert hi[2] == pytest.approx(TABLE_TOP_Z, abs=1e-3)
    assert world.gripper_opening("left") == pytest.approx(1.0, abs=0.01)


def test_wire_order_round_trip():
    pos, orn = from_wire([0.1, 0.2, 0.3, 0.5, -0.5, 0.5, 0.5])
    assert orn == pytest.approx((-0.5, 0.5, 0.5, 0.5))
    assert to_wire(pos, orn) == pytest.approx([0.1, 0.2, 0.3, 0.5, -0.5, 0.5, 0.5])
    with pytest.raises(ValueError):
        from_wire([1, 2])


def test_state_round_trip_is_exact(world):
    world.add_primitive("red_block", "box", (0.025,) * 3, (-0.2, 0, TABLE_TOP_Z + 0.025), mass=0.05)
    world.step(30)
    state = world.capture_state()
    world.command_gripper("right", 0.5)
    world.client.resetBasePositionAndOrientation(
        world.bodies["red_block"].uid, (0, 0, 1), (0, 0, 0, 1)
    )
    world.step(60)
    world.restore_state(state)
    again = world.capture_state()
    assert again["finger_targets"] == state["finger_targets"]
    for key, body in state["bodies"].items():
        assert np.allclose(again["bodies"][key]["com_position"], body["com_position"], atol=1e-9)
        for name, angle in body["joints"].items():
            assert again["bodies"][key]["joints"][name] == pytest.approx(angle, abs=1e-9)
