"""ST-BiBench's action primitives 2.2-2.9 and the 16-dim end-effector mode, executed in
the dual-arm world with inverse kinematics and simulated motion.

A plan is a list of actions as the paper's planner writes them,
`{"action_name": "grasp_actor", "parameters": {"actor": ..., "arm_tag": ...}}`
(`action_id` and a nested `kwargs` dict are accepted). `BimanualExecutor.execute(plan,
k)` runs the first k actions (execution truncation) and returns one `ActionResult`
per action attempted; the first failure stops the plan, the world stays as it is and
the episode goes on.

Motion is ticked: every action is a generator that sets motor targets and yields;
each tick the executor advances the running actions and steps physics SETTLE_STEPS
times. Two consecutive actions run in the same physics steps (see `can_overlap`)
when they use different arms and touch different objects, or form a two-handed
grasp of one object, or move both arms while both hold the same object.

The allocation guard refuses, before anything moves, an action whose target is out
of the arm's reach, with the paper's feedback: "Action failed: Action Failed:
target green_block is too far, right arm can not finish this 'grasp' action!
Please use another arm!".
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from annotation.bimanual_actions import ACTIONS as SPEC_TABLE
from sim.bimanual_world import (
    ARMS,
    EE_TIP_OFFSET,
    GRIP_MAX_ANGLE,
    TABLE_TOP_Z,
    DualArmWorld,
    _matrix,
    _quat,
    from_wire,
    to_wire,
)

SETTLE_STEPS = 8  # physics steps per tick (1/30 s)
STEP_M = 0.01  # Cartesian waypoint spacing
SLOW_STEP_M = 0.005  # near objects: descents and placing
STEP_RAD = 0.06  # orientation change per waypoint
REACH_XY = 0.74  # horizontal reach from an arm's base axis (metres), see docs
MIN_XY = 0.15  # closer than this the wrist folds into the shoulder
REACH_Z = (TABLE_TOP_Z, 1.35)
MAX_GRASP_WIDTH = 0.079  # the 2F-85 opens 85 mm; a few mm to spare
# open fingertips this far below a flat top: any deeper and the inner knuckles, which
# cross 3-4 cm above the pads, land on the top (the tips sink ~1 cm more as they close)
TOP_GRASP_DEPTH = 0.028
FINGER_TICKS = 18  # ticks (0.6 s) to open or close
GRIP_PRELOAD = 0.03  # rad past the contact angle the fingers hold a grasped object at
CONTACT_STOP_N = 2.0  # a held object pressing this hard on something ends a descent

#: The primitives with the paper's parameters and defaults (appendix F.2).
#: The primitives' ids, parameters and defaults (None: required), from the one table in
#: `annotation.bimanual_actions` (paper 003, appendix F.2); place_actor's kwargs flattened.
ACTION_SPECS: dict[str, dict[str, Any]] = {
    a.name: {
        "id": a.id,
        "params": {
            p.name: None if p.required else (list(p.default) if isinstance(p.default, tuple)
                                             else p.default)
            for p in a.params + a.kwargs
        },
    }
    for a in SPEC_TABLE
}  # fmt: skip
_VERB = {
    "grasp_actor": "grasp",
    "place_actor": "place",
    "move_by_displacement": "move",
    "move_to_pose": "move",
}
_MOVES = ("move_by_displacement", "move_to_pose")
OK = "Action succeeded."


class ActionError(Exception):
    """An action refused or failed; the message is the feedback after "Action failed: "."""


@dataclass
class ActionResult:
    index: int
    name: str
    ok: bool
    feedback: str
    result: Any = None


@dataclass
class Action:
    index: int
    name: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def arm(self) -> str:
        return self.params["arm_tag"]


def parse_action(index: int, raw: Any) -> Action:
    """An `Action` with the paper's defaults filled in; ActionError on a bad one."""
    if not isinstance(raw, dict):
        raise ActionError(f"action {index} is not an object")
    name = raw.get("action_name") or raw.get("name")
    if name not in ACTION_SPECS:
        raise ActionError(f"unknown action {name!r}")
    given = dict(raw.get("parameters") or raw.get("args") or {})
    given.update(given.pop("kwargs", None) or {})
    spec = ACTION_SPECS[name]["params"]
    unknown = sorted(set(given) - set(spec))
    if unknown:
        raise ActionError(f"{name} has no parameter {unknown[0]!r}")
    params = {**spec, **given}
    missing = [
        k
        for k, v in params.items()
        if v is None and spec[k] is None and k in ("actor", "arm_tag", "target_pose")
    ]
    if missing:
        raise ActionError(f"{name} needs {missing[0]!r}")
    if params["arm_tag"] not in ARMS:
        raise ActionError(f"arm_tag must be 'left' or 'right', not {params['arm_tag']!r}")
    return Action(index, name, params)


