"""The box a drag on the Human study's image draws: clipped on a flat image, wrapped round
the seam on a 360-degree panorama. Pure geometry, no Qt."""

from __future__ import annotations

MIN_BOX_PX = 3.0  # a drawn box narrower or lower than this is a slip of the hand


def drag_box(
    start: tuple[float, float],
    end: tuple[float, float],
    *,
    width: float,
    height: float,
    wrap: bool = False,
) -> list[float] | None:
    """The box [x, y, w, h] a drag from `start` to `end` draws, clipped to the image's
    rows; None when it is too small to be meant.

    On a flat image the box is clipped to its columns too. On a panorama (`wrap`) x is a
    column of a cylinder: a drag may cross the seam (points left of 0 or past `width`),
    the box spans at most half the panorama, and it is stored starting in [0, width),
    so a box across the seam has x + w past the width, as JRDB's own boxes do."""
    if wrap:
        sx = start[0]
        ex = min(max(end[0], sx - width / 2), sx + width / 2)
        x0, x1 = sorted((sx, ex))
        shift = (x0 // width) * width
        x0, x1 = x0 - shift, x1 - shift
    else:
        x0, x1 = sorted(min(max(v, 0.0), width) for v in (start[0], end[0]))
    y0, y1 = sorted(min(max(v, 0.0), height) for v in (start[1], end[1]))
    if x1 - x0 < MIN_BOX_PX or y1 - y0 < MIN_BOX_PX:
        return None
    x = round(x0, 1)
    return [x - width if wrap and x >= width else x] + [
        round(y0, 1),
        round(x1 - x0, 1),
        round(y1 - y0, 1),
    ]
