"""The scene editor's model: edits on a live tabletop world, with undo and redo.

Explore scenes' Edit mode drives this; it is plain Python on the simulator, so every
edit can be tested without a screen. An edit leaves objects where the author put them,
resting on whatever is under their footprint (the table, or the object below the
cursor), until the author settles the scene (physics until rest, as generation does).
Undo and redo restore whole snapshots (the objects present, every pose, the table's
texture, the robot's joints), so every kind of edit undoes the same way; a drag is one
edit (`begin` ... `commit`), however many moves it makes.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sim.tabletop.authoring.scenes import (
    DROP_GAP,
    GENERATOR,
    Placement,
    place,
    support_height,
)
from sim.tabletop.catalog import catalog_by_name
from sim.tabletop.scenes import SettleReport, add_object_record, problems, settle
from sim.tabletop.world import (
    HOME_JOINTS,
    TABLE_HALF,
    TOP_DOWN,
    WORKSPACE_CENTRE,
    TabletopWorld,
)

# The arm straight up above its base: nothing of it reaches over the table.
PARKED_JOINTS = {
    **HOME_JOINTS,
    "shoulder_lift_joint": -0.5 * math.pi,
    "elbow_joint": 0.0,
    "wrist_1_joint": -0.5 * math.pi,
}
DUPLICATE_OFFSET = 0.07  # metres along x between an object and its duplicate
ROTATE_STEP_DEG = 15.0


@dataclass(frozen=True)
class Snapshot:
    """What undo restores: the objects' records and the world's whole state."""

    records: tuple[dict[str, Any], ...]
    state: dict[str, Any]


class SceneEditor:
    """Edits on `world` (a restored or new tabletop world), each undoable."""

    def __init__(self, world: TabletopWorld, *, derived_from: int | None = None) -> None:
        self.world = world
        self.derived_from = derived_from
        self.catalog = catalog_by_name()
        self._undo: list[tuple[str, Snapshot]] = []
        self._redo: list[tuple[str, Snapshot]] = []
        self._open: tuple[str, Snapshot] | None = None
        self.log: list[str] = []  # the edits made, for the saved scene's provenance
        self._version = self._saved_version = 0  # every change counts; saving remembers one
        taken = [int(k[4:]) for k in world.bodies if k.startswith("obj_") and k[4:].isdigit()]
        self._next_key = max(taken, default=-1) + 1  # keys are never given out twice

    # -- undo and redo -------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        records = tuple(r for r in self.world.body_records() if r["role"] == "object")
        return Snapshot(records, self.world.capture_state())

    def restore(self, snap: Snapshot) -> None:
        """Make the world what the snapshot holds: objects removed or brought back, every
        pose, joint and texture as they were."""
        world = self.world
        wanted = {r["id"]: r for r in snap.records}
        present = {b.key for b in world.objects()}
        for key in present & set(wanted):  # the same key, another object: made anew
            body = world.bodies[key]
            if (body.name, body.asset, body.scale) != (
                wanted[key]["name"],
                wanted[key]["asset"],
                wanted[key]["scale"],
            ):
                world.remove(key)
                present.discard(key)
        for key in present - set(wanted):
            world.remove(key)
        for key in sorted(set(wanted) - present):
            add_object_record(world, wanted[key], self.catalog)
            if wanted[key].get("texture"):
                world.set_body_texture(key, wanted[key]["texture"])
        world.restore_state(snap.state)
        for key in wanted:
            if key.startswith("obj_") and key[4:].isdigit():
                self._next_key = max(self._next_key, int(key[4:]) + 1)

    def begin(self, label: str) -> None:
        """Start an edit that may take many steps (a drag); `commit` ends it."""
        if self._open is None:
            self._open = (label, self.snapshot())

    def commit(self) -> bool:
        """End the open edit; whether it changed anything (then it can be undone)."""
        if self._open is None:
            return False
        label, before = self._open
        self._open = None
        if _same(before, self.snapshot()):
            return False
        self._undo.append((label, before))
        self._redo.clear()
        self.log.append(label)
        self._version += 1
        return True

    @contextmanager
    def edit(self, label: str) -> Iterator[None]:
        outer = self._open is None  # inside a drag, the drag's commit ends it
        self.begin(label)
        try:
            yield
        finally:
            if outer:
                self.commit()

    def undo(self) -> str | None:
        """Undo the last edit; its label, or None when there is nothing to undo."""
        if not self._undo:
            return None
        label, snap = self._undo.pop()
        self._redo.append((label, self.snapshot()))
        self.restore(snap)
        self.log.append(f"undo {label}")
        self._version += 1
        return label

    def redo(self) -> str | None:
        if not self._redo:
            return None
        label, snap = self._redo.pop()
        self._undo.append((label, self.snapshot()))
        self.restore(snap)
        self.log.append(f"redo {label}")
        self._version += 1
        return label

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    @property
    def dirty(self) -> bool:
        """Whether anything changed since the scene was opened (or last saved)."""
        return self._version != self._saved_version

    def saved(self) -> None:
        """The scene as it is has been stored: nothing is unsaved (undo stays)."""
        self._saved_version = self._version

    # -- edits -----------------------------------------------------------------------------
    def add(self, name: str, xy: tuple[float, float] | None = None, yaw_deg: float = 0.0) -> str:
        """Put a catalog object at world (x, y) (the workspace centre by default), resting on
        what is under it; its key."""
        entry = self.catalog.get(name)
        if entry is None:
            raise KeyError(f"{name!r} is not in the catalog")
        x, y = xy if xy is not None else WORKSPACE_CENTRE
        key = self._new_key()
        lo, hi = entry.scale_range
        offset = (x - WORKSPACE_CENTRE[0], y - WORKSPACE_CENTRE[1])
        with self.edit(f"add {name}"):
            place(self.world, Placement(entry, offset, yaw_deg, (lo + hi) / 2, key))
        return key

    def move(self, key: str, x: float, y: float) -> None:
        """Put an object at world (x, y), on the table or on the object under it (kept on
        the table top). Inside a `begin`/`commit` (a drag) it is part of that edit."""
        self._require(key)
        hx, hy = TABLE_HALF
        x, y = min(max(x, -hx + 0.02), hx - 0.02), min(max(y, -hy + 0.02), hy - 0.02)
        with self.edit(f"move {key}"):
            self._seat(key, x, y)

    def drag_to(self, key: str, origin, direction) -> bool:
        """Move an object to where the ray from the cursor meets the table or another object
        (itself out of the ray's way); whether the ray met anything."""
        self._require(key)
        c, uid = self.world.client, self.world.bodies[key].uid
        position, orientation = c.getBasePositionAndOrientation(uid)
        c.resetBasePositionAndOrientation(uid, (position[0], position[1], -10.0), orientation)
        end = [o + 100.0 * d for o, d in zip(origin, direction, strict=True)]
        hit = c.rayTest(list(origin), end)[0]
        c.resetBasePositionAndOrientation(uid, position, orientation)
        if hit[0] < 0 or self.world.info(hit[0]) is None or self.world.info(hit[0]).key == "floor":
            return False
        self.move(key, hit[3][0], hit[3][1])
        return True

    def rotate(self, key: str, degrees: float = ROTATE_STEP_DEG) -> None:
        """Turn an object about the vertical by `degrees` where it stands."""
        self._require(key)
        c, uid = self.world.client, self.world.bodies[key].uid
        position, orientation = c.getBasePositionAndOrientation(uid)
        turn = c.getQuaternionFromEuler((0.0, 0.0, math.radians(degrees)))
        _, turned = c.multiplyTransforms((0, 0, 0), turn, (0, 0, 0), orientation)
        with self.edit(f"rotate {key}"):
            c.resetBasePositionAndOrientation(uid, position, turned)
            self._seat(key, position[0], position[1])

    def delete(self, key: str) -> None:
        self._require(key)
        with self.edit(f"delete {key}"):
            self.world.remove(key)

    def duplicate(self, key: str) -> str:
        """A copy of an object beside it; the copy's key."""
        self._require(key)
        record = next(r for r in self.world.body_records() if r["id"] == key)
        new = self._new_key()
        with self.edit(f"duplicate {key}"):
            add_object_record(self.world, {**record, "id": new}, self.catalog)
            if record.get("texture"):
                self.world.set_body_texture(new, record["texture"])
            x, y = record["position"][:2]
            self._seat(new, x + DUPLICATE_OFFSET, y)
        return new

    def set_table_texture(self, ref: str | None) -> None:
        with self.edit("table texture"):
            self.world.set_table_texture(ref)

    def park_robot(self, parked: bool = True) -> None:
        """Swing the arm out of the table's view (or back home)."""
        world = self.world
        if world.robot_uid is None:
            return
        with self.edit("park robot" if parked else "robot home"):
            c = world.client
            for name, angle in (PARKED_JOINTS if parked else HOME_JOINTS).items():
                c.resetJointState(world.robot_uid, world.arm_joints[name], angle)
            # the gripper hangs on the flange by a constraint: take it along at once
            tool = c.getLinkState(world.robot_uid, world.tool_link, computeForwardKinematics=True)
            c.resetBasePositionAndOrientation(world.gripper_uid, tool[4], tool[5])
            world.hold_arm()

    @property
    def robot_parked(self) -> bool:
        world = self.world
        if world.robot_uid is None:
            return False
        lift = world.client.getJointState(world.robot_uid, world.arm_joints["shoulder_lift_joint"])
        return abs(lift[0] - PARKED_JOINTS["shoulder_lift_joint"]) < 1e-3

    def settle(self) -> SettleReport:
        """Physics until everything rests, as generation settles (one undoable edit)."""
        with self.edit("settle"):
            return settle(self.world)

    def problems(self) -> list[str]:
        """Why the scene could not be saved as it is: objects off the table or out of view."""
        return problems(self.world, TOP_DOWN)

    # -- saving ------------------------------------------------------------------------------
    def record(self, name: str) -> dict[str, Any]:
        """The scene as the store keeps it: a new scene recording what it was derived from
        and the edits that made it."""
        world = self.world
        state = world.capture_state()
        state["generation"] = {
            "derived_from": self.derived_from,
            "edits": list(self.log),
            "gripper": world.gripper_model.key if world.robot_uid is not None else None,
            "robot_parked": self.robot_parked,
        }
        return {
            "name": name,
            "benchmark": "mgvqa",
            "seed": None,
            "generator": GENERATOR,
            "camera": TOP_DOWN.as_dict(),
            "state": state,
            "bodies": world.body_records(),
        }

    # -- internals ---------------------------------------------------------------------------
    def _require(self, key: str) -> None:
        body = self.world.bodies.get(key)
        if body is None or body.role != "object":
            raise KeyError(f"no object {key!r} in this scene")

    def _new_key(self) -> str:
        while f"obj_{self._next_key:02d}" in self.world.bodies:
            self._next_key += 1
        self._next_key += 1
        return f"obj_{self._next_key - 1:02d}"

    def _seat(self, key: str, x: float, y: float) -> None:
        """Stand the object at (x, y) on the highest surface under its footprint."""
        world = self.world
        c, uid = world.client, world.bodies[key].uid
        position, orientation = c.getBasePositionAndOrientation(uid)
        c.resetBasePositionAndOrientation(uid, (x, y, -10.0), orientation)  # out of the rays
        lo, hi = world.aabb(key)
        half = max(hi[0] - lo[0], hi[1] - lo[1]) / 2 * 0.7
        support = support_height(world, x, y, half)
        lift = support + DROP_GAP - lo[2]
        c.resetBasePositionAndOrientation(uid, (x, y, -10.0 + lift), orientation)
        c.resetBaseVelocity(uid, (0, 0, 0), (0, 0, 0))


def _same(a: Snapshot, b: Snapshot) -> bool:
    return a.records == b.records and _poses(a.state) == _poses(b.state)


def _poses(state: dict[str, Any]) -> Any:
    return (state.get("table_texture"), state["bodies"])
