"""The dual-arm world's frames: wire poses and the RoboTwin end-effector frame.

Inside the simulator quaternions are PyBullet's [qx, qy, qz, qw]; poses on the
wire (prompts, logs, `get_arm_pose`) are [x, y, z, qw, qx, qy, qz] and are
converted by `to_wire` / `from_wire` here, in one place.

The end-effector (EE) frame follows RoboTwin: its x axis is the approach
direction (out of the fingers), its y axis the direction the fingers open along,
and its origin lies EE_TIP_OFFSET = 0.162 m behind the lowest point of the open
fingertips (the paper's "gripper height"). Quaternion wxyz [0.5, -0.5, 0.5, 0.5]
points the gripper down with the fingers opening along x; [0.70711, 0, 0,
0.70711] (the origin pose) points it forward (+y). `tool_from_ee` and
`ee_from_tool` map the EE frame to and from the UR5e's tool0 link.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet

EE_TIP_OFFSET = 0.162  # metres from the EE origin to the open fingertips' lowest point
OPEN_TIP_DEPTH = 0.149  # open fingertips' lowest point below tool0 (tabletop grasp PAD_DEPTH)
EE_BEHIND_TOOL0 = EE_TIP_OFFSET - OPEN_TIP_DEPTH  # the EE origin sits this far behind tool0
# EE axes expressed in tool0's frame: approach = tool z, finger opening = tool x.
_EE_IN_TOOL = np.column_stack([(0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)])


def to_wire(position, orientation_xyzw) -> list[float]:
    """[x, y, z, qw, qx, qy, qz] from a position and a PyBullet quaternion."""
    qx, qy, qz, qw = orientation_xyzw
    return [float(v) for v in (*position, qw, qx, qy, qz)]


def from_wire(pose) -> tuple[tuple[float, float, float], tuple[float, ...] | None]:
    """(position, PyBullet quaternion or None) from a wire pose of length 3 or 7."""
    pose = [float(v) for v in pose]
    if len(pose) not in (3, 7):
        raise ValueError(f"a pose has 3 or 7 numbers, not {len(pose)}")
    if len(pose) == 3:
        return tuple(pose), None
    qw, qx, qy, qz = pose[3:]
    norm = math.sqrt(qw * qw + qx * qx + qy * qy + qz * qz)
    if norm < 1e-9:
        raise ValueError("a pose's quaternion has zero length")
    return tuple(pose[:3]), (qx / norm, qy / norm, qz / norm, qw / norm)


def rotation_matrix(q) -> np.ndarray:
    """The 3 x 3 rotation matrix of a PyBullet quaternion."""
    return np.array(pybullet.getMatrixFromQuaternion(q)).reshape(3, 3)


def quaternion_from_matrix(m: np.ndarray) -> tuple[float, ...]:
    """PyBullet quaternion of a rotation matrix (Shepperd's method)."""
    t = np.trace(m)
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        q = ((m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4)
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = math.sqrt(1.0 + m[i, i] - m[j, j] - m[k, k]) * 2
        v = [0.0, 0.0, 0.0]
        v[i] = s / 4
        v[j] = (m[j, i] + m[i, j]) / s
        v[k] = (m[k, i] + m[i, k]) / s
        q = (*v, (m[k, j] - m[j, k]) / s)
    q = np.array(q)
    return tuple(float(x) for x in q / np.linalg.norm(q))


def tool_from_ee(position, orientation):
    """tool0's pose for an EE pose (PyBullet quaternions)."""
    r_ee = rotation_matrix(orientation)
    r_tool = r_ee @ _EE_IN_TOOL.T
    approach = r_ee[:, 0]
    return np.asarray(position, float) + EE_BEHIND_TOOL0 * approach, quaternion_from_matrix(r_tool)


def ee_from_tool(position, orientation):
    """The EE pose for tool0's pose (PyBullet quaternions)."""
    r_ee = rotation_matrix(orientation) @ _EE_IN_TOOL
    return np.asarray(position, float) - EE_BEHIND_TOOL0 * r_ee[:, 0], quaternion_from_matrix(r_ee)
