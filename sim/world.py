"""The base of every simulated world: its own PyBullet client, its bodies, their state.

Each world owns a PyBullet client in DIRECT mode, so several worlds (the
verification view and the replay view, say) live in one process. Z is up,
metres, quaternions [qx, qy, qz, qw].

`World` knows bodies, not robots: it loads primitives and URDF assets, keeps
what it knows of each body (`BodyInfo`) for export and rebuilding, steps the
physics, and captures and restores the full state. A feature's world
(`sim.tabletop.world.TabletopWorld`, `sim.bimanual.world.DualArmWorld`) calls
`World.__init__`, then builds its own fixtures and robot with these methods,
and extends `capture_state` / `restore_state` for what its robot adds.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from sim.quiet import quiet_c_output

with quiet_c_output():  # the module prints its build time on import
    import pybullet
    import pybullet_data
    from pybullet_utils.bullet_client import BulletClient

from sim.assets import box_texture_file, resolve_asset

TIMESTEP = 1.0 / 240.0
STATE_FORMAT = "reasonscope-state/1"
# Every world stands its table on the floor as the body keyed "table"; its texture
# is part of the state (scene generation varies it).
TABLE_KEY = "table"
# Rolling resistance of things on a table top (metres of lever arm): enough that a
# ball comes to rest instead of creeping for seconds at millimetres per second.
ROLLING_FRICTION = 0.003
SPINNING_FRICTION = 0.003
SLEEP_THRESHOLD = 0.05  # Bullet's sleep epsilon for resting objects

AnyWorld = TypeVar("AnyWorld", bound="World")


@dataclass
class BodyInfo:
    """What we know of a body beyond PyBullet: enough to export and rebuild it."""

    uid: int
    key: str
    name: str
    category: str
    role: str  # "fixture", "robot" or "object"
    asset: str
    size: tuple[float, ...] | None = None
    scale: float = 1.0
    rgba: tuple[float, float, float, float] | None = None
    texture: str | None = None
    fixed: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    label_patch: LabelPatch | None = None  # where a label decal sits (its texture: `texture`)


LABEL_THICKNESS = 0.001  # a label decal's thickness (m): a sticker, not a slab
LABEL_LIFT = 0.001  # its gap above the face: the renderer draws a cylinder's cap up to ~1 mm high


@dataclass(frozen=True)
class LabelPatch:
    """A square label decal on a body's face: its centre on the face and its rotation,
    in the body's link frame (the decal's +z is the face's outward normal, its +y the
    letter's up), and the square's side in metres.

    The decal is a second visual shape of the body: it has no collision shape and no
    mass, so the physics is the body's alone. The body's `texture` prints on it.
    """

    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float]
    side: float

    def as_record(self) -> dict[str, Any]:
        return {
            "position": [round(float(v), 6) for v in self.position],
            "orientation": [round(float(v), 6) for v in self.orientation],
            "side": round(float(self.side), 6),
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> LabelPatch:
        return cls(
            tuple(float(v) for v in record["position"]),
            tuple(float(v) for v in record["orientation"]),
            float(record["side"]),
        )

    def decal_frame(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The decal box's centre and rotation in the link frame (lifted off the face)."""
        x, y, z, w = self.orientation
        normal = (2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y))
        lift = LABEL_LIFT + LABEL_THICKNESS / 2
        return tuple(p + lift * n for p, n in zip(self.position, normal, strict=True)), tuple(
            self.orientation
        )


