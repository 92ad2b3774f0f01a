"""Robotiq two-finger grippers: the 2F-85 (airo-models) and the 2F-140 (built here).

A `GripperModel` says everything the worlds and the grasp planner need of one
gripper: its URDF, how its linkage is coupled, its stroke and force, and its
finger geometry as measured in PyBullet with the tool pointing down. `GRIPPERS`
holds both by key ("2f85", "2f140"); `model_for_asset` finds the model of a
recorded gripper body, so a stored scene rebuilds with the gripper it had.

Shared by the tabletop world (one UR5e) and the dual-arm world (two). The
lessons here were hard-won (see docs/tools.md): the URDF's mimic-style joints
are coupled by gear constraints so one motor on `finger_joint` closes the
linkage; the followers' own motors must stay off (held followers keep the
fingers from closing); the URDF gives each pad 1 kg, at which mass the pads
swing the fingers open, so they get 20 g.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pybullet

GRIPPER_ASSET = "airo_models:grippers/robotiq_2f_85/urdf/robotiq_2f_85.urdf"
# The 2F-85's linkage: every finger joint follows finger_joint with this factor.
GRIPPER_MIMIC = {
    "left_inner_knuckle_joint": 1.0,
    "left_inner_finger_joint": -1.0,
    "right_outer_knuckle_joint": 1.0,
    "right_inner_knuckle_joint": 1.0,
    "right_inner_finger_joint": -1.0,
}
GRIPPER_OPEN, GRIPPER_CLOSED = 0.0, 0.8
FINGER_FORCE = 40.0  # N·m at finger_joint: a firm but not crushing squeeze
FINGER_FRICTION = 2.0
PAD_MASS = 0.02  # kg; the URDF says 1 kg


@dataclass(frozen=True)
class GripperModel:
    """One two-finger gripper as the simulation and the planner see it.

    The finger tables are measured in PyBullet with the tool pointing down
    (`scripts/measure_gripper.py`): at each `finger_angle` of finger_joint,
    the gap between the pads and the depth of the pads' lowest point below
    the mounting flange (tool0).
    """

    key: str  # "2f85" | "2f140"
    name: str  # "Robotiq 2F-85"
    asset: str
    mimic: dict[str, float]  # follower joint -> factor on finger_joint's angle
    open_angle: float
    closed_angle: float
    stroke_m: float  # published stroke
    force: float  # N·m at finger_joint
    max_velocity: float  # rad/s at finger_joint
    finger_angle: tuple[float, ...]
    pad_gap: tuple[float, ...]
    pad_depth: tuple[float, ...]
    fingertip_offset: float  # tool0 to the open fingertips (m), for clearances
    pad_width: float  # the pads' extent along the closing line's normal (m)
    pad_thickness: float  # the pads' extent along the closing line, each (m)
    # How deep the pads may go below an object's top before the knuckles above the
    # pads meet it: flat-topped objects sooner than rounded ones.
    max_depth_flat: float
    max_depth_round: float
    clearance: float = 0.003  # room to spare on each side of a held object

    @property
    def max_grasp_width(self) -> float:
        """The widest object the planner accepts: the open gap less the clearance."""
        return min(self.pad_gap[0], self.stroke_m) - 2 * self.clearance

    def angle_for_gap(self, gap: float) -> float:
        """finger_joint's angle where the pads are `gap` apart."""
        return float(np.interp(gap, self.pad_gap[::-1], self.finger_angle[::-1]))

    def depth_at_gap(self, gap: float) -> float:
        """How far below tool0 the pads' lowest point is when they are `gap` apart."""
        return float(np.interp(self.angle_for_gap(gap), self.finger_angle, self.pad_depth))


