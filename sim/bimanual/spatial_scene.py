"""Foundational spatial grounding items as scenes in the dual-arm world, seen by the head camera.

An item (`annotation.bimanual.spatial_grounding.GroundingItem`) is a set of named objects at table
positions in the RoboTwin frame. Here they become bodies of a `DualArmWorld`: the blocks
through `sim.bimanual.tasks.add_block` (5 cm cubes coloured as their names say), the
cluttered setting's distractors as simple primitives sized and coloured like the things
they stand for (a white mug, a pale teal bowl, a brown bread roll, a dark grey tray, a
yellow sponge; real meshes are not used). Every object stands on the table top at the
item's (x, y), axis-aligned, so the scene is a pure function of the item and images can be
re-rendered from the stored item at any size.

The head camera looks down at the table from behind the arms' bases: image left is the
robot's left (x < 0), and both arms are in view at the image's lower corners.

`SpatialSceneRenderer` builds the world once and moves the objects for each item (the
arms' home IK takes longer than a render); `build_scene` adds an item's objects to a world
of the caller's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from annotation.bimanual.spatial_grounding import DISTRACTORS, TARGETS, GroundingItem
from sim.bimanual.cameras import camera
from sim.bimanual.tasks import BLOCK_HALF, add_block
from sim.bimanual.world import TABLE_TOP_Z, DualArmWorld
from sim.camera import CameraSpec
from sim.render import RenderedView, render

DEFAULT_IMAGE_WIDTH = 640  # the head camera's own size (640 x 480)
CAMERA_NAME = "head"
BLOCKS = tuple(dict.fromkeys(name for names in TARGETS.values() for name in names))
ALL_OBJECTS = BLOCKS + DISTRACTORS
_PARK = (0.0, -6.0, 0.5)  # behind the camera and beyond its far plane: never drawn


@dataclass(frozen=True)
class ObjectShape:
    """A distractor as one primitive: box half extents or cylinder (radius, height)."""

    shape: str
    size: tuple[float, ...]
    rgba: tuple[float, float, float, float]
    label: str

    @property
    def half_height(self) -> float:
        return self.size[2] if self.shape == "box" else self.size[1] / 2

    @property
    def footprint_radius(self) -> float:
        """Radius of the circle around its footprint on the table."""
        return math.hypot(self.size[0], self.size[1]) if self.shape == "box" else self.size[0]


DISTRACTOR_SHAPES: dict[str, ObjectShape] = {
    "mug": ObjectShape("cylinder", (0.04, 0.095), (0.96, 0.96, 0.94, 1.0), "a white mug"),
    "bowl": ObjectShape("cylinder", (0.065, 0.05), (0.55, 0.80, 0.82, 1.0), "a pale teal bowl"),
    "bread": ObjectShape("box", (0.06, 0.035, 0.03), (0.62, 0.38, 0.16, 1.0), "a bread roll"),
    "tray": ObjectShape("box", (0.09, 0.06, 0.008), (0.22, 0.23, 0.26, 1.0), "a dark grey tray"),
    "sponge": ObjectShape("box", (0.045, 0.03, 0.02), (0.98, 0.86, 0.30, 1.0), "a yellow sponge"),
}


def add_object(world: DualArmWorld, name: str, xy: tuple[float, float]):
    """Add one of the items' objects, standing on the table at `xy`; returns its BodyInfo."""
    if name.endswith("_block"):
        return add_block(world, name, xy)
    try:
        spec = DISTRACTOR_SHAPES[name]
    except KeyError:
        raise ValueError(f"unknown grounding object {name!r}") from None
    return world.add_primitive(
        name,
        spec.shape,
        spec.size,
        (xy[0], xy[1], TABLE_TOP_Z + spec.half_height),
        rgba=spec.rgba,
        mass=0.1,
        name=spec.label,
        category=name,
    )


def resting_position(name: str, xy: tuple[float, float]) -> tuple[float, float, float]:
    """Where an object's centre is when it stands on the table at `xy`."""
    half = BLOCK_HALF if name.endswith("_block") else DISTRACTOR_SHAPES[name].half_height
    return (float(xy[0]), float(xy[1]), TABLE_TOP_Z + half)


def build_scene(world: DualArmWorld, item: GroundingItem) -> None:
    """Add every object of `item` to `world` at its position."""
    for name, (x, y, _z) in item.objects.items():
        add_object(world, name, (x, y))


def head_camera(width: int = DEFAULT_IMAGE_WIDTH) -> CameraSpec:
    """The head camera at `width` pixels wide (4:3)."""
    return camera(CAMERA_NAME, width)


class SpatialSceneRenderer:
    """One dual-arm world that shows item after item from the head camera.

    Every object any item can hold is added once; `show(item)` puts the item's objects
    at their places and the others out of sight. Nothing is simulated: the objects stand
    exactly where the item says, as a still scene.
    """

    def __init__(self, width: int = DEFAULT_IMAGE_WIDTH) -> None:
        if width < 16:
            raise ValueError(f"image width must be at least 16 pixels, not {width}")
        self.world = DualArmWorld()
        self.camera = head_camera(width)
        for k, name in enumerate(ALL_OBJECTS):
            add_object(self.world, name, (0.0, 0.0))
            self._park(name, k)

    def _park(self, name: str, k: int) -> None:
        x, y, z = _PARK
        self.world.client.resetBasePositionAndOrientation(
            self.world.bodies[name].uid, (x + 0.3 * k, y, z), (0, 0, 0, 1)
        )

    def show(self, item: GroundingItem) -> None:
        """Put `item`'s objects on the table and every other object out of sight."""
        unknown = set(item.objects) - set(ALL_OBJECTS)
        if unknown:
            raise ValueError(f"unknown grounding object {sorted(unknown)[0]!r}")
        client = self.world.client
        for k, name in enumerate(ALL_OBJECTS):
            if name in item.objects:
                x, y, _z = item.objects[name]
                position = resting_position(name, (x, y))
                client.resetBasePositionAndOrientation(
                    self.world.bodies[name].uid, position, (0, 0, 0, 1)
                )
            else:
                self._park(name, k)

    def render(self, item: GroundingItem) -> RenderedView:
        """The head camera's view of `item` (RGB, depth, segmentation)."""
        self.show(item)
        return render(self.world, self.camera)

    def image(self, item: GroundingItem) -> np.ndarray:
        """The head camera's RGB image of `item`, (H, W, 3) uint8."""
        return self.render(item).rgb

    def object_pixels(self, view: RenderedView, names: Iterable[str]) -> dict[str, int]:
        """Pixels of each named object in a rendered view."""
        seg = view.segmentation
        return {n: int(np.count_nonzero(seg == self.world.bodies[n].uid)) for n in names}

    def close(self) -> None:
        self.world.close()

    def __enter__(self) -> SpatialSceneRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
