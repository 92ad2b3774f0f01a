"""ST-BiBench tasks in the dual-arm world: seeded set-ups, the paper's instructions,
success checks on the final state, and scripted reference plans through the primitives.

`TASKS[name]` is a `BimanualTask`; `task.setup(world, seed)` adds the task's objects
(named as the paper names them: red_block, blue_pad, ...) at seeded positions and
lets them settle; `task.check(world)` returns (success, reason); `task.reference_plan
(world)` returns a plan for `BimanualExecutor.execute` computed from the current state.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sim.bimanual_world import TABLE_CENTRE_TARGET, TABLE_TOP_Z, DualArmWorld

COLOURS = {
    "red": (0.85, 0.1, 0.1, 1.0),
    "green": (0.1, 0.7, 0.2, 1.0),
    "blue": (0.1, 0.25, 0.85, 1.0),
    "yellow": (0.95, 0.85, 0.1, 1.0),
    "purple": (0.55, 0.2, 0.7, 1.0),
    "orange": (0.95, 0.5, 0.1, 1.0),
}
BLOCK_HALF = 0.025  # 5 cm blocks
BLOCK_MASS = 0.05
ROW_Y = -0.1967  # the ranking tasks' target row and x positions (the paper's prompt)
ROW_X = (-0.0887, 0.0017, 0.0827)
POS_TOL = 0.03  # metres: "at" a target / on top of another block


@dataclass(frozen=True)
class BimanualTask:
    name: str
    instruction: str
    setup: Callable[[DualArmWorld, int], None]
    check: Callable[[DualArmWorld], tuple[bool, str]]
    reference_plan: Callable[[DualArmWorld], list[dict]]


# -- helpers -----------------------------------------------------------------------------
def act(name: str, **params) -> dict:
    return {"action_name": name, "parameters": params}


def _pos(world, key) -> np.ndarray:
    return world.body_pose(key)[0]


def _scatter(rng, n, sides, y_range=(-0.12, 0.10), min_gap=0.09):
    """n table positions, the i-th on side sides[i] ('left' x<0, 'right' x>0)."""
    out: list[tuple[float, float]] = []
    while len(out) < n:
        side = sides[len(out)]
        x = rng.uniform(0.12, 0.28) * (-1 if side == "left" else 1)
        y = rng.uniform(*y_range)
        if all(math.hypot(x - a, y - b) >= min_gap for a, b in out):
            out.append((x, y))
    return out


def _yaw(rng, spread=0.5) -> tuple[float, ...]:
    a = rng.uniform(-spread, spread) / 2
    return (0.0, 0.0, math.sin(a), math.cos(a))


def add_block(world, key, xy, half=BLOCK_HALF, colour=None, orn=(0, 0, 0, 1)):
    colour = colour or key.split("_")[0]
    return world.add_primitive(
        key,
        "box",
        (half, half, half),
        (xy[0], xy[1], TABLE_TOP_Z + half),
        orn,
        rgba=COLOURS[colour],
        mass=BLOCK_MASS,
        category="block",
    )


def _settle(world) -> None:
    world.step(60)


def _arm_for(world, key) -> str:
    return "left" if _pos(world, key)[0] < 0 else "right"


def pick_and_place(world, key, target, arm=None, **place) -> list[dict]:
    """grasp, lift 0.1, place, lift 0.1, back to origin (the paper's main steps)."""
    arm = arm or _arm_for(world, key)
    return [
        act("grasp_actor", actor=key, arm_tag=arm, pre_grasp_dis=0.09, grasp_dis=0.0),
        act("move_by_displacement", arm_tag=arm, z=0.1, move_axis="world"),
        act(
            "place_actor",
            actor=key,
            arm_tag=arm,
            target_pose=list(target),
            functional_point_id=0,
            constrain="align",
            pre_dis=0.09,
            dis=0.01,
            **place,
        ),
        act("move_by_displacement", arm_tag=arm, z=0.1, move_axis="world"),
        act("back_to_origin", arm_tag=arm),
    ]


def _on_table(world, key, half) -> bool:
    return abs(_pos(world, key)[2] - (TABLE_TOP_Z + half)) < 0.01


def _stacked(world, upper, lower, gap) -> bool:
    a, b = _pos(world, upper), _pos(world, lower)
    return math.hypot(*(a - b)[:2]) < POS_TOL and abs(a[2] - b[2] - gap) < 0.012


# -- stacking ------------------------------------------------------------------------------
def _setup_blocks(names, sides):
    def setup(world, seed):
        rng = random.Random(seed)
        for key, xy in zip(names, _scatter(rng, len(names), sides), strict=True):
            add_block(world, key, xy, orn=_yaw(rng))
        _settle(world)

    return setup


def _seeded_sides(names):
    """Each block on a random side, both sides used (so that both arms work)."""

    def setup(world, seed):
        rng = random.Random(seed)
        sides = ["left", "right"] + [rng.choice(("left", "right")) for _ in names[2:]]
        rng.shuffle(sides)
        _setup_blocks(names, sides)(world, seed)

    return setup


def _stack_plan(order):
    def plan(world):
        cx, cy = TABLE_CENTRE_TARGET
        steps: list[dict] = []
        for i, key in enumerate(order):
            z = TABLE_TOP_Z + BLOCK_HALF * (2 * i + 1)
            steps += pick_and_place(world, key, (cx, cy, z))
        return steps

    return plan


def _stack_check(order):
    def check(world):
        bottom = order[0]
        if not _on_table(world, bottom, BLOCK_HALF):
            return False, f"{bottom} is not on the table"
        if math.dist(_pos(world, bottom)[:2], TABLE_CENTRE_TARGET) > 0.08:
            return False, f"{bottom} is not at the centre of the table"
        for upper, lower in zip(order[1:], order, strict=False):
            if not _stacked(world, upper, lower, 2 * BLOCK_HALF):
                return False, f"{upper} is not on {lower}"
        return True, "stacked"

    return check


# -- ranking ---------------------------------------------------------------------------------
def _row_check(order, halves):
    def check(world):
        ps = [_pos(world, k) for k in order]
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


def _row_plan(order_fn):
    def plan(world):
        steps: list[dict] = []
        for key, x in zip(order_fn(world), ROW_X, strict=True):
            half = world.bodies[key].size[2]
            steps += pick_and_place(world, key, (x, ROW_Y, TABLE_TOP_Z + half))
        return steps

    return plan


RGB = ("red_block", "green_block", "blue_block")
SIZE_HALVES = (0.03, 0.025, 0.02)


def _setup_sizes(world, seed):
    rng = random.Random(seed)
    colours = rng.sample(sorted(COLOURS), 3)
    sides = ["left", "right", rng.choice(("left", "right"))]
    rng.shuffle(sides)
    for i, xy in enumerate(_scatter(rng, 3, sides)):
        add_block(world, f"{colours[i]}_block", xy, SIZE_HALVES[i], colours[i], _yaw(rng))
    _settle(world)


def _by_size(world) -> list[str]:
    blocks = [b for b in world.objects() if b.category == "block"]
    return [b.key for b in sorted(blocks, key=lambda b: -b.size[0])]


def _check_sizes(world):
    order = _by_size(world)
    return _row_check(order, [world.bodies[k].size[2] for k in order])(world)


# -- handover ----------------------------------------------------------------------------------
TALL_HALF = (0.02, 0.02, 0.05)  # the handover's tall red block
PAD_HALF = (0.05, 0.05, 0.005)
HANDOVER_AT = (0.0, -0.08, 0.93)  # where the left arm holds the block for the right


def _setup_handover(world, seed):
    rng = random.Random(seed)
    x, y = rng.uniform(-0.28, -0.16), rng.uniform(-0.10, 0.08)
    hx, hy, hz = TALL_HALF
    world.add_primitive(
        "red_block",
        "box",
        TALL_HALF,
        (x, y, TABLE_TOP_Z + hz),
        _yaw(rng, 0.4),
        rgba=COLOURS["red"],
        mass=BLOCK_MASS,
        category="block",
    )
    world.bodies["red_block"].extra["grasps"] = [
        # 0: from above, near the top; 1: from +x, low; 2: from -x, low (local frame)
        {"point": [0, 0, hz - 0.028], "axis": [1, 0, 0], "width": 2 * hx},
        {
            "point": [-0.005, 0, -hz + 0.03],
            "axis": [0, 1, 0],
            "width": 2 * hy,
            "approach": [-1, 0, 0],
        },
        {
            "point": [0.005, 0, -hz + 0.03],
            "axis": [0, 1, 0],
            "width": 2 * hy,
            "approach": [1, 0, 0],
        },
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
    _settle(world)


def _handover_plan(world):
    pad = _pos(world, "blue_pad")
    on_pad = (pad[0], pad[1], TABLE_TOP_Z + 2 * PAD_HALF[2] + TALL_HALF[2])
    return [
        act(
            # from high above: coming down from the forward-pointing origin, the fingers
            # would sweep through the tall block's top
            "grasp_actor",
            actor="red_block",
            arm_tag="left",
            pre_grasp_dis=0.12,
            contact_point_id=0,
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
        act(
            "grasp_actor",
            actor="red_block",
            arm_tag="right",
            pre_grasp_dis=0.07,
            contact_point_id=1,
        ),
        act("open_gripper", arm_tag="left", pos=1),
        act("move_by_displacement", arm_tag="left", z=0.06),
        act("back_to_origin", arm_tag="left"),
        act(
            "place_actor",
            actor="red_block",
            arm_tag="right",
            target_pose=list(on_pad),
            pre_dis=0.05,
            dis=0.005,
            constrain="align",
        ),
        act("move_by_displacement", arm_tag="right", z=0.08),
        act("back_to_origin", arm_tag="right"),
    ]


def _handover_check(world):
    block, pad = _pos(world, "red_block"), _pos(world, "blue_pad")
    if world.held_body("left") == "red_block" or world.held_body("right") == "red_block":
        return False, "red_block is still held"
    inside = all(abs(block[i] - pad[i]) < PAD_HALF[i] for i in (0, 1))
    resting = abs(block[2] - (pad[2] + PAD_HALF[2] + TALL_HALF[2])) < 0.01
    if not (inside and resting):
        return False, "red_block is not standing on blue_pad"
    return True, "on the pad"


# -- place_burger_fries --------------------------------------------------------------------------
TRAY_HALF = (0.13, 0.09)
TRAY_AT = (0.0, -0.10)
BURGER = (0.03, 0.04)  # radius, height
FRIES_HALF = (0.018, 0.025, 0.035)


def _setup_burger(world, seed):
    rng = random.Random(seed)
    tx, ty = TRAY_AT[0] + rng.uniform(-0.02, 0.02), TRAY_AT[1] + rng.uniform(-0.02, 0.02)
    hx, hy = TRAY_HALF
    wall, floor = 0.006, 0.006
    parts = [("box", (hx, hy, floor / 2), (0, 0, floor / 2))]
    for sx in (-1, 1):
        parts.append(("box", (wall / 2, hy, 0.01), (sx * (hx - wall / 2), 0, 0.01)))
    for sy in (-1, 1):
        parts.append(("box", (hx, wall / 2, 0.01), (0, sy * (hy - wall / 2), 0.01)))
    world.add_compound(
        "tray", parts, (tx, ty, TABLE_TOP_Z), rgba=(0.6, 0.6, 0.62, 1), mass=0.0, category="tray"
    )
    world.bodies["tray"].fixed = True
    bx, by = rng.uniform(-0.30, -0.2), rng.uniform(0.02, 0.12)
    world.add_primitive(
        "hamburg",
        "cylinder",
        BURGER,
        (bx, by, TABLE_TOP_Z + BURGER[1] / 2),
        rgba=(0.6, 0.35, 0.12, 1),
        mass=0.05,
        category="food",
    )
    fx, fy = rng.uniform(0.2, 0.30), rng.uniform(0.02, 0.12)
    world.add_primitive(
        "frenchfries",
        "box",
        FRIES_HALF,
        (fx, fy, TABLE_TOP_Z + FRIES_HALF[2]),
        _yaw(rng, 0.6),
        rgba=(0.95, 0.75, 0.15, 1),
        mass=0.04,
        category="food",
    )
    _settle(world)


def _burger_plan(world):
    tray = _pos(world, "tray")
    z0 = TABLE_TOP_Z + 0.006
    b_target = (tray[0] - 0.06, tray[1], z0 + BURGER[1] / 2)
    f_target = (tray[0] + 0.06, tray[1], z0 + FRIES_HALF[2])
    left = pick_and_place(world, "hamburg", b_target, "left")
    right = pick_and_place(world, "frenchfries", f_target, "right")
    # both grasp and lift together; then one places while the other waits
    return [
        left[0],
        right[0],
        left[1],
        right[1],
        left[2],
        left[3],
        left[4],
        right[2],
        right[3],
        right[4],
    ]


def _burger_check(world):
    tray = _pos(world, "tray")
    for key in ("hamburg", "frenchfries"):
        p = _pos(world, key)
        if not (abs(p[0] - tray[0]) < TRAY_HALF[0] and abs(p[1] - tray[1]) < TRAY_HALF[1]):
            return False, f"{key} is not on the tray"
        if world.held_body("left") == key or world.held_body("right") == key:
            return False, f"{key} is still held"
        if p[2] > TABLE_TOP_Z + 0.08:
            return False, f"{key} is not resting on the tray"
    return True, "both on the tray"


# -- grab_roller ---------------------------------------------------------------------------------
ROLLER = (0.02, 0.46)  # radius, length (along x)
ROLLER_GRIP_X = 0.17
LIFT_TO = 0.8


def _setup_roller(world, seed):
    rng = random.Random(seed)
    x, y = rng.uniform(-0.03, 0.03), rng.uniform(-0.10, 0.05)
    r, length = ROLLER
    orn = (0.0, math.sin(math.pi / 4), 0.0, math.cos(math.pi / 4))  # its axis along x
    world.add_primitive(
        "roller",
        "cylinder",
        ROLLER,
        (x, y, TABLE_TOP_Z + r),
        orn,
        rgba=(0.75, 0.55, 0.3, 1),
        mass=0.2,
        category="roller",
    )
    # local z is the roller's axis (world x); local x points down (world -z)
    world.bodies["roller"].extra["grasps"] = [
        {"point": [0.005, 0, sx * ROLLER_GRIP_X], "axis": [0, 1, 0], "width": 2 * r}
        for sx in (-1, 1)
    ]
    _settle(world)


def _roller_plan(world):
    return [
        act("grasp_actor", actor="roller", arm_tag="left", pre_grasp_dis=0.08, contact_point_id=0),
        act("grasp_actor", actor="roller", arm_tag="right", pre_grasp_dis=0.08, contact_point_id=1),
        act("move_by_displacement", arm_tag="left", z=0.15),
        act("move_by_displacement", arm_tag="right", z=0.15),
    ]


def _roller_check(world):
    z = _pos(world, "roller")[2]
    held = [a for a in ("left", "right") if world.held_body(a) == "roller"]
    if z <= LIFT_TO:
        return False, f"the roller is at z = {z:.3f}, not above {LIFT_TO}"
    if len(held) < 2:
        return False, "the roller is not held by both arms"
    return True, "lifted by both arms"


TASKS: dict[str, BimanualTask] = {
    t.name: t
    for t in (
        BimanualTask(
            "stack_blocks_two",
            "There are two blocks on the table, the color of the blocks is red, green, move "
            "the blocks to the center of the table, and stack the blocks.",
            _setup_blocks(("red_block", "green_block"), ("left", "right")),
            _stack_check(("red_block", "green_block")),
            _stack_plan(("red_block", "green_block")),
        ),
        BimanualTask(
            "stack_blocks_three",
            "There are three blocks on the table, the color of the blocks is red, green and "
            "blue, move the blocks to the center of the table, and stack the blue block on "
            "the green block, and the green block on the red block.",
            _seeded_sides(RGB),
            _stack_check(RGB),
            _stack_plan(RGB),
        ),
        BimanualTask(
            "blocks_ranking_rgb",
            "Place the red block, green block, and blue block in the order of red, green, "
            "and blue from left to right, placing in a row.",
            _seeded_sides(RGB),
            _row_check(RGB, (BLOCK_HALF,) * 3),
            _row_plan(lambda world: list(RGB)),
        ),
        BimanualTask(
            "blocks_ranking_size",
            "There are three blocks on the table, the color of the blocks is random, move "
            "the blocks to the center of the table, and arrange them from largest to "
            "smallest, from left to right.",
            _setup_sizes,
            _check_sizes,
            _row_plan(_by_size),
        ),
        BimanualTask(
            "handover_block",
            "Use the left arm to grasp the red block on the table, handover it to the right "
            "arm and place it on the blue pad.",
            _setup_handover,
            _handover_check,
            _handover_plan,
        ),
        BimanualTask(
            "place_burger_fries",
            "Use dual arm to pick the hamburg and frenchfries and put them onto the tray.",
            _setup_burger,
            _burger_check,
            _burger_plan,
        ),
        BimanualTask(
            "grab_roller",
            "Use both arms to grab the roller on the table and lift it to z>0.8 (m).",
            _setup_roller,
            _roller_check,
            _roller_plan,
        ),
    )
}