ROBOTIQ_2F85 = GripperModel(
    key="2f85",
    name="Robotiq 2F-85",
    asset=GRIPPER_ASSET,
    mimic=GRIPPER_MIMIC,
    open_angle=GRIPPER_OPEN,
    closed_angle=GRIPPER_CLOSED,
    stroke_m=0.085,
    force=FINGER_FORCE,
    max_velocity=1.5,
    finger_angle=(0.0, 0.2, 0.4, 0.6, 0.8),
    pad_gap=(0.086, 0.067, 0.047, 0.024, 0.002),
    pad_depth=(0.149, 0.156, 0.160, 0.163, 0.163),
    fingertip_offset=0.15,
    pad_width=0.022,
    pad_thickness=0.010,
    max_depth_flat=0.045,
    max_depth_round=0.055,
)
# The 2F-140 built here (scripts/make_gripper_2f140.py): the 2F-85's linkage, housing and
# fingertips with the 2F-140's 100 mm knuckles, so the same coupling and factors apply.
# Tables, pad sizes and depths measured by `scripts/measure_gripper.py 2f140`.
ROBOTIQ_2F140 = GripperModel(
    key="2f140",
    name="Robotiq 2F-140",
    asset="resources:grippers/robotiq_2f_140/robotiq_2f_140.urdf",
    mimic=GRIPPER_MIMIC,
    open_angle=0.0,
    closed_angle=0.75,  # the pads touch at 0.757
    stroke_m=0.140,
    # Datasheet grip force 10-125 N. By virtual work a torque t at finger_joint squeezes
    # each pad with t / (d gap / d angle), 0.16-0.20 m/rad here: 2.5 N·m squeezes a held
    # object with 13-15 N a side (measured on free 4-12 cm boxes), in the datasheet's
    # range, and it is the most that the gear constraints carry: with PyBullet's 50
    # solver iterations a stronger motor overpowers them, the driven finger closing
    # further than the geared one (0.13-0.17 rad apart at 20 N·m, 45-60 N a side).
    force=2.5,
    # Datasheet closing speed 30-250 mm/s: 1.2 rad/s closes the pads at about 225 mm/s
    # (10-90 % of the stroke, measured), the full stroke in about 0.65 s.
    max_velocity=1.2,
    finger_angle=(0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75),
    pad_gap=(0.140, 0.120, 0.098, 0.075, 0.051, 0.026, 0.001),
    pad_depth=(0.182, 0.190, 0.196, 0.201, 0.204, 0.206, 0.206),
    fingertip_offset=0.183,
    pad_width=0.022,
    pad_thickness=0.00635,
    # The longer knuckles leave room for a rounded top; a flat top meets the inner
    # knuckles' ends just above the pads (measured at the open pads, the shallowest).
    max_depth_flat=0.044,
    max_depth_round=0.072,
)
GRIPPERS: dict[str, GripperModel] = {m.key: m for m in (ROBOTIQ_2F85, ROBOTIQ_2F140)}
DEFAULT_GRIPPER = "2f140"  # the MG-VQA paper's gripper; scenes record theirs


def model_for_asset(asset: str | None) -> GripperModel:
    """The model of a gripper body recorded with this asset (the 2F-85 when unknown)."""
    return next((m for m in GRIPPERS.values() if m.asset == asset), ROBOTIQ_2F85)


def mount_gripper(
    world, key: str, arm_uid: int, tool_link: int, *, name: str, model: GripperModel = ROBOTIQ_2F85
) -> int:
    """Load a gripper (the 2F-85 unless `model` says) on `tool_link` of `arm_uid` (fixed
    constraint); return its uid.

    `world` is any world with `add_urdf` (it registers the body as a robot part).
    """
    c = world.client
    tool = c.getLinkState(arm_uid, tool_link, computeForwardKinematics=True)
    grip = world.add_urdf(
        key, model.asset, tool[4], tool[5], name=name, category="robot", role="robot"
    )
    c.createConstraint(
        arm_uid, tool_link, grip.uid, -1, pybullet.JOINT_FIXED, (0, 0, 0), (0, 0, 0), (0, 0, 0)
    )
    # The gripper's base overlaps the flange it is mounted on: without this filter
    # the contact pushes the fingers open and the wrist round.
    for arm_link in range(-1, c.getNumJoints(arm_uid)):
        for grip_link in range(-1, c.getNumJoints(grip.uid)):
            c.setCollisionFilterPair(arm_uid, grip.uid, arm_link, grip_link, 0)
    return grip.uid


