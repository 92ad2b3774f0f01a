"""Pinhole camera maths as pure numpy functions (OpenGL conventions, Z up).

PyBullet takes 4x4 matrices as 16 floats in column-major order; `to_bullet`
converts. Pixel (u, v) has its origin at the image's top-left corner, u to
the right and v down; pixel centres are at half-integers.
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass, field

import numpy as np


@dataclass(frozen=True)
class CameraSpec:
    """Everything needed to reproduce a rendered view."""

    width: int
    height: int
    fov_deg: float  # vertical field of view
    eye: tuple[float, float, float]
    target: tuple[float, float, float]
    up: tuple[float, float, float] = (0.0, 1.0, 0.0)
    near: float = 0.05
    far: float = 5.0
    name: str = field(default="camera", compare=False)

    @property
    def aspect(self) -> float:
        return self.width / self.height

    def with_size(self, width: int, height: int) -> CameraSpec:
        return CameraSpec(
            width,
            height,
            self.fov_deg,
            self.eye,
            self.target,
            self.up,
            self.near,
            self.far,
            self.name,
        )

    def as_dict(self) -> dict:
        d = asdict(self)
        for key in ("eye", "target", "up"):
            d[key] = list(d[key])
        return d

    @classmethod
    def from_dict(cls, d: dict) -> CameraSpec:
        return cls(
            int(d["width"]),
            int(d["height"]),
            float(d["fov_deg"]),
            tuple(d["eye"]),
            tuple(d["target"]),
            tuple(d.get("up", (0, 1, 0))),
            float(d.get("near", 0.05)),
            float(d.get("far", 5.0)),
            d.get("name", "camera"),
        )


def look_at(eye, target, up) -> np.ndarray:
    """World -> camera (view) matrix, camera looking down its -z axis."""
    eye, target, up = (np.asarray(v, dtype=float) for v in (eye, target, up))
    forward = target - eye
    forward /= np.linalg.norm(forward)
    side = np.cross(forward, up)
    norm = np.linalg.norm(side)
    if norm < 1e-9:
        raise ValueError("camera up vector is parallel to the viewing direction")
    side /= norm
    true_up = np.cross(side, forward)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = side, true_up, -forward
    m[:3, 3] = -m[:3, :3] @ eye
    return m


def frustum(
    left: float, right: float, bottom: float, top: float, near: float, far: float
) -> np.ndarray:
    m = np.zeros((4, 4))
    m[0, 0] = 2 * near / (right - left)
    m[1, 1] = 2 * near / (top - bottom)
    m[0, 2] = (right + left) / (right - left)
    m[1, 2] = (top + bottom) / (top - bottom)
    m[2, 2] = -(far + near) / (far - near)
    m[2, 3] = -2 * far * near / (far - near)
    m[3, 2] = -1.0
    return m


def _half_extents(spec: CameraSpec) -> tuple[float, float]:
    top = spec.near * math.tan(math.radians(spec.fov_deg) / 2)
    return top * spec.aspect, top


def view_matrix(spec: CameraSpec) -> np.ndarray:
    """The camera's view matrix, read-only: made once per camera (projecting points asks
    for it thousands of times while a scene settles)."""
    try:
        return _view_matrix(spec)
    except TypeError:  # a camera built with lists: not hashable, not cached
        return look_at(spec.eye, spec.target, spec.up)


@functools.lru_cache(maxsize=64)
def _view_matrix(spec: CameraSpec) -> np.ndarray:
    m = look_at(spec.eye, spec.target, spec.up)
    m.flags.writeable = False
    return m


def projection_matrix(spec: CameraSpec) -> np.ndarray:
    right, top = _half_extents(spec)
    return frustum(-right, right, -top, top, spec.near, spec.far)


def crop_projection(spec: CameraSpec, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """Projection of the pixel window [x0, x1) x [y0, y1) of `spec`'s image.

    Rendering it at (x1 - x0) x (y1 - y0) pixels gives exactly those pixels of
    the full image (same pixel centres), at a fraction of the cost.
    """
    if not (0 <= x0 < x1 <= spec.width and 0 <= y0 < y1 <= spec.height):
        raise ValueError(f"crop window {(x0, y0, x1, y1)} outside {spec.width}x{spec.height}")
    right, top = _half_extents(spec)
    left_c = -right + 2 * right * x0 / spec.width
    right_c = -right + 2 * right * x1 / spec.width
    top_c = top - 2 * top * y0 / spec.height
    bottom_c = top - 2 * top * y1 / spec.height
    return frustum(left_c, right_c, bottom_c, top_c, spec.near, spec.far)


def to_bullet(m: np.ndarray) -> list[float]:
    """A 4x4 matrix as PyBullet wants it: 16 floats, column-major."""
    return [float(x) for x in np.asarray(m).T.reshape(16)]


def intrinsics(spec: CameraSpec) -> np.ndarray:
    """3x3 pinhole matrix K for pixel coordinates (origin top-left, v down)."""
    f = spec.height / (2 * math.tan(math.radians(spec.fov_deg) / 2))
    return np.array([[f, 0, spec.width / 2], [0, f, spec.height / 2], [0, 0, 1.0]])


def project_points(spec: CameraSpec, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World points (N, 3) -> pixel coordinates (N, 2) and depth in front of the camera (N,)."""
    pts = np.atleast_2d(np.asarray(points, dtype=float))
    cam = (view_matrix(spec) @ np.c_[pts, np.ones(len(pts))].T).T[:, :3]
    depth = -cam[:, 2]
    k = intrinsics(spec)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = k[0, 0] * cam[:, 0] / depth + k[0, 2]
        v = -k[1, 1] * cam[:, 1] / depth + k[1, 2]
    return np.c_[u, v], depth


def pixel_box(
    spec: CameraSpec, points: np.ndarray, pad: int = 2
) -> tuple[int, int, int, int] | None:
    """The pixel window [x0, x1) x [y0, y1) covering the projected points, clipped; None if off-image."""
    uv, depth = project_points(spec, points)
    if np.any(depth <= 0):
        return (0, 0, spec.width, spec.height)  # straddles the camera plane: be safe
    x0 = max(0, int(math.floor(uv[:, 0].min())) - pad)
    y0 = max(0, int(math.floor(uv[:, 1].min())) - pad)
    x1 = min(spec.width, int(math.ceil(uv[:, 0].max())) + pad)
    y1 = min(spec.height, int(math.ceil(uv[:, 1].max())) + pad)
    if x0 >= x1 or y0 >= y1:
        return None
    return x0, y0, x1, y1


def pixel_ray(spec: CameraSpec, u: float, v: float) -> tuple[np.ndarray, np.ndarray]:
    """World-space origin and unit direction of the ray through pixel (u, v)."""
    k = intrinsics(spec)
    d_cam = np.array([(u - k[0, 2]) / k[0, 0], -(v - k[1, 2]) / k[1, 1], -1.0])
    view = view_matrix(spec)
    rot = view[:3, :3].T
    direction = rot @ d_cam
    return np.asarray(spec.eye, dtype=float), direction / np.linalg.norm(direction)


def depth_to_metres(buffer: np.ndarray, near: float, far: float) -> np.ndarray:
    """PyBullet's non-linear depth buffer (0..1) -> distance along the view axis in metres."""
    return far * near / (far - (far - near) * np.asarray(buffer, dtype=float))


def corners(aabb_min, aabb_max) -> np.ndarray:
    lo, hi = np.asarray(aabb_min, float), np.asarray(aabb_max, float)
    return np.array(
        [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    )
