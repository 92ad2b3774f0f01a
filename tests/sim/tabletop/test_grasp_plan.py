"""Grasp planning from the mask and depth: where, at what angle, and whether it fits."""

from __future__ import annotations

import math

import pytest

from sim.render import render
from sim.tabletop.grasp_plan import plan_grasp
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

CAM = TOP_DOWN.with_size(320, 320)


def plan_for(half_extents, yaw):
    x, y = WORKSPACE_CENTRE
    with TabletopWorld(with_robot=False) as world:
        orn = world.client.getQuaternionFromEuler((0, 0, yaw))
        box = world.add_primitive(
            "box",
            "box",
            half_extents,
            (x + 0.05, y - 0.03, TABLE_TOP_Z + half_extents[2]),
            orn,
            rgba=(1, 0, 0, 1),
        )
        view = render(world, CAM)
        mask = view.segmentation == box.uid
        return plan_grasp(CAM, mask, view, world.gripper_model, table_z=TABLE_TOP_Z), (
            x + 0.05,
            y - 0.03,
        )


@pytest.mark.parametrize("yaw", [0.0, 0.7, -1.2])
def test_a_thin_box_is_grasped_across_its_narrow_side(yaw):
    plan, (x, y) = plan_for((0.015, 0.035, 0.02), yaw)
    assert plan.feasible
    assert plan.centre[0] == pytest.approx(x, abs=0.006) and plan.centre[1] == pytest.approx(
        y, abs=0.006
    )
    assert plan.top_z == pytest.approx(TABLE_TOP_Z + 0.04, abs=0.005)
    assert plan.width == pytest.approx(0.03, abs=0.008)
    # the fingers close along plan.yaw: the box's narrow (local x) axis
    closing = plan.yaw
    assert abs(math.sin(closing - yaw)) < 0.1


def test_a_box_wider_than_the_gripper_is_refused():
    plan, _ = plan_for((0.06, 0.06, 0.02), 0.0)
    assert not plan.feasible and "no feasible grasp" in plan.reason
