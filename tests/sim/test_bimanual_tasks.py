"""Every task: the untouched start fails its check; the reference plan passes it."""

from __future__ import annotations

import pytest

from sim.bimanual_actions import BimanualExecutor
from sim.bimanual_tasks import TASKS
from sim.bimanual_world import DualArmWorld


@pytest.mark.parametrize("name", sorted(TASKS))
def test_task_check_fails_at_start_and_passes_after_reference_plan(name):
    task = TASKS[name]
    with DualArmWorld() as world:
        task.setup(world, 0)
        ok, reason = task.check(world)
        assert not ok and reason
        results = BimanualExecutor(world).execute(task.reference_plan(world))
        assert all(r.ok for r in results), [r.feedback for r in results]
        world.step(60)
        ok, reason = task.check(world)
        assert ok, reason


def test_instructions_are_the_papers():
    assert TASKS["blocks_ranking_rgb"].instruction == (
        "Place the red block, green block, and blue block in the order of red, green, and "
        "blue from left to right, placing in a row."
    )
