"""ST-BiBench tasks place_bread_skillet (Place5), its fine-control variant
place_bread_skillet_vla (Place10) and place_object_scale (Place8).

The skillet tasks: the bread on one side, the skillet on the other, its handle towards the
robot. One arm takes the skillet by its handle and holds it up at the table's middle, the
other puts the bread into it (BiManiBench's play_once: the skillet is never let go). The
scale task: one arm puts an object (a bell, a mouse or a stapler) on an electronic scale.
"""

from __future__ import annotations

import math
import random

import numpy as np

from sim.bimanual.objects import add_bread, add_skillet
from sim.bimanual.tasks.kit import BimanualTask, act, arm_for, held, pos, settle
from sim.bimanual.tasks.skillet_objects import (
    SCALE_OBJECTS,
    add_scale,
    add_scale_object,
    off_scale,
    platform_top,
)
from sim.bimanual.world import ARMS, TABLE_TOP_Z

# -- place_bread_skillet / place_bread_skillet_vla ----------------------------------------------
PAN_FLOOR = 0.006  # the skillet's floor: its functional point is the floor's top centre
SKILLET_AT = (0.0, -0.08)  # where the pan's centre is held: the table's middle, both arms reach
SKILLET_HOLD = 0.05  # the pan's bottom this far above the table while the bread goes in
SKILLET_PRE_GRASP = 0.2  # coming from further back, the open fingers clear the handle's end
XY_TOL = 0.035  # BiManiBench's: the bread within 3.5 cm of the functional point in x and y
IN_PAN = 0.03  # the bread's bottom at most this far above the pan's floor: resting in it
OPEN = 0.8  # a gripper is open above this wire value (1 open, 0 closed)


def functional_point(world) -> np.ndarray:
    """The skillet's functional point (BiManiBench's point 0): its floor's top centre."""
    p, q = world.body_pose("skillet")
    up = np.array(world.client.getMatrixFromQuaternion(q)).reshape(3, 3)[:, 2]
    return p + up * PAN_FLOOR


def skillet_setup(turn: float):
    """BiManiBench's load_actors: the bread 0.2-0.28 m to one side, the skillet 0.15-0.25 m
    to the other, its handle towards the robot, turned up to `turn` radians either way."""

    def setup(world, seed):
        rng = random.Random(seed)
        s = rng.choice((-1, 1))  # the bread's side
        bread_xy = (s * rng.uniform(0.2, 0.28), rng.uniform(-0.2, 0.05))
        add_bread(world, "bread", bread_xy, yaw=rng.uniform(-math.pi / 4, math.pi / 4))
        # y up to 0.05 as BiManiBench, but from -0.12 only (not -0.2): with a 17 cm handle
        # behind a 20 cm pan, the gripper at the handle's end would be behind the arm's base
        skillet_xy = (-s * rng.uniform(0.15, 0.25), rng.uniform(-0.12, 0.05))
        yaw = -math.pi / 2 + rng.uniform(-turn, turn)
        add_skillet(world, "skillet", skillet_xy, yaw=yaw)
        settle(world)

    return setup


def _skillet_steps(world) -> tuple[str, str, list[dict], list[dict]]:
    """(skillet arm, bread arm, the skillet's steps to the middle, the bread's steps into
    the pan and home)."""
    arm = arm_for(world, "skillet")
    other = "left" if arm == "right" else "right"
    hold = (*SKILLET_AT, TABLE_TOP_Z + SKILLET_HOLD)
    # the pan turned level again (it sags a little about the grip), its handle towards the
    # robot: the gripper stays clear of the other arm's way
    to_middle = act(
        "place_actor",
        actor="skillet",
        arm_tag=arm,
        target_pose=list(hold),
        is_open=False,
        constrain="align",
        actor_axis=[1, 0, 0],
        align_axis=[0, -1, 0],
        pre_dis=0.03,
        dis=0.0,
        pre_dis_axis="fp",
    )
    skillet = [
        act("grasp_actor", actor="skillet", arm_tag=arm, pre_grasp_dis=SKILLET_PRE_GRASP),
        act("move_by_displacement", arm_tag=arm, z=0.07),
        to_middle,
    ]
    into = (*SKILLET_AT, TABLE_TOP_Z + SKILLET_HOLD + PAN_FLOOR)
    bread = [
        act("grasp_actor", actor="bread", arm_tag=other, pre_grasp_dis=0.12),
        act("move_by_displacement", arm_tag=other, z=0.1),
        act(
            "place_actor",
            actor="bread",
            arm_tag=other,
            target_pose=list(into),
            constrain="free",
            pre_dis=0.05,
            dis=0.01,
        ),
        act("move_by_displacement", arm_tag=other, z=0.1),
        act("back_to_origin", arm_tag=other),
    ]
    return arm, other, skillet, bread


def skillet_plan(world):
    """Place5's main steps (its assistant info): the skillet to the middle first, then the
    bread is grasped, raised and put into it."""
    _, _, skillet, bread = _skillet_steps(world)
    return skillet + bread


