"""ST-BiBench tasks in the dual-arm world: seeded set-ups, the paper's instructions,
success checks on the final state, and scripted reference plans through the primitives.

`TASKS[name]` is a `BimanualTask`; `task.setup(world, seed)` adds the task's objects
(named as the paper names them: red_block, blue_pad, ...) at seeded positions and
lets them settle; `task.check(world)` returns (success, reason); `task.reference_plan
(world)` returns a plan for `BimanualExecutor.execute` computed from the current state.

The tasks themselves live in `sim.bimanual.tasks.blocks`, `.place`, `.kitchen`,
`.containers`, `.arrange`, `.hang` and `.skillet`, their shared objects in
`sim.bimanual.objects`; the names other modules import from here are re-exported.
"""

from __future__ import annotations

from sim.bimanual.objects import BLOCK_HALF, BLOCK_MASS, COLOURS, add_block
from sim.bimanual.tasks import arrange, blocks, containers, hang, kitchen, place, skillet
from sim.bimanual.tasks.blocks import RGB, ROW_X, ROW_Y, SIZE_HALVES
from sim.bimanual.tasks.kit import POS_TOL, BimanualTask, act, pick_and_place

__all__ = [
    "BLOCK_HALF",
    "BLOCK_MASS",
    "COLOURS",
    "POS_TOL",
    "RGB",
    "ROW_X",
    "ROW_Y",
    "SIZE_HALVES",
    "TASKS",
    "BimanualTask",
    "act",
    "add_block",
    "pick_and_place",
]

TASKS: dict[str, BimanualTask] = {
    t.name: t
    for t in (
        BimanualTask(
            "stack_blocks_two",
            "There are two blocks on the table, the color of the blocks is red, green, move "
            "the blocks to the center of the table, and stack the blocks.",
            blocks.setup_blocks(("red_block", "green_block"), ("left", "right")),
            blocks.stack_check(("red_block", "green_block")),
            blocks.stack_plan(("red_block", "green_block")),
        ),
        BimanualTask(
            "stack_blocks_three",
            "There are three blocks on the table, the color of the blocks is red, green and "
            "blue, move the blocks to the center of the table, and stack the blue block on "
            "the green block, and the green block on the red block.",
            blocks.seeded_sides(RGB),
            blocks.stack_check(RGB),
            blocks.stack_plan(RGB),
        ),
        BimanualTask(
            "blocks_ranking_rgb",
            "Place the red block, green block, and blue block in the order of red, green, "
            "and blue from left to right, placing in a row.",
            blocks.seeded_sides(RGB),
            blocks.row_check(RGB, (BLOCK_HALF,) * 3),
            blocks.row_plan(lambda world: list(RGB)),
        ),
        BimanualTask(
            "blocks_ranking_size",
            "There are three blocks on the table, the color of the blocks is random, move "
            "the blocks to the center of the table, and arrange them from largest to "
            "smallest, from left to right.",
            blocks.setup_sizes,
            blocks.check_sizes,
            blocks.row_plan(blocks.by_size),
        ),
        BimanualTask(
            "handover_block",
            "Use the left arm to grasp the red block on the table, handover it to the right "
            "arm and place it on the blue pad.",
            blocks.setup_handover,
            blocks.handover_check,
            blocks.handover_plan,
        ),
        BimanualTask(
            "place_burger_fries",
            "Use dual arm to pick the hamburg and frenchfries and put them onto the tray.",
            place.setup_burger,
            place.burger_check,
            place.burger_plan,
        ),
        BimanualTask(
            "grab_roller",
            "Use both arms to grab the roller on the table and lift it to z>0.8 (m).",
            place.setup_roller,
            place.roller_check,
            place.roller_plan,
        ),
        BimanualTask(
            "stack_bowls_three",
            "Stack the three bowls on top of each other.",
            kitchen.setup_bowls,
            kitchen.bowls_check,
            kitchen.bowls_plan,
        ),
        BimanualTask(
            "place_object_basket",
            "Use one arm to grab the target object and put it in the basket, then use the "
            "other arm to grab the basket, and finally move the basket slightly away.",
            kitchen.setup_basket,
            kitchen.basket_check,
            kitchen.basket_plan,
        ),
        *containers.TASKS,
        *arrange.TASKS,
        *hang.TASKS,
        *skillet.TASKS,
    )
}
