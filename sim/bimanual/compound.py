"""Compound rigid bodies: several boxes and cylinders, each with its own local offset and
orientation, built as one PyBullet body.

PyBullet takes at most 16 shapes per shape array (it silently drops the rest of a
collision array and crashes on a longer visual one), so the first 16 parts make the
base and every further 16 a link fixed at the base's origin. The body's frame is the
parts' frame and its centre of mass (every link's inertial frame sits at the origin),
so `getBasePositionAndOrientation` gives the frame the parts were placed in.

A part is ("box", half extents, offset[, orientation]), ("cylinder", (radius, length),
offset[, orientation]) or ("prism", (radius to its flat faces, half height, sides),
offset[, orientation]): a regular prism round the part's z axis as one convex-hull mesh,
its own fixed link. A flat-sided body built from overlapping boxes touches the table
with every box; as one hull it is one shape (three bottles so built stepped at 2.6x
real time, as hulls at 7.6x).
"""

from __future__ import annotations

import math

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


def prism_mesh(radius: float, half_height: float, sides: int) -> tuple[list, list]:
    """Vertices and triangle indices of a regular prism round z, `radius` to its flat faces
    (a face looks along +x; along -x too when `sides` is even)."""
    sides = int(sides)
    corner = radius / math.cos(math.pi / sides)
    ring = [
        (
            corner * math.cos(2 * math.pi * (i + 0.5) / sides),
            corner * math.sin(2 * math.pi * (i + 0.5) / sides),
        )
        for i in range(sides)
    ]
    vertices = [(x, y, z) for z in (-half_height, half_height) for x, y in ring]
    indices: list[int] = []
    for i in range(sides):
        j = (i + 1) % sides
        indices += [i, j, sides + j, i, sides + j, sides + i]  # the side faces
    for i in range(1, sides - 1):
        indices += [0, i + 1, i, sides, sides + i, sides + i + 1]  # bottom and top fans
    return vertices, indices


def prism_shapes(client, part: tuple, colour) -> tuple[int, int]:
    """(collision, visual) shapes of one "prism" part, placed by its offset and turn."""
    vertices, indices = prism_mesh(*part[1])
    frame = tuple(part[2])
    turn = tuple(part[3]) if len(part) > 3 else (0.0, 0.0, 0.0, 1.0)
    col = client.createCollisionShape(
        pybullet.GEOM_MESH,
        vertices=vertices,
        collisionFramePosition=frame,
        collisionFrameOrientation=turn,
    )
    vis = client.createVisualShape(
        pybullet.GEOM_MESH,
        vertices=vertices,
        indices=indices,
        rgbaColor=colour,
        visualFramePosition=frame,
        visualFrameOrientation=turn,
    )
    return col, vis


def build_compound(
    client, parts, position, orientation, rgba, mass, friction, part_rgba=None
) -> int:
    """The body's uid; `mass` is shared among base and links by their number of parts."""
    colours = list(part_rgba) if part_rgba is not None else [rgba] * len(parts)
    plain = [i for i, part in enumerate(parts) if part[0] != "prism"]
    hulls = [i for i, part in enumerate(parts) if part[0] == "prism"]
    groups = [plain[i : i + SHAPES_PER_LINK] for i in range(0, len(plain), SHAPES_PER_LINK)]
    shape_ids = [
        shape_arrays(client, [parts[i] for i in g], [colours[i] for i in g]) for g in groups
    ]
    shape_ids += [prism_shapes(client, parts[i], colours[i]) for i in hulls]
    groups += [[i] for i in hulls]
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
