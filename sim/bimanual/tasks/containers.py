"""ST-BiBench tasks place_cans_plasticbox (Place1) and put_bottles_dustbin (Place7): things put
into containers, a plastic box on the table and a dustbin on the floor beside it."""

from __future__ import annotations

import math
import random

import numpy as np

from sim.bimanual.tasks.containers_objects import (
    BOTTLES,
    CAN,
    CAN_COLOURS,
    DUSTBIN_AT,
    add_bottle,
    add_can,
    add_dustbin,
    add_plasticbox,
)
from sim.bimanual.tasks.kit import BimanualTask, act, held, pos, settle
from sim.bimanual.world import TABLE_TOP_Z

# -- place_cans_plasticbox ---------------------------------------------------------------------
CAN_KEYS = ("can_left", "can_right")
CAN_ALIASES = {
    "left_can": "can_left",
    "object1": "can_left",
    "right_can": "can_right",
    "object2": "can_right",
    "box": "plasticbox",
}
IN_BOX_RADIUS = 0.1  # BiManiBench's check: each can's centre within 0.1 m of the box's (xy)
CAN_LIFT = 0.2  # play_once lifts both cans 0.2 before placing


def setup_cans(world, seed):
    """The box near the middle, a can on each side (BiManiBench's ranges but for the cans'
    |x|: 0.19-0.27 instead of 0.15-0.25, so that the open fingers clear the box's walls)."""
    rng = random.Random(seed)
    add_plasticbox(world, "plasticbox", (0.0, rng.uniform(-0.15, -0.10)))
    colours = rng.sample(sorted(CAN_COLOURS), 2)
    for key, side, colour in zip(CAN_KEYS, (-1, 1), colours, strict=True):
        add_can(world, key, (side * rng.uniform(0.19, 0.27), rng.uniform(-0.15, -0.07)), colour)
    settle(world)


def box_spot(world, index: int) -> list[float]:
    """Functional point `index` of the box, as a target for a can's centre (world frame)."""
    b_pos, b_orn = world.body_pose("plasticbox")
    rot = np.array(world.client.getMatrixFromQuaternion(b_orn)).reshape(3, 3)
    spot = b_pos + rot @ np.array(world.bodies["plasticbox"].extra["functional_points"][index])
    return [float(spot[0]), float(spot[1]), float(spot[2]) + CAN[1] / 2 + 0.003]


def cans_plan(world):
    """BiManiBench's play_once: both cans grasped and lifted together, the left one placed
    (box point 1), the left arm lifts and goes home while the right places (box point 0)."""
    place = {"constrain": "free", "pre_dis": 0.1, "dis": 0.01}
    return [
        act("grasp_actor", actor="can_left", arm_tag="left", pre_grasp_dis=0.1),
        act("grasp_actor", actor="can_right", arm_tag="right", pre_grasp_dis=0.1),
        act("move_by_displacement", arm_tag="left", z=CAN_LIFT),
        act("move_by_displacement", arm_tag="right", z=CAN_LIFT),
        act(
            "place_actor", actor="can_left", arm_tag="left", target_pose=box_spot(world, 1), **place
        ),
        act("move_by_displacement", arm_tag="left", z=0.08),
        act("back_to_origin", arm_tag="left"),
        act(
            "place_actor",
            actor="can_right",
            arm_tag="right",
            target_pose=box_spot(world, 0),
            **place,
        ),
        act("move_by_displacement", arm_tag="right", z=0.08),
        act("back_to_origin", arm_tag="right"),
    ]


def cans_check(world):
    """BiManiBench's rule (each can's centre within 0.1 m of the box's, horizontally) and,
    since a can held or lying on the rim above the box would pass it, each let go and
    resting down in the box (its bottom below the rim)."""
    b = pos(world, "plasticbox")
    rim = b[2] + world.bodies["plasticbox"].extra["height"]
    for key in CAN_KEYS:
        p = pos(world, key)
        d = math.dist(p[:2], b[:2])
        if d >= IN_BOX_RADIUS:
            return False, f"{key} is {d * 100:.1f} cm from the box's centre, not in the box"
        if held(world, key):
            return False, f"{key} is still held"
        lo, _ = world.aabb(key)
        if lo[2] > rim:
            return False, f"{key} is not down in the box"
    return True, "both cans in the box"


# -- put_bottles_dustbin -------------------------------------------------------------------------
BOTTLE_KEYS = tuple(BOTTLES)
SIDE, CAP = 0, 1  # the bottles' grasp points: the body from the robot's side, the cap from above
# where the right arm holds a bottle for the left (BiManiBench's right_middle_pose is (0, 0,
# 0.88)): nearer the robot and a little left, where the left arm reaches down to the cap, its
# bottom 6 cm above the table
HANDOVER_AT = (-0.05, -0.10)
HANDOVER_BOTTOM = TABLE_TOP_Z + 0.06
# the left arm's release poses over the dustbin (wire order): the gripper pointing forward for a
# bottle taken from the side (it hangs over the bin's middle), down for one held by the cap
DROP_FORWARD = [DUSTBIN_AT[0], DUSTBIN_AT[1] - 0.15, 0.95, 0.70711, 0.0, 0.0, 0.70711]
DROP_DOWN = [DUSTBIN_AT[0], DUSTBIN_AT[1], 1.15, 0.5, -0.5, 0.5, 0.5]
# each bottle is let go over another part of the bin (x offsets): dropped on one spot, upright
# bottles can land standing on one another
DROP_SHIFT = (0.07, -0.07, 0.0)
CARRY_LIFT = 0.25  # a bottle carried across the table clears the others' caps (21 cm tall)


