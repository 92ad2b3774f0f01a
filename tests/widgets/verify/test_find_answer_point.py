"""A Find answer's point, marked in the model's image (a crosshair) and in the 3D view
(a dot where the model's camera sees it, a pin along its line of sight): real PyBullet
renders, the real image panel and the real GL viewport under Xvfb."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from sim.camera import project_points
from sim.render import render
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, TabletopWorld
from widgets.image_view import TopDownImagePanel
from widgets.verify.answer_point import (
    PIN_ABOVE_M,
    find_point,
    line_of_sight,
    mark_answer_point,
    scaled_point,
)
from widgets.viewport.view import SceneViewport

SIZE = 256  # the restored view; the answer's point is in the stored 1024 px camera
TARGET = (0.02, 0.04, TABLE_TOP_Z + 0.02)
COVER_TOP = TABLE_TOP_Z + 0.04 + 0.02


@pytest.fixture
def world():
    """A small red target under a wide green cover: the model's view cannot see it."""
    w = TabletopWorld(with_robot=False)
    w.add_primitive("target", "box", (0.02,) * 3, TARGET, rgba=(0.9, 0.1, 0.1, 1))
    w.add_primitive(
        "cover",
        "box",
        (0.06, 0.06, 0.01),
        (0.02, 0.04, COVER_TOP - 0.01),
        rgba=(0.2, 0.6, 0.3, 1),
    )
    yield w
    w.close()


def magenta(rgb):
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    return (r > 200) & (g < 90) & (b > 170)


def qimage_rgb(image) -> np.ndarray:
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    w, h = image.width(), image.height()
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    return data.reshape(h, image.bytesPerLine())[:, : 4 * w].reshape(h, w, 4)[:, :, :3].copy()


def test_find_point_reads_only_a_find_answers_point():
    assert find_point({"answer": "yes", "point": [515.5, 530.1]}) == (515.5, 530.1)
    assert find_point({"answer": "yes", "point": [3, 4]}) == (3.0, 4.0)
    for answer in (
        {"answer": "no", "point": None},
        3,
        "red mug",
        "B",
        None,
        {"answer": "yes"},
        {"point": [1, 2, 3]},
        {"point": ["a", 2]},
        {"point": [True, 2]},
        {"point": [float("nan"), 2]},
    ):
        assert find_point(answer) is None, answer
    small = TOP_DOWN.with_size(SIZE, SIZE)
    assert scaled_point((512.0, 256.0), small, TOP_DOWN) == (128.0, 64.0)
    assert scaled_point((512.0, 256.0), small, None) == (512.0, 256.0)


def test_line_of_sight_goes_from_the_surface_seen_down_to_the_table(world):
    view = render(world, TOP_DOWN.with_size(SIZE, SIZE))
    uv, _ = project_points(view.camera, [TARGET])
    hit, (top, bottom) = line_of_sight(view, (float(uv[0, 0]), float(uv[0, 1])))
    assert hit[2] == pytest.approx(COVER_TOP, abs=0.004)  # the cover is what the model sees
    assert bottom[2] == pytest.approx(TABLE_TOP_Z, abs=1e-6)
    assert np.linalg.norm(top - hit) == pytest.approx(PIN_ABOVE_M)
    assert top[2] > hit[2]
    # the hidden target's centre lies on the pin
    d = (bottom - top) / np.linalg.norm(bottom - top)
    off = np.asarray(TARGET) - top
    assert np.linalg.norm(off - (off @ d) * d) < 0.002
    assert line_of_sight(view, (-1.0, 10.0)) is None
    assert line_of_sight(view, (10.0, SIZE + 0.5)) is None


def test_the_image_panel_marks_a_point_with_a_crosshair(qtbot):
    panel = TopDownImagePanel()
    qtbot.addWidget(panel)
    panel.resize(360, 420)
    panel.show()
    qtbot.waitExposed(panel)
    grey = np.full((SIZE, SIZE, 3), 128, dtype=np.uint8)
    panel.set_image(grey, np.zeros((SIZE, SIZE), dtype=int))
    plain = qimage_rgb(panel.view.viewport().grab().toImage())
    assert not magenta(plain).any()
    panel.set_marker((60.0, 180.0))
    assert panel.marker_point == (60.0, 180.0) and panel.marker.isVisible()
    shot = qimage_rgb(panel.view.viewport().grab().toImage())
    centre = panel.view.mapFromScene(QPointF(60.0, 180.0))
    x, y = centre.x(), centre.y()
    ring = magenta(shot[y - 20 : y + 21, x - 20 : x + 21])
    assert ring.sum() > 60  # a crosshair of a fixed size on screen, round the point
    assert not magenta(shot[y - 1 : y + 2, x - 1 : x + 2]).any()  # the pixel itself shows
    rows, cols = np.nonzero(magenta(shot))
    assert abs(rows.mean() - y) < 2 and abs(cols.mean() - x) < 2
    panel.set_image(grey, None)  # another image: no marker
    assert panel.marker_point is None and not panel.marker.isVisible()


def test_mark_answer_point_marks_the_image_and_the_3d_view(qtbot, world):
    view = render(world, TOP_DOWN.with_size(SIZE, SIZE))
    uv, _ = project_points(TOP_DOWN, [TARGET])  # the answer: in the 1024 px model image
    answer = {"answer": "yes", "point": [round(float(uv[0, 0]), 1), round(float(uv[0, 1]), 1)]}
    panel = TopDownImagePanel()
    viewport = SceneViewport(world)
    for widget in (panel, viewport):
        qtbot.addWidget(widget)
        widget.resize(400, 300)
        widget.show()
        qtbot.waitExposed(widget)
    viewport.set_camera_preset("oblique")
    panel.set_image(view.rgb, view.segmentation)
    plain = viewport.snapshot()
    point = mark_answer_point(answer, view, panel, viewport, stored_camera=TOP_DOWN.as_dict())
    assert point == pytest.approx((answer["point"][0] / 4, answer["point"][1] / 4))
    assert panel.marker_point == pytest.approx(point)
    hit = viewport.marked_point
    assert hit is not None and hit[2] == pytest.approx(COVER_TOP, abs=0.004)
    shot = viewport.snapshot()
    at, _ = project_points(viewport.camera_spec(), [hit])
    u, v = (int(c) for c in at[0])
    assert magenta(shot[v - 2 : v + 3, u - 2 : u + 3]).all()
    below, _ = project_points(viewport.camera_spec(), [TARGET])  # the pin runs through it
    u, v = (int(c) for c in below[0])
    assert magenta(shot[v - 2 : v + 3, u - 2 : u + 3]).any()
    # any other answer clears both
    assert mark_answer_point({"answer": "no", "point": None}, view, panel, viewport) is None
    assert panel.marker_point is None and viewport.marked_point is None
    np.testing.assert_array_equal(viewport.snapshot(), plain)
