"""Where label-frame points land on JRDB's stitched panorama.

The stitched image is a cylinder around the label frame's z axis: forward (+x) at
the centre column, left (+y) towards smaller columns, the seam straight behind. A
column is an azimuth (`PANORAMA_WIDTH` columns to the full turn), a row a height over
the horizontal distance (`PANORAMA_FOCAL_PX` pixels to the metre at one metre,
`PANORAMA_HORIZON_ROW` level with the label frame's origin). A box behind the robot
runs past the seam: its x is in [0, width), its x + w beyond width.

Pure (numpy only). The image's size and where the images live are the folder layout's
(`annotation.jrdb.dataset`); a 3D box's corners are `annotation.jrdb.geometry.box_corners`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from annotation.jrdb.dataset import PANORAMA_WIDTH
from annotation.jrdb.geometry import box_corners

PANORAMA_FOCAL_PX = 480.0
PANORAMA_HORIZON_ROW = 210.0


class _Box(NamedTuple):
    """A (cx, cy, cz, l, w, h, rot_z) tuple under the names `box_corners` reads."""

    cx: float
    cy: float
    cz: float
    l: float  # noqa: E741 - JRDB's field name
    w: float
    h: float
    rot_z: float


def project_to_panorama(
    points: np.ndarray, width: int = PANORAMA_WIDTH
) -> tuple[np.ndarray, np.ndarray]:
    """Columns and rows of label-frame points on the stitched cylinder (columns in [0, width))."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    azimuth = np.arctan2(points[:, 1], points[:, 0])
    rho = np.maximum(np.hypot(points[:, 0], points[:, 1]), 1e-6)
    u = np.mod(width / 2 - azimuth * width / (2 * math.pi), width)
    v = PANORAMA_HORIZON_ROW - PANORAMA_FOCAL_PX * points[:, 2] / rho
    return u, v


def panorama_box(box: tuple[float, ...], width: int = PANORAMA_WIDTH) -> tuple[float, ...]:
    """The [x, y, w, h] panorama box around a 3D box (cx, cy, cz, l, w, h, rot_z); x is in
    [0, width), x + w may pass it."""
    corners = box_corners(_Box(*box[:7]))  # their order does not matter: only extremes
    u, v = project_to_panorama(corners, width)
    centre_u = project_to_panorama(np.array(box[:3]), width)[0][0]
    # unwrap the corners around the centre's column so that a box on the seam stays whole
    du = (u - centre_u + width / 2) % width - width / 2
    x0, x1 = centre_u + du.min(), centre_u + du.max()
    if x0 < 0:
        x0, x1 = x0 + width, x1 + width
    return (float(x0), float(v.min()), float(x1 - x0), float(v.max() - v.min()))
