"""Fit to points: the tightest cuboid, aligned with a given yaw, around the lidar points
that belong to a 2D box.

The points taken are those in the 2D box's column of the panorama (their azimuth within
the box's columns, across the seam too), above the floor (a little over the cloud's 2nd
percentile of z) and under a height limit over it, and near the object: near the current
3D box when there is one, else the nearest cluster along the column. The box is the
smallest one with the given yaw around them. It is never empty or inverted (each side at
least `MIN_SIDE`); with fewer than `min_points` points it is refused (`FitError`, saying
how many there are), and the caller changes nothing.
"""

from __future__ import annotations

import math

import numpy as np

from annotation.jrdb.dataset import PANORAMA_WIDTH
from annotation.jrdb.panorama import project_to_panorama

MIN_POINTS = 10
MIN_SIDE = 0.05  # metres: no side of a fitted box is thinner
FLOOR_MARGIN = 0.08  # metres over the floor: floor points are not the object's
HEIGHT_LIMIT = 2.2  # metres over the floor
NEAR = 0.6  # metres: how far past the nearest points an object reaches, with no 3D box


class FitError(ValueError):
    """Too few points to fit a box: the message says how many there are."""


def column_points(
    points: np.ndarray, box_2d: tuple[float, ...], *, width: float = PANORAMA_WIDTH
) -> np.ndarray:
    """The points whose panorama column is inside the 2D box's [x, x + w] (mod width)."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    u, _v = project_to_panorama(points, int(width))
    x, w = box_2d[0], box_2d[2]
    inside = (u - x) % width <= w
    return points[inside]


def fit_box(
    points: np.ndarray,
    box_2d: tuple[float, ...],
    yaw: float,
    *,
    current: tuple[float, ...] | None = None,
    floor_z: float | None = None,
    height_limit: float = HEIGHT_LIMIT,
    min_points: int = MIN_POINTS,
    width: float = PANORAMA_WIDTH,
) -> tuple[float, ...]:
    """(cx, cy, cz, l, w, h, yaw): the tightest box with this yaw around the object's points
    (see the module's docstring). `floor_z` defaults to the cloud's floor."""
    cloud = np.asarray(points, dtype=float).reshape(-1, 3)
    if not math.isfinite(yaw):
        raise FitError(f"the yaw must be a finite angle, got {yaw}")
    if floor_z is None:
        floor_z = float(np.percentile(cloud[:, 2], 2)) if len(cloud) else 0.0
    chosen = column_points(cloud, box_2d, width=width)
    z = chosen[:, 2]
    chosen = chosen[(z > floor_z + FLOOR_MARGIN) & (z < floor_z + height_limit)]
    chosen = _near_object(chosen, current)
    if len(chosen) < min_points:
        raise FitError(
            f"only {len(chosen)} lidar points in the 2D box's column between the floor and "
            f"{height_limit:g} m over it (at least {min_points} are needed): nothing changed"
        )
    c, s = math.cos(yaw), math.sin(yaw)
    along = chosen[:, 0] * c + chosen[:, 1] * s  # the box's length axis
    across = -chosen[:, 0] * s + chosen[:, 1] * c
    lo = np.array([along.min(), across.min(), chosen[:, 2].min()])
    hi = np.array([along.max(), across.max(), chosen[:, 2].max()])
    size = np.maximum(hi - lo, MIN_SIDE)
    mid = (lo + hi) / 2
    cx, cy = mid[0] * c - mid[1] * s, mid[0] * s + mid[1] * c
    return (float(cx), float(cy), float(mid[2]), *(float(v) for v in size), float(yaw))


def _near_object(points: np.ndarray, current: tuple[float, ...] | None) -> np.ndarray:
    """The column's points that are the object's: within reach of the current 3D box's
    centre, or else the nearest cluster along the column."""
    if len(points) == 0:
        return points
    flat = np.hypot(points[:, 0], points[:, 1])
    if current is not None:
        reach = math.hypot(current[3], current[4]) / 2 + 0.5
        return points[np.hypot(points[:, 0] - current[0], points[:, 1] - current[1]) <= reach]
    order = np.sort(flat)
    start = order[min(MIN_POINTS // 2, len(order) - 1)]  # past a few stray returns
    return points[(flat >= start - NEAR / 2) & (flat <= start + NEAR)]