def gripper_joints(client, uid: int) -> dict[str, int]:
    """A Robotiq gripper's revolute joints by name (the same names on the 2F-85 and the 2F-140)."""
    return {
        client.getJointInfo(uid, j)[1].decode(): j
        for j in range(client.getNumJoints(uid))
        if client.getJointInfo(uid, j)[2] == pybullet.JOINT_REVOLUTE
    }


def set_finger_angle(
    client, uid: int, joints: dict[str, int], angle: float, model: GripperModel = ROBOTIQ_2F85
) -> None:
    """Teleport the linkage to `angle` at finger_joint (open_angle .. closed_angle)."""
    client.resetJointState(uid, joints["finger_joint"], angle)
    for name, factor in model.mimic.items():
        client.resetJointState(uid, joints[name], factor * angle)


def release_followers(
    client, uid: int, joints: dict[str, int], model: GripperModel = ROBOTIQ_2F85
) -> None:
    """Switch the follower joints' motors off so the gears alone move them."""
    for name in model.mimic:
        client.setJointMotorControl2(
            uid, joints[name], pybullet.VELOCITY_CONTROL, targetVelocity=0, force=0
        )


def couple_linkage(
    client, uid: int, joints: dict[str, int], model: GripperModel = ROBOTIQ_2F85
) -> None:
    """Gear constraints from finger_joint to every follower, light pads, grippy links.

    Call once per gripper; call `release_followers` whenever something turned the
    followers' motors back on.
    """
    driver = joints["finger_joint"]
    release_followers(client, uid, joints, model)
    for name, factor in model.mimic.items():
        gear = client.createConstraint(
            uid, driver, uid, joints[name], pybullet.JOINT_GEAR, [0, 1, 0], [0, 0, 0], [0, 0, 0]
        )
        client.changeConstraint(gear, gearRatio=-factor, maxForce=1000, erp=0.8)
    for link in range(-1, client.getNumJoints(uid)):
        name = client.getJointInfo(uid, link)[12].decode() if link >= 0 else ""
        if name.endswith("finger_pad"):
            client.changeDynamics(uid, link, mass=PAD_MASS)
        client.changeDynamics(
            uid, link, lateralFriction=FINGER_FRICTION, spinningFriction=0.01, frictionAnchor=1
        )


def command_fingers(
    client,
    uid: int,
    joints: dict[str, int],
    angle: float,
    force: float | None = None,
    model: GripperModel = ROBOTIQ_2F85,
) -> None:
    """Set finger_joint's position motor towards `angle` (the physics moves it)."""
    client.setJointMotorControl2(
        uid,
        joints["finger_joint"],
        pybullet.POSITION_CONTROL,
        targetPosition=angle,
        force=model.force if force is None else force,
        maxVelocity=model.max_velocity,
    )


def held_body_uid(world, gripper_uid: int) -> int | None:
    """The object both inner fingers of a gripper touch (a grasp that holds), if any."""
    c = world.client
    sides: dict[int, set[str]] = {}
    for pt in c.getContactPoints(bodyA=gripper_uid):
        info = world.info(pt[2])
        if info is None or info.role != "object" or pt[3] < 0:
            continue
        link = c.getJointInfo(gripper_uid, pt[3])[12].decode()
        if "inner_finger" in link:
            sides.setdefault(pt[2], set()).add(link.split("_")[0])
    both = [uid for uid, s in sides.items() if len(s) == 2]
    return both[0] if both else None
