"""The MG-VQA `grasp` tool: plan from the mask and depth, then grasp with simulated fingers.

Planning is `sim.tabletop.grasp.plan.plan_grasp` (antipodal candidates, best
first). Execution is physical: inverse kinematics and simulated joint motion
for approach, descent and lift; the gripper's linkage is coupled by gear
constraints so one motor closes it; only friction holds the object (no
attaching constraint). Up to `MAX_TRIED` candidates are tried; after a failed
one the scene is looked at again (the object may have moved) and the planner
asked for the best grasp not yet tried. On success the object is carried to
the basket and released. A failure says what was tried and why each attempt
failed: too wide, fingers would hit a neighbour, unreachable, collided on the
way down, closed on nothing, slipped at lift (with how far the object rose).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.camera import CameraSpec
from sim.render import RenderedView, render
from sim.robotiq import (
    ROBOTIQ_2F85,
    command_fingers,
    couple_linkage,
    held_body_uid,
    release_followers,
)
from sim.tabletop.grasp.plan import (
    MAX_TRIED,
    TABLE_CLEARANCE,
    GraspCandidate,
    GraspPlan,
    masked_body,
    plan_grasp,
    preshape_gap,
    tool_axis,
)
from sim.tabletop.motion import DOWN, go_home, move_over, move_tool_to, tool_pose
from sim.tabletop.world import BASKET_CENTRE, BASKET_SIZE, TABLE_TOP_Z, TabletopWorld

LIFT = 0.15  # metres the object is lifted straight up before the carry
APPROACH = 0.10  # metres above the object's top where the descent starts


@dataclass(frozen=True)
class Attempt:
    """One candidate tried in simulation and how it ended."""

    candidate: GraspCandidate
    reason: str  # "" (held and lifted), "unreachable", "collided", "slipped"
    detail: str
    body_key: str | None = None
    tool_at_close: tuple[float, ...] | None = None
    rose_m: float | None = None  # how far the object came up with the gripper

    def as_record(self) -> dict:
        return {
            **self.candidate.as_record(),
            "outcome": self.reason or "held",
            "detail": self.detail,
            "body_key": self.body_key,
            "tool_at_close": list(self.tool_at_close) if self.tool_at_close else None,
            "rose_m": None if self.rose_m is None else round(self.rose_m, 4),
        }


@dataclass(frozen=True)
class GraspResult:
    ok: bool
    feedback: str
    reason: str  # "", "no feasible grasp", "unreachable", "collided", "slipped"
    plan: GraspPlan
    body_key: str | None  # the object the fingers held, if any
    tool_at_close: tuple[float, ...] | None  # where tool0 actually was when the fingers closed
    attempts: tuple[Attempt, ...] = field(default=())


def enable_finger_dynamics(world: TabletopWorld) -> None:
    """Couple the gripper's joints with gear constraints so one motor drives the linkage.

    The couplings are made once per world; the followers' own motors are switched
    off on every call, because `TabletopWorld.hold_arm` (after a push or a state
    restore) turns them back on, and held followers keep the fingers from closing.
    """
    c, g, model = world.client, world.gripper_uid, world.gripper_model
    if world.finger_gears:
        release_followers(c, g, world.gripper_joints, model)
        return
    couple_linkage(c, g, world.gripper_joints, model)
    world.finger_gears = True


def drive_fingers(world: TabletopWorld, angle: float, steps: int = 180) -> float:
    """Drive finger_joint towards `angle` for `steps` physics steps; return where it got."""
    c, g = world.client, world.gripper_uid
    driver = world.gripper_joints["finger_joint"]
    command_fingers(c, g, world.gripper_joints, angle, model=world.gripper_model)
    world.step(steps)
    return c.getJointState(g, driver)[0]


def grasp(
    world: TabletopWorld,
    camera: CameraSpec,
    mask: np.ndarray,
    *,
    tries: int = MAX_TRIED,
    view: RenderedView | None = None,
) -> GraspResult:
    """Plan, grasp, lift and drop the masked object into the basket; say why if not.
    `view`: the camera's render of the world as it is now, when the caller has it."""
    enable_finger_dynamics(world)
    view = view or render(world, camera)  # one render serves the plan and the target's identity
    names = {b.uid: b.name for b in world.objects()}
    plan = plan_grasp(camera, mask, view, world.gripper_model, table_z=TABLE_TOP_Z, names=names)
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
    target = masked_body(view, mask)
    first_plan, attempts = plan, []
    while True:
        attempt = _try(world, plan, target)
        attempts.append(attempt)
        if not attempt.reason:
            return GraspResult(
                True,
                "Action succeeded.",
                "",
                first_plan,
                attempt.body_key,
                attempt.tool_at_close,
                tuple(attempts),
            )
        if len(attempts) >= tries:
            break
        # look again: the attempt may have moved the object; same object, fresh pixels
        view = render(world, camera)
        mask = view.segmentation == target if target is not None else mask
        tried = tuple(
            (a.candidate.centre[0], a.candidate.centre[1], a.candidate.yaw) for a in attempts
        )
        plan = plan_grasp(
            camera, mask, view, world.gripper_model, table_z=TABLE_TOP_Z, avoid=tried, names=names
        )
        if not plan.feasible:
            break
    last = attempts[-1]
    return GraspResult(
        False,
        failure_text(attempts),
        last.reason,
        first_plan,
        last.body_key,
        last.tool_at_close,
        tuple(attempts),
    )


