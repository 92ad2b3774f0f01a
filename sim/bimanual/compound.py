"""Compound rigid bodies: several boxes and cylinders, each with its own local offset and
orientation, built as one PyBullet body.

PyBullet takes at most 16 shapes per shape array (it silently drops the rest of a
collision array and crashes on a longer visual one), so the first 16 parts make the
base and every further 16 a link fixed at the base's origin. The body's frame is the
parts' frame and its centre of mass (every link's inertial frame sits at the origin),
so `getBasePositionAndOrientation` gives the frame the parts were placed in.
"""

from __future__ import annotations

import pybullet

SHAPES_PER_LINK = 16  # PyBullet's limit on a shape array


def part_records(parts: list[tuple]) -> list[list]:
    """The parts as plain lists, for a body's `extra["parts"]` (and the export)."""
    return [[p[0], list(p[1]), list(p[2]), *([list(p[3])] if len(p) > 3 else [])] for p in parts]


def shape_arrays(client, parts: list[tuple], colours: list) -> tuple[int, int]:
    """(collision, visual) shape arrays of up to SHAPES_PER_LINK parts."""
    shapes, sizes, frames, turns = [], [], [], []
    for part in parts:
        shape, size, offset = part[:3]
        shapes.append(pybullet.GEOM_BOX if shape == "box" else pybullet.GEOM_CYLINDER)
        sizes.append(tuple(size))
        frames.append(tuple(offset))
        turns.append(tuple(part[3]) if len(part) > 3 else (0.0, 0.0, 0.0, 1.0))
    dims = {
        "halfExtents": [s if len(s) == 3 else (0, 0, 0) for s in sizes],
        "radii": [s[0] if len(s) == 2 else 0 for s in sizes],
        "lengths": [s[1] if len(s) == 2 else 0 for s in sizes],
    }
    col = client.createCollisionShapeArray(
        shapeTypes=shapes, collisionFramePositions=frames, collisionFrameOrientations=turns, **dims
    )
    vis = client.createVisualShapeArray(
        shapeTypes=shapes,
        visualFramePositions=frames,
        visualFrameOrientations=turns,
        rgbaColors=colours,
        **dims,
    )
    return col, vis


def build_compound(
    client, parts, position, orientation, rgba, mass, friction, part_rgba=None
) -> int:
    """The body's uid; `mass` is shared among base and links by their number of parts."""
    colours = list(part_rgba) if part_rgba is not None else [rgba] * len(parts)
    groups = [
        range(i, min(i + SHAPES_PER_LINK, len(parts)))
        for i in range(0, len(parts), SHAPES_PER_LINK)
    ]
    shape_ids = [
        shape_arrays(client, [parts[i] for i in g], [colours[i] for i in g]) for g in groups
    ]
    masses = [mass * len(g) / len(parts) for g in groups]
    links = shape_ids[1:]
    n = len(links)
    uid = client.createMultiBody(
        baseMass=masses[0],
        baseCollisionShapeIndex=shape_ids[0][0],
        baseVisualShapeIndex=shape_ids[0][1],
        basePosition=position,
        baseOrientation=orientation,
        linkMasses=masses[1:],
        linkCollisionShapeIndices=[col for col, _ in links],
        linkVisualShapeIndices=[vis for _, vis in links],
        linkPositions=[(0, 0, 0)] * n,
        linkOrientations=[(0, 0, 0, 1)] * n,
        linkInertialFramePositions=[(0, 0, 0)] * n,
        linkInertialFrameOrientations=[(0, 0, 0, 1)] * n,
        linkParentIndices=[0] * n,
        linkJointTypes=[pybullet.JOINT_FIXED] * n,
        linkJointAxis=[(0, 0, 1)] * n,
    )
    for link in range(-1, n):
        client.changeDynamics(
            uid, link, lateralFriction=friction, rollingFriction=0.003, spinningFriction=0.003
        )
    return uid
