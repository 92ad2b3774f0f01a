"""The grasp-points view: point colours survive a change between coloured and plain clouds."""

from __future__ import annotations

import warnings

import numpy as np

import tests.gestures  # noqa: F401 - shares GL contexts before the QApplication exists
from widgets.viewport.point_cloud import PointCloudView


def test_a_plain_cloud_after_a_coloured_one_still_draws(qtbot):
    view = PointCloudView()
    qtbot.addWidget(view)
    view.resize(360, 240)
    view.show()
    qtbot.waitExposed(view)
    pts = np.random.default_rng(0).random((50, 3)).astype(np.float32) * 0.05
    view.set_cloud(pts, colours=np.tile((1.0, 0.0, 0.0), (50, 1)))
    view.set_cloud(pts[:20])  # no colours, before the next paint
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        image = view.view.grabFramebuffer()
    assert not [w for w in caught if "nbytes" in str(w.message)]
    assert view.point_count == 20
    assert np.asarray(view.scatter.color).shape == (20, 4)
    assert not image.isNull()
