"""What a 3D view needs from a world: every visual shape and where each link is.

PyBullet reports a visual shape's local frame relative to its link's URDF
frame. A link's URDF frame comes from `getLinkState(...)[4:6]`; the base's
comes from its centre-of-mass pose composed with the inverse of its local
inertial frame (`sim.world.World.link_frame_pose`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pybullet

from sim.world import World

GEOMETRY = {
    pybullet.GEOM_BOX: "box",
    pybullet.GEOM_SPHERE: "sphere",
    pybullet.GEOM_CYLINDER: "cylinder",
    pybullet.GEOM_CAPSULE: "capsule",
    pybullet.GEOM_MESH: "mesh",
    pybullet.GEOM_PLANE: "plane",
}


@dataclass(frozen=True)
class VisualShape:
    """One drawable piece of a body, in its link's frame.

    `dimensions`: box full extents (x, y, z); sphere (radius,); cylinder and
    capsule (length, radius) as PyBullet reports them; mesh scale (sx, sy, sz).
    """

    body_key: str
    body_uid: int
    link: int  # -1 for the base
    geometry: str
    dimensions: tuple[float, ...]
    mesh_path: str | None
    local_position: tuple[float, float, float]
    local_orientation: tuple[float, float, float, float]
    rgba: tuple[float, float, float, float]
    texture: str | None  # resources: reference of a texture we applied (table top)


def visual_shapes(world: World) -> list[VisualShape]:
    """Every visual shape of every body; static for the life of the world."""
    c = world.client
    shapes = []
    for key, body in world.bodies.items():
        rows = c.getVisualShapeData(body.uid)
        slots = world.visual_slots(body.uid)  # PyBullet reports one colour per link
        for index, row in enumerate(rows):
            uid, link, geom, dims, mesh, pos, orn, _ = row[:8]
            rgba = slots[index][2]
            name = GEOMETRY.get(geom)
            if name is None:
                continue
            mesh_path = mesh.decode() if isinstance(mesh, bytes) else mesh
            # textures go on the base (boxes), or on a label decal alone (its second shape)
            texture = body.texture if link == -1 else None
            if body.label_patch is not None and index != 1:
                texture = None
            shapes.append(
                VisualShape(
                    key,
                    uid,
                    link,
                    name,
                    tuple(float(d) for d in dims),
                    mesh_path or None,
                    tuple(pos),
                    tuple(orn),
                    tuple(rgba),
                    texture,
                )
            )
    return shapes


def link_frames(
    world: World,
) -> dict[tuple[int, int], tuple[tuple[float, ...], tuple[float, ...]]]:
    """(body uid, link) -> world pose of the link's URDF frame, for every link of every body."""
    c = world.client
    frames = {}
    for key, body in world.bodies.items():
        frames[(body.uid, -1)] = world.link_frame_pose(key)
        n = c.getNumJoints(body.uid)
        if n:
            states = c.getLinkStates(body.uid, list(range(n)), computeForwardKinematics=True)
            for link, state in enumerate(states):
                frames[(body.uid, link)] = (state[4], state[5])
    return frames


def pose_matrix(position, orientation) -> np.ndarray:
    """4x4 homogeneous matrix of a position and a [qx, qy, qz, qw] quaternion."""
    x, y, z, w = orientation
    m = np.eye(4)
    m[:3, :3] = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]
    m[:3, 3] = position
    return m


def shape_world_matrix(shape: VisualShape, frames) -> np.ndarray:
    """World transform of a visual shape: link frame composed with the shape's local frame."""
    pos, orn = frames[(shape.body_uid, shape.link)]
    return pose_matrix(pos, orn) @ pose_matrix(shape.local_position, shape.local_orientation)


def pick(world: World, origin, direction, length: float = 10.0) -> str | None:
    """The body key first hit by a ray, or None (ray cast through the simulator)."""
    origin = np.asarray(origin, dtype=float)
    end = origin + length * np.asarray(direction, dtype=float)
    hit = world.client.rayTest(origin.tolist(), end.tolist())[0]
    info = world.info(hit[0]) if hit[0] >= 0 else None
    return info.key if info else None
