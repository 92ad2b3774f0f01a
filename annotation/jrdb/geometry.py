"""Geometric relations between entities of a JRDB frame (JRDB-Reasoning, Table 1).

Everything here works in the JRDB lidar box frame: metres, x forward, y left,
z up, yaws in radians measured counter-clockwise from +x. A *reference* is a
point with a heading: the robot (at the origin, facing +x, unless told
otherwise) or a person (the centre of their 3D box, facing the box's
``rot_z``). A *subject* is any point: a person's box centre or an object's
point-cloud centroid.

A relation says where the subject lies as seen from the reference:

* ``direction``: one of eight angle sectors of the heading-relative angle
  (the paper's asymmetric table, edges kept exactly as printed);
* ``vertical``: ``"up"`` when the subject's centre is at least as high as the
  reference's, ``"down"`` otherwise; with the sectors this gives 16 directions;
* ``distance_bin``: one of five bins of the distance in metres.

The exact rules, edge by edge, and worked examples are in ``docs/relations.md``.
This module is pure (numpy only); the point-cloud distances that need a KD-tree
live in ``sim/jrdb/relations.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import numpy as np

#: The eight angle sectors, counter-clockwise from straight ahead.
SECTORS: tuple[str, ...] = (
    "front",
    "front-left",
    "left",
    "back-left",
    "back",
    "back-right",
    "right",
    "front-right",
)

#: Inclusive/exclusive sector limits in degrees, as printed in the paper's Table 1.
#: Each row: (sector, low, low_included, high, high_included); "back" is the rest
#: (above 145 or below -145 degrees, both signs of 180 included).
SECTOR_LIMITS_DEG: tuple[tuple[str, float, bool, float, bool], ...] = (
    ("front", -30.0, True, 30.0, True),
    ("front-left", 30.0, False, 45.0, True),
    ("left", 45.0, False, 135.0, True),
    ("back-left", 135.0, False, 145.0, True),
    ("front-right", -45.0, True, -30.0, False),
    ("right", -135.0, True, -45.0, False),
    ("back-right", -145.0, True, -135.0, False),
)

VERTICALS: tuple[str, ...] = ("up", "down")

#: Distance bins, nearest first; bin i covers [edge[i-1], edge[i]) in metres.
DISTANCE_BINS: tuple[str, ...] = ("very-close", "close", "moderate", "far", "very-far")
DISTANCE_EDGES_M: tuple[float, ...] = (0.5, 1.5, 5.0, 10.0)

#: How `distance_m` was measured (the `method` column of `geometric_relations`).
METHOD_BOX_CENTRE = "box_centre"
#: An object from the robot: the straight-line distance to its lidar points' centroid.
METHOD_POINTS_CENTROID = "points_centroid"


def knn_method(k: int, from_points: bool = True) -> str:
    """The method name of a k-nearest-neighbour person-object distance.

    ``knn{k}_points`` when the person's own lidar points were the queries,
    ``knn{k}_centre`` when only the person's box centre was (no points inside
    their box).
    """
    return f"knn{k}_{'points' if from_points else 'centre'}"


#: Values are rounded to this many decimals before they are classified, so that
#: floating-point noise (29.999999999999996 degrees) cannot push a value that is
#: exactly on an edge to the other side of it.
SNAP_DECIMALS = 9


def _snap(value: float) -> float:
    return round(float(value), SNAP_DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0


class BoxLike(Protocol):
    """Anything shaped like a JRDB 3D box (`annotation.models.Box3D` is one)."""

    cx: float
    cy: float
    cz: float
    l: float  # noqa: E741 - JRDB's field name
    w: float
    h: float
    rot_z: float


@dataclass(frozen=True)
class ReferencePose:
    """Where a reference stands and where it faces: a point and a yaw in radians."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    yaw: float = 0.0

    @classmethod
    def of_box(cls, box: BoxLike) -> ReferencePose:
        """A person as a reference: their box centre, facing the box's rot_z."""
        return cls(float(box.cx), float(box.cy), float(box.cz), float(box.rot_z))


