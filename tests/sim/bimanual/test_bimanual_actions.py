"""The primitives 2.2-2.9, the allocation guard, truncation and the 16-dim mode."""

from __future__ import annotations

import numpy as np
import pytest

from sim.bimanual.executor import ActionError, BimanualExecutor, parse_action
from sim.bimanual.world import ORIGIN_POSES, TABLE_TOP_Z, DualArmWorld


def act(name, **params):
    return {"action_name": name, "parameters": params}


@pytest.fixture(scope="module")
def setup():
    with DualArmWorld() as w:
        w.add_primitive(
            "red_block",
            "box",
            (0.025,) * 3,
            (-0.2, -0.05, TABLE_TOP_Z + 0.025),
            rgba=(1, 0, 0, 1),
            mass=0.05,
        )
        w.add_primitive(
            "green_block",
            "box",
            (0.025,) * 3,
            (-0.3, 0.1, TABLE_TOP_Z + 0.025),
            rgba=(0, 1, 0, 1),
            mass=0.05,
        )
        w.step(30)
        yield w, BimanualExecutor(w), w.capture_state()


@pytest.fixture
def world(setup):
    w, ex, state = setup
    w.restore_state(state)
    ex.claimed = {"left": None, "right": None}
    return w, ex


def test_move_to_pose_and_get_arm_pose(world):
    w, ex = world
    target = [0.2, -0.1, 1.0, 0.5, -0.5, 0.5, 0.5]
    res = ex.execute(
        [
            act("move_to_pose", arm_tag="right", target_pose=target),
            act("get_arm_pose", arm_tag="right"),
        ]
    )
    assert [r.feedback for r in res] == ["Action succeeded."] * 2
    pose = np.array(res[1].result)
    assert np.linalg.norm(pose[:3] - target[:3]) < 0.005
    assert abs(abs(float(np.dot(pose[3:], target[3:]))) - 1) < 1e-3


def test_move_by_displacement_world_and_back_to_origin(world):
    w, ex = world
    start = w.ee_pose("left")[0]
    ex.execute([act("move_by_displacement", arm_tag="left", y=0.05, z=0.05)])
    assert np.linalg.norm(w.ee_pose("left")[0] - start - (0, 0.05, 0.05)) < 0.005
    ex.execute([act("back_to_origin", arm_tag="left")])
    assert np.allclose(w.ee_wire_pose("left")[:3], ORIGIN_POSES["left"][:3], atol=0.003)


def test_close_and_open_gripper(world):
    w, ex = world
    ex.execute([act("close_gripper", arm_tag="right")])
    assert w.gripper_opening("right") < 0.05
    ex.execute([act("open_gripper", arm_tag="right", pos=1)])
    assert w.gripper_opening("right") > 0.95


def test_grasp_then_lift_raises_the_block(world):
    w, ex = world
    z0 = w.body_pose("red_block")[0][2]
    res = ex.execute(
        [
            act("grasp_actor", actor="red_block", arm_tag="left"),
            act("move_by_displacement", arm_tag="left", z=0.1),
        ]
    )
    assert all(r.ok for r in res), res
    assert w.body_pose("red_block")[0][2] - z0 > 0.08
    assert w.held_body("left") == "red_block"


def test_allocation_guard_refuses_before_moving(world):
    w, ex = world
    before = w.ee_wire_pose("right")
    res = ex.execute(
        [
            act("grasp_actor", actor="green_block", arm_tag="right"),
            act("back_to_origin", arm_tag="right"),
        ]
    )
    assert len(res) == 1
    assert res[0].feedback == (
        "Action failed: Action Failed: target green_block is too far, right arm can not "
        "finish this 'grasp' action! Please use another arm!"
    )
    assert np.allclose(w.ee_wire_pose("right"), before, atol=1e-6)


def test_truncation_runs_only_the_first_k(world):
    w, ex = world
    plan = [
        act("move_by_displacement", arm_tag="right", z=0.05),
        act("move_by_displacement", arm_tag="right", z=0.05),
    ]
    z0 = w.ee_pose("right")[0][2]
    res = ex.execute(plan, k=1)
    assert len(res) == 1 and res[0].ok
    assert w.ee_pose("right")[0][2] - z0 == pytest.approx(0.05, abs=0.005)


def test_sixteen_dim_rows_move_both_arms_and_grippers(world):
    w, ex = world
    row = [-0.2, -0.1, 1.0, 0.5, -0.5, 0.5, 0.5, 1.0, 0.2, -0.1, 1.0, 0.5, -0.5, 0.5, 0.5, 0.0]
    res = ex.execute_ee([row])
    assert res[0].ok
    now = ex.ee_row()
    assert np.allclose(now[:3], row[:3], atol=0.005) and np.allclose(
        now[8:11], row[8:11], atol=0.005
    )
    assert now[7] > 0.95 and now[15] < 0.05


def test_bad_actions_are_refused_with_feedback(world):
    w, ex = world
    res = ex.execute([act("fly", arm_tag="left")])
    assert res[0].feedback.startswith("Action failed: unknown action")
    with pytest.raises(ActionError):
        parse_action(0, act("open_gripper", arm_tag="middle"))
    before = w.body_pose("red_block")[0]
    res = ex.execute([act("grasp_actor", actor="red_block", arm_tag="left", pre_grasp_dis="far")])
    assert res[0].feedback == (
        "Action failed: grasp_actor: pre_grasp_dis must be a number, not 'far'"
    )
    assert np.allclose(w.body_pose("red_block")[0], before)  # refused before moving
    assert parse_action(0, act("close_gripper", arm_tag="left", pos="0.5")).params["pos"] == 0.5
    res = ex.execute(
        [act("place_actor", actor="red_block", arm_tag="left", target_pose=[0, -0.13, 0.77])]
    )
    assert res[0].feedback == "Action failed: red_block is not in the left gripper"


def test_independent_actions_of_two_arms_overlap(world):
    w, ex = world
    free = {"left": None, "right": None}
    a = parse_action(0, act("grasp_actor", actor="red_block", arm_tag="left"))
    b = parse_action(1, act("grasp_actor", actor="green_block", arm_tag="right"))
    c = parse_action(2, act("open_gripper", arm_tag="right"))
    assert ex.can_overlap(a, b, free)
    assert not ex.can_overlap(a, parse_action(1, act("back_to_origin", arm_tag="left")), free)
    assert not ex.can_overlap(a, c, {"left": None, "right": "red_block"})


def test_a_box_too_wide_for_the_gripper_is_refused_with_the_usable_limit():
    with DualArmWorld() as w:
        w.add_primitive(
            "big_box",
            "box",
            (0.06,) * 3,
            (-0.2, -0.05, TABLE_TOP_Z + 0.06),
            rgba=(0.8, 0.6, 0.2, 1),
            mass=0.2,
        )
        w.step(30)
        (res,) = BimanualExecutor(w).execute([act("grasp_actor", actor="big_box", arm_tag="left")])
    assert "120 mm wide at the grasp point" in res.feedback
    assert "more than the 79 mm the gripper can take (it opens 85 mm)" in res.feedback
