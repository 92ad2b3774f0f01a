"""ST-BiBench's action primitives 2.2-2.9 and the 16-dim end-effector mode, executed in
the dual-arm world with inverse kinematics and simulated motion.

A plan is a list of actions as the paper's planner writes them,
`{"action_name": "grasp_actor", "parameters": {"actor": ..., "arm_tag": ...}}`
(`action_id` and a nested `kwargs` dict are accepted). `BimanualExecutor.execute(plan,
k)` runs the first k actions (execution truncation) and returns one `ActionResult`
per action attempted; the first failure stops the plan, the world stays as it is and
the episode goes on.

Two consecutive actions run in the same physics steps (see `can_overlap`) when they
use different arms and touch different objects, or form a two-handed grasp of one
object, or move both arms while both hold the same object.

The allocation guard refuses, before anything moves, an action whose target is out
of the arm's reach, with the paper's feedback: "Action failed: Action Failed:
target green_block is too far, right arm can not finish this 'grasp' action!
Please use another arm!".

The vocabulary (parsing, results, the guard) lives in `sim.bimanual.primitives`, the
motion in `sim.bimanual.motion`, the place orientation rule in `sim.bimanual.placing`;
their public names are re-exported here.
"""

from __future__ import annotations

from collections.abc import Generator

import numpy as np

from sim.bimanual.frames import EE_TIP_OFFSET, from_wire, rotation_matrix, to_wire
from sim.bimanual.motion import (
    FINGER_TICKS,
    GRIP_PRELOAD,
    SETTLE_STEPS,
    SLOW_STEP_M,
    STEP_M,
    STEP_RAD,
    TOP_GRASP_DEPTH,
    ArmMotions,
)
from sim.bimanual.placing import CONSTRAINTS, approach_direction
from sim.bimanual.primitives import (
    ACTION_SPECS,
    MAX_GRASP_WIDTH,
    MIN_XY,
    MOVES,
    OK,
    REACH_XY,
    REACH_Z,
    Action,
    ActionError,
    ActionResult,
    action_name,
    failed,
    grasp_orientation,
    parse_action,
    reachable,
    split_ee_row,
    too_far,
)
from sim.bimanual.world import ARMS, GRIP_MAX_ANGLE, DualArmWorld

__all__ = [
    "ACTION_SPECS",
    "FINGER_TICKS",
    "GRIP_PRELOAD",
    "MAX_GRASP_WIDTH",
    "MIN_XY",
    "OK",
    "REACH_XY",
    "REACH_Z",
    "SETTLE_STEPS",
    "SLOW_STEP_M",
    "STEP_M",
    "STEP_RAD",
    "TOP_GRASP_DEPTH",
    "Action",
    "ActionError",
    "ActionResult",
    "BimanualExecutor",
    "grasp_orientation",
    "parse_action",
    "reachable",
    "split_ee_row",
    "too_far",
]


class BimanualExecutor(ArmMotions):
    """Runs primitives and 16-dim rows in a `DualArmWorld`."""

    def __init__(self, world: DualArmWorld) -> None:
        self.world = world
        self.claimed: dict[str, str | None] = {a: None for a in ARMS}
        self._partners: dict[str, set[str]] = {}  # arms that close on one object together
        self._arrived: set[str] = set()

    # -- validation (nothing moves before an action passes) ---------------------------------
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
                    f"{actor} is {width * 1000:.0f} mm wide at the grasp point, more than "
                    f"the {MAX_GRASP_WIDTH * 1000:.0f} mm the gripper can take (it opens 85 mm)"
                )
            return self._grasp(a, point, axis, approach)
        if a.name == "place_actor":
            if self._holding(arm) != actor:
                raise ActionError(f"{actor} is not in the {arm} gripper")
            if w.held_body(arm) != actor:  # grasped once, but it has slipped out since
                self.claimed[arm] = None
                raise ActionError(f"{actor} has slipped out of the {arm} gripper")
            try:
                target, target_orn = from_wire(p["target_pose"])
                target_rot = None if target_orn is None else rotation_matrix(target_orn)
                _check_place_options(p, target_rot)
            except (ValueError, TypeError) as exc:
                raise ActionError(f"place_actor: {exc}") from None
            if not reachable(base, (*target[:2], target[2] + EE_TIP_OFFSET)):
                raise ActionError(too_far(actor, arm, "place"))
            return self._place(a, np.array(target), target_rot)
        if a.name in MOVES:
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
            d = rotation_matrix(orn) @ d
        elif p["move_axis"] != "world":
            raise ActionError("move_axis must be 'world' or 'arm'")
        new_orn = from_wire([0, 0, 0, *p["quat"]])[1] if p["quat"] is not None else orn
        return pos + d, new_orn

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
        return first.name in MOVES and second.name in MOVES and both_hold

    def execute(self, plan: list, k: int | None = None) -> list[ActionResult]:
        """Run the first `k` actions (all when None); stop at the first failure."""
        raws = list(plan)[: k if k is not None else len(plan)]
        results: list[ActionResult] = []
        i = 0
        while i < len(raws):
            try:
                first = parse_action(i, raws[i])
            except ActionError as exc:
                results.append(ActionResult(i, str(action_name(raws[i])), False, failed(exc)))
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
                    a.index, a.name, exc is None, OK if exc is None else failed(exc), value
                )
            )
        for index, exc in errors.items():
            results.append(ActionResult(index, group[len(prepared)].name, False, failed(exc)))
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
                results.append(ActionResult(i, "ee_pose", False, failed(exc)))
                return results
            self._run([self._line(t, pos, orn) for t, (pos, orn, _) in target.items()])
            # a closed hand that still holds what it closed on keeps its grip: squeezing it
            # shut again every row turned a held loaf between the pads until it fell
            holding = {
                t
                for t, (_, _, grip) in target.items()
                if grip < 0.5 and self.claimed[t] and self.world.held_body(t) == self.claimed[t]
            }
            changing = [
                self._fingers(t, (1.0 - grip) * GRIP_MAX_ANGLE)
                for t, (_, _, grip) in target.items()
                if t not in holding
                and abs(self.world.arms[t].finger_target - (1.0 - grip) * GRIP_MAX_ANGLE) > 1e-3
            ]
            self._run(changing)
            for tag, (_, _, grip) in target.items():
                if grip < 0.5 and tag not in holding:
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


def _check_place_options(p: dict, target_rot) -> None:
    """ValueError for place_actor options that cannot be read (before anything moves)."""
    if p["constrain"] not in CONSTRAINTS:
        raise ValueError(f"constrain must be 'free', 'align' or 'auto', not {p['constrain']!r}")
    if p["actor_axis_type"] not in ("actor", "world"):
        raise ValueError(
            f"actor_axis_type must be 'actor' or 'world', not {p['actor_axis_type']!r}"
        )
    if len(np.asarray(p["actor_axis"], float).reshape(-1)) != 3:
        raise ValueError("actor_axis has 3 numbers")
    if p["align_axis"] is not None:
        axes = np.asarray(p["align_axis"], float)
        if (
            axes.size == 0
            or axes.size % 3
            or np.any(np.linalg.norm(axes.reshape(-1, 3), axis=1) < 1e-9)
        ):
            raise ValueError("align_axis is a vector of 3 numbers or a list of them, none zero")
    approach_direction(p["pre_dis_axis"], target_rot, (0.0, 0.0, -1.0))


def _catching(gen: Generator, index: int, outcome: dict) -> Generator:
    """Run a primitive's generator, noting whether it ended in an ActionError."""
    try:
        yield from gen
        outcome[index] = None
    except ActionError as exc:
        outcome[index] = exc
