"""blocks_cross_shape and blocks_tower: their set-ups, their checks halfway through the
reference plans (where they must fail, with the reason), and their actor spellings."""

from __future__ import annotations

import pytest

from sim.bimanual.executor import BimanualExecutor
from sim.bimanual.objects import BLOCK_HALF
from sim.bimanual.tasks import TASKS
from sim.bimanual.tasks.arrange import CACHES, CROSS_KEYS, TOWER, TOWER_AT, tower_levels
from sim.bimanual.tasks.kit import pos
from sim.bimanual.world import TABLE_TOP_Z, DualArmWorld


def _run(world, plan):
    results = BimanualExecutor(world).execute(plan)
    assert all(r.ok for r in results), [r.feedback for r in results]
    world.step(60)


@pytest.mark.parametrize("name", ["blocks_cross_shape", "blocks_tower"])
def test_aliases_name_the_tasks_blocks(name):
    task = TASKS[name]
    with DualArmWorld() as world:
        task.setup(world, 0)
        assert set(task.aliases.values()) == {b.key for b in world.objects()}
        assert task.aliases["red"] == task.aliases["block_red"] == "red_block"


def test_cross_set_up_puts_red_left_and_blue_right():
    task = TASKS["blocks_cross_shape"]
    for seed in range(3):
        with DualArmWorld() as world:
            task.setup(world, seed)
            assert pos(world, "red_block")[0] < -0.14 and pos(world, "blue_block")[0] > 0.14
            for key in CROSS_KEYS:
                x, y, z = pos(world, key)
                assert 0.14 < abs(x) < 0.31 and -0.17 < y < 0.11
                assert abs(z - (TABLE_TOP_Z + BLOCK_HALF)) < 0.002


def test_cross_fails_until_red_and_blue_are_placed_and_with_a_closed_gripper():
    task = TASKS["blocks_cross_shape"]
    with DualArmWorld() as world:
        task.setup(world, 1)
        plan = task.reference_plan(world)
        _run(world, plan[:15])  # the middle column: black, green, yellow
        ok, reason = task.check(world)
        assert not ok and reason == "red_block is not at its place in the cross"
        _run(world, plan[15:])
        ok, reason = task.check(world)
        assert ok, reason
        _run(world, [{"action_name": "close_gripper", "parameters": {"arm_tag": "right"}}])
        ok, reason = task.check(world)
        assert not ok and reason == "the right gripper is not open"


def test_tower_starts_as_two_piles_that_stay_standing():
    task = TASKS["blocks_tower"]
    with DualArmWorld() as world:
        task.setup(world, 2)
        world.step(240)  # a second more: the small blocks rest on the large ones
        half = dict(TOWER)
        for bottom, top in (("red_block", "yellow_block"), ("blue_block", "green_block")):
            b, t = pos(world, bottom), pos(world, top)
            assert abs(b[2] - (TABLE_TOP_Z + half[bottom])) < 0.002
            assert abs(t[2] - (b[2] + half[bottom] + half[top])) < 0.002
            assert abs(t[0] - b[0]) < 0.002 and abs(t[1] - b[1]) < 0.002
        assert pos(world, "red_block")[0] * pos(world, "blue_block")[0] < 0  # one per side


def test_tower_fails_halfway_with_the_missing_level():
    task = TASKS["blocks_tower"]
    with DualArmWorld() as world:
        task.setup(world, 3)
        plan = task.reference_plan(world)
        _run(world, plan[:10])  # both top blocks to the caches, both arms at once
        for cache in CACHES.values():
            key = "yellow_block" if pos(world, "red_block")[0] * cache[0] > 0 else "green_block"
            assert abs(pos(world, key)[:2] - cache).max() < 0.01
        ok, reason = task.check(world)
        assert not ok and reason == "red_block is not at the centre of the table"
        _run(world, plan[10:15])  # the largest to the centre
        ok, reason = task.check(world)
        assert not ok and reason == "blue_block is not on red_block"
        _run(world, plan[15:])
        ok, reason = task.check(world)
        assert ok, reason


def test_tower_in_the_wrong_order_fails():
    task = TASKS["blocks_tower"]
    with DualArmWorld() as world:
        task.setup(world, 0)
        # a tower standing at the centre, but yellow under blue
        order = ["red_block", "yellow_block", "blue_block", "green_block"]
        levels = [TABLE_TOP_Z]
        for key in order:
            levels.append(levels[-1] + 2 * dict(TOWER)[key])
        for key, z in zip(order, levels, strict=False):
            uid = world.bodies[key].uid
            world.client.resetBasePositionAndOrientation(
                uid, (*TOWER_AT, z + dict(TOWER)[key]), (0, 0, 0, 1)
            )
        world.step(120)
        assert pos(world, "green_block")[2] == pytest.approx(tower_levels(order)[-1], abs=0.003)
        ok, reason = task.check(world)
        assert not ok and reason == "blue_block is not on red_block"
