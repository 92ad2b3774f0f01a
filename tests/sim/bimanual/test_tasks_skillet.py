"""place_bread_skillet (Place5), place_bread_skillet_vla (Place10) and place_object_scale
(Place8): the skillet really hangs from its handle, the checks' thresholds, the halfway
states, the fine-control rows, the scale's layout and the harness's actor spellings."""

from __future__ import annotations

import math

import pytest

from sim.bimanual.executor import BimanualExecutor
from sim.bimanual.resim import actor_aliases
from sim.bimanual.rows import row_reference, run_rows
from sim.bimanual.tasks import TASKS
from sim.bimanual.tasks.kit import held, tilt
from sim.bimanual.tasks.skillet import SKILLET_AT, functional_point, scale_target
from sim.bimanual.tasks.skillet_objects import (
    OBJECT_RADIUS,
    SCALE_BODY,
    SCALE_OBJECTS,
    off_scale,
)
from sim.bimanual.world import TABLE_TOP_Z, DualArmWorld


def _run(world, plan):
    results = BimanualExecutor(world).execute(plan)
    assert all(r.ok for r in results), [r.feedback for r in results]
    world.step(60)


def test_the_skillet_hangs_from_its_handle_and_the_bread_goes_into_it():
    task = TASKS["place_bread_skillet_vla"]
    with DualArmWorld() as world:
        task.setup(world, 0)
        plan = task.reference_plan(world)
        arm = plan[0]["parameters"]["arm_tag"]
        _run(world, plan[:6])  # both grasped and raised, the skillet held at the centre
        fp = functional_point(world)
        assert world.held_body(arm) == "skillet"
        assert fp[2] > TABLE_TOP_Z + 0.04 and tilt(world, "skillet") < 0.15
        assert math.dist(fp[:2], SKILLET_AT) < 0.02
        ok, reason = task.check(world)
        assert not ok and reason == "the bread is not in the skillet"
        _run(world, plan[6:])
        ok, reason = task.check(world)
        assert ok, reason
        # the skillet was never let go: it still hangs from the gripper, the bread in it
        assert world.held_body(arm) == "skillet" and not held(world, "bread")
        assert functional_point(world)[2] > TABLE_TOP_Z + 0.04


def test_place5_accepts_a_skillet_on_the_table_place10_wants_it_lifted():
    # BiManiBench's checks: both above z 0.72 (Place5), above 0.76 (Place10)
    with DualArmWorld() as world:
        TASKS["place_bread_skillet"].setup(world, 3)
        c = world.client
        c.resetBasePositionAndOrientation(
            world.bodies["skillet"].uid, (*SKILLET_AT, TABLE_TOP_Z), (0, 0, 0, 1)
        )
        c.resetBasePositionAndOrientation(
            world.bodies["bread"].uid,
            (SKILLET_AT[0], SKILLET_AT[1], TABLE_TOP_Z + 0.02),
            (0, 0, 0, 1),
        )
        world.step(120)
        ok, reason = TASKS["place_bread_skillet"].check(world)
        assert ok, reason
        ok, reason = TASKS["place_bread_skillet_vla"].check(world)
        assert not ok and reason.startswith("the skillet is at z = 0.746")


def test_place10_reference_traced_into_rows_solves_it():
    rows, solved = row_reference("place_bread_skillet_vla", 1)
    assert solved and all(len(r) == 16 for r in rows)
    ok, reason, n = run_rows("place_bread_skillet_vla", 1, rows)
    assert ok, reason
    assert n == len(rows)


def test_place_object_scale_needs_the_object_let_go_on_the_platform():
    task = TASKS["place_object_scale"]
    with DualArmWorld() as world:
        task.setup(world, 0)
        obj = scale_target(world)
        assert obj in SCALE_OBJECTS
        plan = task.reference_plan(world)
        arm = plan[0]["parameters"]["arm_tag"]
        _run(world, plan[:2])  # grasped and raised
        ok, reason = task.check(world)
        assert not ok and reason == f"the {obj} is not on the scale"
        place = dict(plan[2], parameters={**plan[2]["parameters"], "is_open": False})
        _run(world, [place])  # on the platform, still held
        ok, reason = task.check(world)
        assert not ok and reason == f"the {arm} gripper is not open"
        _run(world, [{"action_name": "open_gripper", "parameters": {"arm_tag": arm}}])
        ok, reason = task.check(world)
        assert ok, reason


def test_place_object_scale_rows_solve_it():
    rows, solved = row_reference("place_object_scale", 2)
    assert solved
    ok, reason, _ = run_rows("place_object_scale", 2, rows)
    assert ok, reason


def test_the_objects_start_off_the_scale():
    assert not off_scale((0.1, 0.0), 0.0, (0.1 + SCALE_BODY[0] / 2 + 0.04, 0.0), "bell")
    assert off_scale((0.1, 0.0), 0.0, (0.1 + SCALE_BODY[0] / 2 + 0.05, 0.0), "bell")
    turned = (0.1, SCALE_BODY[0] / 2 + OBJECT_RADIUS["stapler"] + 0.005)
    assert not off_scale((0.1, 0.0), math.pi / 2, turned, "stapler")  # its long side is on y
    kinds = set()
    for seed in range(6):
        with DualArmWorld(with_robot=False) as world:
            TASKS["place_object_scale"].setup(world, seed)
            obj = scale_target(world)
            kinds.add(obj)
            assert not TASKS["place_object_scale"].check(world)[0]
            assert tilt(world, obj) < 0.01 and tilt(world, "scale") < 0.01
    assert kinds == set(SCALE_OBJECTS)


@pytest.mark.parametrize(
    ("task", "objects", "spelling", "key"),
    [
        ("place_bread_skillet", ["bread", "skillet"], "106_skillet", "skillet"),
        ("place_bread_skillet_vla", ["bread", "skillet"], "075_bread", "bread"),
        ("place_object_scale", ["bell", "scale"], "050_bell", "bell"),
        ("place_object_scale", ["stapler", "scale"], "072_electronicscale", "scale"),
    ],
)
def test_the_harness_spellings_resolve(task, objects, spelling, key):
    plan = [{"parameters": {"actor": spelling}}]
    assert actor_aliases([plan], objects, dict(TASKS[task].aliases)) == {spelling: key}


def test_instructions_are_the_papers():
    assert TASKS["place_bread_skillet"].instruction == (
        "If there is one bread on the table, use one arm to grab the bread and put it into "
        "the skillet."
    )
    assert TASKS["place_bread_skillet_vla"].instruction == (
        "If there is one bread on the table, move skillet to center and use one arm to grab "
        "the bread and put it into the skillet."
    )
    assert TASKS["place_object_scale"].instruction == (
        "Use one arm to grab the object and put it on the scale."
    )
