"""Two tasks with kitchen things too wide for the 2F-85 but for their rims and handles:
stack_bowls_three and place_object_basket."""

from __future__ import annotations

import math
import random

import numpy as np

from sim.bimanual.objects import BOWLS, RIM_DEPTH, add_basket, add_bowl, add_bread, add_mug
from sim.bimanual.tasks.kit import act, arm_for, held, pick_and_place, pos, scatter, settle, tilt
from sim.bimanual.world import TABLE_TOP_Z

# -- stack_bowls_three -------------------------------------------------------------------------
BOWL_KEYS = ("bowl1", "bowl2", "bowl3")  # largest first
STACK_AT = (0.0, -0.08)  # where the largest bowl goes: both arms reach round it
# a bowl is let go once the closed fingertips (RIM_DEPTH + FINGER_SINK below its rim)
# are FINGER_CLEARANCE above every rim below: it drops the last few centimetres and its slanted
# wall guides it in, while the outer finger never wedges between two walls
FINGER_CLEARANCE = 0.012
FINGER_SINK = 0.014
BOWL_TILT_MAX = 0.25  # radians: a bowl leaning more than this is not "resting in" another
BOWL_CENTRE_TOL = 0.03


def setup_bowls(world, seed):
    """The three bowls scattered on both sides of the table, clear of the stacking spot."""
    rng = random.Random(seed)
    sides = ["left", "right", rng.choice(("left", "right"))]
    rng.shuffle(sides)
    spots = scatter(rng, 3, sides, y_range=(-0.10, 0.10), min_gap=0.19, x_range=(0.19, 0.30))
    for key, xy in zip(BOWL_KEYS, spots, strict=True):
        size, rgba = BOWLS[key]
        add_bowl(world, key, xy, size, rgba)
    settle(world)


def bowls_plan(world):
    """The largest bowl to the middle, then each smaller one let go just above the rims."""
    steps = pick_and_place(
        world, "bowl1", (*STACK_AT, TABLE_TOP_Z), constrain="free", pre_dis=0.08, dis=0.01
    )
    top_rim = TABLE_TOP_Z + BOWLS["bowl1"][0].height
    for key in BOWL_KEYS[1:]:
        height = BOWLS[key][0].height
        bottom = top_rim + FINGER_CLEARANCE + RIM_DEPTH + FINGER_SINK - height
        steps += pick_and_place(
            world, key, (*STACK_AT, bottom), constrain="free", pre_dis=0.08, dis=0.0
        )
    return steps


def bowls_check(world):
    """The three bowls in one stack: the lowest on the table, each other one upright,
    centred over the one below and resting in it (its bottom below that bowl's rim)."""
    if any(held(world, k) for k in BOWL_KEYS):
        return False, "a bowl is still held"
    order = sorted(BOWL_KEYS, key=lambda k: pos(world, k)[2])
    if pos(world, order[0])[2] > TABLE_TOP_Z + 0.01:
        return False, f"{order[0]} is not on the table"
    for key in order:
        if tilt(world, key) > BOWL_TILT_MAX:
            return False, f"{key} is not upright"
    for lower, upper in zip(order, order[1:], strict=False):
        a, b = pos(world, upper), pos(world, lower)
        rim = world.bodies[lower].extra["height"]
        if math.hypot(*(a - b)[:2]) > BOWL_CENTRE_TOL or not 0.0 < a[2] - b[2] < rim - 0.01:
            return False, f"{upper} is not resting in {lower}"
    return True, "stacked"


# -- place_object_basket -----------------------------------------------------------------------
BASKET_MOVE_MIN = 0.05  # metres the basket must end away from where it started
BASKET_PULL = 0.10  # how far the reference plan drags it (it ends 9-12 cm away)
TARGET_KINDS = ("bread", "mug")


