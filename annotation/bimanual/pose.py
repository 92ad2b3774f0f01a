"""Poses and 16-dim dual-arm rows at the import boundary: wire order in, PyBullet order out.

RoboTwin and the ST-BiBench logs write a pose as ``[x, y, z, qw, qx, qy, qz]`` and
a 16-dim action row as ``[L xyz, L wxyz, L grip, R xyz, R wxyz, R grip]`` (grip 1
open, 0 closed). Inside ReasonScope quaternions are ``[qx, qy, qz, qw]``
(PyBullet). Every conversion goes through this module; the wire order can be
overridden per import (``order="xyz_xyzw"`` for logs that already use PyBullet's).

A quaternion whose norm is off by more than `tolerance` is normalised and the
fact is noted; a zero (or non-numeric) quaternion raises `PoseError`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

ORDERS = ("xyz_wxyz", "xyz_xyzw")
DEFAULT_ORDER = "xyz_wxyz"
NORM_TOLERANCE = 1e-3

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # x, y, z, w


class PoseError(ValueError):
    """A pose or row that cannot be converted; the message says why."""


def _check_order(order: str) -> None:
    if order not in ORDERS:
        raise PoseError(f"pose order {order!r} is not one of {', '.join(ORDERS)}")


def _floats(seq: Any, what: str) -> list[float]:
    if isinstance(seq, (str, bytes)) or not hasattr(seq, "__len__"):
        raise PoseError(f"{what} must be a list of numbers")
    out = []
    for v in seq:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise PoseError(f"{what} holds {v!r}, not a finite number")
        out.append(float(v))
    return out


def normalise_quat(
    q: Any,
    *,
    tolerance: float = NORM_TOLERANCE,
    notes: list[str] | None = None,
    what: str = "quaternion",
) -> Quat:
    """A unit quaternion (same order as given); a norm off by more than `tolerance`
    is normalised and noted in `notes`, a zero one raises PoseError."""
    values = _floats(q, what)
    if len(values) != 4:
        raise PoseError(f"{what} needs 4 numbers, not {len(values)}")
    norm = math.sqrt(sum(v * v for v in values))
    if norm < 1e-9:
        raise PoseError(f"{what} is zero")
    if abs(norm - 1.0) > tolerance:
        if notes is not None:
            notes.append(f"{what} had norm {norm:.4g}; normalised")
        values = [v / norm for v in values]
    return tuple(values)  # type: ignore[return-value]


def quat_from_wire(q: Any, order: str = DEFAULT_ORDER, **kw: Any) -> Quat:
    """A wire quaternion (wxyz for "xyz_wxyz", xyzw for "xyz_xyzw") as PyBullet's xyzw."""
    _check_order(order)
    a, b, c, d = normalise_quat(q, **kw)
    return (b, c, d, a) if order == "xyz_wxyz" else (a, b, c, d)


def quat_to_wire(q: Quat, order: str = DEFAULT_ORDER) -> list[float]:
    _check_order(order)
    x, y, z, w = q
    return [w, x, y, z] if order == "xyz_wxyz" else [x, y, z, w]


def pose_from_wire(
    seq: Any,
    order: str = DEFAULT_ORDER,
    *,
    tolerance: float = NORM_TOLERANCE,
    notes: list[str] | None = None,
    what: str = "pose",
) -> tuple[Vec3, Quat | None]:
    """(xyz, quaternion xyzw) from a 7-number wire pose; a 3-number pose gives (xyz, None)."""
    _check_order(order)
    values = _floats(seq, what)
    if len(values) not in (3, 7):
        raise PoseError(f"{what} needs 3 or 7 numbers, not {len(values)}")
    xyz = (values[0], values[1], values[2])
    if len(values) == 3:
        return xyz, None
    quat = quat_from_wire(
        values[3:], order, tolerance=tolerance, notes=notes, what=f"{what} quaternion"
    )
    return xyz, quat


def pose_to_wire(xyz: Vec3, quat: Quat | None, order: str = DEFAULT_ORDER) -> list[float]:
    return [*map(float, xyz)] + ([] if quat is None else quat_to_wire(quat, order))


