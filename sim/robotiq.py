"""The Robotiq 2F-85 from airo-models: mounting, linkage coupling, finger drive.

Shared by the tabletop world (one UR5e) and the dual-arm world (two). The
lessons here were hard-won (see docs/tools.md): the URDF's mimic-style joints
are coupled by gear constraints so one motor on `finger_joint` closes the
linkage; the followers' own motors must stay off (held followers keep the
fingers from closing); the URDF gives each pad 1 kg, at which mass the pads
swing the fingers open, so they get 20 g.
"""

from __future__ import annotations

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


def mount_gripper(world, key: str, arm_uid: int, tool_link: int, *, name: str) -> int:
    """Load a 2F-85 on `tool_link` of `arm_uid` (fixed constraint); return its uid.

    `world` is any world with `add_urdf` (it registers the body as a robot part).
    """
    c = world.client
    tool = c.getLinkState(arm_uid, tool_link, computeForwardKinematics=True)
    grip = world.add_urdf(
        key, GRIPPER_ASSET, tool[4], tool[5], name=name, category="robot", role="robot"
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
    """The 2F-85's revolute joints by name."""
    return {
        client.getJointInfo(uid, j)[1].decode(): j
        for j in range(client.getNumJoints(uid))
        if client.getJointInfo(uid, j)[2] == pybullet.JOINT_REVOLUTE
    }


def set_finger_angle(client, uid: int, joints: dict[str, int], angle: float) -> None:
    """Teleport the linkage to `angle` at finger_joint (0 open .. 0.8 closed)."""
    client.resetJointState(uid, joints["finger_joint"], angle)
    for name, factor in GRIPPER_MIMIC.items():
        client.resetJointState(uid, joints[name], factor * angle)


def release_followers(client, uid: int, joints: dict[str, int]) -> None:
    """Switch the follower joints' motors off so the gears alone move them."""
    for name in GRIPPER_MIMIC:
        client.setJointMotorControl2(
            uid, joints[name], pybullet.VELOCITY_CONTROL, targetVelocity=0, force=0
        )


def couple_linkage(client, uid: int, joints: dict[str, int]) -> None:
    """Gear constraints from finger_joint to every follower, light pads, grippy links.

    Call once per gripper; call `release_followers` whenever something turned the
    followers' motors back on.
    """
    driver = joints["finger_joint"]
    release_followers(client, uid, joints)
    for name, factor in GRIPPER_MIMIC.items():
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
    client, uid: int, joints: dict[str, int], angle: float, force: float = FINGER_FORCE
) -> None:
    """Set finger_joint's position motor towards `angle` (the physics moves it)."""
    client.setJointMotorControl2(
        uid,
        joints["finger_joint"],
        pybullet.POSITION_CONTROL,
        targetPosition=angle,
        force=force,
        maxVelocity=1.5,
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
