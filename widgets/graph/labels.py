"""Where the scene graph's edge labels go: along their edge, clear of each other and of
the nodes and their captions.

Pure geometry in screen pixels (the labels keep their size at any zoom, so the
placement is redone after every zoom): each label tries spots along its edge's
curve, nearest the subject first (edges converging on a hub keep their labels
apart), and takes the first that overlaps neither a node, a caption nor a label
placed before it. A label with no free spot is left out; hovering its edge
tells its predicates.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

Point = tuple[float, float]
Rect = tuple[float, float, float, float]  # x0, y0, x1, y1

# Curve parameters tried, in order: 0.4 is the old fixed spot (nearer the subject).
SPOTS = (0.4, 0.32, 0.5, 0.25, 0.58, 0.66, 0.18, 0.74, 0.82)
GAP_PX = 2.0  # kept free around each label


@dataclass(frozen=True)
class LabelRequest:
    """One label: its edge's quadratic curve (subject end, control point, object end) and
    the label's rectangle relative to its anchor, all in screen pixels."""

    key: Hashable
    start: Point
    control: Point
    end: Point
    box: Rect  # the label's rectangle around its anchor point (x0, y0, x1, y1)


def curve_point(start: Point, control: Point, end: Point, t: float) -> Point:
    """The quadratic Bezier curve through `start` and `end` (shaped by `control`) at `t`."""
    s, m, e = (1 - t) ** 2, 2 * t * (1 - t), t**2
    return (
        s * start[0] + m * control[0] + e * end[0],
        s * start[1] + m * control[1] + e * end[1],
    )


def place_labels(
    requests: Sequence[LabelRequest], obstacles: Iterable[Rect] = ()
) -> dict[Hashable, float | None]:
    """For each label in turn, the first spot (curve parameter) where it overlaps no
    obstacle and no label placed before it; None where there is none."""
    taken = np.asarray(list(obstacles), dtype=float).reshape(-1, 4)
    out: dict[Hashable, float | None] = {}
    for request in requests:
        out[request.key] = None
        x0, y0, x1, y1 = request.box
        for t in SPOTS:
            px, py = curve_point(request.start, request.control, request.end, t)
            rect = (px + x0 - GAP_PX, py + y0 - GAP_PX, px + x1 + GAP_PX, py + y1 + GAP_PX)
            if not _overlaps(rect, taken):
                out[request.key] = t
                taken = np.vstack([taken, rect])
                break
    return out


def _overlaps(rect: Rect, others: np.ndarray) -> bool:
    if not len(others):
        return False
    x0, y0, x1, y1 = rect
    return bool(
        np.any(
            (others[:, 0] < x1) & (others[:, 2] > x0) & (others[:, 1] < y1) & (others[:, 3] > y0)
        )
    )
