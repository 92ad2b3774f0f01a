"""ST-BiBench tasks blocks_cross_shape (Place2) and blocks_tower (Place6): five blocks laid
out in a cross at the table's centre, and four blocks of different sizes stacked largest
to smallest (two small ones waiting at a cache position on each side meanwhile)."""

from __future__ import annotations

import random

from sim.bimanual.objects import BLOCK_HALF, BLOCK_MASS, COLOURS, add_block
from sim.bimanual.tasks.blocks import by_size
from sim.bimanual.tasks.kit import (
    BimanualTask,
    arm_for,
    pick_and_place,
    pos,
    random_yaw,
    scatter,
    settle,
)
from sim.bimanual.world import ARMS, TABLE_TOP_Z

OPEN = 0.8  # a gripper is open above this wire value (1 open, 0 closed), as RoboTwin's
PRE_GRASP = 0.15  # metres: see carry
STACK_GAP_TOL = 0.012  # metres: a block rests on the one below (centre heights)


def _grippers_open(world) -> str | None:
    """The first arm whose gripper is not open, if any."""
    return next((a for a in ARMS if world.gripper_opening(a) <= OPEN), None)


def carry(world, key, target, arm=None, **place) -> list[dict]:
    """kit's pick_and_place with the pre-grasp pose higher. Turning down from the
    forward-pointing origin on the way to kit's 0.09 m pre-grasp, the fingertips sweep as
    low as a 5 cm block's top (z 0.79) and pushed the blocks between the origin and the
    one grasped (blocks_cross_shape seeds 14 and 15)."""
    steps = pick_and_place(world, key, target, arm, **place)
    steps[0]["parameters"]["pre_grasp_dis"] = PRE_GRASP
    return steps


def interleave(left: list[dict], right: list[dict]) -> list[dict]:
    """Two single-arm plans as pairs (left, right): each pair runs in the same physics
    steps (different arms, different objects), so both arms work at once."""
    out: list[dict] = []
    for a, b in zip(left, right, strict=True):
        out += [a, b]
    return out


# -- blocks_cross_shape -------------------------------------------------------------------------
CROSS_KEYS = ("red_block", "yellow_block", "blue_block", "green_block", "black_block")
CROSS_CENTRE = (0.0, -0.15)  # BiManiBench's; both arms reach every point of the cross
CROSS_ARM = 0.12  # the cross's points are this far from its centre
CROSS_TOL = 0.02  # each block within 2 cm of its point in x and in y
CROSS_TARGETS = {
    "black_block": (0.0, 0.0),  # centre
    "green_block": (0.0, CROSS_ARM),  # inside (away from the robot)
    "yellow_block": (0.0, -CROSS_ARM),  # closest to the robot
    "red_block": (-CROSS_ARM, 0.0),  # left
    "blue_block": (CROSS_ARM, 0.0),  # right
}
CROSS_ALIASES = {
    spelling: key
    for key in CROSS_KEYS
    for colour in [key.split("_")[0]]
    for spelling in (colour, f"block_{colour}", f"{colour} block")
}


def cross_target(key) -> tuple[float, float, float]:
    dx, dy = CROSS_TARGETS[key]
    return (CROSS_CENTRE[0] + dx, CROSS_CENTRE[1] + dy, TABLE_TOP_Z + BLOCK_HALF)


def setup_cross(world, seed):
    """Red on the left, blue on the right, the others each on a random side: x 0.15 to
    0.30 from the middle, y -0.16 to 0.10, at least 10 cm apart, yaw up to +-0.75 rad."""
    rng = random.Random(seed)
    sides = [
        "left"
        if k == "red_block"
        else "right"
        if k == "blue_block"
        else rng.choice(("left", "right"))
        for k in CROSS_KEYS
    ]
    spots = scatter(rng, len(CROSS_KEYS), sides, (-0.16, 0.10), 0.10, (0.15, 0.30))
    for key, xy in zip(CROSS_KEYS, spots, strict=True):
        add_block(world, key, xy, orn=random_yaw(rng, 0.75))
    settle(world)


def cross_plan(world):
    """The middle column (black, green, yellow) one block at a time with the arm on the
    block's side; then red (left arm) and blue (right arm) together."""
    steps: list[dict] = []
    for key in ("black_block", "green_block", "yellow_block"):
        steps += carry(world, key, cross_target(key))
    red = carry(world, "red_block", cross_target("red_block"), arm="left")
    blue = carry(world, "blue_block", cross_target("blue_block"), arm="right")
    return steps + interleave(red, blue)


def cross_check(world):
    for key in CROSS_KEYS:
        p, t = pos(world, key), cross_target(key)
        if abs(p[0] - t[0]) >= CROSS_TOL or abs(p[1] - t[1]) >= CROSS_TOL:
            return False, f"{key} is not at its place in the cross"
    arm = _grippers_open(world)
    if arm:
        return False, f"the {arm} gripper is not open"
    return True, "a cross"


