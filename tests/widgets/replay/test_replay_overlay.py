"""What Replay draws over the scene: line sketches over the 3D viewport (a real PyBullet
world, rendered under Xvfb), and the model's image with one mask tinted and outlined."""

from __future__ import annotations

import numpy as np
import pytest
from gestures import shown_viewport
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage

from sim.camera import project_points
from sim.tabletop.world import TABLE_TOP_Z, TabletopWorld
from widgets.replay.overlay import (
    MASK_EDGE,
    MASK_FILL,
    MASK_HALO,
    MaskImagePanel,
    ViewportLines,
    mask_overlay,
)

HALF = 0.04
GREEN = (0.1, 0.95, 0.2, 1.0)


@pytest.fixture
def world():
    w = TabletopWorld(with_robot=False)
    w.add_primitive(
        "red_box", "box", (HALF,) * 3, (0.0, 0.0, TABLE_TOP_Z + HALF), rgba=(0.9, 0.1, 0.1, 1)
    )
    yield w
    w.close()


@pytest.fixture
def viewport(qtbot, world):
    view = shown_viewport(qtbot, world, (320, 240), "top_down")
    return view


def green(rgb: np.ndarray) -> np.ndarray:
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    return (g > 180) & (r < 110) & (b < 110)


def test_a_sketch_inside_a_body_is_drawn_over_it_and_cleared(viewport):
    plain = viewport.snapshot()
    lines = ViewportLines(viewport)
    centre = np.array([0.0, 0.0, TABLE_TOP_Z + HALF])  # inside the box: its top hides it
    inside = np.array([centre - (0.025, 0, 0), centre + (0.025, 0, 0)])
    path = np.array([[0.1, 0.1, TABLE_TOP_Z + 0.01], [0.15, 0.1, TABLE_TOP_Z + 0.01]])
    lines.set([("planned", inside, GREEN, 6.0), ("moved:red_box", path, GREEN, 3.0)])
    assert lines.names == ["planned", "moved:red_box"]
    assert all(item in viewport.gl_view.items for item in lines.items)
    drawn = viewport.snapshot()
    assert not green(plain).any()
    uv, _ = project_points(viewport.camera_spec(), [centre + (0, 0, HALF)])
    u, v = (int(c) for c in uv[0])
    assert green(drawn[v - 3 : v + 4, u - 3 : u + 4]).any()  # over the box's red top
    end, _ = project_points(viewport.camera_spec(), [path[1]])
    assert green(
        drawn[int(end[0, 1]) - 4 : int(end[0, 1]) + 5, int(end[0, 0]) - 6 : int(end[0, 0]) + 1]
    ).any()
    items = list(lines.items)
    lines.set(())
    assert lines.items == [] and lines.names == []
    assert not any(item in viewport.gl_view.items for item in items)
    np.testing.assert_array_equal(viewport.snapshot(), plain)


def square_mask(size: int = 64, lo: int = 20, hi: int = 30) -> np.ndarray:
    mask = np.zeros((size, size), bool)
    mask[lo:hi, lo:hi] = True
    return mask


def test_the_mask_is_tinted_outlined_just_outside_and_ringed_dark():
    rgba = mask_overlay(square_mask())  # 64 px wide: a 2 px outline, a 1 px ring
    row = [tuple(rgba[25, x]) for x in (25, 20, 19, 18, 17, 16)]
    assert row == [MASK_FILL, MASK_FILL, MASK_EDGE, MASK_EDGE, MASK_HALO, (0, 0, 0, 0)]
    assert (rgba[square_mask()] == MASK_FILL).all()
    assert rgba[0, 0, 3] == 0 and rgba[63, 63, 3] == 0  # transparent away from it
    wide = mask_overlay(square_mask(1024, 500, 540))  # 1024 px wide: 8 px of outline
    outline = [x for x in range(480, 500) if tuple(wide[520, x]) == MASK_EDGE]
    assert outline == list(range(492, 500))
    assert tuple(wide[520, 491]) == MASK_HALO and tuple(wide[520, 487]) == (0, 0, 0, 0)


@pytest.fixture
def panel(qtbot):
    p = MaskImagePanel()
    qtbot.addWidget(p)
    p.resize(360, 420)
    p.show()
    qtbot.waitExposed(p)
    grey = np.full((64, 64, 3), 128, np.uint8)
    p.set_image(grey, np.zeros((64, 64), np.int32), None)
    return p


def shown(panel: MaskImagePanel, x: float, y: float) -> tuple[int, int, int]:
    """The colour the view shows at image pixel (x, y)."""
    image = panel.view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    point = panel.view.mapFromScene(x, y)
    colour = image.pixelColor(point.x(), point.y())
    return colour.red(), colour.green(), colour.blue()


def test_the_panel_tints_the_mask_over_the_image_and_clears_it(panel):
    assert shown(panel, 25, 25) == (128, 128, 128)
    panel.set_mask(square_mask())
    assert panel.mask_item.pixmap().width() == 64
    r, g, b = shown(panel, 25, 25)
    assert r > g + 40 and b > g + 40  # magenta over the grey
    assert shown(panel, 5, 5) == (128, 128, 128)
    panel.set_caption("After step 3, mask outlined")
    assert panel.caption.text() == "After step 3, mask outlined"
    panel.set_mask(None)
    assert panel.mask is None and panel.mask_item.pixmap().isNull()
    assert shown(panel, 25, 25) == (128, 128, 128)


def test_the_whole_image_stays_in_view_when_the_panel_shrinks(qtbot, panel):
    scale = panel.view.transform().m11()

    def whole_image_in_view() -> None:
        seen = panel.view.mapToScene(panel.view.viewport().rect()).boundingRect()
        assert seen.contains(QRectF(0, 0, 64, 64))
        assert seen.width() < 64 * 1.1  # fitted to the new width, not just shown small

    whole_image_in_view()
    panel.resize(140, 420)  # narrower than the image is shown now
    qtbot.waitUntil(whole_image_in_view)  # once the scroll bars have come and gone
    assert panel.view.transform().m11() < scale / 2