def split_ee_row(row) -> dict[str, tuple[tuple[float, ...], tuple[float, ...], float]]:
    """A 16-dim row [L xyz, L wxyz, L grip, R xyz, R wxyz, R grip] -> per arm
    (position, PyBullet quaternion, grip 1 open .. 0 closed). The one place the
    wire order of this mode is read."""
    values = [float(v) for v in row]
    if len(values) != 16:
        raise ActionError(f"an end-effector action has 16 numbers, not {len(values)}")
    out = {}
    for tag, chunk in (("left", values[:8]), ("right", values[8:])):
        pos, orn = from_wire(chunk[:7])
        out[tag] = (pos, orn, min(1.0, max(0.0, chunk[7])))
    return out


def reachable(arm_base, point) -> bool:
    """The allocation guard's test: within the arm's horizontal reach and height band."""
    d = math.hypot(point[0] - arm_base[0], point[1] - arm_base[1])
    return MIN_XY <= d <= REACH_XY and REACH_Z[0] - 0.05 <= point[2] <= REACH_Z[1]


def too_far(target: str, arm: str, verb: str) -> str:
    """The paper's allocation feedback (after "Action failed: ")."""
    return (
        f"Action Failed: target {target} is too far, {arm} arm can not finish this "
        f"'{verb}' action! Please use another arm!"
    )


def grasp_orientation(approach, closing_axis) -> tuple[float, ...]:
    """The EE quaternion for an approach direction and a finger closing direction."""
    x = np.asarray(approach, float) / np.linalg.norm(approach)
    y = np.asarray(closing_axis, float)
    y = y - x * float(np.dot(x, y))
    y /= np.linalg.norm(y)
    if y[0] > 1e-9 or (abs(y[0]) <= 1e-9 and y[1] < 0):
        y = -y  # the paper's grasp quaternions open the fingers towards -x
    return _quat(np.column_stack([x, y, np.cross(x, y)]))


