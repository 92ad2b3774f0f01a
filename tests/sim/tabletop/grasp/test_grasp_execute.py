"""The grasp tool: physical outcomes, and failures that say why."""

from __future__ import annotations

import numpy as np
import pytest

from sim.render import render
from sim.tabletop.grasp.execute import grasp, in_basket
from sim.tabletop.motion import tool_pose
from sim.tabletop.world import HOME_JOINTS, TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

CAM = TOP_DOWN.with_size(256, 256)
X, Y = WORKSPACE_CENTRE


def _box(world, key, half, xy, yaw=0.0, name="red box"):
    orn = world.client.getQuaternionFromEuler((0, 0, yaw))
    return world.add_primitive(
        key,
        "box",
        half,
        (xy[0], xy[1], TABLE_TOP_Z + half[2]),
        orn,
        rgba=(0.9, 0.2, 0.2, 1),
        mass=0.15,
        name=name,
    )


def test_a_grasped_box_ends_in_the_basket_held_by_friction_alone():
    with TabletopWorld() as world:
        box = _box(world, "box", (0.018, 0.04, 0.025), (X + 0.05, Y), yaw=0.6)
        world.step(60)
        constraints_before = world.client.getNumConstraints()
        mask = render(world, CAM).segmentation == box.uid
        result = grasp(world, CAM, mask)
        assert result.ok and result.feedback == "Action succeeded.", result.feedback
        assert result.body_key == "box"
        assert in_basket(world, box.uid)
        # fingers and friction only: the gear couplings are the only constraints added
        added = world.client.getNumConstraints() - constraints_before
        assert added == len(world.gripper_joints) - 1
        pan = world.client.getJointState(world.robot_uid, world.arm_joints["shoulder_pan_joint"])[0]
        assert abs(pan - HOME_JOINTS["shoulder_pan_joint"]) < 0.05
        # the planned closing axis is the box's narrow side
        assert abs(np.sin(result.plan.yaw - 0.6)) < 0.1
        assert result.tool_at_close is not None
        assert np.linalg.norm(np.array(result.tool_at_close[:2]) - (X + 0.05, Y)) < 0.01


@pytest.mark.parametrize(
    ("gripper", "half", "opens"), [("2f85", 0.05, 8.5), ("2f140", 0.075, 14.0)]
)
def test_an_object_wider_than_the_gripper_is_refused_without_moving(gripper, half, opens):
    with TabletopWorld(gripper=gripper) as world:
        box = _box(world, "plate", (half, half, 0.01), (X, Y), name="wide box")
        world.step(60)
        before, _ = tool_pose(world)
        result = grasp(world, CAM, render(world, CAM).segmentation == box.uid)
        assert not result.ok and result.reason == "no feasible grasp"
        assert f"the gripper can take (it opens {opens:.1f} cm)" in result.feedback
        assert np.allclose(tool_pose(world)[0], before, atol=1e-3)


def test_a_grasp_hemmed_in_by_taller_neighbours_is_refused_naming_them_without_moving():
    """The depth image shows the fingers and the housing would hit the tall boxes on every
    side: the planner says so instead of driving the arm into them."""
    with TabletopWorld() as world:
        low = _box(world, "low", (0.015, 0.03, 0.012), (X, Y), name="flat box")
        # two tall boxes hemming the flat one in across its narrow side
        _box(world, "wall_a", (0.015, 0.05, 0.06), (X - 0.04, Y), name="tall box")
        _box(world, "wall_b", (0.015, 0.05, 0.06), (X + 0.04, Y), name="tall box")
        world.step(60)
        start = np.array(world.client.getBasePositionAndOrientation(low.uid)[0])
        before, _ = tool_pose(world)
        result = grasp(world, CAM, render(world, CAM).segmentation == low.uid)
        assert not result.ok and result.reason == "no feasible grasp"
        assert "fingers would hit the tall box" in result.feedback
        assert result.plan.rejected["fingers would hit"] > 0 and not result.attempts
        end = np.array(world.client.getBasePositionAndOrientation(low.uid)[0])
        assert np.linalg.norm(end - start) < 1e-3
        assert np.allclose(tool_pose(world)[0], before, atol=1e-3)