class World:
    """A PyBullet world of registered bodies on pybullet_data's ground plane ("floor")."""

    def __init__(self) -> None:
        with quiet_c_output():
            self.client = BulletClient(connection_mode=pybullet.DIRECT)
        # PyBullet clients are not thread-safe: whoever steps or reads from another
        # thread (the live view's worker) holds this lock.
        self.lock = threading.RLock()
        c = self.client
        c.setAdditionalSearchPath(pybullet_data.getDataPath())
        c.setGravity(0, 0, -9.81)
        c.setTimeStep(TIMESTEP)
        c.setPhysicsEngineParameter(deterministicOverlappingPairs=1)
        self.bodies: dict[str, BodyInfo] = {}
        self._by_uid: dict[int, BodyInfo] = {}
        self._textures: dict[str, int] = {}
        self.table_texture: str | None = None
        self.time = 0.0
        self._add_floor()

    # -- construction -----------------------------------------------------------
    def _register(self, info: BodyInfo) -> BodyInfo:
        """Record a body PyBullet has just made: pin its colours, let objects sleep."""
        if info.key in self.bodies:
            raise ValueError(f"body key {info.key!r} already used")
        self.bodies[info.key] = info
        self._by_uid[info.uid] = info
        self.pin_colours(info.uid)
        if info.role == "object":
            self.allow_sleep(info.uid)
        return info

    def remove(self, key: str) -> None:
        """Take a body out of the world (the scene editor's delete)."""
        info = self.bodies.pop(key)
        self._by_uid.pop(info.uid, None)
        self.client.removeBody(info.uid)

    def _add_floor(self) -> None:
        """pybullet_data's ground plane, registered as the fixture "floor"."""
        with quiet_c_output():
            plane = self.client.loadURDF("plane.urdf")
        asset = "pybullet_data:plane.urdf"
        self._register(BodyInfo(plane, "floor", "floor", "surface", "fixture", asset, fixed=True))

    def allow_sleep(self, uid: int, allowed: bool = True) -> None:
        """Let a resting object fall asleep, as Bullet allows (or forbid it).

        Without it, objects resting on other objects creep at fractions of a
        millimetre per second for as long as the simulation runs (contact-solver
        drift, not physics); a sleeping body wakes when something touches it.
        """
        state = (
            pybullet.ACTIVATION_STATE_ENABLE_SLEEPING
            if allowed
            else pybullet.ACTIVATION_STATE_DISABLE_SLEEPING
        )
        self.client.changeDynamics(uid, -1, activationState=state, sleepThreshold=SLEEP_THRESHOLD)

    def visual_slots(self, uid: int) -> list[tuple[int, int, tuple[float, ...]]]:
        """(link, shape index within the link, rgba) of every visual shape of a body,
        as `changeVisualShape(..., shapeIndex=...)` addresses them."""
        slots = []
        index_in_link: dict[int, int] = {}
        for row in self.client.getVisualShapeData(uid):
            link = row[1]
            shape_index = index_in_link.get(link, 0)
            index_in_link[link] = shape_index + 1
            slots.append((link, shape_index, tuple(row[7])))
        info = self._by_uid.get(uid)
        if info is not None and info.label_patch is not None:
            # PyBullet reports one colour for a link's shapes, the last one set; a
            # labelled body's are its own colour and the decal's white.
            body = tuple(info.rgba or (0.8, 0.8, 0.8, 1.0))
            slots = [(-1, 0, body), (-1, 1, (1.0, 1.0, 1.0, 1.0))]
        return slots

    def pin_colours(self, uid: int) -> None:
        """Set every visual shape's colour to what it already is.

        The TinyRenderer shades a shape whose colour was never set through
        changeVisualShape slightly differently from one whose colour was set back
        to the same value; pinning the colours up front makes hiding a body and
        showing it again (visibility renders) leave the image exactly as it was.
        """
        for link, shape_index, rgba in self.visual_slots(uid):
            self.client.changeVisualShape(uid, link, shapeIndex=shape_index, rgbaColor=rgba)

    def add_table_top(self, half_xy, top_z: float, thickness: float, rgba) -> BodyInfo:
        """The table board both worlds stand on (key `TABLE_KEY`): a fixed box whose upper
        face is at `top_z`."""
        hx, hy = half_xy
        return self.add_primitive(
            TABLE_KEY,
            "box",
            (hx, hy, thickness / 2),
            (0, 0, top_z - thickness / 2),
            rgba=rgba,
            category="surface",
            role="fixture",
            friction=0.9,
        )

    def add_primitive(
        self,
        key: str,
        shape: str,
        size,
        position,
        orientation=(0, 0, 0, 1),
        *,
        rgba=(0.8, 0.8, 0.8, 1.0),
        mass: float = 0.0,
        name: str | None = None,
        category: str = "",
        role: str = "object",
        scale: float = 1.0,
        friction: float = 0.8,
        label_patch: LabelPatch | None = None,
    ) -> BodyInfo:
        """A box (half extents), cylinder (radius, height) or sphere (radius) body, with a
        label decal on one face when `label_patch` says where."""
        c = self.client
        s = [float(v) * scale for v in size]
        if shape == "box":
            col = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=s)
        elif shape == "cylinder":
            col = c.createCollisionShape(pybullet.GEOM_CYLINDER, radius=s[0], height=s[1])
        elif shape == "sphere":
            col = c.createCollisionShape(pybullet.GEOM_SPHERE, radius=s[0])
        else:
            raise ValueError(f"unknown primitive shape {shape!r}")
        vis = self._primitive_visual(shape, s, rgba, label_patch)
        uid = c.createMultiBody(
            baseMass=mass,
            baseCollisionShapeIndex=col,
            baseVisualShapeIndex=vis,
            basePosition=position,
            baseOrientation=orientation,
        )
        c.changeDynamics(
            uid,
            -1,
            lateralFriction=friction,
            rollingFriction=ROLLING_FRICTION,
            spinningFriction=SPINNING_FRICTION,
        )
        asset, sizes, colour = f"primitive:{shape}", tuple(float(v) for v in size), tuple(rgba)
        info = BodyInfo(uid, key, name or key, category, role, asset, sizes, scale, colour)
        info.fixed = mass == 0.0
        info.label_patch = label_patch
        return self._register(info)

    def _primitive_visual(self, shape: str, s: list[float], rgba, patch: LabelPatch | None) -> int:
        """The visual shape of a primitive: the shape alone, or the shape and its decal."""
        c = self.client
        geom = {"box": pybullet.GEOM_BOX, "cylinder": pybullet.GEOM_CYLINDER}.get(
            shape, pybullet.GEOM_SPHERE
        )
        radius = 0.0 if shape == "box" else s[0]
        length = s[1] if shape == "cylinder" else 0.0
        half = s if shape == "box" else [0.0, 0.0, 0.0]
        if patch is None and shape == "box":
            return c.createVisualShape(geom, halfExtents=s, rgbaColor=rgba)
        if patch is None:
            return c.createVisualShape(geom, radius=radius, length=length, rgbaColor=rgba)
        position, orientation = patch.decal_frame()
        return c.createVisualShapeArray(
            shapeTypes=[geom, pybullet.GEOM_BOX],
            halfExtents=[half, [patch.side / 2, patch.side / 2, LABEL_THICKNESS / 2]],
            radii=[radius, 0.0],
            lengths=[length, 0.0],
            rgbaColors=[list(rgba), [1.0, 1.0, 1.0, 1.0]],
            visualFramePositions=[[0.0, 0.0, 0.0], list(position)],
            visualFrameOrientations=[[0.0, 0.0, 0.0, 1.0], list(orientation)],
        )

    def attach_label(self, key: str, patch: LabelPatch, ref: str) -> BodyInfo:
        """Give a primitive object a label decal where `patch` says, printed with `ref`.

        PyBullet cannot add a visual shape to a body, so the body is made again with
        the same shape, mass, friction, pose and speed (the physics does not change:
        the decal has no collision shape and no mass), under the same key and in the
        same place among the world's bodies.
        """
        old = self.bodies[key]
        if not old.asset.startswith("primitive:") or old.role != "object":
            raise ValueError(f"only a primitive object can carry a label decal, not {key!r}")
        c = self.client
        pos, orn = c.getBasePositionAndOrientation(old.uid)
        velocity = c.getBaseVelocity(old.uid)
        dynamics = c.getDynamicsInfo(old.uid, -1)
        order = list(self.bodies)
        self.remove(key)
        new = self.add_primitive(
            key,
            old.asset.split(":", 1)[1],
            old.size,
            pos,
            orn,
            rgba=old.rgba or (0.8, 0.8, 0.8, 1.0),
            mass=dynamics[0],
            name=old.name,
            category=old.category,
            role=old.role,
            scale=old.scale,
            friction=dynamics[1],
            label_patch=patch,
        )
        c.resetBaseVelocity(new.uid, *velocity)
        new.extra = dict(old.extra)
        self.bodies = {k: self.bodies[k] for k in order}
        self.set_body_texture(key, ref)
        return new

    def add_urdf(
        self,
        key: str,
        asset: str,
        position,
        orientation=(0, 0, 0, 1),
        *,
        scale: float = 1.0,
        fixed: bool = False,
        rgba=None,
        name: str | None = None,
        category: str = "",
        role: str = "object",
    ) -> BodyInfo:
        """Load a URDF asset reference (pybullet_data:, airo_models:, resources:)."""
        c = self.client
        flags = pybullet.URDF_ENABLE_CACHED_GRAPHICS_SHAPES
        with quiet_c_output():  # the URDF importer warns about every link without inertia
            uid = c.loadURDF(
                str(resolve_asset(asset)),
                basePosition=position,
                baseOrientation=orientation,
                globalScaling=scale,
                useFixedBase=fixed,
                flags=flags,
            )
        if rgba is not None:
            for link in range(-1, c.getNumJoints(uid)):
                c.changeVisualShape(uid, link, rgbaColor=rgba)
        colour = tuple(rgba) if rgba is not None else None
        info = BodyInfo(uid, key, name or key, category, role, asset, None, scale, colour)
        info.fixed = fixed
        return self._register(info)

    # -- queries ------------------------------------------------------------------
    def info(self, uid: int) -> BodyInfo | None:
        """What we know of the body with this PyBullet uid, or None."""
        return self._by_uid.get(uid)

    def objects(self) -> list[BodyInfo]:
        """The bodies with role "object" (not fixtures, not robot parts)."""
        return [b for b in self.bodies.values() if b.role == "object"]

    def aabb(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """World AABB over all links of a body."""
        c, uid = self.client, self.bodies[key].uid
        los, his = [], []
        for link in range(-1, c.getNumJoints(uid)):
            lo, hi = c.getAABB(uid, link)
            los.append(lo)
            his.append(hi)
        return np.min(los, axis=0), np.max(his, axis=0)

    def link_frame_pose(self, key: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The base link's URDF frame (what loadURDF's basePosition means), not its centre of mass."""
        c, uid = self.client, self.bodies[key].uid
        com_pos, com_orn = c.getBasePositionAndOrientation(uid)
        local_pos, local_orn = c.getDynamicsInfo(uid, -1)[3:5]
        inv_pos, inv_orn = c.invertTransform(local_pos, local_orn)
        return c.multiplyTransforms(com_pos, com_orn, inv_pos, inv_orn)

    def decal_corners(self, key: str) -> np.ndarray | None:
        """The four world corners (4, 3) of `key`'s label decal's face, or None."""
        patch = self.bodies[key].label_patch
        if patch is None:
            return None
        c = self.client
        position, orientation = self.link_frame_pose(key)
        centre, decal = patch.decal_frame()
        lift = LABEL_THICKNESS / 2
        h = patch.side / 2
        corners = []
        for x, y in ((-h, -h), (h, -h), (h, h), (-h, h)):
            local, _ = c.multiplyTransforms(centre, decal, (x, y, lift), (0, 0, 0, 1))
            world, _ = c.multiplyTransforms(position, orientation, local, (0, 0, 0, 1))
            corners.append(world)
        return np.asarray(corners)

    # -- textures -------------------------------------------------------------------
    def set_body_texture(self, key: str, ref: str | None) -> None:
        """Texture a box body's faces with a resources: image (None: plain colour).

        The body's rgba multiplies the texture, so a white texture with a black
        letter gives a black letter on the body's own colour.
        """
        c = self.client
        body = self.bodies[key]
        rgba = body.rgba or (1.0, 1.0, 1.0, 1.0)
        # A body with a label decal prints the texture on the decal (its second shape).
        shape = {} if body.label_patch is None else {"shapeIndex": 1}
        if body.label_patch is not None:
            rgba = (1.0, 1.0, 1.0, 1.0)
        if ref is None:
            c.changeVisualShape(body.uid, -1, textureUniqueId=-1, rgbaColor=rgba, **shape)
        else:
            if ref not in self._textures:
                self._textures[ref] = c.loadTexture(str(box_texture_file(ref)))
            texture = self._textures[ref]
            c.changeVisualShape(body.uid, -1, textureUniqueId=texture, rgbaColor=rgba, **shape)
        body.texture = ref

    def set_table_texture(self, ref: str | None) -> None:
        """Texture the table top with a resources: image, or its plain colour with None."""
        self.set_body_texture(TABLE_KEY, ref)
        self.table_texture = ref

    # -- physics --------------------------------------------------------------------
    def step(self, n: int = 1) -> None:
        """Advance the physics by `n` steps of TIMESTEP seconds."""
        for _ in range(n):
            self.client.stepSimulation()
        self.time += n * TIMESTEP

    def object_speeds(self) -> tuple[float, float]:
        """Largest linear (m/s) and angular (rad/s) speed over all objects."""
        lin = ang = 0.0
        c = self.client
        for b in self.objects():
            v, w = c.getBaseVelocity(b.uid)
            lin = max(lin, math.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2))
            ang = max(ang, math.sqrt(w[0] ** 2 + w[1] ** 2 + w[2] ** 2))
        return lin, ang

    # -- state ------------------------------------------------------------------------
    def joint_positions(self, key: str) -> dict[str, float]:
        """Position of every non-fixed joint of a body, by joint name."""
        c, uid = self.client, self.bodies[key].uid
        joints = {}
        for j in range(c.getNumJoints(uid)):
            info = c.getJointInfo(uid, j)
            if info[2] != pybullet.JOINT_FIXED:
                joints[info[1].decode()] = c.getJointState(uid, j)[0]
        return joints

    def capture_state(self) -> dict[str, Any]:
        """Every body's base pose (centre-of-mass frame, as PyBullet keeps it) and joint positions.

        JSON-serialisable; `restore_state` reproduces the world exactly.
        """
        c = self.client
        bodies = {}
        for key, b in self.bodies.items():
            pos, orn = c.getBasePositionAndOrientation(b.uid)
            bodies[key] = {
                "com_position": list(pos),
                "com_orientation": list(orn),
                "joints": self.joint_positions(key),
            }
        return {
            "format": STATE_FORMAT,
            "time": self.time,
            "table_texture": self.table_texture,
            "bodies": bodies,
        }

    def restore_state(self, state: dict[str, Any]) -> None:
        """Put every body (and the table's texture, and the clock) back as `state` has them."""
        c = self.client
        missing = set(self.bodies) - set(state["bodies"])
        if missing:
            raise ValueError(f"state lacks bodies {sorted(missing)}")
        for key, s in state["bodies"].items():
            b = self.bodies.get(key)
            if b is None:
                raise ValueError(f"state has unknown body {key!r}")
            c.resetBasePositionAndOrientation(b.uid, s["com_position"], s["com_orientation"])
            c.resetBaseVelocity(b.uid, (0, 0, 0), (0, 0, 0))
            if s["joints"]:
                by_name = {
                    c.getJointInfo(b.uid, j)[1].decode(): j for j in range(c.getNumJoints(b.uid))
                }
                for name, angle in s["joints"].items():
                    c.resetJointState(b.uid, by_name[name], angle, 0.0)
        if state.get("table_texture") != self.table_texture:
            self.set_table_texture(state.get("table_texture"))
        self.time = state.get("time", self.time)

    def body_records(self) -> list[dict[str, Any]]:
        """Every body in the benchmark export form (link-frame poses, asset references)."""
        records = []
        for key, b in self.bodies.items():
            pos, orn = self.link_frame_pose(key)
            records.append(
                {
                    "id": key,
                    "name": b.name,
                    "category": b.category,
                    "role": b.role,
                    "asset": b.asset,
                    "size": list(b.size) if b.size else None,
                    "scale": b.scale,
                    "rgba": list(b.rgba) if b.rgba else None,
                    "texture": b.texture,
                    **({"label_patch": b.label_patch.as_record()} if b.label_patch else {}),
                    "position": list(pos),
                    "orientation": list(orn),
                    "fixed": b.fixed,
                    "joints": self.joint_positions(key),
                }
            )
        return records

    # -- lifetime -----------------------------------------------------------------------
    def close(self) -> None:
        """Disconnect the PyBullet client (closing twice is harmless)."""
        try:
            self.client.disconnect()
        except pybullet.error:
            pass

    def __enter__(self: AnyWorld) -> AnyWorld:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
