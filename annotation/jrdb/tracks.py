"""Object tracks: keyframes set by hand, the boxes between them derived.

A box a person draws or moves belongs to its entity's track (the entity's `label_id`
is the track's id, stable through the sequence) and is a **keyframe**. Only keyframes
are stored; the box of any other frame is derived here:

- between two keyframes, linearly: a 2D box's centre and size, its centre along the
  shorter way around the panorama's cylinder (a box crossing the seam stays whole); a
  3D box's centre and size, its yaw along the shorter way around (never through the
  long side of +-pi);
- after the last keyframe, the last keyframe's box is carried forward until the track's
  end (the first frame the object is gone: set by the annotator, or found when a frame
  is shown whose lidar points leave the carried 3D box empty, `has_left_view`) or the
  sequence's end;
- before the first keyframe, nothing.

The rules a keyframe must meet (`check_keyframe_2d`, `check_keyframe_3d`) live here too,
so that every path that writes one (the GUI, the CLI, a work package's merge) refuses
the same boxes with the same words.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

from annotation.jrdb.dataset import PANORAMA_WIDTH

Values = tuple[float, ...]


class TrackError(ValueError):
    """A keyframe or track end the rules refuse; the message names the rule."""


def check_keyframe_2d(box: Sequence[float]) -> Values:
    """x, y, w, h as floats; refused unless all are finite and w, h are positive."""
    values = tuple(float(v) for v in box)
    if len(values) != 4:
        raise TrackError(f"a 2D keyframe is x, y, w, h: got {len(values)} numbers")
    if not all(math.isfinite(v) for v in values):
        raise TrackError(f"a 2D keyframe's numbers must be finite, got {list(values)}")
    if values[2] <= 0 or values[3] <= 0:
        raise TrackError(
            f"a keyframe's size must be positive (w > 0, h > 0), got w={values[2]:g}, "
            f"h={values[3]:g}"
        )
    return values


def check_keyframe_3d(box: Sequence[float]) -> Values:
    """cx, cy, cz, l, w, h, rot_z as floats; refused unless all are finite (the yaw
    included) and l, w, h are positive."""
    values = tuple(float(v) for v in box)
    if len(values) != 7:
        raise TrackError(f"a 3D keyframe is cx, cy, cz, l, w, h, rot_z: got {len(values)}")
    if not math.isfinite(values[6]):
        raise TrackError(f"a keyframe's yaw (rot_z) must be a finite angle, got {values[6]}")
    if not all(math.isfinite(v) for v in values[:6]):
        raise TrackError(f"a 3D keyframe's numbers must be finite, got {list(values)}")
    if min(values[3:6]) <= 0:
        sizes = ", ".join(f"{k}={v:g}" for k, v in zip("lwh", values[3:6], strict=True))
        raise TrackError(f"a keyframe's size must be positive (l, w, h > 0), got {sizes}")
    return values


#: A box carried forward after its track's last 3D keyframe that holds fewer lidar points
#: than this in the frame shown: the object has left the view there, and its track ends.
#: One point is enough to keep it: a small object far away gives only a few.
MIN_POINTS_IN_VIEW = 1


def has_left_view(points_in_box: int) -> bool:
    """Whether a carried-forward 3D box with this many of the frame's lidar points in it
    means the object is gone from the view (`MIN_POINTS_IN_VIEW`)."""
    return points_in_box < MIN_POINTS_IN_VIEW


def is_interpolated(box: object) -> bool:
    """Whether a box is derived (between or after a track's keyframes, or JRDB's own
    interpolation) rather than set by hand: JRDB's attribute `interpolated`."""
    return getattr(box, "attributes", {}).get("interpolated") is True


def shortest_turn(a: float, b: float) -> float:
    """The angle from `a` to `b` along the shorter way around, in [-pi, pi)."""
    return (b - a + math.pi) % (2 * math.pi) - math.pi


def wrap_angle(angle: float) -> float:
    """An angle in [-pi, pi)."""
    return (angle + math.pi) % (2 * math.pi) - math.pi


def interpolate_2d(a: Values, b: Values, t: float, width: float = PANORAMA_WIDTH) -> Values:
    """The 2D box a fraction `t` of the way from `a` to `b`: centre along the shorter way
    around a panorama `width` pixels around, size linearly; x is put back in [0, width)."""
    ca, cb = a[0] + a[2] / 2, b[0] + b[2] / 2
    du = (cb - ca + width / 2) % width - width / 2
    w, h = a[2] + t * (b[2] - a[2]), a[3] + t * (b[3] - a[3])
    cy = a[1] + a[3] / 2 + t * (b[1] + b[3] / 2 - a[1] - a[3] / 2)
    x = (ca + t * du - w / 2) % width
    return (x, cy - h / 2, w, h)


def interpolate_3d(a: Values, b: Values, t: float) -> Values:
    """The cuboid a fraction `t` of the way from `a` to `b`: centre and size linearly,
    yaw along the shorter way around (the result in [-pi, pi))."""
    mixed = tuple(a[i] + t * (b[i] - a[i]) for i in range(6))
    return (*mixed, wrap_angle(a[6] + t * shortest_turn(a[6], b[6])))


def derived_box(
    keyframes: dict[int, Values],
    frame_index: int,
    *,
    dims: str,
    end: int | None = None,
    last_frame: int | None = None,
    order: list[int] | None = None,
) -> Values | None:
    """The box of a track in `frame_index` that is not a keyframe: interpolated between
    the keyframes around it, carried forward after the last one until `end` (the first
    frame without the object) or `last_frame`; None before the first keyframe and from
    `end` on. `order` is `sorted(keyframes)`, when the caller keeps it."""
    order = order if order is not None else sorted(keyframes)
    if frame_index in keyframes:
        return keyframes[frame_index]
    if not order or frame_index < order[0]:
        return None
    if end is not None and frame_index >= end:
        return None
    if last_frame is not None and frame_index > last_frame:
        return None
    at = bisect.bisect_left(order, frame_index)
    before = order[at - 1]
    if at == len(order):
        return keyframes[before]
    after = order[at]
    t = (frame_index - before) / (after - before)
    mix = interpolate_2d if dims == "2d" else interpolate_3d
    return mix(keyframes[before], keyframes[after], t)


def segment(order: list[int], frame_index: int, last_frame: int) -> range:
    """The frames whose derived box depends on the keyframe at `frame_index`: from the
    keyframe before it to the one after it (or `last_frame`), exclusive of both."""
    at = bisect.bisect_left(order, frame_index)
    start = order[at - 1] + 1 if at > 0 else frame_index
    nxt = order[at + 1] if at + 1 < len(order) and order[at] == frame_index else None
    if nxt is None and at < len(order) and order[at] != frame_index:
        nxt = order[at]
    return range(start, nxt if nxt is not None else last_frame + 1)