def skillet_vla_plan(world):
    """Place10's play_once: both grasped and raised at once, the skillet to the centre,
    the bread into it. The bread arm's get_arm_pose between the two places keeps them
    apart (two consecutive actions of different arms on different objects run at once,
    and the bread must not go to the centre before the skillet is there)."""
    _, other, skillet, bread = _skillet_steps(world)
    wait = act("get_arm_pose", arm_tag=other)
    return [skillet[0], bread[0], skillet[1], bread[1], skillet[2], wait, *bread[2:]]


def skillet_check(min_z: float):
    """BiManiBench's check_success: the bread within XY_TOL of the skillet's functional
    point in x and y, both above `min_z`; and (ours) the bread let go, resting in the pan."""

    def check(world):
        fp, bread = functional_point(world), pos(world, "bread")
        if fp[2] <= min_z:
            return False, f"the skillet is at z = {fp[2]:.3f}, not above {min_z:.2f}"
        if bread[2] <= min_z:
            return False, f"the bread is at z = {bread[2]:.3f}, not above {min_z:.2f}"
        off = np.abs(bread[:2] - fp[:2])
        if off.max() >= XY_TOL or bread[2] - fp[2] > IN_PAN:
            return False, "the bread is not in the skillet"
        if held(world, "bread"):
            return False, "the bread is still held"
        return True, f"the bread in the skillet ({off.max() * 100:.1f} cm off its centre)"

    return check


# -- place_object_scale -----------------------------------------------------------------------
SCALE_TOL = 0.035  # BiManiBench's: the object's centre within 3.5 cm of the platform's


def scale_setup(world, seed):
    """BiManiBench's load_actors: the object anywhere but the middle 2 cm, turned at random;
    the scale on the same side, its centre at least 15 cm away and (ours) clear of the
    object's footprint; both at y -0.2 to 0.05."""
    rng = random.Random(seed)
    kind = rng.choice(SCALE_OBJECTS)
    while True:
        ox, oy = rng.choice((-1, 1)) * rng.uniform(0.02, 0.25), rng.uniform(-0.2, 0.05)
        sx, sy = math.copysign(rng.uniform(0.02, 0.25), ox), rng.uniform(-0.2, 0.05)
        yaw = rng.uniform(-math.pi, math.pi)
        if math.hypot(sx - ox, sy - oy) >= 0.15 and off_scale((sx, sy), yaw, (ox, oy), kind):
            break
    add_scale(world, "scale", (sx, sy), yaw=yaw)
    add_scale_object(world, kind, (ox, oy), yaw=rng.uniform(-math.pi, math.pi))
    world.bodies["scale"].extra["target"] = kind
    settle(world)


def scale_target(world) -> str:
    return world.bodies["scale"].extra["target"]


def scale_plan(world):
    """play_once: grasp with the arm on the object's side, raise 15 cm, place it on the
    platform's centre (free, pre_dis 0.05, dis 0.005); then raise and go home."""
    obj = scale_target(world)
    arm = arm_for(world, obj)
    return [
        act("grasp_actor", actor=obj, arm_tag=arm, pre_grasp_dis=0.12),
        act("move_by_displacement", arm_tag=arm, z=0.15),
        act(
            "place_actor",
            actor=obj,
            arm_tag=arm,
            target_pose=list(platform_top(world)),
            constrain="free",
            pre_dis=0.05,
            dis=0.005,
        ),
        act("move_by_displacement", arm_tag=arm, z=0.1),
        act("back_to_origin", arm_tag=arm),
    ]


def scale_check(world):
    """BiManiBench's check_success: the object's centre within SCALE_TOL of the platform's
    (horizontally), its bottom less than 1 cm above the platform, both grippers open."""
    obj = scale_target(world)
    top, p = platform_top(world), pos(world, obj)
    off = math.dist(top[:2], p[:2])
    if off >= SCALE_TOL or p[2] >= top[2] + 0.01:
        return False, f"the {obj} is not on the scale"
    shut = [a for a in ARMS if world.gripper_opening(a) <= OPEN]
    if shut:
        return False, f"the {shut[0]} gripper is not open"
    return True, f"the {obj} on the scale ({off * 100:.1f} cm off its centre)"


TASKS: tuple[BimanualTask, ...] = (
    BimanualTask(
        "place_bread_skillet",
        "If there is one bread on the table, use one arm to grab the bread and put it into "
        "the skillet.",
        skillet_setup(math.pi / 12),
        skillet_check(TABLE_TOP_Z - 0.02),
        skillet_plan,
        aliases={"075_bread": "bread", "106_skillet": "skillet"},
    ),
    BimanualTask(
        "place_bread_skillet_vla",
        "If there is one bread on the table, move skillet to center and use one arm to grab "
        "the bread and put it into the skillet.",
        skillet_setup(0.0),
        skillet_check(TABLE_TOP_Z + 0.02),
        skillet_vla_plan,
        aliases={"075_bread": "bread", "106_skillet": "skillet"},
    ),
    BimanualTask(
        "place_object_scale",
        "Use one arm to grab the object and put it on the scale.",
        scale_setup,
        scale_check,
        scale_plan,
        aliases={
            "050_bell": "bell",
            "047_mouse": "mouse",
            "048_stapler": "stapler",
            "072_electronicscale": "scale",
            "electronicscale": "scale",
        },
    ),
)