@dataclass(frozen=True)
class DualArmCommand:
    """One 16-dim row in ReasonScope's order: positions in metres, quaternions xyzw, grips
    in [0, 1] (1 open)."""

    left_xyz: Vec3
    left_quat_xyzw: Quat
    left_grip: float
    right_xyz: Vec3
    right_quat_xyzw: Quat
    right_grip: float

    def to_wire(self, order: str = DEFAULT_ORDER) -> list[float]:
        """The 16 numbers in the wire order."""
        return [
            *pose_to_wire(self.left_xyz, self.left_quat_xyzw, order),
            float(self.left_grip),
            *pose_to_wire(self.right_xyz, self.right_quat_xyzw, order),
            float(self.right_grip),
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            arm: {
                "position": list(getattr(self, f"{arm}_xyz")),
                "orientation": list(getattr(self, f"{arm}_quat_xyzw")),
                "grip": getattr(self, f"{arm}_grip"),
            }
            for arm in ("left", "right")
        }


def row16_from_wire(
    row: Any,
    order: str = DEFAULT_ORDER,
    *,
    tolerance: float = NORM_TOLERANCE,
    notes: list[str] | None = None,
) -> DualArmCommand:
    """A 16-number wire row as a DualArmCommand; grips outside [0, 1] are noted, not clamped."""
    values = _floats(row, "row")
    if len(values) != 16:
        raise PoseError(f"a dual-arm row needs 16 numbers, not {len(values)}")
    arms = {}
    for arm, part in (("left", values[:8]), ("right", values[8:])):
        xyz, quat = pose_from_wire(part[:7], order, tolerance=tolerance, notes=notes, what=arm)
        grip = part[7]
        if notes is not None and not 0.0 <= grip <= 1.0:
            notes.append(f"{arm} grip {grip:g} is outside [0, 1]")
        arms[arm] = (xyz, quat, grip)
    return DualArmCommand(*arms["left"], *arms["right"])


def quat_to_matrix(q: Quat) -> tuple[Vec3, Vec3, Vec3]:
    """The 3x3 rotation matrix (rows) of a unit quaternion xyzw."""
    x, y, z, w = q
    return (
        (1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)),
        (2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)),
        (2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)),
    )


def rotate(q: Quat, v: Vec3) -> Vec3:
    """The vector v rotated by the unit quaternion q (xyzw)."""
    m = quat_to_matrix(q)
    x, y, z = v
    return tuple(row[0] * x + row[1] * y + row[2] * z for row in m)  # type: ignore[return-value]


def plan_to_internal(
    plan: list[Any],
    order: str = DEFAULT_ORDER,
    *,
    tolerance: float = NORM_TOLERANCE,
    notes: list[str],
) -> list[dict[str, Any]]:
    """A parsed executable plan with every pose in ReasonScope's order.

    An action keeps its parameters as the model wrote them and gains ``poses``:
    ``{"target_pose": {"position", "orientation"}, "quat": {"orientation"}}`` with
    quaternions xyzw. A row becomes ``{"row": wire numbers, "left": {"position",
    "orientation", "grip"}, "right": {...}}``. What cannot be converted is noted as
    ``executable_plan[i]: why`` and the item is kept unconverted.
    """
    _check_order(order)
    out: list[dict[str, Any]] = []
    for i, item in enumerate(plan):
        where, item_notes = f"executable_plan[{i}]", []
        try:
            if isinstance(item, dict):
                converted = dict(item)
                params = item.get("parameters") or {}
                poses: dict[str, Any] = {}
                if params.get("target_pose") is not None:
                    xyz, quat = pose_from_wire(
                        params["target_pose"],
                        order,
                        tolerance=tolerance,
                        notes=item_notes,
                        what="target_pose",
                    )
                    poses["target_pose"] = {
                        "position": list(xyz),
                        "orientation": list(quat) if quat else None,
                    }
                if params.get("quat") is not None:
                    quat = quat_from_wire(
                        params["quat"], order, tolerance=tolerance, notes=item_notes, what="quat"
                    )
                    poses["quat"] = {"orientation": list(quat)}
                if poses:
                    converted["poses"] = poses
            else:
                converted = {"row": list(item)}
                command = row16_from_wire(item, order, tolerance=tolerance, notes=item_notes)
                converted.update(command.as_dict())
        except PoseError as exc:
            item_notes.append(str(exc))
        notes.extend(f"{where}: {n}" for n in item_notes)
        out.append(converted)
    return out