# -- blocks_tower -------------------------------------------------------------------------------
#: BiManiBench's blocks, largest first: (key, half edge)
TOWER = (
    ("red_block", 0.032),
    ("blue_block", 0.028),
    ("yellow_block", 0.024),
    ("green_block", 0.020),
)
TOWER_HALF = dict(TOWER)
COLUMNS = (("red_block", "yellow_block"), ("blue_block", "green_block"))  # (bottom, top)
# BiManiBench draws the tower's y (and its caches') from -0.2 to -0.15 per episode; a fixed
# middle value lets a static task hint name them
TOWER_AT = (0.0, -0.175)
CACHES = {"left": (-0.15, TOWER_AT[1]), "right": (0.15, TOWER_AT[1])}
TOWER_X_TOL = 0.03  # the largest block within 3 cm of x = 0 (BiManiBench)
TOWER_XY_TOL = 0.05  # each block within 5 cm in x and y of the one below (BiManiBench)
TOWER_ALIASES = {
    spelling: key
    for key, _ in TOWER
    for colour in [key.split("_")[0]]
    for spelling in (colour, f"block_{colour}", f"{colour} block")
}


def setup_tower(world, seed):
    """Two piles on a common y line (-0.05 to 0.10): red under yellow and blue under
    green, one pile 0.20 to 0.26 left of the middle, the other as far right (sides
    seeded), squared with the table as in BiManiBench."""
    rng = random.Random(seed)
    xs = [-rng.uniform(0.20, 0.26), rng.uniform(0.20, 0.26)]
    rng.shuffle(xs)
    y = rng.uniform(-0.05, 0.10)
    for x, (bottom, top) in zip(xs, COLUMNS, strict=True):
        hb, ht = TOWER_HALF[bottom], TOWER_HALF[top]
        add_block(world, bottom, (x, y), hb)
        world.add_primitive(
            top,
            "box",
            (ht, ht, ht),
            (x, y, TABLE_TOP_Z + 2 * hb + ht),
            rgba=COLOURS[top.split("_")[0]],
            mass=BLOCK_MASS,
            category="block",
        )
    settle(world)


def tower_levels(order) -> list[float]:
    """The centre heights of blocks stacked in `order` (half edges from TOWER)."""
    out, top = [], TABLE_TOP_Z
    for key in order:
        out.append(top + TOWER_HALF[key])
        top += 2 * TOWER_HALF[key]
    return out


def tower_plan(world):
    """Both arms put their pile's top block at their own cache at once; then the blocks go
    to the centre largest first, each by the arm on its side, each on the one before."""
    side = {key: arm_for(world, key) for key, _ in TOWER}
    tops = {side[top]: top for _, top in COLUMNS}
    cached = {
        arm: carry(world, key, (*CACHES[arm], TABLE_TOP_Z + TOWER_HALF[key]), arm=arm)
        for arm, key in tops.items()
    }
    steps = interleave(cached["left"], cached["right"])
    order = by_size(world)
    for key, z in zip(order, tower_levels(order), strict=True):
        steps += carry(world, key, (*TOWER_AT, z), arm=side[key])
    return steps


def tower_check(world):
    order = [key for key, _ in TOWER]
    levels = tower_levels(order)
    base = pos(world, order[0])
    if abs(base[2] - levels[0]) > 0.01:
        return False, f"{order[0]} is not on the table"
    if abs(base[0]) >= TOWER_X_TOL:
        return False, f"{order[0]} is not at the centre of the table"
    for i in range(1, len(order)):
        a, b = pos(world, order[i]), pos(world, order[i - 1])
        over = abs(a[0] - b[0]) < TOWER_XY_TOL and abs(a[1] - b[1]) < TOWER_XY_TOL
        if not over or abs(a[2] - b[2] - (levels[i] - levels[i - 1])) > STACK_GAP_TOL:
            return False, f"{order[i]} is not on {order[i - 1]}"
    arm = _grippers_open(world)
    if arm:
        return False, f"the {arm} gripper is not open"
    return True, "a tower"


TASKS: tuple[BimanualTask, ...] = (
    BimanualTask(
        "blocks_cross_shape",
        "There are five blocks on the table, the color of the blocks is random, move the "
        "blocks to the center of the table, and arrange them to a cross shape. The red block "
        "should be on the left. The black block should be on the center. The blue block "
        "should be on the right. The green should be inside. The yellow should be closest "
        "to you.",
        setup_cross,
        cross_check,
        cross_plan,
        CROSS_ALIASES,
    ),
    BimanualTask(
        "blocks_tower",
        "There are four blocks on the table, the color of the blocks is random, move the "
        "blocks to the center of the table, and stack them to a block tower from largest to "
        "smallest, from bottom to top.",
        setup_tower,
        tower_check,
        tower_plan,
        TOWER_ALIASES,
    ),
)
