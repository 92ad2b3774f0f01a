"""ST-BiBench tasks handover_mic (Handover1) and hanging_mug (Handover3)."""

from __future__ import annotations

import math
import random

import numpy as np

from sim.bimanual.frames import rotation_matrix
from sim.bimanual.tasks.hang_objects import (
    HANDLE_POINT,
    HANDLE_WINDOW,
    MIC_HEAD,
    add_hook_mug,
    add_mic,
    add_rack,
)
from sim.bimanual.tasks.kit import BimanualTask, act, held, settle
from sim.bimanual.world import TABLE_TOP_Z

# -- handover_mic ----------------------------------------------------------------------------
MIC_X = (0.15, 0.20)  # |x| of the microphone's start (BiManiBench: x in [-0.2, 0.2], |x| >= 0.15)
MIC_Y = (-0.05, 0.0)
# where the giving arm holds the microphone (its bottom centre) for the other arm: its head
# then at BiManiBench's handover_middle_pose (0, -0.05, 0.98)
MIC_HANDOVER = (0.0, -0.05, 0.98 - MIC_HEAD[2])
MIC_HEAD_MIN_Z = 0.92
MIC_SHIFT = 0.05  # the receiving arm moves the microphone this far towards its side


def setup_mic(world, seed):
    rng = random.Random(seed)
    side = rng.choice((-1, 1))
    x, y = side * rng.uniform(*MIC_X), rng.uniform(*MIC_Y)
    add_mic(world, "mic", (x, y), yaw=rng.uniform(-0.4, 0.4))
    settle(world)
    world.bodies["mic"].extra["giver"] = "left" if x < 0 else "right"


def mic_head(world) -> np.ndarray:
    p, q = world.body_pose("mic")
    return p + rotation_matrix(q) @ np.array(MIC_HEAD)


def _mic_arms(world) -> tuple[str, str]:
    giver = world.bodies["mic"].extra["giver"]
    return giver, ("right" if giver == "left" else "left")


def mic_plan(world):
    """The nearer arm takes the head from above and holds the microphone up in the middle;
    the other takes its handle pointing forward; the first lets go, rises and goes home
    while the other moves it a little towards its own side."""
    giver, taker = _mic_arms(world)
    shift = MIC_SHIFT if taker == "right" else -MIC_SHIFT
    return [
        act("grasp_actor", actor="mic", arm_tag=giver, pre_grasp_dis=0.1, contact_point_id=0),
        act("move_by_displacement", arm_tag=giver, z=0.12),
        act(
            "place_actor",
            actor="mic",
            arm_tag=giver,
            target_pose=list(MIC_HANDOVER),
            pre_dis=0.0,
            dis=0.0,
            is_open=False,
            constrain="align",
            align_axis=[1, 0, 0],
        ),
        act(
            "grasp_actor",
            actor="mic",
            arm_tag=taker,
            pre_grasp_dis=0.08,
            contact_point_id=1,
            gripper_pos=0.3,
        ),
        act("open_gripper", arm_tag=giver, pos=1),
        act("move_by_displacement", arm_tag=giver, z=0.07),
        act("move_by_displacement", arm_tag=taker, x=shift),
        act("back_to_origin", arm_tag=giver),
    ]


def mic_check(world):
    """BiManiBench's rule: the receiving gripper closed on the microphone, the giving one
    open, the microphone's head above z 0.92."""
    giver, taker = _mic_arms(world)
    if world.held_body(taker) != "mic":
        return False, f"the {taker} gripper does not hold the mic"
    if world.held_body(giver) == "mic" or world.gripper_opening(giver) < 0.9:
        return False, f"the {giver} gripper is not open"
    z = float(mic_head(world)[2])
    if z <= MIC_HEAD_MIN_Z:
        return False, f"the mic's head is at z = {z:.3f}, not above {MIC_HEAD_MIN_Z}"
    return True, f"handed over to the {taker} arm"


# -- hanging_mug ---------------------------------------------------------------------------
MUG_X, MUG_Y = (-0.25, -0.10), (-0.05, 0.05)  # BiManiBench's start range
RACK_X, RACK_Y, RACK_YAW = (0.10, 0.30), (0.13, 0.17), 0.2
MUG_MIDDLE = (0.0, -0.15, TABLE_TOP_Z)  # BiManiBench's middle_pos
HANG_TOL = 0.02  # BiManiBench's eps (x and y)
HANG_MIN_Z = 0.85
OPPOSITE_HANDLE = 3  # the mug's rim grasp point opposite its handle
# let go, the mug swings into its hanging pose and its handle slides ~1.5 cm down the rising
# peg: the plan brings the loop's middle this far beyond the peg's middle, towards the tip
HANG_SLIDE = 0.015