#: The robot: the origin of the lidar box frame, facing forward (+x).
ROBOT_POSE = ReferencePose()


@dataclass(frozen=True)
class Placement:
    """Where a subject lies as seen from one reference (see `relate`)."""

    angle_deg: float
    direction: str
    vertical: str
    distance_m: float
    distance_bin: str

    @property
    def direction16(self) -> str:
        """One of the 16 directions, e.g. ``"up front-left"``."""
        return f"{self.vertical} {self.direction}"


@dataclass(frozen=True)
class GeometricRelation:
    """One row of the `geometric_relations` table: subject seen from reference in a frame.

    `reference_entity_id` is None when the reference is the robot. Field names
    and order follow the table's columns, so ``GeometricRelation(**row)`` and
    `as_row` convert both ways.
    """

    frame_id: int
    subject_entity_id: int
    reference_entity_id: int | None
    direction: str
    vertical: str
    distance_bin: str
    distance_m: float
    method: str

    def __post_init__(self) -> None:
        if self.direction not in SECTORS:
            raise ValueError(f"direction must be one of {SECTORS}, not {self.direction!r}")
        if self.vertical not in VERTICALS:
            raise ValueError(f"vertical must be one of {VERTICALS}, not {self.vertical!r}")
        if self.distance_bin not in DISTANCE_BINS:
            raise ValueError(
                f"distance_bin must be one of {DISTANCE_BINS}, not {self.distance_bin!r}"
            )

    @classmethod
    def from_placement(
        cls,
        frame_id: int,
        subject_entity_id: int,
        reference_entity_id: int | None,
        placement: Placement,
        method: str,
    ) -> GeometricRelation:
        return cls(
            frame_id=frame_id,
            subject_entity_id=subject_entity_id,
            reference_entity_id=reference_entity_id,
            direction=placement.direction,
            vertical=placement.vertical,
            distance_bin=placement.distance_bin,
            distance_m=placement.distance_m,
            method=method,
        )

    @property
    def to_robot(self) -> bool:
        return self.reference_entity_id is None

    @property
    def direction16(self) -> str:
        """One of the 16 directions, e.g. ``"down back-right"``."""
        return f"{self.vertical} {self.direction}"

    def as_row(self) -> dict[str, Any]:
        """The relation as a `geometric_relations` row (column name -> value)."""
        return asdict(self)


# --- classification -------------------------------------------------------------------------


def wrap_degrees(angle_deg: float) -> float:
    """`angle_deg` brought into (-180, 180]; -180 becomes 180."""
    wrapped = math.fmod(float(angle_deg), 360.0)
    if wrapped > 180.0:
        wrapped -= 360.0
    elif wrapped <= -180.0:
        wrapped += 360.0
    return wrapped + 0.0


def heading_relative_angle(
    subject_xy: Sequence[float], reference: ReferencePose = ROBOT_POSE
) -> float:
    """The angle in degrees, in (-180, 180], at which the reference sees the subject.

    0 is straight along the reference's heading, positive is counter-clockwise
    (towards the reference's left), negative towards its right. The result is
    snapped to `SNAP_DECIMALS` decimals. A subject exactly above or below the
    reference (no horizontal offset) is taken to be straight ahead (0).
    """
    dx = float(subject_xy[0]) - reference.x
    dy = float(subject_xy[1]) - reference.y
    if dx == 0.0 and dy == 0.0:
        return 0.0
    raw = math.degrees(math.atan2(dy, dx)) - math.degrees(reference.yaw)
    return wrap_degrees(_snap(wrap_degrees(raw)))


