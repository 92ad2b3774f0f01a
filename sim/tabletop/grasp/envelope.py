"""The space a gripper takes up above its pads, read off its URDF in PyBullet.

The grasp planner checks candidates against the depth image: the pads and
fingers must reach down beside the object, and the linkage and housing above
them must clear the neighbours. Which parts sit how high above the pads, and
how far out, comes from the gripper's own links: the model is loaded once per
process in a DIRECT client of its own, opened fully, and each link's box is
measured in the gripper's frame (flange at the origin, fingers along +z,
closing along x).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from sim.quiet import quiet_c_output
from sim.robotiq import GRIPPERS, gripper_joints, set_finger_angle

with quiet_c_output():
    import pybullet
    from pybullet_utils.bullet_client import BulletClient

from sim.assets import resolve_asset


@dataclass(frozen=True)
class LinkBox:
    """A part of the gripper above its pads, tool pointing down."""

    name: str
    along: tuple[float, float]  # extent along the closing line (m, from the gripper's axis)
    across: float  # half extent across the closing line (m)
    rise: float  # height of its lowest point above the open pads' lowest point (m)
    height: float = 0.0  # its own extent along the tool's axis (m)


@dataclass(frozen=True)
class Envelope:
    angle: float  # finger_joint's angle it was measured at
    gap: float  # the gap between the pads at that angle (m)
    pad_bottom: float  # the pads' lowest point below the flange (m)
    parts: tuple[LinkBox, ...]  # everything above the pads but the pads and inner fingers


@cache
def envelopes(model_key: str) -> tuple[Envelope, ...]:
    """The gripper's parts above its pads at each angle of its finger table (open first),
    measured from its URDF."""
    model = GRIPPERS[model_key]
    out = []
    with quiet_c_output():
        c = BulletClient(connection_mode=pybullet.DIRECT)
        try:
            uid = c.loadURDF(str(resolve_asset(model.asset)), useFixedBase=True)
            joints = gripper_joints(c, uid)
            for angle, gap in zip(model.finger_angle, model.pad_gap, strict=True):
                set_finger_angle(c, uid, joints, angle, model)
                boxes = {
                    c.getJointInfo(uid, link)[12].decode(): c.getAABB(uid, link)
                    for link in range(c.getNumJoints(uid))
                }
                out.append(_envelope(angle, gap, boxes))
        finally:
            c.disconnect()
    return tuple(out)


def envelope_for_gap(model_key: str, gap: float) -> Envelope:
    """The envelope of the fingers opened at least `gap` (the widest when none is that wide)."""
    options = envelopes(model_key)
    wide_enough = [e for e in options if e.gap >= gap]
    return wide_enough[-1] if wide_enough else options[0]


def _envelope(angle: float, gap: float, boxes: dict) -> Envelope:
    pad_bottom = max(hi[2] for name, (lo, hi) in boxes.items() if name.endswith("finger_pad"))
    parts = []
    for name, (lo, hi) in boxes.items():
        if name.endswith("finger_pad") or hi[2] - lo[2] < 0.005:
            continue  # the pads are the swept fingers' business
        across = max(abs(lo[1]), abs(hi[1]))
        parts.append(LinkBox(name, (lo[0], hi[0]), across, pad_bottom - hi[2], hi[2] - lo[2]))
    return Envelope(angle, gap, pad_bottom, tuple(parts))
