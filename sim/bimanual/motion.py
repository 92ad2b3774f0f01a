"""How the dual-arm primitives move: grasp geometry and the motion generators.

`ArmMotions` is the half of `BimanualExecutor` that moves things. Every motion is
a generator that sets motor targets and yields once per tick; the executor
advances the running generators together and steps physics SETTLE_STEPS times
per tick, so two arms' actions can share physics steps.

Motion: inverse kinematics seeded by the current joints on Cartesian waypoints
(STEP_M apart, SLOW_STEP_M near objects, STEP_RAD of rotation apart),
position-controlled joints; anything the arms touch is pushed by real contacts.
"""

from __future__ import annotations

import math
from collections.abc import Generator

import numpy as np

from sim.bimanual.frames import EE_TIP_OFFSET, quaternion_from_matrix, rotation_matrix
from sim.bimanual.placing import approach_direction, place_rotation
from sim.bimanual.primitives import Action, ActionError, grasp_orientation
from sim.bimanual.world import GRIP_MAX_ANGLE, DualArmWorld

SETTLE_STEPS = 8  # physics steps per tick (1/30 s)
STEP_M = 0.01  # Cartesian waypoint spacing
SLOW_STEP_M = 0.005  # near objects: descents and placing
STEP_RAD = 0.06  # orientation change per waypoint
ARRIVE_TICKS = 40  # at most this long (1.3 s) for the joints to catch up at a line's end
# open fingertips this far below a flat top: any deeper and the inner knuckles, which
# cross 3-4 cm above the pads, land on the top (the tips sink ~1 cm more as they close)
TOP_GRASP_DEPTH = 0.028
FINGER_TICKS = 18  # ticks (0.6 s) to open or close
GRIP_PRELOAD = 0.03  # rad past the contact angle the fingers hold a grasped object at
CONTACT_STOP_N = 2.0  # a held object pressing this hard on something ends a descent
DOWN = np.array([0.0, 0.0, -1.0])