def sector(angle_deg: float) -> str:
    """The angle sector of a heading-relative angle in degrees (any value; it is wrapped).

    Limits are the paper's, with their inclusive sides: front [-30, 30],
    front-left (30, 45], left (45, 135], back-left (135, 145],
    front-right [-45, -30), right [-135, -45), back-right [-145, -135),
    back everything else (beyond 145 or -145, 180 included).
    """
    if math.isnan(angle_deg):
        raise ValueError("angle is NaN")
    t = wrap_degrees(_snap(wrap_degrees(angle_deg)))
    if -30.0 <= t <= 30.0:
        return "front"
    if 30.0 < t <= 45.0:
        return "front-left"
    if 45.0 < t <= 135.0:
        return "left"
    if 135.0 < t <= 145.0:
        return "back-left"
    if -45.0 <= t < -30.0:
        return "front-right"
    if -135.0 <= t < -45.0:
        return "right"
    if -145.0 <= t < -135.0:
        return "back-right"
    return "back"


def vertical(dz: float) -> str:
    """``"up"`` if the subject's centre is level with or above the reference's, else ``"down"``.

    `dz` is subject z minus reference z in metres, snapped before the test, so
    a difference within 1e-9 m counts as level (and so as up).
    """
    if math.isnan(dz):
        raise ValueError("dz is NaN")
    return "up" if _snap(dz) >= 0.0 else "down"


def distance_bin(distance_m: float) -> str:
    """The paper's distance bin of a distance in metres.

    very-close [0, 0.5), close [0.5, 1.5), moderate [1.5, 5), far [5, 10),
    very-far [10, inf): every edge belongs to the farther bin.
    """
    if math.isnan(distance_m) or distance_m < 0:
        raise ValueError(f"distance must be a non-negative number, not {distance_m!r}")
    d = _snap(distance_m)
    for name, edge in zip(DISTANCE_BINS, DISTANCE_EDGES_M, strict=False):
        if d < edge:
            return name
    return DISTANCE_BINS[-1]


def relate(
    subject: Sequence[float],
    reference: ReferencePose = ROBOT_POSE,
    distance_m: float | None = None,
) -> Placement:
    """Where the point `subject` (x, y, z) lies as seen from `reference`.

    The direction comes from the horizontal offset turned into the reference's
    heading (`heading_relative_angle`, `sector`), up/down from the vertical
    offset of the two centres (`vertical`). The distance is `distance_m` when
    given (e.g. a point-cloud distance), otherwise the straight-line 3D distance
    between the subject point and the reference point.

    >>> p = relate((1.0, 1.0, -0.2))  # seen from the robot at the origin, facing +x
    >>> p.angle_deg, p.direction, p.vertical, p.distance_bin
    (45.0, 'front-left', 'down', 'close')
    """
    x, y, z = (float(v) for v in subject[:3])
    if distance_m is None:
        distance_m = math.sqrt(
            (x - reference.x) ** 2 + (y - reference.y) ** 2 + (z - reference.z) ** 2
        )
    angle = heading_relative_angle((x, y), reference)
    d = _snap(distance_m)
    return Placement(
        angle_deg=angle,
        direction=sector(angle),
        vertical=vertical(z - reference.z),
        distance_m=d,
        distance_bin=distance_bin(d),
    )


# --- boxes --------------------------------------------------------------------------------


def box_centre(box: BoxLike) -> np.ndarray:
    return np.array([box.cx, box.cy, box.cz], dtype=float)


def centre_distance(a: BoxLike, b: BoxLike) -> float:
    """Straight-line 3D distance between two box centres (the person-person distance)."""
    return float(np.linalg.norm(box_centre(a) - box_centre(b)))


def _footprint(box: BoxLike) -> np.ndarray:
    """The four xy corners of a box, counter-clockwise."""
    c, s = math.cos(box.rot_z), math.sin(box.rot_z)
    u = np.array([c, s]) * (box.l / 2)  # along the length (the heading)
    v = np.array([-s, c]) * (box.w / 2)  # along the width (to the box's left)
    centre = np.array([box.cx, box.cy], dtype=float)
    return np.array([centre + u + v, centre - u + v, centre - u - v, centre + u - v])


def box_corners(box: BoxLike) -> np.ndarray:
    """The eight corners of a box, shape (8, 3): the bottom four, then the top four."""
    foot = _footprint(box)
    low = np.column_stack([foot, np.full(4, box.cz - box.h / 2)])
    high = np.column_stack([foot, np.full(4, box.cz + box.h / 2)])
    return np.vstack([low, high])


