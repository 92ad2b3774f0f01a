"""Compare's A/B/C labels: one square decal on an object's upward-facing flat patch.

MG-VQA's Compare bakes one label into each object's texture on a large enough
upward-facing patch, checked to lie in the camera frame and to be visible when
the object is seen alone. Here the objects are the catalog's primitives with
flat faces (boxes: six faces; cylinders: two caps). After the scene has settled,
`upward_patch` picks the face whose outward normal points most nearly up, and
`sim.world.World.attach_label` puts a decal there, its letter upright in the
top-down image. A sphere, a cylinder lying on its side and a box on its edge
have no upward flat patch and cannot carry a label.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

from sim.camera import CameraSpec, project_points
from sim.world import LabelPatch, World

LABEL_MAX_SIDE = 0.04  # m: the decal's side on a large face
LABEL_MIN_SIDE = 0.02  # m: a face that fits no larger square cannot carry a readable label
LABEL_FILL = 0.8  # the decal covers this share of the largest square the face holds
UPWARD_MAX_TILT_DEG = 30.0  # a face tilted more than this from horizontal is not "upward"
LABEL_SHAPES = ("box", "cylinder")  # the primitives with flat faces
LABEL_TEXTURES = "resources:textures/labels/"  # A.png, B.png and C.png: a black letter on white
LETTER_MIN_PIXELS = 20  # a label's letter, seen alone, shows at least this many pixels


@dataclass(frozen=True)
class Face:
    """A flat face of a primitive, in its link frame: outward normal, centre, and the
    side of the largest square it holds."""

    normal: tuple[float, float, float]
    centre: tuple[float, float, float]
    square: float


def flat_faces(shape: str, size: tuple[float, ...], scale: float = 1.0) -> list[Face]:
    """The flat faces of a box (half extents) or a cylinder (radius, height); none for
    a sphere."""
    s = [float(v) * scale for v in size]
    faces = []
    if shape == "box":
        for axis in range(3):
            others = [2 * s[i] for i in range(3) if i != axis]
            for sign in (1.0, -1.0):
                n = [0.0, 0.0, 0.0]
                n[axis] = sign
                centre = [0.0, 0.0, 0.0]
                centre[axis] = sign * s[axis]
                faces.append(Face(tuple(n), tuple(centre), min(others)))
    elif shape == "cylinder":
        radius, height = s
        for sign in (1.0, -1.0):
            faces.append(
                Face((0.0, 0.0, sign), (0.0, 0.0, sign * height / 2), radius * math.sqrt(2))
            )
    return faces


def largest_label(shape: str, size: tuple[float, ...], scale: float = 1.0) -> float:
    """The largest decal side any face of this primitive could carry (0 if none)."""
    squares = [f.square for f in flat_faces(shape, size, scale)]
    return min(LABEL_FILL * max(squares), LABEL_MAX_SIDE) if squares else 0.0


def upward_patch(
    world: World, key: str, up_in_image: tuple[float, float, float] = (0.0, 1.0, 0.0)
) -> LabelPatch | str:
    """Where `key`'s label goes as it lies now, or why it cannot carry one.

    The patch is on the face whose normal is nearest to straight up, if that face
    tilts at most `UPWARD_MAX_TILT_DEG` and holds a decal of at least
    `LABEL_MIN_SIDE`. The letter's up is `up_in_image` (the top-down camera's up
    vector) laid onto the face, so the letter reads upright in the model's image.
    """
    body = world.bodies[key]
    shape = body.asset.removeprefix("primitive:")
    if not body.asset.startswith("primitive:") or shape not in LABEL_SHAPES or not body.size:
        return f"{body.name}: no flat face to label"
    _, orientation = world.link_frame_pose(key)
    rotation = Rotation.from_quat(orientation)
    faces = flat_faces(shape, body.size, body.scale)
    ups = [rotation.apply(f.normal)[2] for f in faces]
    best = int(np.argmax(ups))
    face = faces[best]
    if ups[best] < math.cos(math.radians(UPWARD_MAX_TILT_DEG)):
        return f"{body.name}: no face turned up (tilted {math.degrees(math.acos(min(1.0, ups[best]))):.0f} deg)"
    side = min(LABEL_FILL * face.square, LABEL_MAX_SIDE)
    if side < LABEL_MIN_SIDE:
        return f"{body.name}: its upward face holds only a {100 * side:.1f} cm label"
    return LabelPatch(face.centre, _decal_rotation(rotation, face.normal, up_in_image), side)


def _decal_rotation(rotation: Rotation, normal, up_in_image) -> tuple[float, ...]:
    """The decal's rotation in the link frame: +z along the face's normal, +y as close
    to the image's up as the face allows."""
    z = np.asarray(normal, dtype=float)
    up_local = rotation.inv().apply(np.asarray(up_in_image, dtype=float))
    y = up_local - z * float(up_local @ z)
    if np.linalg.norm(y) < 1e-6:  # the face looks along the image's up: any in-face axis
        y = np.cross(z, [1.0, 0.0, 0.0] if abs(z[0]) < 0.9 else [0.0, 1.0, 0.0])
    y /= np.linalg.norm(y)
    x = np.cross(y, z)
    return tuple(float(v) for v in Rotation.from_matrix(np.column_stack([x, y, z])).as_quat())


def decal_in_frame(world: World, key: str, camera: CameraSpec) -> bool:
    """Whether the whole decal projects inside the camera's image, in front of it."""
    corners = world.decal_corners(key)
    if corners is None:
        return False
    pixels, depth = project_points(camera, corners)
    inside = (
        (pixels[:, 0] >= 0)
        & (pixels[:, 0] < camera.width)
        & (pixels[:, 1] >= 0)
        & (pixels[:, 1] < camera.height)
    )
    return bool(np.all(inside) and np.all(depth > 0))


def attach_labels(world: World, letters: Mapping[str, str], camera: CameraSpec) -> str | None:
    """Print each key's letter on a decal on its upward flat face, as it lies now; the
    reason one cannot carry its label (no upward face, too small, out of the image), or
    None when all three are on."""
    for key, letter in letters.items():
        patch = upward_patch(world, key, tuple(camera.up))
        if isinstance(patch, str):
            return patch
        world.attach_label(key, patch, f"{LABEL_TEXTURES}{letter}.png")
        if not decal_in_frame(world, key, camera):
            return f"{world.bodies[key].name}: its label lies outside the image"
    return None


def label_letter(texture: str | None) -> str | None:
    """The letter a label texture prints ("A" for resources:textures/labels/A.png), or None."""
    if not texture or not texture.startswith(LABEL_TEXTURES):
        return None
    return texture.removeprefix(LABEL_TEXTURES).removesuffix(".png")