def setup_mug(world, seed):
    """The mug on the left, its handle turned by a random quarter turn (pointing away from
    the robot to the left); the rack fixed on the right, far side, turned a little."""
    rng = random.Random(seed)
    add_hook_mug(
        world,
        "mug",
        (rng.uniform(*MUG_X), rng.uniform(*MUG_Y)),
        yaw=rng.uniform(math.pi / 2, math.pi),
    )
    xy = (rng.uniform(*RACK_X), rng.uniform(*RACK_Y))
    add_rack(world, "rack", xy, yaw=rng.uniform(-RACK_YAW, RACK_YAW))
    settle(world)


def _world_point(world, key, local) -> np.ndarray:
    p, q = world.body_pose(key)
    return p + rotation_matrix(q) @ np.asarray(local, float)


def hook_ends(world) -> tuple[np.ndarray, np.ndarray]:
    """The rack's peg in the world: where it leaves the post, and its tip."""
    hook = world.bodies["rack"].extra["hook"]
    return _world_point(world, "rack", hook["root"]), _world_point(world, "rack", hook["tip"])


def hook_middle(world) -> np.ndarray:
    root, tip = hook_ends(world)
    return (root + tip) / 2


def handle_point(world) -> np.ndarray:
    return _world_point(world, "mug", HANDLE_POINT)


def mug_plan(world):
    """The left arm turns the mug's handle to the left (-x) and sets it down in the middle;
    the right arm takes the rim opposite the handle, brings the handle's loop in front of
    the peg's tip and slides it along the peg to the peg's middle, lets go and rises."""
    root, tip = hook_ends(world)
    along = (tip - root) / np.linalg.norm(tip - root)
    handle = np.cross(along, (0.0, 0.0, 1.0))  # across the peg, to the left (-x)
    handle /= np.linalg.norm(handle)
    loop_at = hook_middle(world) + along * HANG_SLIDE
    target = loop_at - handle * HANDLE_WINDOW[0] - np.array([0, 0, HANDLE_WINDOW[2]])
    return [
        act("grasp_actor", actor="mug", arm_tag="left", pre_grasp_dis=0.08),
        act("move_by_displacement", arm_tag="left", z=0.08),
        act(
            "place_actor",
            actor="mug",
            arm_tag="left",
            target_pose=list(MUG_MIDDLE),
            constrain="align",
            align_axis=[-1, 0, 0],
            pre_dis=0.06,
            dis=0.005,
        ),
        act("move_by_displacement", arm_tag="left", z=0.1),
        act("back_to_origin", arm_tag="left"),
        act(
            "grasp_actor",
            actor="mug",
            arm_tag="right",
            pre_grasp_dis=0.08,
            contact_point_id=OPPOSITE_HANDLE,
        ),
        act("move_by_displacement", arm_tag="right", z=0.1),
        act(
            "place_actor",
            actor="mug",
            arm_tag="right",
            target_pose=[float(v) for v in target],
            constrain="align",
            align_axis=[float(v) for v in handle],
            pre_dis=0.1,
            dis=0.0,
            pre_dis_axis=[float(v) for v in -along],
        ),
        act("move_by_displacement", arm_tag="right", z=0.08),
        act("back_to_origin", arm_tag="right"),
    ]


def mug_check(world):
    """BiManiBench's rule: the handle's point within 2 cm (x and y) of the peg's middle and
    above z 0.85; here also let go and touching the rack (so it hangs on the peg)."""
    h, m = handle_point(world), hook_middle(world)
    if held(world, "mug"):
        return False, "the mug is still held"
    off = np.abs(h - m)[:2]
    if np.any(off >= HANG_TOL) or h[2] <= HANG_MIN_Z:
        return (
            False,
            f"the mug's handle is not on the rack's peg (off by {off[0]:.3f}, "
            f"{off[1]:.3f} m; z {h[2]:.3f})",
        )
    c = world.client
    if not c.getContactPoints(bodyA=world.bodies["mug"].uid, bodyB=world.bodies["rack"].uid):
        return False, "the mug does not touch the rack"
    return True, "hanging on the rack's peg"


TASKS: tuple[BimanualTask, ...] = (
    BimanualTask(
        "handover_mic",
        "Use one arm to grasp the microphone on the table and handover it to the other arm.",
        setup_mic,
        mic_check,
        mic_plan,
        aliases={"microphone": "mic"},
    ),
    BimanualTask(
        "hanging_mug",
        "Use left arm to pick the mug on the table, rotate the mug and put the mug down in the "
        "middle of the table, use the right arm to pick the mug and hang it onto the rack.",
        setup_mug,
        mug_check,
        mug_plan,
    ),
)
