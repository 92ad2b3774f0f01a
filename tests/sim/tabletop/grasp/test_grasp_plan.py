"""Grasp planning from the mask and depth: where, at what angle, and whether it fits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.render import render
from sim.tabletop.grasp.plan import plan_grasp
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

CAM = TOP_DOWN.with_size(320, 320)


def plan_for(half_extents, yaw, gripper="2f140"):
    x, y = WORKSPACE_CENTRE
    with TabletopWorld(with_robot=False, gripper=gripper) as world:
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


@pytest.mark.parametrize(("gripper", "half"), [("2f85", 0.06), ("2f140", 0.09)])
def test_a_box_wider_than_the_gripper_is_refused(gripper, half):
    plan, _ = plan_for((half, half, 0.02), 0.0, gripper)
    assert not plan.feasible and "no feasible grasp" in plan.reason
    assert plan.rejected["too wide even open"] > 0 and not plan.candidates
    assert plan.width == pytest.approx(2 * half, abs=0.004)  # across its middle


def test_the_2f140_takes_a_box_the_2f85_cannot():
    narrow, _ = plan_for((0.06, 0.02 + 0.04, 0.02), 0.3, "2f85")
    wide, _ = plan_for((0.06, 0.06, 0.02), 0.3, "2f140")
    assert not narrow.feasible and wide.feasible
    assert wide.width == pytest.approx(0.12, abs=0.004)


def _plan_alone(spawn_body, gripper="2f140"):
    from sim.robotiq import GRIPPERS

    with TabletopWorld(with_robot=False, gripper=gripper) as world:
        body = spawn_body(world)
        world.step(240)
        view = render(world, CAM)
        plan = plan_grasp(
            CAM, view.segmentation == body.uid, view, GRIPPERS[gripper], table_z=TABLE_TOP_Z
        )
        pos = world.client.getBasePositionAndOrientation(body.uid)[0]
        return plan, pos, world.aabb(body.key)


def test_a_ball_is_planned_below_its_equator_not_on_its_cap():
    """A contact above the equator faces up: the pads would squeeze the ball down."""
    x, y = WORKSPACE_CENTRE
    plan, centre, _ = _plan_alone(
        lambda w: w.add_primitive(
            "ball", "sphere", (0.035,), (x, y, TABLE_TOP_Z + 0.035), rgba=(1, 0.5, 0, 1), mass=0.1
        )
    )
    assert plan.feasible
    assert plan.pads_z < centre[2] - 0.005
    assert plan.width == pytest.approx(0.07, abs=0.006)
    shallow = [c for c in plan.candidates if c.pads_z > centre[2] + 0.003]
    assert all(c.score < plan.candidates[0].score for c in shallow)


def test_a_mug_is_planned_by_its_body_and_a_tray_by_its_wall():
    from sim.tabletop.catalog import catalog_by_name
    from sim.tabletop.scenes import SpawnSpec, spawn

    x, y = WORKSPACE_CENTRE

    def put(name, scale):
        def make(world):
            entry = catalog_by_name()[name]
            z = TABLE_TOP_Z + 0.01 + entry.extent(scale)[2] / 2
            spawn(world, SpawnSpec(entry, scale, (x, y, z), 0.3, "obj"))
            return world.bodies["obj"]

        return make

    mug, centre, (lo, hi) = _plan_alone(put("red mug", 0.9))
    assert mug.feasible
    # across the body through its middle (the handle aside), not pinching the rim
    assert 0.065 < mug.width < 0.085 and math.dist(mug.centre[:2], centre[:2]) < 0.02
    tray, centre, (lo, hi) = _plan_alone(put("grey tray", 0.27))
    assert tray.feasible and tray.width < 0.03  # one wall, a finger either side of it
    assert math.dist(tray.centre[:2], centre[:2]) > 0.05


def test_the_lean_of_a_stretch_is_the_slope_of_a_tilted_top_not_of_a_round_one():
    """A slab leaning 40 degrees along the closing line shows a plane: its ends are faces
    square to it, 40 degrees off the line, its faces 50. A ball's or a can's round top,
    a level box: about level over the stretch's middle half."""
    from sim.tabletop.grasp.sections import lean_angle

    s = np.linspace(0.0, 0.10, 200)
    tilted = 0.65 + s * math.tan(math.radians(40))
    assert lean_angle(s, tilted, 0.0, 0.10) == pytest.approx(40, abs=1)
    dome = 0.65 + np.sqrt(0.05**2 - (s - 0.05) ** 2)
    assert lean_angle(s, dome, 0.0, 0.10) < 3
    assert lean_angle(s, np.full_like(s, 0.7), 0.0, 0.10) < 1
    assert lean_angle(s[:20], tilted[:20], 0.0, s[19]) == 0.0  # too short to fit
    # a board standing nearly on its edge (70 degrees) is squeezed across its faces
    steep = 0.65 + s * math.tan(math.radians(70))
    assert lean_angle(s, steep, 0.0, 0.10) == pytest.approx(20, abs=1)


def test_the_face_under_an_edge_is_judged_by_the_plane_coming_down_to_it():
    """A box standing on an edge: its top comes down to the end's edge as a plane sloping
    45 degrees, and the face under the edge, square to it, is 45 degrees off the closing
    line. A level top over a wall, or a round flank steepening to its outline: 0."""
    from sim.tabletop.grasp.sections import roof_angle

    d = np.linspace(0.0, 0.03, 120)  # metres in from the end
    assert roof_angle(d, 0.7 + d * math.tan(math.radians(45))) == pytest.approx(45, abs=1)
    assert roof_angle(d, np.full_like(d, 0.7)) == 0.0
    r = 0.035  # a ball's flank, from its outline inwards
    assert roof_angle(d, 0.65 + np.sqrt(np.maximum(r**2 - (r - d) ** 2, 0.0))) == 0.0


def test_a_strip_leaning_across_keeps_the_pads_as_shallow_as_the_lean_shows():
    """Across a strip 2.2 cm wide leaning 40 degrees the top spans 1.8 cm: the pads go
    no deeper than that and a centimetre. A level strip, or one leaning 10 degrees: no
    limit (None)."""
    from sim.tabletop.grasp.sections import slab_depth

    t = np.linspace(-0.011, 0.011, 50)
    depth = slab_depth(t, 0.7 + t * math.tan(math.radians(40)))
    assert depth == pytest.approx(0.022 * math.tan(math.radians(40)) + 0.01, abs=1e-3)
    assert slab_depth(t, np.full_like(t, 0.7)) is None
    assert slab_depth(t, 0.7 + t * math.tan(math.radians(10))) is None
