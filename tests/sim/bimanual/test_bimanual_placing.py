"""place_actor's orientation constraints: the pure rule, then the actor's yaw in PyBullet."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.bimanual.executor import BimanualExecutor
from sim.bimanual.frames import from_wire
from sim.bimanual.frames import rotation_matrix as _matrix
from sim.bimanual.placing import approach_direction, axis_angle, place_rotation, yaw_of
from sim.bimanual.world import TABLE_TOP_Z, DualArmWorld

DOWN_GRASP = np.array([0.0, 0.0, -0.19])  # EE origin to object centre, from above


def rz(angle):
    return axis_angle((0, 0, 1), angle)


def test_align_turns_the_actor_axis_onto_the_closest_given_axis():
    turn = place_rotation(rz(0.3), None, constrain="align", align_axis=[0, 1, 0])
    assert yaw_of(turn @ rz(0.3)) == pytest.approx(math.pi / 2)
    # of several axes, the closest one wins: x at 0.3 rad goes to +x, not to +y
    turn = place_rotation(rz(0.3), None, constrain="align", align_axis=[[0, 1, 0], [1, 0, 0]])
    assert yaw_of(turn @ rz(0.3)) == pytest.approx(0.0, abs=1e-9)
    # the actor's y axis onto +x: the actor ends at yaw -90 degrees
    turn = place_rotation(
        rz(0.0), None, constrain="align", align_axis=[1, 0, 0], actor_axis=[0, 1, 0]
    )
    assert yaw_of(turn) == pytest.approx(-math.pi / 2)


def test_seven_number_target_sets_the_default_align_axis_and_free_keeps_yaw():
    _, orn = from_wire([0, 0, 0, math.cos(0.4), 0, 0, math.sin(0.4)])  # yaw 0.8
    turn = place_rotation(rz(-0.2), _matrix(orn), constrain="align")
    assert yaw_of(turn @ rz(-0.2)) == pytest.approx(0.8)
    assert yaw_of(place_rotation(rz(-0.2), _matrix(orn), constrain="free") @ rz(-0.2)) == (
        pytest.approx(-0.2)
    )
    # the paper's block targets, wxyz [0, 1, 0, 0], mean upright, x along +x
    _, flipped = from_wire([0, 0, 0, 0, 1, 0, 0])
    turn = place_rotation(rz(0.5), _matrix(flipped), constrain="align")
    assert yaw_of(turn @ rz(0.5)) == pytest.approx(0.0, abs=1e-9)
    assert (turn @ rz(0.5))[2, 2] == pytest.approx(1.0)


def test_free_stands_a_tilted_actor_upright():
    tilted = axis_angle((1, 0, 0), 0.2) @ rz(0.4)
    upright = place_rotation(tilted, None, constrain="free") @ tilted
    assert upright[2, 2] == pytest.approx(1.0)


def test_auto_squares_a_top_down_grasp_and_turns_a_side_grasp_diagonally():
    ee = np.column_stack([(0, 0, -1), (-math.sin(0.5), -math.cos(0.5), 0), (0, 0, 0)])
    ee[:, 2] = np.cross(ee[:, 0], ee[:, 1])
    turn = place_rotation(rz(0.5), None, constrain="auto", grasp_direction=DOWN_GRASP, ee_rot=ee)
    assert (turn @ ee)[:, 2] == pytest.approx([0, 1, 0], abs=1e-9)
    side = np.array([0.19, 0.0, 0.0])  # the right arm holding it from -x
    turn = place_rotation(rz(0.0), None, constrain="auto", grasp_direction=side, arm="right")
    g = turn @ side
    assert math.atan2(g[1], g[0]) == pytest.approx(3 * math.pi / 4)
    with pytest.raises(ValueError):
        place_rotation(rz(0.0), None, constrain="tight")


def test_pre_place_direction():
    assert approach_direction("grasp", None, DOWN_GRASP) == pytest.approx([0, 0, -1])
    assert approach_direction("fp", None, (1, 0, 0)) == pytest.approx([0, 0, -1])
    assert approach_direction([1, 0, 0], rz(math.pi / 2), None) == pytest.approx([0, 1, 0])


# -- in PyBullet -------------------------------------------------------------------------------
BAR = (0.015, 0.03, 0.025)  # a 3 x 6 x 5 cm bar: its yaw is unambiguous up to a half turn


@pytest.fixture(scope="module")
def bar_world():
    with DualArmWorld() as w:
        yaw = 0.3
        w.add_primitive(
            "bar",
            "box",
            BAR,
            (-0.2, -0.02, TABLE_TOP_Z + BAR[2]),
            (0, 0, math.sin(yaw / 2), math.cos(yaw / 2)),
            rgba=(0.9, 0.6, 0.1, 1),
            mass=0.05,
        )
        w.step(30)
        yield w, w.capture_state()


def _place_and_measure(bar_world, **place):
    w, state = bar_world
    w.restore_state(state)
    ex = BimanualExecutor(w)
    plan = [
        {"action_name": "grasp_actor", "parameters": {"actor": "bar", "arm_tag": "left"}},
        {"action_name": "move_by_displacement", "parameters": {"arm_tag": "left", "z": 0.08}},
        {
            "action_name": "place_actor",
            "parameters": {"actor": "bar", "arm_tag": "left", "dis": 0.005, **place},
        },
    ]
    results = ex.execute(plan)
    assert all(r.ok for r in results), [r.feedback for r in results]
    w.step(60)
    pos, orn = w.body_pose("bar")
    return pos, yaw_of(_matrix(orn))


def test_place_with_align_turns_the_held_actor_about_z(bar_world):
    target = [-0.12, -0.1, TABLE_TOP_Z + BAR[2]]
    pos, yaw = _place_and_measure(
        bar_world, target_pose=target, constrain="align", align_axis=[0, 1, 0]
    )
    assert yaw == pytest.approx(math.pi / 2, abs=0.08)
    assert np.linalg.norm(pos[:2] - target[:2]) < 0.015
    assert pos[2] == pytest.approx(target[2], abs=0.005)


def test_place_with_free_keeps_the_yaw_and_a_quaternion_sets_it(bar_world):
    target = [-0.12, -0.1, TABLE_TOP_Z + BAR[2]]
    _, yaw = _place_and_measure(bar_world, target_pose=target, constrain="free")
    assert yaw == pytest.approx(0.3, abs=0.08)
    turned = [*target, math.cos(-0.25), 0, 0, math.sin(-0.25)]  # wxyz: yaw -0.5
    _, yaw = _place_and_measure(bar_world, target_pose=turned, constrain="align")
    assert yaw == pytest.approx(-0.5, abs=0.08)
