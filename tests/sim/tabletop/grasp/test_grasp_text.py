"""The "no feasible grasp" text states the limit the planner applies, not only the stroke."""

from __future__ import annotations

import re

import pytest

from sim.render import render
from sim.tabletop.grasp.execute import grasp
from sim.tabletop.grasp.plan import MAX_GRASP_WIDTH, MAX_OPENING, too_wide_reason
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

NUMBERS = re.compile(
    r"no feasible grasp: ([\d.]+) cm across, more than the ([\d.]+) cm the gripper can take "
    r"\(it opens ([\d.]+) cm\)$"
)


def _numbers(text: str) -> tuple[float, float, float]:
    match = NUMBERS.search(text)
    assert match, text
    return tuple(float(v) for v in match.groups())


def test_the_limit_is_the_width_the_planner_accepts():
    assert MAX_GRASP_WIDTH == pytest.approx(0.079)
    across, limit, opens = _numbers(too_wide_reason(0.081))
    assert (across, limit, opens) == (8.1, 7.9, 8.5)
    assert limit == pytest.approx(100 * MAX_GRASP_WIDTH) and opens == 100 * MAX_OPENING


@pytest.mark.parametrize("width", [0.07901, 0.0792, 0.0795, 0.0799, 0.0801, 0.084, 0.085, 0.15])
def test_a_refused_width_always_reads_wider_than_the_limit(width):
    across, limit, _opens = _numbers(too_wide_reason(width))
    assert across > limit, too_wide_reason(width)


def test_the_refusal_an_agent_sees_names_the_usable_limit():
    """The issue's case: an 8.1 cm wide object. It used to read "8.1 cm across, the gripper
    opens 8.5 cm", as if it fitted."""
    camera = TOP_DOWN.with_size(256, 256)
    x, y = WORKSPACE_CENTRE
    with TabletopWorld(gripper="2f85") as world:
        box = world.add_primitive(
            "slab",
            "box",
            (0.0405, 0.06, 0.01),
            (x, y, TABLE_TOP_Z + 0.01),
            rgba=(0.2, 0.4, 0.9, 1),
            mass=0.2,
            name="blue box",
        )
        world.step(60)
        result = grasp(world, camera, render(world, camera).segmentation == box.uid)
    assert not result.ok and result.reason == "no feasible grasp", result.feedback
    assert "the gripper opens" not in result.feedback
    across, limit, opens = _numbers(result.feedback)
    assert limit == 7.9 and opens == 8.5 and across > limit
    assert across == pytest.approx(100 * result.plan.width, abs=0.05)
