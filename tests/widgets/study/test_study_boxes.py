"""The box a drag on the Human study's image draws (`drag_box`): either direction, clipped on
a flat image, wrapped at a panorama's seam, and never a slip of the hand."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from widgets.study.boxes import MIN_BOX_PX, drag_box

W, H = 100.0, 40.0
points = st.tuples(st.floats(-300, 300), st.floats(-100, 100))


def test_any_direction_gives_the_same_box_rounded_to_a_tenth():
    box = [12.3, 5.0, 30.2, 20.1]
    for start, end in (((12.34, 5), (42.5, 25.1)), ((42.5, 25.1), (12.34, 5))):
        assert drag_box(start, end, width=W, height=H) == box
    assert drag_box((42.5, 5), (12.34, 25.1), width=W, height=H) == box  # up-right to down-left


def test_a_box_thinner_than_the_minimum_is_a_slip():
    assert drag_box((10, 10), (10 + MIN_BOX_PX, 10 + MIN_BOX_PX), width=W, height=H) == [
        10.0,
        10.0,
        MIN_BOX_PX,
        MIN_BOX_PX,
    ]
    assert drag_box((10, 10), (40, 12), width=W, height=H) is None  # too low
    # dragged outside the image: what is left after clipping is too narrow
    assert drag_box((-50, 10), (1, 30), width=W, height=H) is None


def test_a_panorama_drag_crosses_the_seam_and_spans_at_most_half():
    # leftwards across the seam from column 5: stored from column 80, past the width
    assert drag_box((5, 0), (-20, 10), width=W, height=H, wrap=True) == [80.0, 0.0, 25.0, 10.0]
    # a drag over more than half the panorama stops at half of it
    assert drag_box((10, 0), (-80, 10), width=W, height=H, wrap=True) == [60.0, 0.0, 50.0, 10.0]
    # started on the second copy of the panorama: x is brought back into [0, W)
    assert drag_box((130, 0), (150, 10), width=W, height=H, wrap=True) == [30.0, 0.0, 20.0, 10.0]
    # x rounds up to the width itself: that is column 0
    assert drag_box((99.97, 0), (120, 10), width=W, height=H, wrap=True) == [0.0, 0.0, 20.0, 10.0]


@settings(max_examples=200, deadline=None)
@given(start=points, end=points, wrap=st.booleans())
def test_every_drawn_box_lies_on_the_image(start, end, wrap):
    box = drag_box(start, end, width=W, height=H, wrap=wrap)
    if box is None:
        return
    x, y, w, h = box
    assert w >= MIN_BOX_PX and h >= MIN_BOX_PX
    assert 0 <= y and y + h <= H + 0.1  # rows are always clipped (rounding aside)
    assert 0 <= x < W
    if wrap:
        assert w <= W / 2 + 0.1  # at most half the cylinder; x + w may pass the seam
    else:
        assert x + w <= W + 0.1