def failure_text(attempts: list[Attempt]) -> str:
    """What the agent reads after a failed grasp: every attempt and why it failed."""
    last = attempts[-1]
    if len(attempts) == 1:
        return f"Action failed: {last.reason}: {last.detail}"
    tried = "; ".join(
        f"{i}) across {100 * a.candidate.width:.1f} cm at {np.degrees(a.candidate.yaw):.0f} deg: "
        f"{a.reason}: {a.detail}"
        for i, a in enumerate(attempts, 1)
    )
    return f"Action failed: {last.reason}: {len(attempts)} grasps tried: {tried}"


def _try(world: TabletopWorld, plan: GraspPlan, target: int | None) -> Attempt:
    """One candidate (the plan's best) executed: approach, descend, close, lift, carry."""
    c, model = world.client, world.gripper_model
    cand = plan.candidates[0]
    orientation = grasp_orientation(c, cand.yaw, cand.tilt)
    axis = tool_axis(cand.yaw, cand.tilt)
    pad_depth = model.depth_at_gap(cand.width)
    grip = np.array(cand.tool_position(pad_depth))
    grip_z = float(grip[2])
    # start above the object's top along the tool's own axis, and come down along it
    back = cand.top_z - cand.pads_z + model.fingertip_offset - pad_depth
    above = grip - (back + APPROACH) / max(-axis[2], 0.5) * axis
    preshape = model.angle_for_gap(float(preshape_gap(model, cand.width)))
    drive_fingers(world, preshape, 60)
    if move_over(world, above, orientation) > 0.02:
        return _fail(world, cand, "unreachable", "the arm cannot get above the object")
    hit: list[str] = []
    on_top: list[bool] = []
    error = move_tool_to(
        world,
        grip,
        orientation,
        step_m=0.005,
        guard=lambda: _bumped(world, target, hit, on_top),
    )
    if hit or (error > 0.012 and not on_top):
        move_tool_to(world, above, orientation)
        what = f"the {hit[0]}" if hit else "something"
        return _fail(world, cand, "collided", f"the gripper hit {what} on the way down")
    at_close = tuple(float(v) for v in tool_pose(world)[0])
    drive_fingers(world, model.closed_angle)
    body = held_object_uid(world)
    if body is None:
        move_tool_to(world, above, orientation)
        return _fail(world, cand, "slipped", "the fingers closed on nothing", None, at_close)
    key = world.info(body).key
    before = c.getBasePositionAndOrientation(body)[0][2]
    gx, gy = float(grip[0]), float(grip[1])
    move_tool_to(world, (gx, gy, grip_z + LIFT), orientation, step_m=0.005)
    rose = c.getBasePositionAndOrientation(body)[0][2] - before
    if rose < 0.5 * LIFT:
        return _fail(
            world,
            cand,
            "slipped",
            f"the object slipped at lift (it rose {100 * rose:.1f} of {100 * LIFT:.0f} cm)",
            key,
            at_close,
            rose,
        )
    bx, by = BASKET_CENTRE
    carry_z = max(grip_z + LIFT, TABLE_TOP_Z + BASKET_SIZE[2] + model.fingertip_offset + 0.10)
    # over the clutter with the object hanging below the fingers, then down with the
    # object (not the flange: a grasp off its middle or leaning holds it to one side,
    # and it was let go over the basket's wall) over the basket's middle
    tool = tool_pose(world)[0]
    lo, hi = c.getAABB(body)
    hang = tool[2] - lo[2]
    bx -= (lo[0] + hi[0]) / 2 - tool[0]
    by -= (lo[1] + hi[1]) / 2 - tool[1]
    move_over(world, (bx, by, carry_z), orientation, below=hang, held=body, step_m=0.004)
    # lower it in until its underside is just above the basket floor, or until it sets
    # down on what is in the basket already (pressing on that pries the fingers open and
    # knocks the object out of the basket or wedges it in the open fingers), then let go
    drop = c.getAABB(body)[0][2] - (TABLE_TOP_Z + 0.02)
    if drop > 0:
        move_tool_to(
            world,
            (bx, by, carry_z - drop),
            orientation,
            step_m=0.005,
            guard=lambda: _set_down(world, body),
        )
    drive_fingers(world, model.open_angle, 120)
    world.step(240)
    go_home(world)
    if not in_basket(world, body):
        return Attempt(
            cand, "slipped", "the object fell on the way to the basket", key, at_close, rose
        )
    return Attempt(cand, "", "", key, at_close, rose)


