"""Where label-frame points land on the stitched panorama: columns by azimuth, rows by
height over distance, boxes around 3D boxes (also across the seam)."""

from __future__ import annotations

import numpy as np
import pytest

from annotation.jrdb import dataset as L
from annotation.jrdb import panorama as P


def test_panorama_projection_puts_forward_in_the_middle_and_left_to_the_left():
    u, v = P.project_to_panorama(np.array([[5, 0, 0], [0, 5, 0], [0, -5, 0], [5, 0, -1]]))
    assert u[0] == pytest.approx(L.PANORAMA_WIDTH / 2)
    assert u[1] == pytest.approx(L.PANORAMA_WIDTH / 4)
    assert u[2] == pytest.approx(3 * L.PANORAMA_WIDTH / 4)
    assert v[0] == pytest.approx(P.PANORAMA_HORIZON_ROW) and v[3] > v[0]


def test_panorama_box_of_a_person_behind_the_robot_runs_past_the_seam():
    x, y, w, h = P.panorama_box((-4.0, 0.0, -0.1, 0.5, 0.6, 1.7, 0.0))
    assert 0 <= x < L.PANORAMA_WIDTH < x + w
    assert 0 < w < 200 and h > 100
    ahead = P.panorama_box((4.0, 0.0, -0.1, 0.5, 0.6, 1.7, 0.0))
    assert ahead[0] < L.PANORAMA_WIDTH / 2 < ahead[0] + ahead[2]
    assert ahead[2] == pytest.approx(w, rel=0.05)


@pytest.mark.parametrize(
    ("box", "expected"),
    [
        # the values the panorama box had when it took a 3D box's corners from its own
        # box_corners (another corner order) before annotation.jrdb.geometry's
        (
            (-4.0, 0.0, -0.1, 0.5, 0.6, 1.7, 0.0),
            (3712.227933507702, 114.30573326053201, 95.54413298459622, 216.90700460946078),
        ),
        (
            (4.0, 0.0, -0.1, 0.5, 0.6, 1.7, 0.0),
            (1832.2279335077021, 114.30573326053201, 95.54413298459576, 216.90700460946078),
        ),
        (
            (1.5, 2.5, -0.4, 1.2, 0.8, 0.75, 0.6),
            (1121.3396138032558, 213.30632065272997, 252.3176816364653, 165.3085365921813),
        ),
        (
            (-3.0, -0.2, -0.5, 0.5, 0.5, 0.9, 2.0),
            (3659.15663758799, 217.20235332039758, 128.15052749398865, 162.43105831411478),
        ),
    ],
)
def test_panorama_boxes_keep_their_values(box, expected):
    assert P.panorama_box(box) == pytest.approx(expected, abs=1e-9)