def setup_bottles(world, seed):
    """Three bottles standing on the table (x -0.25 to 0.3 but not within 5 cm of the middle,
    y 0.03 to 0.16, 13 cm apart, as BiManiBench's), the dustbin on the floor to the left."""
    rng = random.Random(seed)
    spots: list[tuple[float, float]] = []
    while len(spots) < len(BOTTLE_KEYS):
        x, y = rng.uniform(-0.25, 0.3), rng.uniform(0.03, 0.16)
        if abs(x) >= 0.05 and all(math.dist((x, y), s) >= 0.13 for s in spots):
            spots.append((x, y))
    for key, xy in zip(BOTTLE_KEYS, spots, strict=True):
        add_bottle(world, key, xy)
    add_dustbin(world)
    settle(world)


def _handover(key: str) -> list[dict]:
    """The right arm brings a bottle to the middle; the left takes it by the cap."""
    middle = [*HANDOVER_AT, HANDOVER_BOTTOM + BOTTLES[key][1] / 2]
    return [
        act("grasp_actor", actor=key, arm_tag="right", pre_grasp_dis=0.1, contact_point_id=SIDE),
        act("move_by_displacement", arm_tag="right", z=CARRY_LIFT),
        act(
            "place_actor",
            actor=key,
            arm_tag="right",
            target_pose=middle,
            pre_dis=0.0,
            dis=0.0,
            is_open=False,
            constrain="free",
        ),
        act("grasp_actor", actor=key, arm_tag="left", pre_grasp_dis=0.1, contact_point_id=CAP),
        act("open_gripper", arm_tag="right", pos=1),
        # back out along its approach, then to its own side: homing in joint space from the
        # middle swings the gripper through the bottle the left arm holds
        act("move_by_displacement", arm_tag="right", y=-0.1),
        act("move_by_displacement", arm_tag="right", x=0.3),
        act("back_to_origin", arm_tag="right"),
    ]


def bottles_plan(world):
    """After BiManiBench's play_once: the bottles on the left first, then those on the right,
    each side nearest the robot first (both arms take bottles from the robot's side, so none
    stands in the way). The left arm carries its own high to the dustbin and lets go; the
    right arm lifts each of its own over the others' caps to the middle and holds it there,
    the left takes it by the cap, the right lets go and goes home, the left drops it in."""
    xs = {k: pos(world, k)[0] for k in BOTTLE_KEYS}
    near_first = sorted(BOTTLE_KEYS, key=lambda k: pos(world, k)[1])
    order = [k for k in near_first if xs[k] < 0] + [k for k in near_first if xs[k] >= 0]
    steps: list[dict] = []
    for i, key in enumerate(order):
        if xs[key] < 0:
            steps += [
                act(
                    "grasp_actor",
                    actor=key,
                    arm_tag="left",
                    pre_grasp_dis=0.1,
                    contact_point_id=SIDE,
                ),
                act("move_by_displacement", arm_tag="left", z=CARRY_LIFT),
            ]
            drop = DROP_FORWARD
        else:
            steps += _handover(key)
            drop = DROP_DOWN
        pose = [drop[0] + DROP_SHIFT[i % len(DROP_SHIFT)], *drop[1:]]
        steps += [
            act("move_to_pose", arm_tag="left", target_pose=pose),
            act("open_gripper", arm_tag="left", pos=1),
            act("back_to_origin", arm_tag="left"),
        ]
    return steps


def bottles_check(world):
    """Every bottle inside the dustbin: within its inner walls, below its rim, let go.
    (BiManiBench: each bottle's centre within (0.221, 0.325) of the bin's (x, y) and at
    z 0.2 to 0.7; our bin is a real open box, so inside its walls and below its rim.)"""
    b = pos(world, "dustbin")
    ix, iy = world.bodies["dustbin"].extra["inner"]
    rim = b[2] + world.bodies["dustbin"].extra["height"]
    for key in BOTTLE_KEYS:
        p = pos(world, key)
        if held(world, key):
            return False, f"{key} is still held"
        if abs(p[0] - b[0]) > ix or abs(p[1] - b[1]) > iy or p[2] > rim:
            return False, f"{key} is not in the dustbin"
    return True, "all three bottles in the dustbin"


TASKS: tuple[BimanualTask, ...] = (
    BimanualTask(
        "place_cans_plasticbox",
        "Use dual arm to pick and place cans into plasticbox.",
        setup_cans,
        cans_check,
        cans_plan,
        aliases=CAN_ALIASES,
    ),
    BimanualTask(
        "put_bottles_dustbin",
        "Use arms to grab the bottles and put them into the dustbin to the left of the table.",
        setup_bottles,
        bottles_check,
        bottles_plan,
    ),
)