def points_in_box(points: np.ndarray, box: BoxLike, tol: float = 1e-9) -> np.ndarray:
    """A boolean mask of the rows of `points` (N x 3) inside `box`.

    Faces count as inside, with `tol` metres of slack so that a box's own
    corners (computed with rounding) test as inside.
    """
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    c, s = math.cos(box.rot_z), math.sin(box.rot_z)
    d = pts - box_centre(box)
    along = d[:, 0] * c + d[:, 1] * s
    across = -d[:, 0] * s + d[:, 1] * c
    return (
        (np.abs(along) <= box.l / 2 + tol)
        & (np.abs(across) <= box.w / 2 + tol)
        & (np.abs(d[:, 2]) <= box.h / 2 + tol)
    )


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    denom = float(ab @ ab)
    t = 0.0 if denom == 0.0 else min(1.0, max(0.0, float((p - a) @ ab) / denom))
    return float(np.linalg.norm(p - (a + t * ab)))


def _rectangles_overlap(pa: np.ndarray, pb: np.ndarray) -> bool:
    """Separating-axis test for two convex quadrilaterals (touching counts as overlap)."""
    for poly in (pa, pb):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            axis = np.array([-edge[1], edge[0]])
            if not axis.any():
                continue
            ra, rb = pa @ axis, pb @ axis
            if ra.max() < rb.min() or rb.max() < ra.min():
                return False
    return True


def box_gap_distance(a: BoxLike, b: BoxLike) -> float:
    """The smallest distance between two yaw-rotated boxes (0 when they touch or overlap).

    The boxes are prisms (a footprint times a height interval), so the gap is
    the footprint gap and the height gap combined by Pythagoras. Not used for
    the relations (they use centre distances, see docs/relations.md); offered
    for panels and checks that want a surface-to-surface figure.
    """
    dz = max(0.0, abs(a.cz - b.cz) - (a.h + b.h) / 2)
    fa, fb = _footprint(a), _footprint(b)
    if _rectangles_overlap(fa, fb):
        dxy = 0.0
    else:
        dxy = min(
            min(_segment_distance(p, q[i], q[(i + 1) % 4]) for p in r for i in range(4))
            for r, q in ((fa, fb), (fb, fa))
        )
    return math.hypot(dxy, dz)


# --- words --------------------------------------------------------------------------------

_DIRECTION_WORDS = {
    "front": "in front of",
    "back": "behind",
    "left": "left of",
    "right": "right of",
    "front-left": "front-left of",
    "front-right": "front-right of",
    "back-left": "back-left of",
    "back-right": "back-right of",
}


def describe_relation(
    relation: GeometricRelation | Placement,
    subject_label: str | None = None,
    reference_label: str | None = None,
    *,
    show_vertical: bool = False,
    show_metres: bool = False,
) -> str:
    """A relation in words, e.g. ``"person 7: close, front-left of the robot"``.

    Labels default to ``"entity <id>"`` and, for a robot reference, ``"the
    robot"``. `show_vertical` adds "above"/"below" (``"... front-left of and
    below the robot"``); `show_metres` adds the distance (``"close (1.2 m)"``).
    """
    subject_id = getattr(relation, "subject_entity_id", None)
    reference_id = getattr(relation, "reference_entity_id", None)
    if subject_label is None:
        subject_label = f"entity {subject_id}" if subject_id is not None else "it"
    if reference_label is None:
        reference_label = "the robot" if reference_id is None else f"entity {reference_id}"
    nearness = relation.distance_bin.replace("-", " ")
    if show_metres:
        nearness += f" ({relation.distance_m:.1f} m)"
    where = _DIRECTION_WORDS[relation.direction]
    if show_vertical:
        where += " and " + ("above" if relation.vertical == "up" else "below")
    return f"{subject_label}: {nearness}, {where} {reference_label}"