def setup_basket(world, seed):
    """The basket near the middle on one side, the target object (bread or mug) on the other."""
    rng = random.Random(seed)
    s = rng.choice((-1, 1))  # the basket's side
    # its middle within the other arm's reach, its outer end wall within its own arm's
    bx, by = s * rng.uniform(0.06, 0.10), rng.uniform(-0.12, -0.05)
    add_basket(world, "basket", (bx, by), yaw=rng.uniform(-0.15, 0.15))
    kind = rng.choice(TARGET_KINDS)
    ox, oy = -s * rng.uniform(0.2, 0.28), rng.uniform(-0.06, 0.10)
    if kind == "bread":
        add_bread(world, "bread", (ox, oy), yaw=rng.uniform(-0.5, 0.5))
    else:  # the handle outwards, away from the basket, give or take
        add_mug(world, "mug", (ox, oy), yaw=(0 if s < 0 else math.pi) + rng.uniform(-0.5, 0.5))
    settle(world)
    world.bodies["basket"].extra["start"] = [float(v) for v in pos(world, "basket")]
    world.bodies["basket"].extra["target"] = kind


def _target(world) -> str:
    return world.bodies["basket"].extra["target"]


def basket_plan(world):
    """The object's arm puts it in the middle of the basket; the other arm takes the
    basket by its outer end wall and drags it BASKET_PULL further out."""
    obj = _target(world)
    arm = arm_for(world, obj)
    other = "right" if arm == "left" else "left"
    b_pos, b_orn = world.body_pose("basket")
    along = np.array(world.client.getMatrixFromQuaternion(b_orn)).reshape(3, 3)[:, 0]
    target = (b_pos[0], b_pos[1], TABLE_TOP_Z + 0.006)
    place = {"constrain": "free"}
    if obj == "bread":
        # held low on its flanks, the open 2F-85's knuckles spread to ~15 cm below the
        # basket's rim: turn the bread so that the fingers open along the basket's length
        place = {
            "constrain": "align",
            "actor_axis": [0, 1, 0],
            "align_axis": [list(along), list(-along)],
        }
    steps = pick_and_place(world, obj, target, arm, pre_dis=0.12, dis=0.01, **place)
    s = 1.0 if other == "right" else -1.0  # the basket's side
    end_wall = 0 if (along[0] > 0) == (s > 0) else 1
    return steps + [
        act(
            "grasp_actor",
            actor="basket",
            arm_tag=other,
            pre_grasp_dis=0.08,
            contact_point_id=end_wall,
        ),
        act("move_by_displacement", arm_tag=other, x=s * BASKET_PULL),
        act("open_gripper", arm_tag=other, pos=1),
        act("move_by_displacement", arm_tag=other, z=0.08),
        act("back_to_origin", arm_tag=other),
    ]


def basket_check(world):
    """The object inside the basket's walls, down in it, not held; the basket upright on
    the table, let go, at least BASKET_MOVE_MIN from where it started."""
    obj = _target(world)
    basket = world.bodies["basket"]
    b_pos, b_orn = world.body_pose("basket")
    rot = np.array(world.client.getMatrixFromQuaternion(b_orn)).reshape(3, 3)
    local = rot.T @ (pos(world, obj) - b_pos)
    ix, iy = basket.extra["inner"]
    if abs(local[0]) > ix or abs(local[1]) > iy or local[2] > 0.04:
        return False, f"{obj} is not in the basket"
    if held(world, obj) or held(world, "basket"):
        return False, "the gripper still holds it"
    if b_pos[2] > TABLE_TOP_Z + 0.01 or tilt(world, "basket") > 0.2:
        return False, "the basket is not standing on the table"
    moved = math.dist(b_pos[:2], basket.extra["start"][:2])
    if moved < BASKET_MOVE_MIN:
        return (
            False,
            f"the basket moved {moved * 100:.1f} cm, less than {BASKET_MOVE_MIN * 100:.0f}",
        )
    return True, f"{obj} in the basket, moved {moved * 100:.1f} cm"
