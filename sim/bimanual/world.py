"""The dual-arm world of ST-BiBench: two UR5e arms with Robotiq 2F-85 grippers at a table.

A `sim.world.World` with the ST-BiBench layout. The frame is the RoboTwin one
the paper's prompts use: right = +x, away from the robot = +y, up = +z, metres;
the table top is at z = 0.74. Poses on the wire and the end-effector (EE) frame
are defined in `sim.bimanual.frames`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pybullet

from sim.bimanual.compound import build_compound, part_records
from sim.bimanual.frames import ee_from_tool, from_wire, to_wire, tool_from_ee
from sim.robotiq import (
    GRIPPER_OPEN,
    command_fingers,
    couple_linkage,
    gripper_joints,
    held_body_uid,
    mount_gripper,
    release_followers,
    set_finger_angle,
)
from sim.world import BodyInfo, World

TABLE_TOP_Z = 0.74
TABLE_HALF = (0.60, 0.35)  # half extents of the top in x, y
TABLE_THICKNESS = 0.04
TABLE_CENTRE_TARGET = (0.0, -0.13)  # "the center of the table" the paper's prompts give
ARMS = ("left", "right")
# UR5e bases on pedestals behind the table's near edge, level with the top. Chosen so
# that both arms reach the table's middle strip and neither reaches far across: see
# docs/bimanual-world.md for the reach map.
ARM_BASES = {"left": (-0.50, -0.45, TABLE_TOP_Z), "right": (0.50, -0.45, TABLE_TOP_Z)}
# The origin end-effector poses the paper's prompts quote (wire order, wxyz).
ORIGIN_POSES = {
    "left": (-0.3495, -0.2523, 0.94049, 0.70711, 0.0, 0.0, 0.70711),
    "right": (0.3505, -0.2523, 0.94049, 0.70711, 0.0, 0.0, 0.70711),
}
ARM_ASSET = "airo_models:arms/ur5e/ur5e.urdf"
JOINT_FORCE = 300.0
GRIP_MAX_ANGLE = 0.8  # finger_joint at "pos 0" (fully closed)
IK_LEAP = 0.5  # rad: an IK answer this far from the current joints is another branch
# (below, above) home in rad for shoulder pan, shoulder lift and elbow: the branch every
# reachable grasp uses (the lift never folds back past -2.9, the elbow stays bent up)
HOME_BRANCH = ((1.6, 1.6), (0.9, 1.5), (1.6, 0.45))


@dataclass
class Arm:
    """One UR5e with its 2F-85: body ids and joint indices."""

    tag: str
    uid: int
    joints: list[int]  # the six revolute joints, in order
    movable: list[int]  # every non-fixed joint (what IK answers for)
    tool_link: int
    gripper_uid: int
    gripper_joints: dict[str, int]
    base: tuple[float, float, float]
    home_joints: list[float]
    finger_target: float = GRIPPER_OPEN


class DualArmWorld(World):
    """A PyBullet world with the ST-BiBench layout: table at z 0.74, two arms facing +y."""

    def __init__(self, *, with_robot: bool = True) -> None:
        super().__init__()
        self.arms: dict[str, Arm] = {}
        self._build_fixtures()
        # the left arm stands for "the robot" where one uid is asked for
        self.robot_uid = self.gripper_uid = None
        if with_robot:
            self._build_robot()

    # -- construction -----------------------------------------------------------
    def _build_fixtures(self) -> None:
        self.add_table_top(TABLE_HALF, TABLE_TOP_Z, TABLE_THICKNESS, rgba=(0.78, 0.70, 0.58, 1))
        for tag, (x, y, z) in ARM_BASES.items():
            self.add_primitive(
                f"pedestal_{tag}",
                "box",
                (0.09, 0.09, z / 2),
                (x, y, z / 2),
                rgba=(0.3, 0.3, 0.32, 1),
                name=f"{tag} arm pedestal",
                category="surface",
                role="fixture",
            )

    def _build_robot(self) -> None:
        c = self.client
        for tag in ARMS:
            arm = self.add_urdf(
                f"{tag}_arm",
                ARM_ASSET,
                ARM_BASES[tag],
                fixed=True,
                name=f"{tag} UR5e arm",
                category="robot",
                role="robot",
            )
            n = c.getNumJoints(arm.uid)
            infos = [c.getJointInfo(arm.uid, j) for j in range(n)]
            tool_link = next(j for j, i in enumerate(infos) if i[12].decode() == "tool0")
            joints = [j for j, i in enumerate(infos) if i[2] == pybullet.JOINT_REVOLUTE]
            movable = [j for j, i in enumerate(infos) if i[2] != pybullet.JOINT_FIXED]
            home = self._solve_home(arm.uid, joints, movable, tool_link, ORIGIN_POSES[tag])
            for j, q in zip(joints, home, strict=True):
                c.resetJointState(arm.uid, j, q)
            g = mount_gripper(
                self, f"{tag}_gripper", arm.uid, tool_link, name=f"{tag} Robotiq 2F-85 gripper"
            )
            g_joints = gripper_joints(c, g)
            set_finger_angle(c, g, g_joints, GRIPPER_OPEN)
            couple_linkage(c, g, g_joints)
            self.arms[tag] = Arm(
                tag, arm.uid, joints, movable, tool_link, g, g_joints, ARM_BASES[tag], home
            )
        # the two robots may touch each other (and do, when a plan is careless)
        self.robot_uid = self.arms["left"].uid
        self.gripper_uid = self.arms["left"].gripper_uid
        self.hold_arm()

    def _solve_home(self, uid, joints, movable, tool_link, wire_pose) -> list[float]:
        """Joint angles for the origin EE pose: IK from a bent, elbow-up seed."""
        c = self.client
        seed = (math.pi / 2, -1.6, 2.3, -0.7, math.pi / 2, 0.0)
        for j, q in zip(joints, seed, strict=True):
            c.resetJointState(uid, j, q)
        pos, orn = from_wire(wire_pose)
        tool_pos, tool_orn = tool_from_ee(pos, orn)
        for _ in range(4):
            sol = c.calculateInverseKinematics(
                uid,
                tool_link,
                list(tool_pos),
                list(tool_orn),
                maxNumIterations=300,
                residualThreshold=1e-6,
            )
            by_joint = dict(zip(movable, sol, strict=False))
            for j in joints:
                c.resetJointState(uid, j, by_joint[j])
        return [c.getJointState(uid, j)[0] for j in joints]

    # -- robot state ------------------------------------------------------------------
    def hold_arm(self) -> None:
        """Position motors keep both arms where they are; fingers keep their target."""
        c = self.client
        for arm in self.arms.values():
            for j in arm.joints:
                c.setJointMotorControl2(
                    arm.uid,
                    j,
                    pybullet.POSITION_CONTROL,
                    targetPosition=c.getJointState(arm.uid, j)[0],
                    force=JOINT_FORCE,
                    maxVelocity=2.0,
                )
            release_followers(c, arm.gripper_uid, arm.gripper_joints)
            command_fingers(c, arm.gripper_uid, arm.gripper_joints, arm.finger_target)

    def set_gripper(self, finger_angle: float, arm: str = "left") -> None:
        """Teleport one gripper's linkage to `finger_angle` (0 open .. 0.8 closed)."""
        a = self.arms[arm]
        set_finger_angle(self.client, a.gripper_uid, a.gripper_joints, finger_angle)
        a.finger_target = finger_angle
        command_fingers(self.client, a.gripper_uid, a.gripper_joints, finger_angle)

    def finger_angle(self, arm: str) -> float:
        a = self.arms[arm]
        return self.client.getJointState(a.gripper_uid, a.gripper_joints["finger_joint"])[0]

    def gripper_opening(self, arm: str) -> float:
        """The wire gripper value of the current finger angle: 1 open, 0 closed."""
        return float(np.clip(1.0 - self.finger_angle(arm) / GRIP_MAX_ANGLE, 0.0, 1.0))

    def ee_pose(self, arm: str) -> tuple[np.ndarray, tuple[float, ...]]:
        """The EE pose (position, PyBullet quaternion) of one arm."""
        a = self.arms[arm]
        s = self.client.getLinkState(a.uid, a.tool_link, computeForwardKinematics=True)
        return ee_from_tool(s[4], s[5])

    def ee_wire_pose(self, arm: str) -> list[float]:
        """The EE pose as [x, y, z, qw, qx, qy, qz]."""
        return to_wire(*self.ee_pose(arm))

    def ik(self, arm: str, position, orientation) -> dict[int, float]:
        """Joint targets putting the EE at a pose, seeded by the arm's current joints.

        When the plain solution leaps away from the current joints (PyBullet's solver
        can wander to another branch: the shoulder folding back, the elbow flipping),
        it is solved again in the null space of joint limits around the arm's home
        branch, resting at the current joints.
        """
        a = self.arms[arm]
        c = self.client
        tool_pos, tool_orn = tool_from_ee(position, orientation)
        sol = c.calculateInverseKinematics(
            a.uid,
            a.tool_link,
            list(tool_pos),
            list(tool_orn),
            maxNumIterations=200,
            residualThreshold=1e-4,
        )
        by_joint = dict(zip(a.movable, sol, strict=False))
        now = {j: c.getJointState(a.uid, j)[0] for j in a.joints}
        if max(abs(by_joint[j] - now[j]) for j in a.joints) > IK_LEAP:
            lower, upper = self._branch_limits(a)
            sol = c.calculateInverseKinematics(
                a.uid,
                a.tool_link,
                list(tool_pos),
                list(tool_orn),
                lowerLimits=lower,
                upperLimits=upper,
                jointRanges=[u - lo for lo, u in zip(lower, upper, strict=True)],
                restPoses=[now.get(j, 0.0) for j in a.movable],
                maxNumIterations=200,
                residualThreshold=1e-4,
            )
            by_joint = dict(zip(a.movable, sol, strict=False))
        return {j: by_joint[j] for j in a.joints}

    @staticmethod
    def _branch_limits(a: Arm) -> tuple[list[float], list[float]]:
        """Joint limits that keep an arm on its home branch: shoulder and elbow within
        HOME_BRANCH of their home angles, the wrists free."""
        lower, upper = [], []
        for j in a.movable:
            if j in a.joints[:3]:
                home = a.home_joints[a.joints.index(j)]
                below, above = HOME_BRANCH[a.joints.index(j)]
                lower.append(home - below)
                upper.append(home + above)
            else:
                lower.append(-2 * math.pi)
                upper.append(2 * math.pi)
        return lower, upper

    def drive_joints(self, arm: str, targets: dict[int, float]) -> None:
        a = self.arms[arm]
        for j, q in targets.items():
            self.client.setJointMotorControl2(
                a.uid,
                j,
                pybullet.POSITION_CONTROL,
                targetPosition=q,
                force=JOINT_FORCE,
                maxVelocity=2.0,
            )

    def command_gripper(self, arm: str, finger_angle: float) -> None:
        a = self.arms[arm]
        a.finger_target = float(finger_angle)
        command_fingers(self.client, a.gripper_uid, a.gripper_joints, a.finger_target)

    def held_body(self, arm: str) -> str | None:
        """The object touched by both inner fingers of one gripper, if any."""
        uid = held_body_uid(self, self.arms[arm].gripper_uid)
        return self.info(uid).key if uid is not None else None

    # -- objects -------------------------------------------------------------------------
    def add_compound(
        self,
        key: str,
        parts: list[tuple],
        position,
        orientation=(0, 0, 0, 1),
        *,
        rgba=(0.8, 0.8, 0.8, 1.0),
        mass: float = 0.1,
        category: str = "",
        friction: float = 0.9,
        extra: dict[str, Any] | None = None,
        part_rgba: list[tuple[float, ...]] | None = None,
    ) -> BodyInfo:
        """One rigid body of several boxes/cylinders: (shape, size, local offset[, local
        quaternion]) each.

        Sizes as `add_primitive` (box half extents, cylinder radius and height). The body's
        frame (what `body_pose` returns) is the parts' frame and its centre of mass.
        `part_rgba` colours the parts one by one (default: all `rgba`). See
        `sim.bimanual.compound`.
        """
        uid = build_compound(
            self.client, parts, position, orientation, rgba, mass, friction, part_rgba
        )
        info = BodyInfo(uid, key, key, category, "object", "compound", None, 1.0, tuple(rgba))
        info.fixed = mass == 0.0
        info.extra = {"parts": part_records(parts), **(extra or {})}
        return self._register(info)

    def body_pose(self, key: str) -> tuple[np.ndarray, tuple[float, ...]]:
        """A body's position and PyBullet quaternion (its base frame)."""
        pos, orn = self.client.getBasePositionAndOrientation(self.bodies[key].uid)
        return np.array(pos), orn

    # -- state --------------------------------------------------------------------------
    def capture_state(self) -> dict[str, Any]:
        """`World.capture_state` plus each gripper's finger target."""
        state = super().capture_state()
        state["finger_targets"] = {t: a.finger_target for t, a in self.arms.items()}
        return state

    def restore_state(self, state: dict[str, Any]) -> None:
        """`World.restore_state`; the arms' and fingers' motors then hold what it restored."""
        for tag, target in state.get("finger_targets", {}).items():
            self.arms[tag].finger_target = target
        super().restore_state(state)
        self.hold_arm()
