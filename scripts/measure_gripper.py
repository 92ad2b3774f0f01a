#!/usr/bin/env python3
"""Measure a gripper's finger tables in PyBullet, the tool pointing down.

    .venv/bin/python scripts/measure_gripper.py 2f140
    .venv/bin/python scripts/measure_gripper.py 2f85 --json

The gripper (a `sim.robotiq.GRIPPERS` key) is loaded alone in a DIRECT client with
a fixed base at the flange, oriented as on the arm in the tabletop world (tool z at
the table, quaternion (1, 0, 0, 0)); its linkage is coupled as the worlds couple it
(`couple_linkage`), and finger_joint's motor drives it through the table's angles
with physics (no resets). At each angle it reports where finger_joint got to, the
gap between the pads' inner faces and the depth of the pads' lowest point below the
flange: the `finger_angle`, `pad_gap` and `pad_depth` of a `GripperModel`. It also
reports the pads' size, the lowest point of the open fingers (`fingertip_offset`),
how deep below an object's top the pads can go before a knuckle or the palm meets a
flat top (a box as wide as the gap less 2 mm, `max_depth_flat`) or a round one (a
ball that wide, `max_depth_round`), the squeeze on free boxes at the model's force,
and the closing speed at the model's max_velocity.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sim.quiet import quiet_c_output  # noqa: E402

with quiet_c_output():
    import pybullet
    from pybullet_utils.bullet_client import BulletClient

from sim.assets import resolve_asset  # noqa: E402
from sim.robotiq import (  # noqa: E402
    GRIPPERS,
    GripperModel,
    command_fingers,
    couple_linkage,
    gripper_joints,
)
from sim.world import TIMESTEP  # noqa: E402

FLANGE = np.array([0.0, 0.0, 1.0])
DOWN = (1.0, 0.0, 0.0, 0.0)  # tool z axis at the table, as sim.tabletop.motion.DOWN
SETTLE_STEPS = 240  # one simulated second per table row
PROBE_CLEARANCE = 0.001  # each side between a probe object and the pads
SQUEEZE_WIDTHS = (0.12, 0.08, 0.04)


class Rig:
    """One gripper alone in its own DIRECT client, fixed at FLANGE, pointing down."""

    def __init__(self, model: GripperModel) -> None:
        self.model = model
        with quiet_c_output():
            self.client = c = BulletClient(connection_mode=pybullet.DIRECT)
            self.uid = c.loadURDF(
                str(resolve_asset(model.asset)),
                FLANGE.tolist(),
                DOWN,
                useFixedBase=True,
                flags=pybullet.URDF_ENABLE_CACHED_GRAPHICS_SHAPES,
            )
        c.setGravity(0, 0, -9.81)
        c.setTimeStep(TIMESTEP)
        self.joints = gripper_joints(c, self.uid)
        couple_linkage(c, self.uid, self.joints, model)
        names = {
            c.getJointInfo(self.uid, j)[12].decode(): j for j in range(c.getNumJoints(self.uid))
        }
        self.links = names
        self.pads = [names[n] for n in ("left_inner_finger_pad", "right_inner_finger_pad")]
        self.drive(model.open_angle)
        # the closing line: from the right pad to the left one, across the tool axis
        left, right = (self.pad_box(p)[0] for p in self.pads)
        u = left - right
        u[2] = 0.0
        self.u = u / np.linalg.norm(u)
        self.v = np.cross([0.0, 0.0, 1.0], self.u)  # along the pads' width

    def close(self) -> None:
        self.client.disconnect()

    # -- driving ------------------------------------------------------------------
    def drive(self, angle: float, steps: int = SETTLE_STEPS, force: float | None = None) -> float:
        """Drive finger_joint towards `angle` with its motor; return where it got."""
        command_fingers(self.client, self.uid, self.joints, angle, force, self.model)
        for _ in range(steps):
            self.client.stepSimulation()
        return self.angle()

    def angle(self) -> float:
        return self.client.getJointState(self.uid, self.joints["finger_joint"])[0]

    def coupling_error(self) -> float:
        """The largest difference between a follower and its factor times finger_joint."""
        q = self.angle()
        c = self.client
        return max(
            abs(c.getJointState(self.uid, self.joints[n])[0] - f * q)
            for n, f in self.model.mimic.items()
        )

    # -- geometry -------------------------------------------------------------------
    def pad_box(self, link: int):
        """A pad's collision box in the world: centre, rotation (columns = box axes), sizes."""
        c = self.client
        shape = c.getCollisionShapeData(self.uid, link)[0]
        assert shape[2] == pybullet.GEOM_BOX, "pads are boxes"
        com = c.getLinkState(self.uid, link, computeForwardKinematics=True)
        pos, orn = c.multiplyTransforms(com[0], com[1], shape[5], shape[6])
        rot = np.array(c.getMatrixFromQuaternion(orn)).reshape(3, 3)
        return np.array(pos), rot, np.array(shape[3])

    def pad_corners(self, link: int) -> np.ndarray:
        centre, rot, size = self.pad_box(link)
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        return centre + (signs * size / 2) @ rot.T

    def pad_faces(self) -> tuple[float, float]:
        """The left and right pads' inner faces along the closing line, from the tool axis."""
        left, right = (self.pad_corners(p) - FLANGE for p in self.pads)
        return float((left @ self.u).min()), float((right @ self.u).max())

    def pad_gap(self) -> float:
        left, right = self.pad_faces()
        return left - right

    def pad_depth(self) -> float:
        corners = np.vstack([self.pad_corners(p) for p in self.pads])
        return float(FLANGE[2] - corners[:, 2].min())

    def pad_size(self) -> tuple[float, float]:
        """The pads' width (across the closing line) and thickness (along it)."""
        _, rot, size = self.pad_box(self.pads[0])
        width = size[np.argmax(np.abs(rot.T @ self.v))]
        thickness = size[np.argmax(np.abs(rot.T @ self.u))]
        return float(width), float(thickness)

    def lowest_point(self) -> float:
        """The depth below the flange of the gripper's lowest point (any link)."""
        c = self.client
        slab = c.createMultiBody(
            0, c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[0.5, 0.5, 0.01])
        )
        top = FLANGE[2] - 0.5
        c.resetBasePositionAndOrientation(slab, [0, 0, top - 0.01], [0, 0, 0, 1])
        gaps = [p[8] for p in c.getClosestPoints(slab, self.uid, 1.0)]
        c.removeBody(slab)
        return float(FLANGE[2] - (top + min(gaps)))

    def probe_depth(self, shape: str, width: float) -> float:
        """How far below the flange the top of a probe object `width` across (a wide box or
        a ball) can rise between the fingers before it touches anything but the pads."""
        c = self.client
        if shape == "flat":
            half = [width / 2, 0.05, 0.1]
            col = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=half)
            below = half[2]  # body centre below the top
        else:
            col = c.createCollisionShape(pybullet.GEOM_SPHERE, radius=width / 2)
            below = width / 2
        probe = c.createMultiBody(0, col)
        rot = [0, 0, 0, 1]
        if shape == "flat":  # the box's x along the closing line
            yaw = np.arctan2(self.u[1], self.u[0])
            rot = c.getQuaternionFromEuler([0, 0, yaw])
        pads = set(self.pads)

        def touches(depth: float) -> bool:
            c.resetBasePositionAndOrientation(probe, (FLANGE - [0, 0, depth + below]).tolist(), rot)
            return any(
                p[8] < 0 and p[4] not in pads for p in c.getClosestPoints(probe, self.uid, 0)
            )

        hi, lo = self.lowest_point() + 0.05, 0.0  # free at hi, touching at lo
        assert not touches(hi) and touches(lo)
        for _ in range(30):
            mid = (hi + lo) / 2
            hi, lo = (hi, mid) if touches(mid) else (mid, lo)
        c.removeBody(probe)
        return hi

    def squeeze(self, width: float, angle: float) -> tuple[float, float, float]:
        """Close with the model's force on a free 0.2 kg box `width` across, placed on the
        pads' middle where they will meet it (at finger_joint `angle`), gravity off; return
        the normal force (N) of the left and the right side on it and the largest coupling
        error (rad) while they hold it."""
        c = self.client
        self.drive(angle)
        centre, rot, size = self.pad_box(self.pads[0])
        length = size[np.argmax(np.abs(rot[2]))]  # the pads' extent along the tool axis
        half = [width / 2, 0.02, 0.4 * length]  # a box on the pads' middle 80 %
        self.drive(self.model.open_angle)
        c.setGravity(0, 0, 0)
        box = c.createMultiBody(0.2, c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=half))
        yaw = np.arctan2(self.u[1], self.u[0])
        at = [FLANGE[0], FLANGE[1], centre[2]]
        c.resetBasePositionAndOrientation(box, at, c.getQuaternionFromEuler([0, 0, yaw]))
        self.drive(self.model.closed_angle)
        sides = {"left": 0.0, "right": 0.0}
        for p in c.getContactPoints(self.uid, box):
            name = c.getJointInfo(self.uid, p[3])[12].decode() if p[3] >= 0 else "base"
            assert "inner_finger" in name, f"the squeeze box touches {name}"
            sides[name.split("_")[0]] += p[9]
        error = self.coupling_error()
        c.removeBody(box)
        c.setGravity(0, 0, -9.81)
        self.drive(self.model.open_angle)
        return sides["left"], sides["right"], error

    def closing_speed(self) -> float:
        """Mean speed (m/s) of the gap between 10 % and 90 % of a full close."""
        self.drive(self.model.open_angle)
        command_fingers(
            self.client, self.uid, self.joints, self.model.closed_angle, None, self.model
        )
        gaps = [self.pad_gap()]
        for _ in range(SETTLE_STEPS):
            self.client.stepSimulation()
            gaps.append(self.pad_gap())
        gaps = np.array(gaps)
        span = gaps[0] - gaps[-1]
        start = np.argmax(gaps <= gaps[0] - 0.1 * span)
        end = np.argmax(gaps <= gaps[0] - 0.9 * span)
        self.drive(self.model.open_angle)
        return float(0.8 * span / ((end - start) * TIMESTEP))


