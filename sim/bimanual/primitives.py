"""The vocabulary of the dual-arm primitives: parsed actions, results, errors, the
allocation guard's test and message, and the 16-dim row's wire order.

No motion here (see `sim.bimanual.motion`) and no plan running (see
`sim.bimanual.executor`, which re-exports everything below under its old names).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from annotation.bimanual.actions import ACTIONS as SPEC_TABLE
from annotation.bimanual.actions import BY_NAME, check_value
from sim.bimanual.frames import from_wire, quaternion_from_matrix
from sim.bimanual.world import ARMS, TABLE_TOP_Z

REACH_XY = 0.74  # horizontal reach from an arm's base axis (metres), see docs
MIN_XY = 0.15  # closer than this the wrist folds into the shoulder
REACH_Z = (TABLE_TOP_Z, 1.35)
MAX_GRASP_WIDTH = 0.079  # the 2F-85 opens 85 mm; a few mm to spare
OK = "Action succeeded."

#: The primitives' ids, parameters and defaults (None: required), from the one table in
#: `annotation.bimanual.actions` (paper 003, appendix F.2); place_actor's kwargs flattened.
ACTION_SPECS: dict[str, dict[str, Any]] = {
    a.name: {
        "id": a.id,
        "params": {
            p.name: None
            if p.required
            else (list(p.default) if isinstance(p.default, tuple) else p.default)
            for p in a.params + a.kwargs
        },
    }
    for a in SPEC_TABLE
}
VERB = {
    "grasp_actor": "grasp",
    "place_actor": "place",
    "move_by_displacement": "move",
    "move_to_pose": "move",
}
MOVES = ("move_by_displacement", "move_to_pose")


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
    table = BY_NAME[name]
    for param in table.params + table.kwargs:
        if param.name in given and param.kind in ("number", "int", "bool"):
            value, why = check_value(param, given[param.name])
            if why:  # e.g. pre_grasp_dis "far": refused as feedback, not a Python error
                raise ActionError(f"{name}: {param.name} {why}")
            params[param.name] = value
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


def grasp_orientation(approach, closing_axis, near=None) -> tuple[float, ...]:
    """The EE quaternion for an approach direction and a finger closing direction.

    The gripper is symmetric: fingers opening along +y or -y grasp alike. With `near`
    (a quaternion, the EE's orientation now) the one the wrist turns less to reach is
    taken; without, the paper's convention (fingers opening towards -x)."""
    x = np.asarray(approach, float) / np.linalg.norm(approach)
    y = np.asarray(closing_axis, float)
    y = y - x * float(np.dot(x, y))
    y /= np.linalg.norm(y)
    if y[0] > 1e-9 or (abs(y[0]) <= 1e-9 and y[1] < 0):
        y = -y  # the paper's grasp quaternions open the fingers towards -x
    options = [quaternion_from_matrix(np.column_stack([x, v, np.cross(x, v)])) for v in (y, -y)]
    if near is None:
        return options[0]
    return max(options, key=lambda q: abs(float(np.dot(q, near))))


def failed(exc: Exception) -> str:
    """The feedback line of a failed action."""
    return f"Action failed: {exc}"


def action_name(raw) -> str:
    """The name a raw action gives itself, for the result of one that does not parse."""
    return raw.get("action_name", raw.get("name", "?")) if isinstance(raw, dict) else "?"
