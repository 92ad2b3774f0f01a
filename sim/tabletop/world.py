"""The MG-VQA tabletop world: table, UR5e arm with a Robotiq gripper, a basket, objects.

A `sim.world.World` (its own DIRECT PyBullet client, the body registry, state
capture) with the tabletop layout. The gripper is a `sim.robotiq.GripperModel`:
the paper's 2F-140 or the 2F-85; its body record names its URDF, so a stored
scene rebuilds with the gripper it was made with. The robot stands at the table's near edge
facing +y; the 50 x 50 cm workspace lies in front of it and the top-down
camera looks straight down on it, image top = +y.
"""

from __future__ import annotations

import math
from typing import Any

import pybullet

from sim.camera import CameraSpec
from sim.robotiq import (
    DEFAULT_GRIPPER,
    GRIPPERS,
    GripperModel,
    gripper_joints,
    mount_gripper,
    set_finger_angle,
)
from sim.world import World

TABLE_TOP_Z = 0.62
TABLE_HALF = (0.70, 0.50)  # half extents of the top in x, y
TABLE_THICKNESS = 0.04
WORKSPACE_CENTRE = (0.0, 0.05)
WORKSPACE_HALF = 0.25  # the 50 x 50 cm workspace
ROBOT_BASE = (0.0, -0.46, TABLE_TOP_Z)
GRIPPER_KEY = "robot_gripper"  # the gripper body's key: its record names the gripper's URDF
BASKET_CENTRE = (0.47, -0.22)
BASKET_SIZE = (0.26, 0.20, 0.10)  # outer x, y, wall height
# Arm folded up and back over its base: the workspace stays clear for the top-down camera.
HOME_JOINTS = {
    "shoulder_pan_joint": 0.75 * math.pi,
    "shoulder_lift_joint": -2.5,
    "elbow_joint": 2.6,
    "wrist_1_joint": -1.72,
    "wrist_2_joint": -math.pi / 2,
    "wrist_3_joint": 0.0,
}

TOP_DOWN = CameraSpec(
    width=1024,
    height=1024,
    fov_deg=45.0,
    eye=(WORKSPACE_CENTRE[0], WORKSPACE_CENTRE[1], TABLE_TOP_Z + 0.85),
    target=(WORKSPACE_CENTRE[0], WORKSPACE_CENTRE[1], TABLE_TOP_Z),
    up=(0.0, 1.0, 0.0),
    near=0.05,
    far=3.0,
    name="top_down",
)
# The views a model may be shown (the prompt variants name them; the cameras are named so)
TOP_DOWN_VIEW, OBLIQUE_VIEW = "top_down", "oblique"
# The side of the square top-down image a model sees, and that generation measures.
MODEL_IMAGE_SIZE = TOP_DOWN.width
OBLIQUE = CameraSpec(
    width=1024,
    height=768,
    fov_deg=50.0,
    eye=(WORKSPACE_CENTRE[0], WORKSPACE_CENTRE[1] + 0.75, TABLE_TOP_Z + 0.55),
    target=(WORKSPACE_CENTRE[0], WORKSPACE_CENTRE[1], TABLE_TOP_Z),
    up=(0.0, 0.0, 1.0),
    near=0.05,
    far=4.0,
    name="oblique",
)


