"""The 2F-140 in the tabletop world: what the paper's gripper takes that the 2F-85 could not,
and failures that list what was tried."""

from __future__ import annotations

import re

import numpy as np
import pytest

from sim.render import render
from sim.tabletop.catalog import catalog_by_name
from sim.tabletop.grasp.execute import grasp, in_basket
from sim.tabletop.scenes import SpawnSpec, spawn
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

CAM = TOP_DOWN.with_size(320, 320)
X, Y = WORKSPACE_CENTRE


def _catalog_object(world, name: str, scale: float, yaw: float = 0.3):
    entry = catalog_by_name()[name]
    z = TABLE_TOP_Z + 0.01 + entry.extent(scale)[2] / 2
    spawn(world, SpawnSpec(entry, scale, (X + 0.02, Y, z), yaw, "obj"))
    world.step(240)
    return world.bodies["obj"]


@pytest.mark.parametrize(
    ("name", "scale"),
    [
        ("red book", None),  # 11-12 cm across its narrow side, 2.6 cm thick: flat
        ("white plate", 0.8),  # 12.8 cm across, 1 cm thick: the smallest plates fit
        ("red mug", 0.9),  # by its body, not its handle or rim
        ("white tissue box", None),  # 12 cm: wider than the 2F-85 opens
    ],
)
def test_the_2f140_puts_it_in_the_basket_by_friction_alone(name, scale):
    with TabletopWorld(gripper="2f140") as world:
        entry = catalog_by_name()[name]
        body = _catalog_object(world, name, scale or sum(entry.scale_range) / 2)
        constraints = world.client.getNumConstraints()
        result = grasp(world, CAM, render(world, CAM).segmentation == body.uid)
        assert result.ok, result.feedback
        assert in_basket(world, body.uid)
        # the gear couplings are the only constraints the grasp adds
        assert world.client.getNumConstraints() - constraints == len(world.gripper_joints) - 1
        held = result.attempts[-1].candidate
        if name in ("white plate", "white tissue box"):
            assert held.width > 0.085  # more than the 2F-85 opens
        if name == "red mug":
            # across the body: the mug is about 8 cm round without its handle
            assert 0.06 < held.width < 0.09


def test_the_2f85_refuses_what_the_2f140_takes():
    with TabletopWorld(gripper="2f85") as world:
        body = _catalog_object(world, "white tissue box", 1.0)
        result = grasp(world, CAM, render(world, CAM).segmentation == body.uid)
        assert not result.ok and result.reason == "no feasible grasp"
        assert "(it opens 8.5 cm)" in result.feedback


def test_a_failure_lists_every_grasp_tried_and_the_measured_slip():
    """A 6 kg box: each grasp closes on it, and it slips at lift every time."""
    with TabletopWorld(gripper="2f140") as world:
        box = world.add_primitive(
            "brick",
            "box",
            (0.025, 0.04, 0.03),
            (X, Y, TABLE_TOP_Z + 0.03),
            rgba=(0.5, 0.5, 0.55, 1),
            mass=6.0,
            name="iron block",
        )
        world.step(60)
        result = grasp(world, CAM, render(world, CAM).segmentation == box.uid)
    assert not result.ok and result.reason == "slipped"
    assert len(result.attempts) == 3
    assert all(a.reason == "slipped" for a in result.attempts)
    first = result.attempts[0]  # the best grasp held it and measured how far it came up
    assert first.rose_m is not None and first.rose_m < 0.075
    assert f"it rose {100 * first.rose_m:.1f} of 15 cm" in result.feedback
    listed = re.findall(r"(\d)\) across ([\d.]+) cm at (\d+) deg: slipped", result.feedback)
    assert [int(i) for i, _, _ in listed] == [1, 2, 3], result.feedback
    # no two attempts are the same grasp
    poses = {
        (
            round(a.candidate.centre[0], 2),
            round(a.candidate.centre[1], 2),
            round(np.degrees(a.candidate.yaw)),
        )
        for a in result.attempts
    }
    assert len(poses) == 3