class ArmMotions:
    """Grasp geometry and the motion generators of the primitives (a mixin of the
    executor, which owns `world`, `claimed`, `_partners` and `_arrived`)."""

    world: DualArmWorld
    claimed: dict[str, str | None]
    _partners: dict[str, set[str]]
    _arrived: set[str]

    # -- geometry -----------------------------------------------------------------------
    def grasp_candidates(self, actor: str) -> list[tuple]:
        """(fingertips' point, closing axis, width, approach) in world coordinates per grasp
        point: an object's `extra["grasps"]` (local frame) or, for a plain box or cylinder,
        one top-down grasp across its narrower side."""
        w = self.world
        body = w.bodies[actor]
        pos, orn = w.body_pose(actor)
        rot = rotation_matrix(orn)
        lo, hi = w.aabb(actor)
        specs = body.extra.get("grasps")
        if specs:
            out = []
            for s in specs:
                point = pos + rot @ np.array(s["point"], float)
                # a side approach turns with the object; top-down stays down
                approach = rot @ np.array(s["approach"], float) if "approach" in s else DOWN
                out.append((point, rot @ np.array(s["axis"], float), float(s["width"]), approach))
            return out
        size = np.array(body.size or (0.03, 0.03, 0.03)) * body.scale
        if body.asset == "primitive:cylinder":
            axis, width = rot[:, 0], 2 * size[0]
        else:
            i = 0 if size[0] <= size[1] else 1
            axis, width = rot[:, i], 2 * size[i]
        z = max(lo[2] + 0.015, hi[2] - TOP_GRASP_DEPTH)
        return [(np.array([pos[0], pos[1], z]), axis, width, DOWN.copy())]

    def _choose_grasp(self, actor, arm, ids):
        cands = self.grasp_candidates(actor)
        if ids is None:  # the best point: top-down ones first, the nearest to the arm
            top = [c for c in cands if c[3][2] < -0.9]
            cands = top or cands
        else:
            ids = [ids] if isinstance(ids, int | float) else list(ids)
            cands = [cands[int(i) % len(cands)] for i in ids] or cands
        base = np.array(self.world.arms[arm].base)
        return min(cands, key=lambda c: float(np.linalg.norm(c[0][:2] - base[:2])))

    # -- motion generators ---------------------------------------------------------------
    def _line(self, arm, position, orientation, step_m=STEP_M, stop=None) -> Generator:
        w = self.world
        start, start_orn = w.ee_pose(arm)
        goal = np.asarray(position, float)
        orn = start_orn if orientation is None else orientation
        dot = abs(float(np.dot(start_orn, orn)))
        angle = 2 * math.acos(min(1.0, dot))
        n = max(1, math.ceil(np.linalg.norm(goal - start) / step_m), math.ceil(angle / STEP_RAD))
        for i in range(1, n + 1):
            f = i / n
            q = w.client.getQuaternionSlerp(start_orn, orn, f)
            w.drive_joints(arm, w.ik(arm, start + (goal - start) * f, q))
            yield
            if stop is not None and stop():
                return
        for _ in range(ARRIVE_TICKS):  # let the joints arrive, turned as well as moved
            now, now_orn = w.ee_pose(arm)
            turned = 2 * math.acos(min(1.0, abs(float(np.dot(now_orn, orn)))))
            if np.linalg.norm(now - goal) < 0.003 and turned < 0.02:
                break
            w.drive_joints(arm, w.ik(arm, goal, orn))
            yield

    def _fingers(self, arm, angle, ticks=FINGER_TICKS) -> Generator:
        self.world.command_gripper(arm, angle)
        for _ in range(ticks):
            yield

    def _run(self, gens: list[Generator]) -> None:
        """Advance generators together, SETTLE_STEPS physics steps per tick."""
        live = list(gens)
        while live:
            for g in list(live):
                try:
                    next(g)
                except StopIteration:
                    live.remove(g)
            if live:
                self.world.step(SETTLE_STEPS)

    def _grasp(self, a: Action, point, axis, approach) -> Generator:
        p, arm = a.params, a.arm
        orn = grasp_orientation(approach, axis, near=self.world.ee_pose(arm)[1])
        ee = point - approach * (EE_TIP_OFFSET + float(p["grasp_dis"]))
        pre = ee - approach * float(p["pre_grasp_dis"])
        yield from self._fingers(arm, 0.0, 6 if self.world.finger_angle(arm) < 0.05 else 14)
        yield from self._line(arm, pre, orn)
        yield from self._line(arm, ee, orn, SLOW_STEP_M)
        self._arrived.add(arm)
        while not self._partners.get(arm, set()) <= self._arrived:
            yield  # a two-handed grasp closes both hands together
        angle = (1.0 - float(p["gripper_pos"])) * GRIP_MAX_ANGLE
        yield from self._fingers(arm, angle)
        held = self._secure(arm)
        if held != p["actor"]:
            raise ActionError(f"the {arm} gripper closed without holding {p['actor']}")
        self.claimed[arm] = held

    def place_poses(self, a: Action, target, target_rot):
        """(EE place position, EE place quaternion, unit approach direction) for a place,
        from the world as it is now: the object's centre at `target`, turned as the
        orientation constraints say, the grip kept."""
        w, p, arm = self.world, a.params, a.arm
        ee, ee_orn = w.ee_pose(arm)
        r_ee = rotation_matrix(ee_orn)
        a_pos, a_orn = w.body_pose(p["actor"])
        grasp_dir = a_pos - ee
        turn = place_rotation(
            rotation_matrix(a_orn),
            target_rot,
            constrain=p["constrain"],
            align_axis=p["align_axis"],
            actor_axis=p["actor_axis"],
            actor_axis_type=p["actor_axis_type"],
            grasp_direction=grasp_dir,
            ee_rot=r_ee,
            arm=arm,
        )
        goal = np.asarray(target, float) - turn @ grasp_dir
        towards = approach_direction(p["pre_dis_axis"], target_rot, turn @ grasp_dir)
        return goal, quaternion_from_matrix(turn @ r_ee), towards

    def _place(self, a: Action, target, target_rot) -> Generator:
        w, p, arm = self.world, a.params, a.arm
        actor = p["actor"]
        goal, orn, towards = self.place_poses(a, target, target_rot)
        pre = goal - towards * float(p["pre_dis"])
        ee, ee_orn = w.ee_pose(arm)
        if ee[2] < pre[2] - 0.01:  # rise before travelling: nothing on the way is knocked over
            yield from self._line(arm, (ee[0], ee[1], pre[2]), ee_orn)
        yield from self._line(arm, pre, orn)
        end = goal - towards * float(p["dis"])
        yield from self._line(arm, end, orn, SLOW_STEP_M, stop=lambda: self._resting(actor))
        if p["is_open"]:
            yield from self._fingers(arm, 0.0)
            self.claimed[arm] = None

    def _resting(self, actor) -> bool:
        """Whether the held object presses on something that is not a gripper."""
        w = self.world
        uid = w.bodies[actor].uid
        for pt in w.client.getContactPoints(bodyA=uid):
            info = w.info(pt[2])
            if info is not None and info.role != "robot" and pt[9] > CONTACT_STOP_N:
                return True
        return False

    def _gripper(self, a: Action) -> Generator:
        arm, pos = a.arm, float(a.params["pos"])
        yield from self._fingers(arm, (1.0 - min(1.0, max(0.0, pos))) * GRIP_MAX_ANGLE)
        self.claimed[arm] = self._secure(arm) if a.name == "close_gripper" else None

    def _secure(self, arm) -> str | None:
        """Hold a grasped object at its contact angle plus a preload.

        Squeezing on towards fully closed lets the object creep out of the pads while
        the other arm moves (measured: the fingers close through a held 5 cm block in
        about 5 s); a position hold just past contact keeps it.
        """
        held = self.world.held_body(arm)
        if held is not None:
            angle = self.world.finger_angle(arm)
            self.world.command_gripper(arm, min(GRIP_MAX_ANGLE, angle + GRIP_PRELOAD))
        return held

    def _origin(self, arm) -> Generator:
        """Back to the home joints in joint space (as a robot's homing move does): a
        Cartesian line from a down-pointing pose to the forward-pointing origin would
        pass near wrist singularities."""
        w = self.world
        a = w.arms[arm]
        start = np.array([w.client.getJointState(a.uid, j)[0] for j in a.joints])
        home = np.array(a.home_joints)
        n = max(1, math.ceil(float(np.max(np.abs(home - start))) / STEP_RAD))
        for i in range(1, n + 1):
            w.drive_joints(arm, dict(zip(a.joints, start + (home - start) * i / n, strict=True)))
            yield
        for _ in range(10):
            yield
