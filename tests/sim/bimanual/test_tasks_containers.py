"""place_cans_plasticbox and put_bottles_dustbin: halfway states fail with the expected
reason, the dustbin really contains what falls into it, the harness's spellings resolve.
(tests/sim/bimanual/test_bimanual_tasks.py runs both reference plans at seed 0.)"""

from __future__ import annotations

from sim.bimanual.executor import BimanualExecutor
from sim.bimanual.resim import actor_aliases
from sim.bimanual.tasks import TASKS
from sim.bimanual.tasks.containers_objects import BOX_FLOOR, CAN, DUSTBIN
from sim.bimanual.tasks.kit import pos, tilt
from sim.bimanual.world import TABLE_TOP_Z, DualArmWorld


def _run(world, plan, executor=None):
    results = (executor or BimanualExecutor(world)).execute(plan)
    assert all(r.ok for r in results), [r.feedback for r in results]


def test_cans_one_in_the_box_is_not_enough_and_both_end_standing_on_its_floor():
    task = TASKS["place_cans_plasticbox"]
    with DualArmWorld() as world:
        task.setup(world, 3)
        ok, reason = task.check(world)
        assert not ok and "can_left" in reason
        plan = task.reference_plan(world)
        ex = BimanualExecutor(world)
        _run(world, plan[:5], ex)  # both lifted, the left one placed
        world.step(30)
        ok, reason = task.check(world)
        assert not ok and reason.startswith("can_right is") and "not in the box" in reason
        _run(world, plan[5:], ex)
        world.step(60)
        ok, reason = task.check(world)
        assert ok, reason
        on_floor = pos(world, "plasticbox")[2] + BOX_FLOOR + CAN[1] / 2
        for key in ("can_left", "can_right"):  # resting on the box's floor, upright
            assert abs(pos(world, key)[2] - on_floor) < 0.005
            assert tilt(world, key) < 0.05


def test_a_can_held_over_the_box_does_not_count():
    task = TASKS["place_cans_plasticbox"]
    with DualArmWorld() as world:
        task.setup(world, 0)
        plan = task.reference_plan(world)
        place_left = dict(plan[4], parameters={**plan[4]["parameters"], "is_open": False})
        _run(world, [*plan[:4], place_left, *plan[7:]])  # the left never lets go
        world.step(30)
        assert task.check(world) == (False, "can_left is still held")


def test_the_harness_spellings_of_the_cans_resolve():
    task = TASKS["place_cans_plasticbox"]
    with DualArmWorld() as world:
        task.setup(world, 0)
        objects = [k for k, b in world.bodies.items() if b.role == "object"]
    assert set(task.aliases.values()) <= set(objects)
    plan = [
        {"action_name": "grasp_actor", "parameters": {"actor": a, "arm_tag": "left"}}
        for a in ("left_can", "Object2", "box")
    ]
    assert actor_aliases([plan], objects, task.aliases) == {
        "left_can": "can_left",
        "Object2": "can_right",
        "box": "plasticbox",
    }


def test_the_dustbin_holds_a_bottle_dropped_into_it_and_not_one_dropped_beside_it():
    task = TASKS["put_bottles_dustbin"]
    with DualArmWorld() as world:
        task.setup(world, 0)
        bin_x, bin_y, _ = pos(world, "dustbin")
        c = world.client
        # two bottles let go upright 30 cm above the rim, one over the bin and one beside it
        over = (bin_x + 0.03, bin_y + 0.05, DUSTBIN[2] + 0.4)
        beside = (bin_x - DUSTBIN[0] / 2 - 0.1, bin_y, DUSTBIN[2] + 0.4)
        c.resetBasePositionAndOrientation(world.bodies["bottle1"].uid, over, (0, 0, 0, 1))
        c.resetBasePositionAndOrientation(world.bodies["bottle2"].uid, beside, (0, 0, 0, 1))
        world.step(480)
        assert pos(world, "bottle1")[2] < 0.15  # fell through the opening to the bin's floor
        assert abs(pos(world, "bottle1")[0] - bin_x) < DUSTBIN[0] / 2
        assert pos(world, "bottle2")[2] < 0.15  # on the floor outside
        c.resetBasePositionAndOrientation(
            world.bodies["bottle3"].uid, (bin_x - 0.05, bin_y - 0.08, 0.3), (0, 0, 0, 1)
        )
        world.step(240)
        assert task.check(world) == (False, "bottle2 is not in the dustbin")


def test_bottles_right_arm_hands_over_to_the_left_which_drops_it_in_the_bin():
    task = TASKS["put_bottles_dustbin"]
    with DualArmWorld() as world:
        task.setup(world, 14)  # bottle1 on the left; bottle3, then bottle2 on the right
        plan = task.reference_plan(world)
        handover_done = 13  # left's own bottle (5 actions), then the handover (8)
        assert plan[handover_done - 1] == {
            "action_name": "back_to_origin",
            "parameters": {"arm_tag": "right"},
        }
        ex = BimanualExecutor(world)
        _run(world, plan[:handover_done], ex)
        assert world.held_body("left") == "bottle3" and world.held_body("right") is None
        assert tilt(world, "bottle3") < 0.3  # hanging from the cap, about upright
        assert pos(world, "bottle1")[2] < DUSTBIN[2] < TABLE_TOP_Z  # already in the bin
        ok, reason = task.check(world)
        assert not ok and reason == "bottle2 is not in the dustbin"
        _run(world, plan[handover_done:], ex)
        world.step(60)
        ok, reason = task.check(world)
        assert ok, reason