class TabletopWorld(World):
    """A PyBullet world with the MG-VQA tabletop layout."""

    def __init__(
        self, *, with_robot: bool = True, gripper: str | GripperModel = DEFAULT_GRIPPER
    ) -> None:
        super().__init__()
        if isinstance(gripper, str):
            if gripper not in GRIPPERS:
                raise ValueError(f"unknown gripper {gripper!r}; choose one of {sorted(GRIPPERS)}")
            gripper = GRIPPERS[gripper]
        self.gripper_model = gripper
        self._build_fixtures()
        self.robot_uid = self.gripper_uid = None
        # Set by sim.tabletop.grasp.enable_finger_dynamics once it has coupled the
        # gripper's linkage with gear constraints (made once per world).
        self.finger_gears = False
        if with_robot:
            self._build_robot()

    # -- construction -----------------------------------------------------------
    def _build_fixtures(self) -> None:
        hx, hy = TABLE_HALF
        self.add_table_top(TABLE_HALF, TABLE_TOP_Z, TABLE_THICKNESS, rgba=(1, 1, 1, 1))
        leg_h = (TABLE_TOP_Z - TABLE_THICKNESS) / 2
        for i, (sx, sy) in enumerate(((1, 1), (1, -1), (-1, 1), (-1, -1))):
            self.add_primitive(
                f"table_leg_{i}",
                "box",
                (0.03, 0.03, leg_h),
                (sx * (hx - 0.06), sy * (hy - 0.06), leg_h),
                rgba=(0.35, 0.33, 0.31, 1),
                name="table leg",
                category="surface",
                role="fixture",
            )
        self._build_basket()

    def _build_basket(self) -> None:
        """An open box of thin walls: the basket cleared objects go to."""
        bx, by = BASKET_CENTRE
        ox, oy, h = BASKET_SIZE
        t = 0.006
        colour = (0.55, 0.42, 0.26, 1.0)
        z0 = TABLE_TOP_Z
        parts = {
            "basket_floor": ((ox / 2, oy / 2, t / 2), (bx, by, z0 + t / 2)),
            "basket_wall_n": ((ox / 2, t / 2, h / 2), (bx, by + oy / 2 - t / 2, z0 + h / 2)),
            "basket_wall_s": ((ox / 2, t / 2, h / 2), (bx, by - oy / 2 + t / 2, z0 + h / 2)),
            "basket_wall_e": ((t / 2, oy / 2, h / 2), (bx + ox / 2 - t / 2, by, z0 + h / 2)),
            "basket_wall_w": ((t / 2, oy / 2, h / 2), (bx - ox / 2 + t / 2, by, z0 + h / 2)),
        }
        for key, (half, pos) in parts.items():
            self.add_primitive(
                key,
                "box",
                half,
                pos,
                rgba=colour,
                name="basket",
                category="container",
                role="fixture",
            )

    def _build_robot(self) -> None:
        c = self.client
        arm = self.add_urdf(
            "robot_arm",
            "airo_models:arms/ur5e/ur5e.urdf",
            ROBOT_BASE,
            fixed=True,
            name="UR5e arm",
            category="robot",
            role="robot",
        )
        self.robot_uid = arm.uid
        self.arm_joints = {
            c.getJointInfo(arm.uid, j)[1].decode(): j
            for j in range(c.getNumJoints(arm.uid))
            if c.getJointInfo(arm.uid, j)[2] == pybullet.JOINT_REVOLUTE
        }
        self.tool_link = next(
            j
            for j in range(c.getNumJoints(arm.uid))
            if c.getJointInfo(arm.uid, j)[12].decode() == "tool0"
        )
        for name, angle in HOME_JOINTS.items():
            c.resetJointState(arm.uid, self.arm_joints[name], angle)
        model = self.gripper_model
        self.gripper_uid = mount_gripper(
            self,
            GRIPPER_KEY,
            arm.uid,
            self.tool_link,
            name=f"{model.name} gripper",
            model=model,
        )
        self.gripper_joints = gripper_joints(c, self.gripper_uid)
        self.set_gripper(model.open_angle)
        self.hold_arm()

    def add_robot(self) -> None:
        """Build the arm and its gripper in a world made without them.

        Scene generation settles its clutter first: the folded arm is out of the
        clutter's reach, and simulating it costs a quarter of every physics step.
        """
        if self.robot_uid is not None:
            raise ValueError("the world has its robot already")
        self._build_robot()

    def hold_arm(self) -> None:
        """Position motors keep the arm and fingers where they are while physics steps."""
        c = self.client
        for j in self.arm_joints.values():
            c.setJointMotorControl2(
                self.robot_uid,
                j,
                pybullet.POSITION_CONTROL,
                targetPosition=c.getJointState(self.robot_uid, j)[0],
                force=5000,
            )
        for j in self.gripper_joints.values():
            c.setJointMotorControl2(
                self.gripper_uid,
                j,
                pybullet.POSITION_CONTROL,
                targetPosition=c.getJointState(self.gripper_uid, j)[0],
                force=1000,
            )

    def set_gripper(self, finger_angle: float) -> None:
        """Set the gripper's opening (finger_joint angle, open_angle .. closed_angle), linkage
        included."""
        set_finger_angle(
            self.client, self.gripper_uid, self.gripper_joints, finger_angle, self.gripper_model
        )

    # -- state ------------------------------------------------------------------------
    def restore_state(self, state: dict[str, Any]) -> None:
        """`World.restore_state`, then the arm's motors hold the restored joints."""
        super().restore_state(state)
        if self.robot_uid is not None:
            self.hold_arm()
