"""A Find answer's point, marked where the verifier looks: a crosshair in the model's
image and, in the 3D view, a dot where the model's camera sees that pixel with a pin
along its line of sight.

The point is in the pixels of the scene's stored camera (the model's image as the
generator rendered it, 1024 px). The 3D point comes from the restored top-down
view's depth at that pixel: the front-most surface the model sees there, often
the clutter that hides the target. Everything on the pixel's line of sight
projects to the same pixel, so the pin runs along it from a little above that
surface down to the table top: a target hidden under the pile lies on the pin.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from sim.camera import CameraSpec, pixel_ray
from sim.render import RenderedView
from sim.tabletop.world import TABLE_TOP_Z

PIN_ABOVE_M = 0.08  # how far the pin rises above the surface seen at the point


class ImageMarker(Protocol):
    def set_marker(self, point: tuple[float, float] | None) -> None: ...


class SceneMarker(Protocol):
    def set_marker(self, point, pin=None) -> None: ...


def find_point(answer: Any) -> tuple[float, float] | None:
    """A Find answer's point [u, v] (None for "no", for other answers, or a malformed one)."""
    point = answer.get("point") if isinstance(answer, dict) else None
    if not isinstance(point, list | tuple) or len(point) != 2:
        return None
    if not all(isinstance(c, int | float) and not isinstance(c, bool) for c in point):
        return None
    u, v = (float(c) for c in point)
    return (u, v) if math.isfinite(u) and math.isfinite(v) else None


def scaled_point(
    point: tuple[float, float], camera: CameraSpec, stored: CameraSpec | None
) -> tuple[float, float]:
    """`point` in the stored camera's pixels, in those of `camera` (the same view, resized)."""
    if stored is None or stored.width <= 0 or stored.height <= 0:
        return point
    return point[0] * camera.width / stored.width, point[1] * camera.height / stored.height


def line_of_sight(
    view: RenderedView, point: tuple[float, float], floor_z: float = TABLE_TOP_Z
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]] | None:
    """The surface point the view sees at image pixel `point` (from its depth), and the
    pin: the line of sight from `PIN_ABOVE_M` above it down to `floor_z` (or to the
    point, if that is lower). None when the pixel is outside the image."""
    u, v = point
    height, width = view.depth_m.shape
    col, row = math.floor(u), math.floor(v)
    if not (0 <= col < width and 0 <= row < height):
        return None
    camera = view.camera
    origin, direction = pixel_ray(camera, u, v)
    forward = np.asarray(camera.target, float) - np.asarray(camera.eye, float)
    forward /= np.linalg.norm(forward)
    along = float(view.depth_m[row, col]) / max(float(direction @ forward), 1e-9)
    hit = origin + direction * along
    down = along
    if direction[2] < -1e-9:
        down = max(along, (floor_z - origin[2]) / direction[2])
    return hit, (hit - direction * PIN_ABOVE_M, origin + direction * down)


def mark_answer_point(
    answer: Any,
    view: RenderedView | None,
    image: ImageMarker,
    viewport: SceneMarker,
    *,
    stored_camera: dict | None = None,
) -> tuple[float, float] | None:
    """Mark a Find answer's point in the model's image (`view`'s pixels) and in the 3D
    view; clear both for any other answer. Returns the point in `view`'s pixels."""
    point = find_point(answer)
    if point is None or view is None:
        image.set_marker(None)
        viewport.set_marker(None)
        return None
    stored = CameraSpec.from_dict(stored_camera) if stored_camera else None
    point = scaled_point(point, view.camera, stored)
    image.set_marker(point)
    sight = line_of_sight(view, point)
    if sight is None:
        viewport.set_marker(None)
    else:
        viewport.set_marker(sight[0], sight[1])
    return point
