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
LIFT_BLOCK = 8192  # points lifted by one matrix product (see `lift_depths`)


def lift_pixels(camera: CameraSpec, depth_m: np.ndarray, ys: np.ndarray, xs: np.ndarray):
    """World points (N, 3) of pixels (ys, xs) from metric depth and the intrinsics."""
    return lift_depths(camera, depth_m[ys, xs].astype(float), ys, xs)


def lift_depths(camera: CameraSpec, d: np.ndarray, ys: np.ndarray, xs: np.ndarray):
    """World points (N, 3) of the depths `d` (any shape, N values) at pixel rows `ys` and
    columns `xs` (arrays that broadcast to `d`'s shape: a window's rows and columns)."""
    k = intrinsics(camera)
    cam = np.empty((4, *d.shape))  # homogeneous camera points, one a column
    cam[0] = (xs + 0.5 - k[0, 2]) / k[0, 0] * d  # camera x: right
    cam[1] = -(ys + 0.5 - k[1, 2]) / k[1, 1] * d  # camera y: up (image v runs down)
    cam[2] = -d  # the camera looks down its -z axis
    cam[3] = 1.0
    cam = cam.reshape(4, -1)
    world = np.empty_like(cam)
    to_world = np.linalg.inv(view_matrix(camera))
    # in blocks small enough that the BLAS multiplies them on this thread: a product over
    # a whole window (tens of thousands of points) it splits across threads, which cost
    # several times the work and, on a busy machine, ten times the wall clock in waiting;
    # each column comes out the same either way
    for i in range(0, cam.shape[1], LIFT_BLOCK):
        np.matmul(to_world, cam[:, i : i + LIFT_BLOCK], out=world[:, i : i + LIFT_BLOCK])
    return world.T[:, :3]


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
    rows, cols = slice(y0, y1, stride), slice(x0, x1, stride)
    ys, xs = np.arange(y0, y1, stride)[:, None], np.arange(x0, x1, stride)[None, :]
    pts = lift_depths(camera, view.depth_m[rows, cols].astype(float), ys, xs)
    seg = view.segmentation[rows, cols].ravel()
    n = int(math.ceil(2 * radius / CELL))
    origin = np.asarray(centre_xy, float) - radius
    i = np.floor((pts[:, 0] - origin[0]) / CELL).astype(int)
    j = np.floor((pts[:, 1] - origin[1]) / CELL).astype(int)
    keep = (i >= 0) & (i < n) & (j >= 0) & (j < n)
    flat, z, seg = i[keep] * n + j[keep], pts[keep, 2], seg[keep]
    height = np.full(n * n, -np.inf)
    np.maximum.at(height, flat, z)
    body = np.full(n * n, -1, dtype=int)
    top = z >= height[flat]
    body[flat[top]] = seg[top]
    return HeightMap(origin, height.reshape(n, n), body.reshape(n, n))