def grasp_orientation(client, yaw: float, tilt: float = 0.0) -> tuple[float, ...]:
    """tool0's orientation for a grasp closing along world angle `yaw`: pointing down,
    turned about the vertical, then leaned `tilt` about the closing line (`tool_axis`)."""
    down = client.multiplyTransforms(
        (0, 0, 0), client.getQuaternionFromEuler((0, 0, yaw)), (0, 0, 0), DOWN
    )[1]
    if not tilt:
        return down
    closing = (np.cos(yaw), np.sin(yaw), 0.0)
    lean = client.getQuaternionFromAxisAngle(closing, -tilt)
    return client.multiplyTransforms((0, 0, 0), lean, (0, 0, 0), down)[1]


def _fail(world, cand, reason, detail, body_key=None, at_close=None, rose=None) -> Attempt:
    drive_fingers(world, world.gripper_model.open_angle, 60)
    go_home(world)
    return Attempt(cand, reason, detail, body_key, at_close, rose)


def grasp_height(plan: GraspPlan, model=None) -> float:
    """tool0's height for the grasp: the pads' lowest point at closing plus how far below
    tool0 they reach when `plan.width` apart (the tips sink as they close).

    Plans recorded before the candidate planner carry no `pads_z`: theirs is worked out
    as the planner of the time did (the closed pads below the object's middle, round
    things below their equator, never into the table).
    """
    model = model or ROBOTIQ_2F85
    pads_z = plan.pads_z
    if pads_z is None:
        height = plan.top_z - TABLE_TOP_Z
        reach = model.max_depth_flat if plan.flat_top > 0.7 else model.max_depth_round
        pads_z = max(TABLE_TOP_Z + TABLE_CLEARANCE, plan.top_z - min(0.5 * height + 0.02, reach))
    return pads_z + model.depth_at_gap(plan.width)


BASKET_PILE = 0.25  # m above the walls that objects resting on earlier ones may reach


def in_basket(world: TabletopWorld, uid: int) -> bool:
    """Whether an object lies in the basket (`position_in_basket`)."""
    return position_in_basket(world.client.getBasePositionAndOrientation(uid)[0])


def position_in_basket(position) -> bool:
    """Whether a body centred at `position` lies in the basket: over its floor, on the
    floor or on what was put in before it (a cleared object often rests on the last one)."""
    x, y, z = position
    bx, by = BASKET_CENTRE
    hx, hy = BASKET_SIZE[0] / 2, BASKET_SIZE[1] / 2
    return (
        abs(x - bx) < hx
        and abs(y - by) < hy
        and TABLE_TOP_Z < z < TABLE_TOP_Z + BASKET_SIZE[2] + BASKET_PILE
    )


BUMP_FORCE = 5.0  # N: a contact this hard with anything but the target stops the descent


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


SET_DOWN_FORCE = 1.0  # N: the held object resting this hard on something has set down


def _set_down(world: TabletopWorld, body: int) -> bool:
    """Whether the held object (or the gripper) now rests on something below it: the
    basket or what was put in it before."""
    c = world.client
    for pt in c.getContactPoints(bodyA=body):
        if pt[2] != world.gripper_uid and pt[9] >= SET_DOWN_FORCE:
            return True
    for pt in c.getContactPoints(bodyA=world.gripper_uid):
        info = world.info(pt[2])
        if pt[2] != body and info is not None and info.role != "robot" and pt[9] >= BUMP_FORCE:
            return True
    return False


def held_object_uid(world: TabletopWorld) -> int | None:
    """The object touched by both fingers of the arm's gripper, if any."""
    return held_body_uid(world, world.gripper_uid)
