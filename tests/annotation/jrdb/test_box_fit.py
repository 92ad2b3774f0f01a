"""Fit to points: the tightest cuboid with the current yaw around the 2D box's points."""

from __future__ import annotations

import math

import numpy as np
import pytest

from annotation.jrdb.box_fit import FitError, column_points, fit_box
from annotation.jrdb.panorama import panorama_box


def scene(rng, box=(3.0, 1.0, -0.4, 0.6, 0.4, 0.5, 0.3)):
    """A floor at z = -1, a cuboid's surface points, and a wall far behind it."""
    cx, cy, cz, length, w, h, yaw = box
    local = rng.uniform(-0.5, 0.5, (800, 3)) * [length, w, h]
    c, s = math.cos(yaw), math.sin(yaw)
    thing = np.column_stack(
        [cx + local[:, 0] * c - local[:, 1] * s, cy + local[:, 0] * s + local[:, 1] * c,
         cz + local[:, 2]]
    )  # fmt: skip
    floor = np.column_stack([rng.uniform(-8, 8, (4000, 2)), np.full(4000, -1.0)])
    wall = np.column_stack([np.full(2000, 9.0), rng.uniform(-6, 6, 2000), rng.uniform(-1, 2, 2000)])
    return np.vstack([thing, floor, wall]), box


def test_the_fit_is_the_tightest_box_with_the_yaw_around_the_object():
    cloud, box = scene(np.random.default_rng(0))
    flat = panorama_box(box)
    fitted = fit_box(cloud, flat, box[6])
    assert fitted[:3] == pytest.approx(box[:3], abs=0.05)
    assert fitted[3:6] == pytest.approx(box[3:6], abs=0.08)
    assert fitted[6] == box[6]
    near = fit_box(cloud, flat, box[6], current=(3.2, 1.1, -0.4, 0.5, 0.5, 0.5, 0.3))
    assert near[:3] == pytest.approx(box[:3], abs=0.05)


def test_the_column_crosses_the_seam():
    points = np.array([[-3.0, 0.01, 0.0], [-3.0, -0.01, 0.0], [3.0, 0.0, 0.0]])
    seam = (3740.0, 0.0, 40.0, 480.0)  # behind the robot, across x = 3760
    assert len(column_points(points, seam)) == 2


def test_too_few_points_is_refused_saying_how_many():
    cloud, box = scene(np.random.default_rng(1))
    empty_column = (100.0, 10.0, 5.0, 20.0)  # nothing but floor and wall there
    with pytest.raises(FitError, match=r"only \d+ lidar points"):
        fit_box(cloud[:900], empty_column, 0.0)
    with pytest.raises(FitError, match="yaw"):
        fit_box(cloud, panorama_box(box), float("nan"))


def test_a_flat_object_is_never_empty_or_inverted():
    points = np.array([[2.0, 0.0 + 0.001 * i, 0.0] for i in range(20)] + [[0, 0, -1.0]] * 50)
    fitted = fit_box(points, panorama_box((2.0, 0.0, 0.0, 0.1, 0.1, 0.1, 0.0)), 0.0)
    assert min(fitted[3:6]) >= 0.05
