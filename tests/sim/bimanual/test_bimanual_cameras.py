"""The dual-arm world's cameras see the table the way the RoboTwin frame says they should."""

from __future__ import annotations

import numpy as np
import pytest

from sim.bimanual.cameras import CAMERAS, camera
from sim.bimanual.tasks import add_block
from sim.bimanual.world import DualArmWorld
from sim.render import render


@pytest.fixture(scope="module")
def world():
    w = DualArmWorld()
    add_block(w, "red_block", (0.25, -0.05))
    add_block(w, "blue_block", (-0.25, -0.05))
    yield w
    w.close()


def _column(view, world, key) -> float:
    ys, xs = np.nonzero(view.segmentation == world.bodies[key].uid)
    assert len(xs) > 50, f"{key} not seen"
    return float(xs.mean())


def test_head_and_third_views_see_both_blocks_right_is_right(world):
    head = render(world, camera("head", 320))
    assert head.rgb.shape == (240, 320, 3)
    assert _column(head, world, "red_block") > 160 > _column(head, world, "blue_block")
    third = render(world, camera("third", 320))
    _column(third, world, "red_block"), _column(third, world, "blue_block")


def test_front_view_faces_the_robot_so_right_is_left(world):
    front = render(world, camera("front", 320))
    assert _column(front, world, "red_block") < 160 < _column(front, world, "blue_block")


def test_unknown_camera_is_named():
    with pytest.raises(ValueError, match="unknown camera 'top'.*head"):
        camera("top")
    assert set(CAMERAS) == {"head", "front", "third"}
