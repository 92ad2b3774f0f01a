"""`find_object` from the image alone: the region at a point, grown on depth and colour.

What a model's `find_object` sees is the rendered RGB image and its depth, as a
camera-side segmentation model would; never the simulator's segmentation buffer. The
region at a pixel is the connected set of pixels reachable from it without crossing an
edge: a step in depth between neighbouring pixels (an object's border stands above what
is behind it) or a strong change of colour (two objects of one height side by side).
Pixels on an edge are given to the region they border when their depth agrees with it.
A region as large as a good part of the image is the table or the floor: no object.

`segment_at` takes arrays, not a world; `sim.tabletop.toolenv` calls it with the
agent camera's render.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

# A jump of more than this between neighbours is an edge, at 1024 pixels across; a
# coarser image spans more of a sloping surface per pixel, so the step scales with it.
DEPTH_STEP_M = 0.003
REFERENCE_WIDTH = 1024
COLOUR_STEP = 90  # summed |dR| + |dG| + |dB| between neighbours above this is an edge
BACKGROUND_SHARE = 0.2  # a region this large a share of the image is the table, no object
SEED_SEARCH_PX = 3  # a point on an edge is moved to the nearest non-edge pixel this close


class NoObject(ValueError):
    """No object at the point (the table, the background, or outside the image)."""


def _edges(rgb: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Pixels with a depth step or a strong colour change to a 4-neighbour."""
    colour = rgb.astype(np.int32)
    step_m = DEPTH_STEP_M * max(1.0, REFERENCE_WIDTH / depth.shape[1])
    edge = np.zeros(depth.shape, dtype=bool)
    for axis in (0, 1):
        dd = np.abs(np.diff(depth, axis=axis)) > step_m
        dc = np.abs(np.diff(colour, axis=axis)).sum(axis=2) > COLOUR_STEP
        step = dd | dc
        if axis == 0:
            edge[:-1, :] |= step
            edge[1:, :] |= step
        else:
            edge[:, :-1] |= step
            edge[:, 1:] |= step
    return edge


def segment_at(rgb: np.ndarray, depth: np.ndarray, point: tuple[int, int]) -> np.ndarray:
    """The mask (bool, H x W) of the region at `point` (u, v) of an RGB image and its
    metric depth; `NoObject` when the point is outside the image or on the background."""
    h, w = depth.shape
    u, v = int(point[0]), int(point[1])
    if not (0 <= u < w and 0 <= v < h):
        raise NoObject(f"point ({u}, {v}) is outside the {w}x{h} image")
    edge = _edges(rgb, depth)
    labels, _ = ndimage.label(~edge)
    seed = labels[v, u]
    if seed == 0:  # on an edge: the nearest region pixel close by
        r = SEED_SEARCH_PX
        y0, y1, x0, x1 = max(0, v - r), min(h, v + r + 1), max(0, u - r), min(w, u + r + 1)
        ys, xs = np.nonzero(labels[y0:y1, x0:x1])
        if len(ys) == 0:
            raise NoObject(f"no object at ({u}, {v}): only edges around it")
        k = int(np.argmin((ys + y0 - v) ** 2 + (xs + x0 - u) ** 2))
        seed = labels[ys[k] + y0, xs[k] + x0]
    region = labels == seed
    if region.sum() > BACKGROUND_SHARE * h * w:
        raise NoObject(f"no object at ({u}, {v}): that is the table")
    # edge pixels around the region that lie at its depth belong to it (its rim)
    rim = ndimage.binary_dilation(region) & edge
    if rim.any():
        level = np.median(depth[region])
        spread = max(DEPTH_STEP_M * 4, float(np.percentile(np.abs(depth[region] - level), 95)))
        region |= rim & (np.abs(depth - level) <= spread)
    return region


def iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two masks (0 when both are empty)."""
    union = np.logical_or(a, b).sum()
    return float(np.logical_and(a, b).sum() / union) if union else 0.0