class BimanualExecutor:
    """Runs primitives and 16-dim rows in a `DualArmWorld`."""

    def __init__(self, world: DualArmWorld) -> None:
        self.world = world
        self.claimed: dict[str, str | None] = {a: None for a in ARMS}
        self._partners: dict[str, set[str]] = {}  # arms that close on one object together
        self._arrived: set[str] = set()

    # -- geometry -----------------------------------------------------------------------
    def grasp_candidates(self, actor: str) -> list[tuple]:
        """(fingertips' point, closing axis, width, approach) in world coordinates per grasp
        point: an object's `extra["grasps"]` (local frame) or, for a plain box or cylinder,
        one top-down grasp across its narrower side."""
        w = self.world
        body = w.bodies[actor]
        pos, orn = w.body_pose(actor)
        rot = _matrix(orn)
        lo, hi = w.aabb(actor)
        specs = body.extra.get("grasps")
        if specs:
            out = []
            for s in specs:
                point = pos + rot @ np.array(s["point"], float)
                approach = (  # a side approach turns with the object; top-down stays down
                    rot @ np.array(s["approach"], float)
                    if "approach" in s
                    else np.array([0.0, 0.0, -1.0])
                )
                out.append((point, rot @ np.array(s["axis"], float), float(s["width"]), approach))
            return out
        size = np.array(body.size or (0.03, 0.03, 0.03)) * body.scale
        if body.asset == "primitive:cylinder":
            axis, width = rot[:, 0], 2 * size[0]
        else:
            i = 0 if size[0] <= size[1] else 1
            axis, width = rot[:, i], 2 * size[i]
        z = max(lo[2] + 0.015, hi[2] - TOP_GRASP_DEPTH)
        return [(np.array([pos[0], pos[1], z]), axis, width, np.array([0.0, 0.0, -1.0]))]

    def _choose_grasp(self, actor, arm, ids):
        cands = self.grasp_candidates(actor)
        if ids is None:  # the best point: top-down ones first, the nearest to the arm
            top = [c for c in cands if c[3][2] < -0.9]
            cands = top or cands
        else:
            ids = [ids] if isinstance(ids, int | float) else list(ids)
            cands = [cands[int(i) % len(cands)] for i in ids] or cands
        base = np.array(self.world.arms[arm].base)
        return min(cands, key=lambda c: float(np.linalg.norm(c[0][:2] - base[:2])))

    # -- motion generators ---------------------------------------------------------------
    def _line(self, arm, position, orientation, step_m=STEP_M, stop=None) -> Generator:
        w = self.world
        start, start_orn = w.ee_pose(arm)
        goal = np.asarray(position, float)
        orn = start_orn if orientation is None else orientation
        dot = abs(float(np.dot(start_orn, orn)))
        angle = 2 * math.acos(min(1.0, dot))
        n = max(1, math.ceil(np.linalg.norm(goal - start) / step_m), math.ceil(angle / STEP_RAD))
        for i in range(1, n + 1):
            f = i / n
            q = w.client.getQuaternionSlerp(start_orn, orn, f)
            w.drive_joints(arm, w.ik(arm, start + (goal - start) * f, q))
            yield
            if stop is not None and stop():
                return
        for _ in range(25):  # let the joints arrive
            if np.linalg.norm(w.ee_pose(arm)[0] - goal) < 0.003:
                break
            w.drive_joints(arm, w.ik(arm, goal, orn))
            yield

    def _fingers(self, arm, angle, ticks=FINGER_TICKS) -> Generator:
        self.world.command_gripper(arm, angle)
        for _ in range(ticks):
            yield

    def _run(self, gens: list[Generator]) -> None:
        """Advance generators together, SETTLE_STEPS physics steps per tick."""
        live = list(gens)
        while live:
            for g in list(live):
                try:
                    next(g)
                except StopIteration:
                    live.remove(g)
            if live:
                self.world.step(SETTLE_STEPS)

    # -- primitives (validate, then a generator) -------------------------------------------
    def _prepare(self, a: Action):
        """Check an action against the world (the guard included); return its generator
        or, for get_arm_pose, its value. Raises ActionError before anything moves."""
        w, p, arm = self.world, a.params, a.arm
        base = w.arms[arm].base
        if a.name == "get_arm_pose":
            return w.ee_wire_pose(arm)
        if a.name in ("grasp_actor", "place_actor"):
            actor = p["actor"]
            if actor not in w.bodies or w.bodies[actor].role != "object":
                raise ActionError(f"there is no object {actor!r}")
        if a.name == "grasp_actor":
            point, axis, width, approach = self._choose_grasp(actor, arm, p["contact_point_id"])
            if not reachable(base, point - approach * EE_TIP_OFFSET):
                raise ActionError(too_far(actor, arm, "grasp"))
            if width > MAX_GRASP_WIDTH:
                raise ActionError(
                    f"{actor} is {width * 1000:.0f} mm wide at the grasp point; "
                    f"the gripper opens 85 mm"
                )
            return self._grasp(a, point, axis, approach)
        if a.name == "place_actor":
            if self._holding(arm) != actor:
                raise ActionError(f"{actor} is not in the {arm} gripper")
            target, _ = from_wire(p["target_pose"])
            if not reachable(base, (*target[:2], target[2] + EE_TIP_OFFSET)):
                raise ActionError(too_far(actor, arm, "place"))
            return self._place(a, np.array(target))
        if a.name in _MOVES:
            pos, orn = self._move_target(a)
            if not reachable(base, pos):
                where = "[" + ", ".join(f"{v:.3f}" for v in pos) + "]"
                raise ActionError(too_far(f"pose {where}", arm, "move"))
            return self._line(arm, pos, orn)
        if a.name in ("close_gripper", "open_gripper"):
            return self._gripper(a)
        return self._origin(arm)

    def _holding(self, arm) -> str | None:
        return self.world.held_body(arm) or self.claimed[arm]

    def _move_target(self, a: Action):
        w, p = self.world, a.params
        pos, orn = w.ee_pose(a.arm)
        if a.name == "move_to_pose":
            target, t_orn = from_wire(p["target_pose"])
            return np.array(target), t_orn or orn
        d = np.array([float(p["x"]), float(p["y"]), float(p["z"])])
        if p["move_axis"] == "arm":
            d = _matrix(orn) @ d
        elif p["move_axis"] != "world":
            raise ActionError("move_axis must be 'world' or 'arm'")
        new_orn = from_wire([0, 0, 0, *p["quat"]])[1] if p["quat"] is not None else orn
        return pos + d, new_orn

    def _grasp(self, a: Action, point, axis, approach) -> Generator:
        p, arm = a.params, a.arm
        orn = grasp_orientation(approach, axis)
        ee = point - approach * (EE_TIP_OFFSET + float(p["grasp_dis"]))
        pre = ee - approach * float(p["pre_grasp_dis"])
        yield from self._fingers(arm, 0.0, 6 if self.world.finger_angle(arm) < 0.05 else 14)
        yield from self._line(arm, pre, orn)
        yield from self._line(arm, ee, orn, SLOW_STEP_M)
        self._arrived.add(arm)
        while not self._partners.get(arm, set()) <= self._arrived:
            yield  # a two-handed grasp closes both hands together
        angle = (1.0 - float(p["gripper_pos"])) * GRIP_MAX_ANGLE
        yield from self._fingers(arm, angle)
        held = self._secure(arm)
        if held != p["actor"]:
            raise ActionError(f"the {arm} gripper closed without holding {p['actor']}")
        self.claimed[arm] = held

    def _place(self, a: Action, target) -> Generator:
        w, p, arm = self.world, a.params, a.arm
        actor = p["actor"]
        ee, orn = w.ee_pose(arm)
        offset = ee - w.body_pose(actor)[0]
        goal = target + offset
        pre = goal + np.array([0, 0, float(p["pre_dis"])])
        if ee[2] < pre[2] - 0.01:  # rise before travelling: nothing on the way is knocked over
            yield from self._line(arm, (ee[0], ee[1], pre[2]), orn)
        yield from self._line(arm, pre, orn)
        end = goal + np.array([0, 0, float(p["dis"])])
        yield from self._line(arm, end, orn, SLOW_STEP_M, stop=lambda: self._resting(actor))
        if p["is_open"]:
            yield from self._fingers(arm, 0.0)
            self.claimed[arm] = None

    def _resting(self, actor) -> bool:
        """Whether the held object presses on something that is not a gripper."""
        w = self.world
        uid = w.bodies[actor].uid
        for pt in w.client.getContactPoints(bodyA=uid):
            info = w.info(pt[2])
            if info is not None and info.role != "robot" and pt[9] > CONTACT_STOP_N:
                return True
        return False

    def _gripper(self, a: Action) -> Generator:
        arm, pos = a.arm, float(a.params["pos"])
        yield from self._fingers(arm, (1.0 - min(1.0, max(0.0, pos))) * GRIP_MAX_ANGLE)
        self.claimed[arm] = self._secure(arm) if a.name == "close_gripper" else None

    def _secure(self, arm) -> str | None:
        """Hold a grasped object at its contact angle plus a preload.

        Squeezing on towards fully closed lets the object creep out of the pads while
        the other arm moves (measured: the fingers close through a held 5 cm block in
        about 5 s); a position hold just past contact keeps it.
        """
        held = self.world.held_body(arm)
        if held is not None:
            angle = self.world.finger_angle(arm)
            self.world.command_gripper(arm, min(GRIP_MAX_ANGLE, angle + GRIP_PRELOAD))
        return held

    def _origin(self, arm) -> Generator:
        """Back to the home joints in joint space (as a robot's homing move does): a
        Cartesian line from a down-pointing pose to the forward-pointing origin would
        pass near wrist singularities."""
        w = self.world
        a = w.arms[arm]
        start = np.array([w.client.getJointState(a.uid, j)[0] for j in a.joints])
        home = np.array(a.home_joints)
        n = max(1, math.ceil(float(np.max(np.abs(home - start))) / STEP_RAD))
        for i in range(1, n + 1):
            w.drive_joints(arm, dict(zip(a.joints, start + (home - start) * i / n, strict=True)))
            yield
        for _ in range(10):
            yield

    # -- plans ------------------------------------------------------------------------------
    def _objects(self, a: Action, claimed) -> set[str]:
        held = claimed[a.arm]
        return {x for x in (a.params.get("actor"), held) if x}

    def can_overlap(self, first: Action, second: Action, claimed) -> bool:
        """Whether two consecutive actions may run in the same physics steps."""
        if first.arm == second.arm or "get_arm_pose" in (first.name, second.name):
            return False
        a, b = self._objects(first, claimed), self._objects(second, claimed)
        if not a & b:
            return True
        if first.name == second.name == "grasp_actor":  # a two-handed grasp
            return not (claimed["left"] or claimed["right"])
        both_hold = claimed["left"] is not None and claimed["left"] == claimed["right"]
        return first.name in _MOVES and second.name in _MOVES and both_hold

    def execute(self, plan: list, k: int | None = None) -> list[ActionResult]:
        """Run the first `k` actions (all when None); stop at the first failure."""
        raws = list(plan)[: k if k is not None else len(plan)]
        results: list[ActionResult] = []
        i = 0
        while i < len(raws):
            try:
                first = parse_action(i, raws[i])
            except ActionError as exc:
                results.append(ActionResult(i, str(_name(raws[i])), False, _failed(exc)))
                return results
            group = [first]
            if i + 1 < len(raws):
                try:
                    second = parse_action(i + 1, raws[i + 1])
                    if self.can_overlap(first, second, self.claimed):
                        group.append(second)
                except ActionError:
                    pass
            done = self._run_group(group, results)
            if not done:
                return results
            i += len(group)
        return results

    def _run_group(self, group: list[Action], results: list[ActionResult]) -> bool:
        prepared, errors = [], {}
        for a in group:
            try:
                prepared.append((a, self._prepare(a)))
            except ActionError as exc:
                errors[a.index] = exc
                break  # a refused action ends the group; those before it still run
        outcome: dict[int, ActionError | None] = {}
        grasps = [a for a, _ in prepared if a.name == "grasp_actor"]
        self._arrived = set()
        self._partners = {}
        if len(grasps) == 2 and grasps[0].params["actor"] == grasps[1].params["actor"]:
            self._partners = {grasps[0].arm: {grasps[1].arm}, grasps[1].arm: {grasps[0].arm}}
        gens = []
        for a, g in prepared:
            if isinstance(g, Generator):
                gens.append(_catching(g, a.index, outcome))
            else:
                outcome[a.index] = None
        self._run(gens)
        for a, g in prepared:
            exc = outcome.get(a.index)
            value = g if a.name == "get_arm_pose" else None
            results.append(
                ActionResult(
                    a.index, a.name, exc is None, OK if exc is None else _failed(exc), value
                )
            )
        for index, exc in errors.items():
            results.append(ActionResult(index, group[len(prepared)].name, False, _failed(exc)))
        self.world.hold_arm()
        return not errors and all(r.ok for r in results[-len(prepared) :])

    def execute_ee(self, rows: list, k: int | None = None) -> list[ActionResult]:
        """The 16-dim mode: both arms move to each row's poses together, then the grippers
        go to the row's values. Stops at the first row it cannot execute."""
        results = []
        for i, row in enumerate(list(rows)[: k if k is not None else len(rows)]):
            try:
                target = split_ee_row(row)
                for tag, (pos, _, _) in target.items():
                    if not reachable(self.world.arms[tag].base, pos):
                        where = "[" + ", ".join(f"{v:.3f}" for v in pos) + "]"
                        raise ActionError(too_far(f"pose {where}", tag, "move"))
            except (ActionError, ValueError) as exc:
                results.append(ActionResult(i, "ee_pose", False, _failed(exc)))
                return results
            self._run([self._line(t, pos, orn) for t, (pos, orn, _) in target.items()])
            changing = [
                self._fingers(t, (1.0 - grip) * GRIP_MAX_ANGLE)
                for t, (_, _, grip) in target.items()
                if abs(self.world.arms[t].finger_target - (1.0 - grip) * GRIP_MAX_ANGLE) > 1e-3
            ]
            self._run(changing)
            for tag, (_, _, grip) in target.items():
                if grip < 0.5:
                    self.claimed[tag] = self._secure(tag)
            self.world.hold_arm()
            results.append(ActionResult(i, "ee_pose", True, OK))
        return results

    def ee_row(self) -> list[float]:
        """The current state as a 16-dim row (wire order)."""
        w = self.world
        row: list[float] = []
        for tag in ARMS:
            row += to_wire(*w.ee_pose(tag)) + [round(w.gripper_opening(tag), 4)]
        return row


def _catching(gen: Generator, index: int, outcome: dict) -> Generator:
    """Run a primitive's generator, noting whether it ended in an ActionError."""
    try:
        yield from gen
        outcome[index] = None
    except ActionError as exc:
        outcome[index] = exc


def _failed(exc: Exception) -> str:
    return f"Action failed: {exc}"


def _name(raw) -> str:
    return raw.get("action_name", raw.get("name", "?")) if isinstance(raw, dict) else "?"
