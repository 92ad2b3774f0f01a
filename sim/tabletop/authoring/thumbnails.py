"""Small pictures of catalog objects for the scene editor's catalog panel.

Each object is spawned alone in one shared world (no floor, no table) at its mid
scale and rest orientation, framed on its bounding box by an oblique camera, and
rendered with the TinyRenderer (no OpenGL needed, so this runs off the GUI thread
or in a worker process). Pixels the object does not cover become a plain light
background. The picture is rendered at twice the size and averaged down, so edges
are smooth at small sizes.

A cache keyed by `thumbnail_cache_key` re-renders only entries that changed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Iterable, Iterator

import numpy as np

from sim.camera import CameraSpec, corners, pixel_ray
from sim.render import render
from sim.tabletop.catalog import CatalogEntry
from sim.tabletop.scenes import SpawnSpec, spawn
from sim.world import World

# Bump when the pictures change for reasons the entry does not show (camera, light, colours).
THUMBNAIL_VERSION = 1
BACKGROUND = (236, 238, 242)  # light grey-blue: white and pale objects still stand out
AZIMUTH_DEG = 35.0  # from +x, +y: shows the mug's handle and the domino's pips at rest yaw
ELEVATION_DEG = 30.0
FOV_DEG = 30.0
FILL = 0.86  # share of the picture's width or height the object's bounding box spans
SUPERSAMPLE = 2
_KEY = "thumbnail"

__all__ = [
    "BACKGROUND",
    "THUMBNAIL_VERSION",
    "fit_to_silhouette",
    "iter_thumbnails",
    "render_thumbnails",
    "thumbnail_cache_key",
    "thumbnail_camera",
]


def thumbnail_cache_key(entry: CatalogEntry, size: int = 96) -> str:
    """Changes whenever the entry, the picture size or the way pictures are made changes."""
    payload = json.dumps(
        {"entry": entry.to_dict(), "size": size, "version": THUMBNAIL_VERSION}, sort_keys=True
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:20]


def thumbnail_camera(
    aabb_min,
    aabb_max,
    size: int,
    *,
    azimuth_deg: float = AZIMUTH_DEG,
    elevation_deg: float = ELEVATION_DEG,
    fov_deg: float = FOV_DEG,
    fill: float = FILL,
) -> CameraSpec:
    """A square camera looking down at the box from an oblique angle, the box filling `fill`.

    The box's corners are measured along the camera's right and up axes; the camera
    aims at the middle of that projected extent and stands back far enough that the
    nearest corners still fit the field of view.
    """
    lo, hi = np.asarray(aabb_min, float), np.asarray(aabb_max, float)
    az, el = math.radians(azimuth_deg), math.radians(elevation_deg)
    back = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
    world_up = np.array([0.0, 0.0, 1.0])
    right = np.cross(-back, world_up)
    right /= np.linalg.norm(right)
    up = np.cross(right, -back)
    pts = corners(lo, hi)
    centre = (lo + hi) / 2
    rel = pts - centre
    xs, ys, zs = rel @ right, rel @ up, rel @ back
    # aim at the middle of the projected extent, so a lopsided outline is centred too
    target = centre + right * (xs.max() + xs.min()) / 2 + up * (ys.max() + ys.min()) / 2
    # a corner at (x, y) across and z towards the camera from the target fits when
    # max(|x|, |y|) / (distance - z) <= fill * tan(fov / 2)
    across = np.maximum(
        np.abs(xs - (xs.max() + xs.min()) / 2), np.abs(ys - (ys.max() + ys.min()) / 2)
    )
    tan_fill = fill * math.tan(math.radians(fov_deg) / 2)
    distance = max(float((across / tan_fill + zs).max()), 2 * float(zs.max()) + 1e-3)
    eye = target + back * distance
    depth = float(np.linalg.norm(hi - lo))
    near = max(1e-3, distance - zs.max() - 0.5 * depth)
    return CameraSpec(
        size,
        size,
        fov_deg,
        tuple(float(v) for v in eye),
        tuple(float(v) for v in target),
        (0.0, 0.0, 1.0),
        near=near,
        far=distance + depth + 0.1,
        name="thumbnail",
    )


def fit_to_silhouette(camera: CameraSpec, mask: np.ndarray, *, fill: float = FILL) -> CameraSpec:
    """The camera turned towards the middle of the mask's pixel box and zoomed (never out)
    until that box spans `fill` of the picture: a ball fills the frame as a box does.

    `mask` is the object's pixels in `camera`'s image; an empty mask, or one cut off by
    the image's edge, leaves the camera as it is.
    """
    rows, cols = np.nonzero(mask)
    h, w = mask.shape
    if rows.size == 0 or rows.min() == 0 or cols.min() == 0 or rows.max() == h - 1:
        return camera
    if cols.max() == w - 1:
        return camera
    u = (cols.min() + cols.max() + 1) / 2
    v = (rows.min() + rows.max() + 1) / 2
    half_px = max(cols.max() + 1 - cols.min(), rows.max() + 1 - rows.min()) / 2
    ratio = min(1.0, half_px / (h / 2) / fill)
    eye, direction = pixel_ray(camera, u, v)
    reach = float(np.linalg.norm(np.asarray(camera.target) - eye))
    fov = math.degrees(2 * math.atan(math.tan(math.radians(camera.fov_deg) / 2) * ratio))
    target = tuple(float(x) for x in eye + direction * reach)
    return dataclasses.replace(camera, fov_deg=fov, target=target)


def _picture(world: World, entry: CatalogEntry, size: int) -> np.ndarray:
    scale = sum(entry.scale_range) / 2
    spawn(world, SpawnSpec(entry, scale, (0.0, 0.0, 0.0), 0.0, _KEY))
    try:
        # PyBullet's box is the collision shape's, a collision margin wider than the
        # mesh: keep its centre, take the catalog's measured size
        lo, hi = world.aabb(_KEY)
        half = np.asarray(entry.extent(scale)) / 2
        boxed = thumbnail_camera((lo + hi) / 2 - half, (lo + hi) / 2 + half, size)
        # a quick look at the final size finds the silhouette; the picture is then
        # taken at twice the size with the camera fitted to it
        probe = render(world, boxed).segmentation >= 0
        camera = fit_to_silhouette(boxed, probe).with_size(size * SUPERSAMPLE, size * SUPERSAMPLE)
        view = render(world, camera)
    finally:
        world.remove(_KEY)
    rgb = view.rgb.copy()
    rgb[view.segmentation < 0] = BACKGROUND
    k = SUPERSAMPLE
    return rgb.reshape(size, k, size, k, 3).mean(axis=(1, 3)).round().astype(np.uint8)


def iter_thumbnails(
    entries: Iterable[CatalogEntry], size: int = 96
) -> Iterator[tuple[str, np.ndarray]]:
    """(entry name, (size, size, 3) uint8 RGB) one entry at a time, so a caller can show
    each picture as soon as it is made (or stop early)."""
    if size < 1:
        raise ValueError(f"thumbnail size must be positive, got {size}")
    world = World()
    try:
        world.remove("floor")  # nothing but the object: the background is filled in after
        for entry in entries:
            yield entry.name, _picture(world, entry, size)
    finally:
        world.close()


def render_thumbnails(entries: Iterable[CatalogEntry], size: int = 96) -> dict[str, np.ndarray]:
    """Entry name -> (size, size, 3) uint8 RGB picture of the object alone."""
    return dict(iter_thumbnails(entries, size))
