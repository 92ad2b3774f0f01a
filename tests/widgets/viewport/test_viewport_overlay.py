"""What the 3D viewport draws over the bodies, by the overlay items themselves (GL under
Xvfb, a real PyBullet world): an outline band as wide as its style asks, drawn for a heavy
shape from a lighter copy (`outline_proxy`), and a marker the same size on screen at any
zoom. tests/widgets/viewport/test_outlines.py checks the viewport's own evidence and
selection outlines."""

from __future__ import annotations

import numpy as np
import pytest
from gestures import shown_viewport

from sim.camera import project_points
from sim.tabletop.world import TABLE_TOP_Z, TabletopWorld
from widgets.viewport.mesh_cache import unit_box, unit_sphere
from widgets.viewport.overlay import (
    PROXY_ABOVE,
    PROXY_TRIANGLES,
    MarkerItem,
    OutlineItem,
    OutlineStyle,
    outline_proxy,
)
from widgets.viewport.view import SceneViewport

RADIUS = 0.05
BALL = (0.0, 0.05, TABLE_TOP_Z + RADIUS)
GREEN = (0.1, 0.95, 0.2)


def test_a_heavy_shape_outlines_from_a_lighter_copy_made_once():
    box = unit_box()
    assert box.triangle_count <= PROXY_ABOVE and outline_proxy(box) is box
    sphere = unit_sphere()
    assert sphere.triangle_count > PROXY_ABOVE
    proxy = outline_proxy(sphere)
    assert proxy is not sphere and proxy.triangle_count <= PROXY_TRIANGLES + 10
    assert outline_proxy(sphere) is proxy  # once per geometry
    lo, hi = proxy.bounds()
    assert lo == pytest.approx((-1, -1, -1), abs=0.1) and hi == pytest.approx((1, 1, 1), abs=0.1)
    assert np.linalg.norm(proxy.vertices, axis=1) == pytest.approx(1.0, abs=0.1)  # still round


@pytest.fixture
def viewport(qtbot):
    world = TabletopWorld(with_robot=False)
    world.add_primitive("ball", "sphere", (RADIUS,), BALL, rgba=(0.95, 0.85, 0.1, 1))
    view = shown_viewport(qtbot, world, (320, 240), "top_down")
    yield view
    world.close()


def green(rgb: np.ndarray) -> np.ndarray:
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    return (g > 200) & (r < 90) & (b < 110)


def magenta(rgb: np.ndarray) -> np.ndarray:
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    return (r > 200) & (g < 90) & (b > 170)


def band_width(viewport: SceneViewport, width_px: float) -> int:
    """How many green pixels the outline puts left of the ball, on the row through its centre."""
    outline = OutlineItem(OutlineStyle(GREEN, width_px, xray=False))
    viewport.gl_view.addItem(outline)
    outline.set_targets(viewport.items_for("ball"))
    rgb = viewport.snapshot()
    viewport.gl_view.removeItem(outline)
    uv, _ = project_points(viewport.camera_spec(), [BALL])
    u, v = (int(c) for c in uv[0])
    return int(green(rgb[v, :u]).sum())


def test_the_band_is_as_wide_as_its_style_round_a_heavy_shape(viewport):
    plain = viewport.snapshot()
    assert not green(plain).any()
    thin, wide = band_width(viewport, 2.0), band_width(viewport, 8.0)
    assert 1 <= thin <= 4 and 7 <= wide <= 10
    np.testing.assert_array_equal(viewport.snapshot(), plain)  # removed: nothing left


def test_the_marker_keeps_its_size_on_screen_when_zooming(viewport):
    marker = MarkerItem()
    viewport.gl_view.addItem(marker)
    point = (0.15, -0.1, TABLE_TOP_Z)
    marker.set_point(point, pin=(point, (0.15, -0.1, TABLE_TOP_Z + 0.1)))
    assert marker.point.tolist() == list(point) and len(marker.pin) == 2
    near = viewport.snapshot()
    distance = viewport.view_params().distance
    viewport.gl_view.setCameraPosition(distance=distance * 2)
    far = viewport.snapshot()
    uv, _ = project_points(viewport.camera_spec(), [point])
    u, v = (int(c) for c in uv[0])
    assert magenta(far[v - 2 : v + 3, u - 2 : u + 3]).all()  # a dot at the point
    marker.set_point(point)  # the dot alone: the pin's length on screen would change
    dot_far = int(magenta(viewport.snapshot()).sum())
    viewport.gl_view.setCameraPosition(distance=distance)
    dot_near = int(magenta(viewport.snapshot()).sum())
    assert 20 < dot_far and dot_near == pytest.approx(dot_far, rel=0.25)
    assert magenta(near).sum() > dot_near  # the pin was drawn too
    marker.set_point(None)
    assert marker.point is None and not magenta(viewport.snapshot()).any()
