"""The dual-arm action primitives of the Strategic Coordination Planning tier, in one table.

Ids, names, parameters and defaults are the ones the ST-BiBench planner prompt
lists (papers/003, appendix F.2, "Action list ... action id from 2.2 to 2.9").
Where the prompt names no default, the RoboTwin 2.0 function's own default is
used and marked as such in `source`. The importers validate model plans against
this table; the bimanual simulator reads its defaults from it.

Validation never raises: a wrong or missing parameter is data, returned as a
list of problems next to the normalised action.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

ARMS = ("left", "right")
NO_DEFAULT = object()  # a required parameter


@dataclass(frozen=True)
class Param:
    """One parameter: its kind decides how a value is checked.

    kinds: "arm" (left/right), "name" (a string), "number", "int", "bool",
    "pose" (3 or 7 numbers: xyz + optional quaternion), "quat" (4 numbers),
    "ints" (an int or a list of ints), "choice" (one of `choices`), "any".
    """

    name: str
    kind: str
    default: Any = NO_DEFAULT
    description: str = ""
    choices: tuple[str, ...] = ()
    source: str = "003 F.2"

    @property
    def required(self) -> bool:
        return self.default is NO_DEFAULT


@dataclass(frozen=True)
class ActionSpec:
    id: str
    name: str
    description: str
    params: tuple[Param, ...]
    kwargs: tuple[Param, ...] = ()  # place_actor's **kwargs (nested under "kwargs" in replies)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params + self.kwargs if p.name == name), None)

    def defaults(self) -> dict[str, Any]:
        """Every optional parameter with its default (kwargs nested as in the replies)."""
        out = {p.name: p.default for p in self.params if not p.required}
        if self.kwargs:
            out["kwargs"] = {p.name: p.default for p in self.kwargs}
        return out


_ARM = Param("arm_tag", "arm", description="Which arm: 'left' or 'right'.")
ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec(
        "2.2",
        "grasp_actor",
        "Pick up a specified object using the selected arm.",
        (
            Param("actor", "name", description="The object to grasp."),
            _ARM,
            Param(
                "pre_grasp_dis", "number", 0.1, "Pre-grasp distance (m); the arm goes there first."
            ),
            Param("grasp_dis", "number", 0.0, "Grasping distance (m) before closing the gripper."),
            Param("gripper_pos", "number", 0.0, "Gripper closing position (0 fully closed)."),
            Param("contact_point_id", "ints", None, "Contact point ids; None picks the best one."),
        ),
    ),
    ActionSpec(
        "2.3",
        "place_actor",
        "Place a currently held object at a target pose.",
        (
            Param("actor", "name", description="The currently held object."),
            _ARM,
            Param("target_pose", "pose", description="xyz + optional quaternion (3 or 7 numbers)."),
            Param("functional_point_id", "int", None, "Ignored by the benchmark; kept as data."),
            Param("pre_dis", "number", 0.1, "Pre-place distance (m)."),
            Param("dis", "number", 0.02, "Final placement distance (m)."),
            Param("is_open", "bool", True, "Whether to open the gripper after placing."),
        ),
        kwargs=(
            Param("constrain", "choice", "auto", "Alignment strategy.", ("free", "align", "auto")),
            Param("align_axis", "any", None, "Vectors in world coordinates to align with."),
            Param("actor_axis", "any", (1, 0, 0), "Second object axis used for alignment."),
            Param(
                "actor_axis_type",
                "choice",
                "actor",
                "actor_axis relative to what.",
                ("actor", "world"),
            ),
            Param(
                "pre_dis_axis",
                "any",
                "grasp",
                "'grasp', 'fp' or a vector.",
                source="RoboTwin 2.0 place_actor default (003 names no default)",
            ),
        ),
    ),
    ActionSpec(
        "2.4",
        "move_by_displacement",
        "Move an end-effector by a displacement and optionally set its orientation.",
        (
            _ARM,
            Param("x", "number", 0.0, "Displacement along x (m)."),
            Param("y", "number", 0.0, "Displacement along y (m)."),
            Param("z", "number", 0.0, "Displacement along z (m)."),
            Param("quat", "quat", None, "Optional target orientation (wire order)."),
            Param("move_axis", "choice", "world", "Coordinate system.", ("world", "arm")),
        ),
    ),
    ActionSpec(
        "2.5",
        "move_to_pose",
        "Move an end-effector to an absolute pose.",
        (
            _ARM,
            Param("target_pose", "pose", description="xyz + optional quaternion (3 or 7 numbers)."),
        ),
    ),
    ActionSpec(
        "2.6",
        "close_gripper",
        "Close the gripper of an arm.",
        (
            _ARM,
            Param("pos", "number", 0.0, "Gripper position (0 fully closed)."),
        ),
    ),
    ActionSpec(
        "2.7",
        "open_gripper",
        "Open the gripper of an arm.",
        (
            _ARM,
            Param("pos", "number", 1.0, "Gripper position (1 fully open)."),
        ),
    ),
    ActionSpec("2.8", "back_to_origin", "Return an arm to its initial pose.", (_ARM,)),
    ActionSpec("2.9", "get_arm_pose", "Get the current end-effector pose of an arm.", (_ARM,)),
)
BY_ID = {a.id: a for a in ACTIONS}
BY_NAME = {a.name: a for a in ACTIONS}


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _numbers(value: Any, lengths: tuple[int, ...]) -> list[float] | None:
    if isinstance(value, str):
        text = value.strip().strip("[]()")
        value = [v for v in text.replace(",", " ").split()]
    if not isinstance(value, (list, tuple)) or len(value) not in lengths:
        return None
    out = [_number(v) for v in value]
    return None if any(v is None for v in out) else out  # type: ignore[return-value]


def check_value(param: Param, value: Any) -> tuple[Any, str | None]:
    """(the value as the table's kind, or None with why it does not fit)."""
    kind = param.kind
    if value is None and not param.required:
        return None, None
    if kind == "arm":
        if isinstance(value, str) and value.strip().lower() in ARMS:
            return value.strip().lower(), None
        return None, f"arm_tag must be 'left' or 'right', not {value!r}"
    if kind == "name":
        return (value, None) if isinstance(value, str) and value else (None, "must be a name")
    if kind in ("number", "int"):
        number = _number(value)
        if number is None:
            return None, f"must be a number, not {value!r}"
        if kind == "int":
            return (int(number), None) if number == int(number) else (None, "must be an integer")
        return number, None
    if kind == "bool":
        if isinstance(value, bool):
            return value, None
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true", None
        return None, f"must be true or false, not {value!r}"
    if kind == "pose":
        pose = _numbers(value, (3, 7))
        return (pose, None) if pose else (None, "must be 3 or 7 numbers (xyz + quaternion)")
    if kind == "quat":
        quat = _numbers(value, (4,))
        return (quat, None) if quat else (None, "must be 4 numbers (a quaternion)")
    if kind == "ints":
        items = value if isinstance(value, list) else [value]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in items):
            return value, None
        return None, "must be an integer or a list of integers"
    if kind == "choice":
        if isinstance(value, str) and value in param.choices:
            return value, None
        return None, f"must be one of {', '.join(param.choices)}, not {value!r}"
    return value, None


