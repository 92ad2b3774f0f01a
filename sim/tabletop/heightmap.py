"""The depth image as the grasp planner uses it: pixels lifted to 3D, and a height map.

`lift_pixels` turns pixels and their metric depth into world points with the
camera intrinsics; `height_map` max-pools the lifted image into small squares
around an object, remembering which body shows highest in each, so the planner
can ask what stands where its fingers would go.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.camera import CameraSpec, intrinsics, view_matrix
from sim.render import RenderedView

CELL = 0.0025  # metres: the height map's resolution


def lift_pixels(camera: CameraSpec, depth_m: np.ndarray, ys: np.ndarray, xs: np.ndarray):
    """World points (N, 3) of pixels (ys, xs) from metric depth and the intrinsics."""
    k = intrinsics(camera)
    d = depth_m[ys, xs].astype(float)
    cam = np.c_[
        (xs + 0.5 - k[0, 2]) / k[0, 0] * d,  # camera x: right
        -(ys + 0.5 - k[1, 2]) / k[1, 1] * d,  # camera y: up (image v runs down)
        -d,  # the camera looks down its -z axis
        np.ones_like(d),
    ]
    return (np.linalg.inv(view_matrix(camera)) @ cam.T).T[:, :3]


@dataclass(frozen=True)
class HeightMap:
    """The highest point the depth image shows in each CELL-sized square around the object,
    and the body (segmentation id) it belongs to."""

    origin: np.ndarray  # world x, y of cell (0, 0)'s corner
    height: np.ndarray  # (n, n) metres; -inf where the image shows nothing
    body: np.ndarray  # (n, n) segmentation id of the highest point

    def sample(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Heights and bodies at world points (..., 2); outside the map: -inf and -1."""
        ij = np.floor((xy - self.origin) / CELL).astype(int)
        n = self.height.shape[0]
        inside = np.all((ij >= 0) & (ij < n), axis=-1)
        ij = np.clip(ij, 0, n - 1)
        h = np.where(inside, self.height[ij[..., 0], ij[..., 1]], -np.inf)
        b = np.where(inside, self.body[ij[..., 0], ij[..., 1]], -1)
        return h, b


def height_map(view: RenderedView, centre_xy: np.ndarray, radius: float) -> HeightMap:
    """Max-pool the lifted depth image into CELL squares within `radius` of `centre_xy`."""
    camera = view.camera
    k = intrinsics(camera)
    # the pixels whose rays can land in the window: a generous box around the centre's pixel
    eye = np.asarray(camera.eye, float)
    near = max(float(view.depth_m.min()), 0.1)  # the nearest surface spreads the most pixels
    reach_px = int(math.ceil(radius * k[0, 0] / near)) + 2
    depth_mid = float(view.depth_m[camera.height // 2, camera.width // 2])  # looking down
    u0 = k[0, 0] * (centre_xy[0] - eye[0]) / depth_mid + k[0, 2]
    v0 = k[1, 2] - k[1, 1] * (centre_xy[1] - eye[1]) / depth_mid
    x0, x1 = max(0, int(u0) - reach_px), min(camera.width, int(u0) + reach_px)
    y0, y1 = max(0, int(v0) - reach_px), min(camera.height, int(v0) + reach_px)
    # a pixel or so per cell is enough: finer images are read at every other pixel
    stride = 2 if 2 * near / k[0, 0] < CELL else 1
    ys, xs = np.mgrid[y0:y1:stride, x0:x1:stride]
    ys, xs = ys.ravel(), xs.ravel()
    pts = lift_pixels(camera, view.depth_m, ys, xs)
    seg = view.segmentation[ys, xs]
    n = int(math.ceil(2 * radius / CELL))
    origin = np.asarray(centre_xy, float) - radius
    ij = np.floor((pts[:, :2] - origin) / CELL).astype(int)
    keep = np.all((ij >= 0) & (ij < n), axis=1)
    flat, z, seg = ij[keep, 0] * n + ij[keep, 1], pts[keep, 2], seg[keep]
    height = np.full(n * n, -np.inf)
    np.maximum.at(height, flat, z)
    body = np.full(n * n, -1, dtype=int)
    top = z >= height[flat]
    body[flat[top]] = seg[top]
    return HeightMap(origin, height.reshape(n, n), body.reshape(n, n))
