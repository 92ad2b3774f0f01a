"""Moving the UR5e's tool: inverse kinematics plus simulated joint motion (no teleporting).

The tool frame is `tool0`; the gripper's fingertips sit its model's
`fingertip_offset` below it when the tool points down (FINGERTIP_OFFSET is the
2F-85's). Motion is position-controlled joint motion in
small Cartesian steps, with physics stepping, so anything the gripper touches
is pushed by real contacts.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pybullet

from sim.tabletop.world import HOME_JOINTS, TABLE_TOP_Z, TabletopWorld

FINGERTIP_OFFSET = 0.15  # metres from tool0 to the 2F-85's fingertips, tool pointing down
DOWN = (1.0, 0.0, 0.0, 0.0)  # tool z axis pointing at the table (quaternion [qx, qy, qz, qw])
STEP_M = 0.01  # Cartesian waypoint spacing
SETTLE_STEPS = 8  # physics steps per waypoint
JOINT_FORCE = 300.0


def tool_pose(world: TabletopWorld) -> tuple[np.ndarray, tuple[float, ...]]:
    state = world.client.getLinkState(
        world.robot_uid, world.tool_link, computeForwardKinematics=True
    )
    return np.array(state[4]), state[5]


def _drive(world: TabletopWorld, targets: dict[int, float]) -> None:
    c = world.client
    for j, q in targets.items():
        c.setJointMotorControl2(
            world.robot_uid,
            j,
            pybullet.POSITION_CONTROL,
            targetPosition=q,
            force=JOINT_FORCE,
            maxVelocity=2.0,
        )


def _ik(world: TabletopWorld, position, orientation) -> dict[int, float]:
    c = world.client
    joints = sorted(world.arm_joints.values())
    solution = c.calculateInverseKinematics(
        world.robot_uid,
        world.tool_link,
        list(position),
        list(orientation),
        maxNumIterations=200,
        residualThreshold=1e-4,
    )
    # IK returns one value per movable joint of the arm body, in joint order
    movable = [
        j
        for j in range(c.getNumJoints(world.robot_uid))
        if c.getJointInfo(world.robot_uid, j)[2] != pybullet.JOINT_FIXED
    ]
    by_joint = dict(zip(movable, solution, strict=False))
    return {j: by_joint[j] for j in joints}


def move_tool_to(
    world: TabletopWorld,
    position,
    orientation=DOWN,
    *,
    step_m: float = STEP_M,
    guard: Callable[[], bool] | None = None,
) -> float:
    """Move tool0 in a straight line to `position`; return the final position error (m).

    `guard` is asked after every waypoint; when it says stop, the motion ends there.
    """
    start, _ = tool_pose(world)
    goal = np.asarray(position, dtype=float)
    n = max(1, int(math.ceil(np.linalg.norm(goal - start) / step_m)))
    for i in range(1, n + 1):
        _drive(world, _ik(world, start + (goal - start) * i / n, orientation))
        world.step(SETTLE_STEPS)
        if guard is not None and guard():
            return float(np.linalg.norm(tool_pose(world)[0] - goal))
    for _ in range(30):  # let the joints arrive
        world.step(SETTLE_STEPS)
        if np.linalg.norm(tool_pose(world)[0] - goal) < 0.004:
            break
    return float(np.linalg.norm(tool_pose(world)[0] - goal))


TRANSIT_CLEARANCE = 0.05  # the fingertips pass this far above the tallest object
TRANSIT_MAX = 0.50  # tool0 at most this far above the table top: the arm's reach


def clutter_top(world: TabletopWorld, *, ignore: int | None = None) -> float:
    """The highest point of the objects (on the table or in the basket), `ignore` aside."""
    tops = [world.client.getAABB(b.uid)[1][2] for b in world.objects() if b.uid != ignore]
    return max(tops, default=TABLE_TOP_Z)


def move_over(
    world: TabletopWorld,
    position,
    orientation=DOWN,
    *,
    below: float = 0.0,
    held: int | None = None,
    step_m: float = STEP_M,
) -> float:
    """Move tool0 to `position` through a transit height clear of the clutter: up, across,
    then straight down; return the final position error (m).

    A straight line from where the arm is drags the fingers (or the arm) through anything
    taller in between: a tall box on the way from home was shoved aside unnoticed and
    the next descent hit it. `below`: how far below tool0 something hangs besides the
    fingers (a held object); `held`: that object, not counted as clutter.
    """
    here, _ = tool_pose(world)
    finger = world.gripper_model.fingertip_offset
    clear = clutter_top(world, ignore=held) + max(finger, below) + TRANSIT_CLEARANCE
    z = max(min(clear, TABLE_TOP_Z + TRANSIT_MAX), float(position[2]))
    if here[2] < z - 0.005:
        move_tool_to(world, (here[0], here[1], z), orientation, step_m=step_m)
    if np.linalg.norm(np.asarray(position[:2], float) - here[:2]) > 0.005:
        move_tool_to(world, (position[0], position[1], z), orientation, step_m=step_m)
    return move_tool_to(world, position, orientation, step_m=step_m)


def set_fingers(world: TabletopWorld, closed: bool) -> None:
    """Close or open the gripper (kinematically: this tool pushes, it does not grasp)."""
    model = world.gripper_model
    world.set_gripper(model.closed_angle if closed else model.open_angle)
    world.hold_arm()


def go_home(world: TabletopWorld) -> None:
    """Rise, then return the joints to the home pose through simulated motion."""
    position, _ = tool_pose(world)
    move_tool_to(world, (position[0], position[1], max(position[2], world_table_clearance(world))))
    targets = {world.arm_joints[name]: angle for name, angle in HOME_JOINTS.items()}
    for _ in range(60):
        _drive(world, targets)
        world.step(SETTLE_STEPS)


def world_table_clearance(world: TabletopWorld) -> float:
    """tool0's height with the fingertips well clear of anything on the table."""
    return TABLE_TOP_Z + world.gripper_model.fingertip_offset + 0.20
