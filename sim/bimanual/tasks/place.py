"""The tasks that place food and kitchen things: burger and fries on a tray, the roller,
stacking the bowls, and putting an object in the basket."""

from __future__ import annotations

import math
import random

from sim.bimanual.tasks.kit import (
    act,
    held,
    pick_and_place,
    pos,
    random_yaw,
    settle,
)
from sim.bimanual.world import TABLE_TOP_Z

# -- place_burger_fries --------------------------------------------------------------------------
TRAY_HALF = (0.13, 0.09)
TRAY_AT = (0.0, -0.10)
BURGER = (0.03, 0.04)  # radius, height
FRIES_HALF = (0.018, 0.025, 0.035)


def setup_burger(world, seed):
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
        random_yaw(rng, 0.6),
        rgba=(0.95, 0.75, 0.15, 1),
        mass=0.04,
        category="food",
    )
    settle(world)


def burger_plan(world):
    tray = pos(world, "tray")
    z0 = TABLE_TOP_Z + 0.006
    b_target = (tray[0] - 0.06, tray[1], z0 + BURGER[1] / 2)
    f_target = (tray[0] + 0.06, tray[1], z0 + FRIES_HALF[2])
    left = pick_and_place(world, "hamburg", b_target, "left")
    right = pick_and_place(world, "frenchfries", f_target, "right")
    # both grasp and lift together; then one places while the other waits
    return [left[0], right[0], left[1], right[1], *left[2:], *right[2:]]


def burger_check(world):
    tray = pos(world, "tray")
    for key in ("hamburg", "frenchfries"):
        p = pos(world, key)
        if not (abs(p[0] - tray[0]) < TRAY_HALF[0] and abs(p[1] - tray[1]) < TRAY_HALF[1]):
            return False, f"{key} is not on the tray"
        if held(world, key):
            return False, f"{key} is still held"
        if p[2] > TABLE_TOP_Z + 0.08:
            return False, f"{key} is not resting on the tray"
    return True, "both on the tray"


# -- grab_roller ---------------------------------------------------------------------------------
ROLLER = (0.02, 0.46)  # radius, length (along x)
ROLLER_GRIP_X = 0.17
LIFT_TO = 0.8


def setup_roller(world, seed):
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
    settle(world)


def roller_plan(world):
    return [
        act("grasp_actor", actor="roller", arm_tag="left", pre_grasp_dis=0.08, contact_point_id=0),
        act("grasp_actor", actor="roller", arm_tag="right", pre_grasp_dis=0.08, contact_point_id=1),
        act("move_by_displacement", arm_tag="left", z=0.15),
        act("move_by_displacement", arm_tag="right", z=0.15),
    ]


def roller_check(world):
    z = pos(world, "roller")[2]
    holders = [a for a in ("left", "right") if world.held_body(a) == "roller"]
    if z <= LIFT_TO:
        return False, f"the roller is at z = {z:.3f}, not above {LIFT_TO}"
    if len(holders) < 2:
        return False, "the roller is not held by both arms"
    return True, "lifted by both arms"
