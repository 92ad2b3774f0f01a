"""Where `place_actor` puts the held object and the gripper: the orientation constraints.

Pure geometry (numpy only), after RoboTwin's place pose rule as the paper's
prompt describes `place_actor` (appendix F.2): the object's centre goes to the
target position; its up axis is turned onto the target's up axis; then

- ``constrain="free"``: nothing more (the object keeps its yaw);
- ``constrain="align"``: it turns about the up axis until `actor_axis` (in the
  object's frame, or in the world's with ``actor_axis_type="world"``) points,
  seen from above, along the one of `align_axis` (world vectors; default the
  target orientation's x axis) it is already closest to;
- ``constrain="auto"``: "align" with the grasp direction (gripper to object) onto
  [1, 1, 0] for the left arm or [-1, 1, 0] for the right when the grasp is from
  the side, and with the gripper frame's z axis onto [0, 1, 0] when it is from
  above (which squares a top-down grasp with the table's axes).

The gripper keeps its grip: it turns with the object about the object's centre.

Our objects are built z-up; the paper's prompts quote block targets with the
quaternion wxyz [0, 1, 0, 0] (RoboTwin's block frame has another up axis), so a
target frame whose z axis points down is read as the same frame turned upright.
"""

from __future__ import annotations

import math

import numpy as np

SIDE_GRASP_MAX_Z = 0.5  # |z| of the unit grasp direction below which a grasp is "from the side"
AUTO_SIDE_AXIS = {"left": (1.0, 1.0, 0.0), "right": (-1.0, 1.0, 0.0)}
AUTO_TOP_AXIS = (0.0, 1.0, 0.0)
CONSTRAINTS = ("free", "align", "auto")


def rotation_between(a, b) -> np.ndarray:
    """The smallest rotation taking direction a onto direction b (3 x 3)."""
    a = np.asarray(a, float) / np.linalg.norm(a)
    b = np.asarray(b, float) / np.linalg.norm(b)
    axis = np.cross(a, b)
    s, c = float(np.linalg.norm(axis)), float(np.clip(np.dot(a, b), -1.0, 1.0))
    if s < 1e-9:
        if c > 0:
            return np.eye(3)
        helper = np.eye(3)[int(np.argmin(np.abs(a)))]
        return axis_angle(np.cross(a, helper), math.pi)
    return axis_angle(axis, math.atan2(s, c))


def axis_angle(axis, angle: float) -> np.ndarray:
    """Rodrigues' rotation matrix about a (not necessarily unit) axis."""
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx


def upright(target_rot: np.ndarray) -> np.ndarray:
    """The target frame with its z axis pointing up (turned half about its x axis if not)."""
    if target_rot[2, 2] >= 0:
        return target_rot
    return target_rot @ np.diag([1.0, -1.0, -1.0])


def _axes(align_axis, default) -> np.ndarray:
    """align_axis as unit column vectors: one vector, a list of vectors, or None."""
    if align_axis is None:
        cols = np.asarray(default, float).reshape(3, 1)
    else:
        cols = np.asarray(align_axis, float).reshape(-1, 3).T
    norms = np.linalg.norm(cols, axis=0)
    if np.any(norms < 1e-9):
        raise ValueError("align_axis has a zero vector")
    return cols / norms


def yaw_to_align(actor_axis_world, axes: np.ndarray, up) -> np.ndarray:
    """The turn about `up` that lays actor_axis_world, seen along up, onto the closest axis."""
    up = np.asarray(up, float) / np.linalg.norm(up)
    a = np.asarray(actor_axis_world, float)
    target = axes[:, int(np.argmax(a @ axes))]
    a_flat = a - up * float(a @ up)
    t_flat = target - up * float(target @ up)
    if np.linalg.norm(a_flat) < 1e-6 or np.linalg.norm(t_flat) < 1e-6:
        return np.eye(3)  # an axis along up: no yaw is defined
    angle = math.atan2(float(up @ np.cross(a_flat, t_flat)), float(a_flat @ t_flat))
    return axis_angle(up, angle)


def place_rotation(
    actor_rot: np.ndarray,
    target_rot: np.ndarray | None,
    *,
    constrain: str = "auto",
    align_axis=None,
    actor_axis=(1.0, 0.0, 0.0),
    actor_axis_type: str = "actor",
    grasp_direction=None,
    ee_rot: np.ndarray | None = None,
    arm: str = "left",
) -> np.ndarray:
    """The world rotation to apply to the held object (and so to the gripper) for a place.

    `target_rot` is the target orientation (None: a 3-number target, the world's axes);
    `grasp_direction` the vector from the gripper's EE origin to the object's centre and
    `ee_rot` the EE rotation, both now (used by "auto").
    """
    if constrain not in CONSTRAINTS:
        raise ValueError(f"constrain must be 'free', 'align' or 'auto', not {constrain!r}")
    if actor_axis_type not in ("actor", "world"):
        raise ValueError(f"actor_axis_type must be 'actor' or 'world', not {actor_axis_type!r}")
    frame = upright(np.eye(3) if target_rot is None else np.asarray(target_rot, float))
    up = frame[:, 2]
    tilt = rotation_between(actor_rot[:, 2], up)
    if constrain == "free":
        return tilt
    if constrain == "auto":
        g = np.asarray(grasp_direction, float)
        g = g / max(float(np.linalg.norm(g)), 1e-9)
        if abs(g[2]) <= SIDE_GRASP_MAX_Z:
            axis, axes = g, _axes(AUTO_SIDE_AXIS[arm], None)
        else:
            axis, axes = np.asarray(ee_rot, float)[:, 2], _axes(AUTO_TOP_AXIS, None)
        return yaw_to_align(tilt @ axis, axes, up) @ tilt
    axes = _axes(align_axis, frame[:, 0])
    if actor_axis_type == "actor":
        axis = tilt @ actor_rot @ np.asarray(actor_axis, float)
    else:
        axis = np.asarray(actor_axis, float)
    return yaw_to_align(axis, axes, up) @ tilt


def approach_direction(pre_dis_axis, target_rot: np.ndarray | None, grasp_direction) -> np.ndarray:
    """The unit direction of the last stretch of a place (from the pre-place pose to the
    place pose): "grasp" along the grasp direction (down for a top-down grasp), "fp"
    straight down the target's up axis, or a vector in the target frame."""
    if isinstance(pre_dis_axis, str):
        if pre_dis_axis == "grasp":
            v = np.asarray(grasp_direction, float)
        elif pre_dis_axis == "fp":
            frame = upright(np.eye(3) if target_rot is None else np.asarray(target_rot, float))
            v = -frame[:, 2]
        else:
            raise ValueError(
                f"pre_dis_axis must be 'grasp', 'fp' or a vector, not {pre_dis_axis!r}"
            )
    else:
        rot = np.eye(3) if target_rot is None else np.asarray(target_rot, float)
        v = rot @ np.asarray(pre_dis_axis, float).reshape(3)
    n = float(np.linalg.norm(v))
    if n < 1e-9:
        raise ValueError("pre_dis_axis has zero length")
    return v / n


def yaw_of(rot: np.ndarray, axis=(1.0, 0.0, 0.0)) -> float:
    """The heading (radians, from +x towards +y) of a body axis seen from above."""
    v = np.asarray(rot, float) @ np.asarray(axis, float)
    return math.atan2(float(v[1]), float(v[0]))
