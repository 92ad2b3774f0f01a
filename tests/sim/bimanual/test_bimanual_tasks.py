"""Every task: the untouched start fails its check; the reference plan passes it. The
handover and the two kitchen tasks are also checked halfway, where they must fail."""

from __future__ import annotations

import pytest

from sim.bimanual.executor import BimanualExecutor
from sim.bimanual.tasks import TASKS
from sim.bimanual.world import DualArmWorld

OWN_TESTS = ("handover_block", "stack_bowls_three", "place_object_basket")


def _run(world, plan):
    results = BimanualExecutor(world).execute(plan)
    assert all(r.ok for r in results), [r.feedback for r in results]
    world.step(60)


@pytest.mark.parametrize("name", sorted(set(TASKS) - set(OWN_TESTS)))
def test_task_check_fails_at_start_and_passes_after_reference_plan(name):
    task = TASKS[name]
    with DualArmWorld() as world:
        task.setup(world, 0)
        ok, reason = task.check(world)
        assert not ok and reason
        _run(world, task.reference_plan(world))
        ok, reason = task.check(world)
        assert ok, reason


def test_handover_passes_the_block_from_the_left_hand_to_the_right():
    # seed 10 failed while the right arm took the block from the side (+x): see the plan
    task = TASKS["handover_block"]
    with DualArmWorld() as world:
        task.setup(world, 10)
        plan = task.reference_plan(world)
        ex = BimanualExecutor(world)
        assert all(r.ok for r in ex.execute(plan[:4]))
        assert world.held_body("left") == world.held_body("right") == "red_block"
        assert all(r.ok for r in ex.execute(plan[4:7]))  # left lets go and goes home
        assert world.held_body("left") is None and world.held_body("right") == "red_block"
        assert not task.check(world)[0]
        _run(world, plan[7:])
        ok, reason = task.check(world)
        assert ok, reason


def test_stack_bowls_three():
    task = TASKS["stack_bowls_three"]
    with DualArmWorld() as world:
        task.setup(world, 0)
        ok, reason = task.check(world)
        assert not ok and reason
        plan = task.reference_plan(world)
        _run(world, plan[:10])  # the largest in the middle, the middle one in it
        ok, reason = task.check(world)
        assert not ok and "bowl3" in reason
        _run(world, plan[10:])
        ok, reason = task.check(world)
        assert ok, reason


def test_place_object_basket():
    task = TASKS["place_object_basket"]
    with DualArmWorld() as world:
        task.setup(world, 1)
        target = world.bodies["basket"].extra["target"]
        ok, reason = task.check(world)
        assert not ok and reason == f"{target} is not in the basket"
        plan = task.reference_plan(world)
        _run(world, plan[:5])  # in the basket, but the basket has not moved
        ok, reason = task.check(world)
        assert not ok and "the basket moved" in reason
        _run(world, plan[5:])
        ok, reason = task.check(world)
        assert ok, reason


def test_instructions_are_the_papers():
    assert TASKS["blocks_ranking_rgb"].instruction == (
        "Place the red block, green block, and blue block in the order of red, green, and "
        "blue from left to right, placing in a row."
    )
    assert TASKS["stack_bowls_three"].instruction == "Stack the three bowls on top of each other."


def test_the_task_set_is_the_papers_and_every_task_has_a_hint():
    from annotation.bimanual.paper_tables import PAPER_TASKS
    from sim.bimanual.prompts import TASK_HINTS

    assert sorted(TASKS) == list(PAPER_TASKS)  # Tables 2 and 3: 17 tasks, Place10 its own
    assert set(TASK_HINTS) == set(TASKS)


def test_the_fine_control_variant_has_table_3s_instruction():
    assert TASKS["place_bread_skillet_vla"].instruction == (
        "If there is one bread on the table, move skillet to center and use one arm to grab "
        "the bread and put it into the skillet."
    )
    assert TASKS["place_bread_skillet"].instruction == (
        "If there is one bread on the table, use one arm to grab the bread and put it into "
        "the skillet."
    )