def measure(model: GripperModel) -> dict:
    rig = Rig(model)
    try:
        rows = []
        for target in model.finger_angle:
            angle = rig.drive(target)
            left, right = rig.pad_faces()
            rows.append(
                {
                    "target": target,
                    "finger_angle": angle,
                    "pad_gap": left - right,
                    "pad_depth": rig.pad_depth(),
                    "left_face": left,
                    "right_face": -right,
                    "coupling_error": rig.coupling_error(),
                }
            )
        probes = []
        for row in rows:
            if row["pad_gap"] < 0.01:
                continue
            rig.drive(row["target"])
            width = row["pad_gap"] - 2 * PROBE_CLEARANCE
            flat, ball = rig.probe_depth("flat", width), rig.probe_depth("round", width)
            probes.append(
                {
                    "finger_angle": row["target"],
                    "width": width,
                    "flat": row["pad_depth"] - flat,
                    "round": row["pad_depth"] - ball,
                }
            )
        rig.drive(model.open_angle)
        width, thickness = rig.pad_size()
        gaps = np.array([r["pad_gap"] for r in rows])
        angles = np.array([r["finger_angle"] for r in rows])
        return {
            "gripper": model.key,
            "rows": rows,
            "fingertip_offset": rig.lowest_point(),
            "pad_width": width,
            "pad_thickness": thickness,
            "probes": probes,
            "max_depth_flat": min(p["flat"] for p in probes),
            "max_depth_round": min(p["round"] for p in probes),
            "squeeze": [
                (w, *rig.squeeze(w, float(np.interp(w, gaps[::-1], angles[::-1]))))
                for w in SQUEEZE_WIDTHS
                if w < rows[0]["pad_gap"]
            ],
            "closing_speed": rig.closing_speed(),
        }
    finally:
        rig.close()