def test_a_hemmed_in_object_is_taken_from_its_free_side():
    """Tall boxes on its left and right: the fingers go in front and behind (across its
    long side), where the depth image shows room, and the grasp succeeds."""
    with TabletopWorld() as world:
        target = _box(world, "target", (0.02, 0.025, 0.03), (X, Y), name="red box")
        _box(world, "wall_a", (0.015, 0.06, 0.05), (X - 0.066, Y), name="tall box")
        _box(world, "wall_b", (0.015, 0.06, 0.05), (X + 0.066, Y), name="tall box")
        world.step(60)
        result = grasp(world, CAM, render(world, CAM).segmentation == target.uid)
        assert result.ok, result.feedback
        # the fingers closed along y, across the 5 cm side, not along x towards the walls
        assert abs(np.cos(result.plan.yaw)) < 0.3, np.degrees(result.plan.yaw)
        assert result.plan.rejected.get("fingers would hit", 0) > 0
        assert in_basket(world, target.uid)


def test_a_grasp_after_a_restored_state_or_a_push_still_closes_the_fingers():
    """Restoring a state (as replay does) or pushing re-arms the finger motors; the
    grasp must take the linkage back, or the fingers would not close."""
    with TabletopWorld() as world:
        box = _box(world, "box", (0.018, 0.03, 0.025), (X - 0.05, Y + 0.05))
        world.step(60)
        first = grasp(world, CAM, render(world, CAM).segmentation == box.uid)
        assert first.ok
        box2 = _box(world, "box2", (0.018, 0.03, 0.025), (X + 0.05, Y))
        world.step(60)
        world.restore_state(world.capture_state())  # re-arms every gripper joint's motor
        second = grasp(world, CAM, render(world, CAM).segmentation == box2.uid)
        assert second.ok, second.feedback
        assert in_basket(world, box2.uid)


def test_a_tall_neighbour_close_by_is_cleared_by_leaning_the_gripper(monkeypatch):
    """A 16 cm box 2.2 cm from the target: upright, the gripper's housing would hit it, so
    the planner leans the tool away about the closing line (the fingers still close level)
    and the grasp succeeds; allowed no lean, the same planner refuses naming the box."""
    import sim.tabletop.grasp.plan as grasp_plan

    def scene(world):
        target = _box(world, "target", (0.02, 0.02, 0.03), (X, Y), name="red box")
        _box(world, "wall", (0.015, 0.08, 0.08), (X + 0.037, Y), name="tall box")
        world.step(60)
        return target

    with TabletopWorld(gripper="2f140") as world:
        target = scene(world)
        result = grasp(world, CAM, render(world, CAM).segmentation == target.uid)
        assert result.ok, result.feedback
        assert in_basket(world, target.uid)
        tried = result.attempts[-1].candidate
        assert abs(tried.tilt) > 0.2
        # leaning away from the wall (at +x): tool0 ends on the far side of the target
        assert tried.tool_position(0.2)[0] < X
    monkeypatch.setattr(grasp_plan, "TILTS", ())
    with TabletopWorld(gripper="2f140") as world:
        target = scene(world)
        result = grasp(world, CAM, render(world, CAM).segmentation == target.uid)
        assert not result.ok and result.reason == "no feasible grasp"
        assert "would hit the tall box" in result.feedback


def test_an_object_cut_by_the_image_edge_is_not_grasped_across_the_cut():
    """Half out of the camera's view, the box's mask ends at the image's edge; the
    planner does not take that for the box's side (it closed on a sliver before)."""
    cam = TOP_DOWN.with_size(256, 256)
    with TabletopWorld() as world:
        half_view = 0.85 * np.tan(np.radians(TOP_DOWN.fov_deg) / 2)
        box = _box(world, "box", (0.03, 0.03, 0.03), (X - half_view, Y))
        world.step(60)
        mask = render(world, cam).segmentation == box.uid
        assert mask[:, 0].any()  # cut by the image's left edge
        result = grasp(world, cam, mask)
        assert not result.ok and result.reason == "no feasible grasp"
        assert "contact out of view" in result.feedback
        assert not result.attempts