def check_action(item: Any) -> tuple[dict[str, Any] | None, list[str]]:
    """An executable-plan item as `{"action_id", "action_name", "parameters"}` plus problems.

    Unknown actions, missing required parameters, unknown parameters and values of the
    wrong kind are problems; a value that does not fit keeps its original form. Only an
    item that is not an object at all gives None.
    """
    if not isinstance(item, dict):
        return None, [f"an action must be an object, not {type(item).__name__}"]
    problems: list[str] = []
    raw_id = item.get("action_id", item.get("id"))
    action_id = str(raw_id).strip() if raw_id is not None else ""
    name = item.get("action_name", item.get("name", item.get("action")))
    name = name.strip() if isinstance(name, str) else ""
    spec = BY_NAME.get(name) or BY_ID.get(action_id)
    if spec is None:
        problems.append(f"unknown action {name or action_id or '(none)'!r}")
    elif name and action_id and (BY_NAME.get(name) is not BY_ID.get(action_id)):
        problems.append(f"action_id {action_id} is not {name!r}; read as {spec.name}")
    elif not name:
        problems.append(f"no action_name; read {action_id} as {spec.name}")
    params = item.get("parameters", item.get("params", item.get("arguments", {})))
    if params is None:
        params = {}
    if not isinstance(params, dict):
        problems.append("parameters must be an object")
        params = {}
    out_params = dict(params)
    if spec is not None:
        kwargs = dict(params.get("kwargs") or {}) if isinstance(params.get("kwargs"), dict) else {}
        for key, value in params.items():
            if key == "kwargs":
                if not spec.kwargs or not isinstance(value, dict):
                    problems.append("unexpected parameter 'kwargs'")
                continue
            param = spec.param(key)
            if param is None:
                problems.append(f"unknown parameter {key!r}")
                continue
            fixed, why = check_value(param, value)
            if why:
                problems.append(f"{key} {why}" if not why.startswith(key) else why)
            else:
                out_params[key] = fixed
        for key, value in kwargs.items():
            param = next((p for p in spec.kwargs if p.name == key), None)
            if param is None:
                problems.append(f"unknown parameter 'kwargs.{key}'")
                continue
            fixed, why = check_value(param, value)
            if why:
                problems.append(f"kwargs.{key} {why}")
            else:
                out_params["kwargs"] = {**out_params.get("kwargs", {}), key: fixed}
        for param in spec.params:
            if param.required and param.name not in params:
                problems.append(f"missing parameter {param.name!r}")
    return {
        "action_id": spec.id if spec else action_id,
        "action_name": spec.name if spec else name,
        "parameters": out_params,
    }, problems
