"""The block tasks: stacking, ranking in a row, and the handover of a tall block."""

from __future__ import annotations

import math
import random

from sim.bimanual.objects import BLOCK_HALF, BLOCK_MASS, COLOURS, add_block
from sim.bimanual.tasks.kit import (
    POS_TOL,
    act,
    pick_and_place,
    pos,
    random_yaw,
    scatter,
    settle,
)
from sim.bimanual.world import TABLE_CENTRE_TARGET, TABLE_TOP_Z

ROW_Y = -0.1967  # the ranking tasks' target row and x positions (the paper's prompt)
ROW_X = (-0.0887, 0.0017, 0.0827)
RGB = ("red_block", "green_block", "blue_block")
SIZE_HALVES = (0.03, 0.025, 0.02)
# blocks_ranking_size's colours (black is for blocks_cross_shape: its seeded starts stay as they were)
SIZE_COLOURS = ("blue", "green", "orange", "purple", "red", "yellow")


def _on_table(world, key, half) -> bool:
    return abs(pos(world, key)[2] - (TABLE_TOP_Z + half)) < 0.01


def _stacked(world, upper, lower, gap) -> bool:
    a, b = pos(world, upper), pos(world, lower)
    return math.hypot(*(a - b)[:2]) < POS_TOL and abs(a[2] - b[2] - gap) < 0.012


# -- stacking ------------------------------------------------------------------------------
def setup_blocks(names, sides):
    def setup(world, seed):
        rng = random.Random(seed)
        for key, xy in zip(names, scatter(rng, len(names), sides), strict=True):
            add_block(world, key, xy, orn=random_yaw(rng))
        settle(world)

    return setup


def seeded_sides(names):
    """Each block on a random side, both sides used (so that both arms work)."""

    def setup(world, seed):
        rng = random.Random(seed)
        sides = ["left", "right"] + [rng.choice(("left", "right")) for _ in names[2:]]
        rng.shuffle(sides)
        setup_blocks(names, sides)(world, seed)

    return setup


def stack_plan(order):
    def plan(world):
        cx, cy = TABLE_CENTRE_TARGET
        steps: list[dict] = []
        for i, key in enumerate(order):
            z = TABLE_TOP_Z + BLOCK_HALF * (2 * i + 1)
            steps += pick_and_place(world, key, (cx, cy, z))
        return steps

    return plan


def stack_check(order):
    def check(world):
        bottom = order[0]
        if not _on_table(world, bottom, BLOCK_HALF):
            return False, f"{bottom} is not on the table"
        if math.dist(pos(world, bottom)[:2], TABLE_CENTRE_TARGET) > 0.08:
            return False, f"{bottom} is not at the centre of the table"
        for upper, lower in zip(order[1:], order, strict=False):
            if not _stacked(world, upper, lower, 2 * BLOCK_HALF):
                return False, f"{upper} is not on {lower}"
        return True, "stacked"

    return check


# -- ranking ---------------------------------------------------------------------------------
def row_check(order, halves):
    def check(world):
        ps = [pos(world, k) for k in order]
        for key, half in zip(order, halves, strict=True):
            if not _on_table(world, key, half):
                return False, f"{key} is not standing on the table"
        if max(p[1] for p in ps) - min(p[1] for p in ps) > 0.05:
            return False, "the blocks are not in a row"
        if any(math.dist(p[:2], (ROW_X[1], ROW_Y)) > 0.2 for p in ps):
            return False, "the row is not at the centre of the table"
        for i in range(len(order) - 1):
            if ps[i + 1][0] - ps[i][0] < 0.03:
                return False, f"{order[i]} is not left of {order[i + 1]}"
        return True, "in order"

    return check


def row_plan(order_fn):
    def plan(world):
        steps: list[dict] = []
        for key, x in zip(order_fn(world), ROW_X, strict=True):
            half = world.bodies[key].size[2]
            steps += pick_and_place(world, key, (x, ROW_Y, TABLE_TOP_Z + half))
        return steps

    return plan


def setup_sizes(world, seed):
    rng = random.Random(seed)
    colours = rng.sample(SIZE_COLOURS, 3)
    sides = ["left", "right", rng.choice(("left", "right"))]
    rng.shuffle(sides)
    for i, xy in enumerate(scatter(rng, 3, sides)):
        add_block(world, f"{colours[i]}_block", xy, SIZE_HALVES[i], colours[i], random_yaw(rng))
    settle(world)


