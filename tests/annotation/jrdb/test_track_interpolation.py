"""Keyframe rules and interpolation of object tracks (annotation.jrdb.tracks)."""

from __future__ import annotations

import math

import pytest

from annotation.jrdb.tracks import (
    TrackError,
    check_keyframe_2d,
    check_keyframe_3d,
    derived_box,
    interpolate_2d,
    interpolate_3d,
    segment,
    shortest_turn,
)


def test_yaw_across_the_angle_seam_goes_the_short_way():
    a = (0, 0, 0, 1, 1, 1, math.radians(170))
    b = (0, 0, 0, 1, 1, 1, math.radians(-170))
    mid = interpolate_3d(a, b, 0.5)
    assert abs(abs(mid[6]) - math.pi) < 1e-9  # through 180 degrees, not through 0
    quarter = interpolate_3d(a, b, 0.25)
    assert math.degrees(quarter[6]) == pytest.approx(175)
    assert math.degrees(shortest_turn(math.radians(-170), math.radians(170))) == pytest.approx(-20)


def test_centre_and_size_are_linear():
    a = (0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0)
    b = (2.0, 4.0, 1.0, 3.0, 1.0, 2.0, 0.5)
    assert interpolate_3d(a, b, 0.5) == pytest.approx((1, 2, 0.5, 2, 1, 1.5, 0.25))
    assert interpolate_2d((100, 10, 20, 40), (200, 30, 40, 40), 0.5) == pytest.approx(
        (150, 20, 30, 40)
    )


def test_a_2d_box_crosses_the_panorama_seam_the_short_way():
    left = (3700.0, 100.0, 40.0, 80.0)  # centre 3720
    right = (20.0, 100.0, 40.0, 80.0)  # centre 40, 80 px further on around the cylinder
    x, y, w, h = interpolate_2d(left, right, 0.5)
    assert x + w / 2 == pytest.approx(3760)  # on the seam, not in the middle of the image
    assert (y, w, h) == (100, 40, 80)


def test_derived_boxes_between_after_and_before_keyframes():
    keys = {0: (0.0, 0.0, 10.0, 10.0), 4: (40.0, 0.0, 10.0, 10.0)}
    assert derived_box(keys, 2, dims="2d")[0] == pytest.approx(20)
    assert derived_box(keys, 9, dims="2d", last_frame=20) == keys[4]  # carried forward
    assert derived_box(keys, 9, dims="2d", end=8) is None  # the track ended
    assert derived_box(keys, 21, dims="2d", last_frame=20) is None
    assert derived_box({3: keys[0]}, 1, dims="2d") is None  # before the first keyframe
    assert list(segment([0, 4, 10], 4, 20)) == list(range(1, 10))  # what editing 4 changes
    assert list(segment([0, 4], 4, 20)) == list(range(1, 21))


def test_bad_keyframes_are_refused_naming_the_rule():
    with pytest.raises(TrackError, match="size must be positive"):
        check_keyframe_2d((0, 0, 0, 10))
    with pytest.raises(TrackError, match="size must be positive"):
        check_keyframe_3d((0, 0, 0, 1, -1, 1, 0))
    with pytest.raises(TrackError, match="yaw"):
        check_keyframe_3d((0, 0, 0, 1, 1, 1, float("inf")))
    with pytest.raises(TrackError, match="finite"):
        check_keyframe_2d((float("nan"), 0, 1, 1))
    assert check_keyframe_3d((1, 2, 3, 1, 1, 1, 7)) == (1, 2, 3, 1, 1, 1, 7)