def report(result: dict, model: GripperModel) -> str:
    lines = [
        f"{model.name} ({model.key}): force {model.force} N·m, max_velocity {model.max_velocity} rad/s"
    ]
    lines.append(" target  angle    gap     depth   left    right   coupling")
    for r in result["rows"]:
        lines.append(
            f" {r['target']:6.3f} {r['finger_angle']:6.3f}  {r['pad_gap']:.4f}  {r['pad_depth']:.4f}"
            f"  {r['left_face']:.4f}  {r['right_face']:.4f}  {r['coupling_error']:.1e}"
        )
    rows = result["rows"]
    lines += [
        "finger_angle=(" + ", ".join(f"{r['target']:g}" for r in rows) + ")",
        "pad_gap=(" + ", ".join(f"{r['pad_gap']:.3f}" for r in rows) + ")",
        "pad_depth=(" + ", ".join(f"{r['pad_depth']:.3f}" for r in rows) + ")",
        f"fingertip_offset={result['fingertip_offset']:.4f}",
        f"pad_width={result['pad_width']:.4f}",
        f"pad_thickness={result['pad_thickness']:.5f}",
        "probes (angle, width, flat, round): "
        + "; ".join(
            f"{p['finger_angle']:g} {p['width']:.3f} {p['flat']:.3f} {p['round']:.3f}"
            for p in result["probes"]
        ),
        f"max_depth_flat={result['max_depth_flat']:.3f}",
        f"max_depth_round={result['max_depth_round']:.3f}",
        "squeeze (left, right N; coupling error under load rad): "
        + "; ".join(
            f"{w * 100:.0f} cm box {left:.0f}, {right:.0f}; {err:.3f}"
            for w, left, right, err in result["squeeze"]
        ),
        f"closing speed {result['closing_speed'] * 1000:.0f} mm/s (10-90 % of the stroke)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gripper", choices=sorted(GRIPPERS), help="gripper key")
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON")
    args = parser.parse_args(argv)
    model = GRIPPERS[args.gripper]
    result = measure(model)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(report(result, model))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