def by_size(world) -> list[str]:
    blocks = [b for b in world.objects() if b.category == "block"]
    return [b.key for b in sorted(blocks, key=lambda b: -b.size[0])]


def check_sizes(world):
    order = by_size(world)
    return row_check(order, [world.bodies[k].size[2] for k in order])(world)


# -- handover ----------------------------------------------------------------------------------
TALL_HALF = (0.02, 0.02, 0.05)  # the handover's tall red block
PAD_HALF = (0.05, 0.05, 0.005)
HANDOVER_AT = (0.0, -0.08, 0.93)  # where the left arm holds the block for the right


def setup_handover(world, seed):
    rng = random.Random(seed)
    x, y = rng.uniform(-0.28, -0.16), rng.uniform(-0.10, 0.08)
    hx, hy, hz = TALL_HALF
    world.add_primitive(
        "red_block",
        "box",
        TALL_HALF,
        (x, y, TABLE_TOP_Z + hz),
        random_yaw(rng, 0.4),
        rgba=COLOURS["red"],
        mass=BLOCK_MASS,
        category="block",
    )
    low = -hz + 0.03
    world.bodies["red_block"].extra["grasps"] = [
        # 0: from above, near the top; 1, 2: its lower part from +x, -x; 3: from -y
        # (the gripper pointing forward, as at the origin pose). Local frame.
        {"point": [0, 0, hz - 0.028], "axis": [1, 0, 0], "width": 2 * hx},
        {"point": [-0.005, 0, low], "axis": [0, 1, 0], "width": 2 * hy, "approach": [-1, 0, 0]},
        {"point": [0.005, 0, low], "axis": [0, 1, 0], "width": 2 * hy, "approach": [1, 0, 0]},
        {"point": [0, 0.005, low], "axis": [1, 0, 0], "width": 2 * hx, "approach": [0, 1, 0]},
    ]
    px, py = rng.uniform(0.16, 0.26), rng.uniform(-0.05, 0.12)
    world.add_primitive(
        "blue_pad",
        "box",
        PAD_HALF,
        (px, py, TABLE_TOP_Z + PAD_HALF[2]),
        rgba=COLOURS["blue"],
        mass=0.0,
        category="pad",
    )
    settle(world)


def handover_plan(world):
    pad = pos(world, "blue_pad")
    on_pad = (pad[0], pad[1], TABLE_TOP_Z + 2 * PAD_HALF[2] + TALL_HALF[2])
    return [
        # from high above: coming down from the forward-pointing origin, the fingers
        # would sweep through the tall block's top
        act(
            "grasp_actor", actor="red_block", arm_tag="left", pre_grasp_dis=0.12, contact_point_id=0
        ),
        act("move_by_displacement", arm_tag="left", z=0.08),
        act(
            "place_actor",
            actor="red_block",
            arm_tag="left",
            target_pose=list(HANDOVER_AT),
            pre_dis=0.0,
            dis=0.0,
            is_open=False,
            constrain="free",
        ),
        # the right arm takes the lower part pointing forward, below the left's fingers:
        # from the side (+x) the UR5e's wrist would pass through its singularity (wrist 2
        # near 0) and swing the gripper into the block
        act(
            "grasp_actor",
            actor="red_block",
            arm_tag="right",
            pre_grasp_dis=0.07,
            contact_point_id=3,
        ),
        act("open_gripper", arm_tag="left", pos=1),
        # high enough that going home does not sweep the open fingers through the block's
        # top (6 cm did, when the left arm went home before the right one moved: 13 of 20)
        act("move_by_displacement", arm_tag="left", z=0.10),
        act("back_to_origin", arm_tag="left"),
        act(
            "place_actor",
            actor="red_block",
            arm_tag="right",
            target_pose=list(on_pad),
            pre_dis=0.05,
            dis=0.005,
            constrain="free",
            pre_dis_axis="fp",
        ),
        act("move_by_displacement", arm_tag="right", z=0.08),
        act("back_to_origin", arm_tag="right"),
    ]


def handover_check(world):
    block, pad = pos(world, "red_block"), pos(world, "blue_pad")
    if world.held_body("left") == "red_block" or world.held_body("right") == "red_block":
        return False, "red_block is still held"
    inside = all(abs(block[i] - pad[i]) < PAD_HALF[i] for i in (0, 1))
    resting = abs(block[2] - (pad[2] + PAD_HALF[2] + TALL_HALF[2])) < 0.01
    if not (inside and resting):
        return False, "red_block is not standing on blue_pad"
    return True, "on the pad"
