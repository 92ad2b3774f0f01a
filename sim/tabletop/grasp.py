"""The MG-VQA `grasp` tool: plan from the mask and depth, then grasp with simulated fingers.

Planning is `sim.tabletop.grasp_plan.plan_grasp`. Execution is physical: inverse
kinematics and simulated joint motion for approach, descent and lift; the
2F-85's linkage is coupled by gear constraints so one motor closes it; only
friction holds the object (no attaching constraint). On success the object is
carried to the basket and released. A failure says why: no feasible grasp,
unreachable, collided, slipped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.camera import CameraSpec
from sim.render import RenderedView, render
from sim.robotiq import (
    FINGER_FORCE,
    command_fingers,
    couple_linkage,
    held_body_uid,
    release_followers,
)
from sim.tabletop.grasp_plan import GraspPlan, plan_grasp
from sim.tabletop.motion import DOWN, FINGERTIP_OFFSET, go_home, move_tool_to, tool_pose
from sim.tabletop.world import BASKET_CENTRE, BASKET_SIZE, TABLE_TOP_Z, TabletopWorld

LIFT = 0.15  # metres the object is lifted straight up before the carry
APPROACH = 0.10  # metres above the object's top where the descent starts
# The inner knuckles cross above the pads about 3-4 cm up: a flat-topped object meets
# them sooner than a rounded one, whose top slips between them.
MAX_DEPTH_FLAT, MAX_DEPTH_ROUND = 0.045, 0.055
TABLE_CLEARANCE = 0.003  # the pads' lowest point stays this far above the table
# The 2F-85 measured in this world, tool pointing down: finger_joint angle -> gap
# between the pads (m) and depth of the pads' lowest point below tool0 (m). The
# tips sink 14 mm as they close; the descent allows for it.
FINGER_ANGLE = (0.0, 0.2, 0.4, 0.6, 0.8)
PAD_GAP = (0.086, 0.067, 0.047, 0.024, 0.002)
PAD_DEPTH = (0.149, 0.156, 0.160, 0.163, 0.163)


@dataclass(frozen=True)
class GraspResult:
    ok: bool
    feedback: str
    reason: str  # "", "no feasible grasp", "unreachable", "collided", "slipped"
    plan: GraspPlan
    body_key: str | None  # the object the fingers held, if any
    tool_at_close: tuple[float, ...] | None  # where tool0 actually was when the fingers closed


def enable_finger_dynamics(world: TabletopWorld) -> None:
    """Couple the 2F-85's joints with gear constraints so one motor drives the linkage.

    The couplings are made once per world; the followers' own motors are switched
    off on every call, because `TabletopWorld.hold_arm` (after a push or a state
    restore) turns them back on, and held followers keep the fingers from closing.
    """
    c, g = world.client, world.gripper_uid
    if world.finger_gears:
        release_followers(c, g, world.gripper_joints)
        return
    couple_linkage(c, g, world.gripper_joints)
    world.finger_gears = True


def drive_fingers(world: TabletopWorld, angle: float, steps: int = 180) -> float:
    """Drive finger_joint towards `angle` for `steps` physics steps; return where it got."""
    c, g = world.client, world.gripper_uid
    driver = world.gripper_joints["finger_joint"]
    command_fingers(c, g, world.gripper_joints, angle, FINGER_FORCE)
    world.step(steps)
    return c.getJointState(g, driver)[0]


def _fail(world, reason, detail, plan, body_key=None, at_close=None) -> GraspResult:
    drive_fingers(world, 0.0, 60)
    go_home(world)
    return GraspResult(
        False, f"Action failed: {reason}: {detail}", reason, plan, body_key, at_close
    )


def grasp(world: TabletopWorld, camera: CameraSpec, mask: np.ndarray) -> GraspResult:
    """Plan, grasp, lift and drop the masked object into the basket; say why if not."""
    enable_finger_dynamics(world)
    view = render(world, camera)  # one render serves the plan and the target's identity
    plan = plan_grasp(world, camera, mask, view)
    if not plan.feasible:
        detail = plan.reason.removeprefix("no feasible grasp: ")
        return GraspResult(
            False,
            f"Action failed: no feasible grasp: {detail}",
            "no feasible grasp",
            plan,
            None,
            None,
        )
    c = world.client
    orientation = c.multiplyTransforms(
        (0, 0, 0), c.getQuaternionFromEuler((0, 0, plan.yaw)), (0, 0, 0), DOWN
    )[1]
    x, y, _ = plan.centre
    grip_z = grasp_height(plan)
    above = (x, y, plan.top_z + FINGERTIP_OFFSET + APPROACH)
    drive_fingers(world, 0.0, 30)
    if move_tool_to(world, above, orientation) > 0.02:
        return _fail(world, "unreachable", "the arm cannot get above the object", plan)
    target = _masked_body(view, mask)
    hit: list[str] = []
    on_top: list[bool] = []
    error = move_tool_to(
        world,
        (x, y, grip_z),
        orientation,
        step_m=0.005,
        guard=lambda: _bumped(world, target, hit, on_top),
    )
    if hit or (error > 0.012 and not on_top):
        move_tool_to(world, above, orientation)
        what = f"the {hit[0]}" if hit else "something"
        return _fail(world, "collided", f"the gripper hit {what} on the way down", plan)
    at_close = tuple(float(v) for v in tool_pose(world)[0])
    drive_fingers(world, 0.8)
    body = held_object_uid(world)
    if body is None:
        move_tool_to(world, above, orientation)
        return _fail(world, "slipped", "the fingers closed on nothing", plan, None, at_close)
    key = world.info(body).key
    before = c.getBasePositionAndOrientation(body)[0][2]
    move_tool_to(world, (x, y, grip_z + LIFT), orientation, step_m=0.005)
    if c.getBasePositionAndOrientation(body)[0][2] - before < 0.5 * LIFT:
        return _fail(
            world, "slipped", "the object did not come up with the gripper", plan, key, at_close
        )
    bx, by = BASKET_CENTRE
    carry_z = max(grip_z + LIFT, TABLE_TOP_Z + BASKET_SIZE[2] + FINGERTIP_OFFSET + 0.10)
    move_tool_to(world, (x, y, carry_z), orientation, step_m=0.005)
    move_tool_to(world, (bx, by, carry_z), orientation, step_m=0.004)
    # lower it in until its underside is just above the basket floor, then let go
    drop = c.getAABB(body)[0][2] - (TABLE_TOP_Z + 0.02)
    if drop > 0:
        move_tool_to(world, (bx, by, carry_z - drop), orientation, step_m=0.005)
    drive_fingers(world, 0.0, 120)
    world.step(240)
    go_home(world)
    if not in_basket(world, body):
        return GraspResult(
            False,
            "Action failed: slipped: the object fell on the way to the basket",
            "slipped",
            plan,
            key,
            at_close,
        )
    return GraspResult(True, "Action succeeded.", "", plan, key, at_close)


def grasp_height(plan: GraspPlan) -> float:
    """tool0's height for the grasp: the closed pads' lowest point below the object's
    middle (round things are held below their equator), never into the table."""
    height = plan.top_z - TABLE_TOP_Z
    reach = MAX_DEPTH_FLAT if plan.flat_top > 0.7 else MAX_DEPTH_ROUND
    pads_z = max(TABLE_TOP_Z + TABLE_CLEARANCE, plan.top_z - min(0.5 * height + 0.02, reach))
    # the fingers stop where the gap equals the object's width; the tips sink as they close
    angle = float(np.interp(plan.width, PAD_GAP[::-1], FINGER_ANGLE[::-1]))
    return pads_z + float(np.interp(angle, FINGER_ANGLE, PAD_DEPTH))


def in_basket(world: TabletopWorld, uid: int) -> bool:
    (x, y, z), _ = world.client.getBasePositionAndOrientation(uid)
    bx, by = BASKET_CENTRE
    hx, hy = BASKET_SIZE[0] / 2, BASKET_SIZE[1] / 2
    return (
        abs(x - bx) < hx
        and abs(y - by) < hy
        and TABLE_TOP_Z < z < TABLE_TOP_Z + BASKET_SIZE[2] + 0.05
    )


BUMP_FORCE = 5.0  # N: a contact this hard with anything but the target stops the descent


def _masked_body(view: RenderedView, mask: np.ndarray) -> int | None:
    """The body most of the mask's pixels show (the planner's own bookkeeping)."""
    seg = view.segmentation[mask]
    if seg.size == 0:
        return None
    values, counts = np.unique(seg, return_counts=True)
    return int(values[np.argmax(counts)])


def _bumped(world: TabletopWorld, target: int | None, hit: list[str], on_top: list[bool]) -> bool:
    """Whether the descent must stop: the gripper presses on another object or the table
    (noted in `hit`), or something above the pads (a knuckle, the palm) has reached the
    target's top (noted in `on_top`: the fingers are as deep as they can go)."""
    c = world.client
    for pt in c.getContactPoints(bodyA=world.gripper_uid):
        info = world.info(pt[2])
        if info is None or info.role == "robot" or pt[9] < BUMP_FORCE:
            continue
        if pt[2] != target:
            hit.append(info.name)
            return True
        link = c.getJointInfo(world.gripper_uid, pt[3])[12].decode() if pt[3] >= 0 else "base"
        if "inner_finger" not in link:
            on_top.append(True)
            return True
    return False


def held_object_uid(world: TabletopWorld) -> int | None:
    """The object touched by both fingers of the arm's gripper, if any."""
    return held_body_uid(world, world.gripper_uid)
