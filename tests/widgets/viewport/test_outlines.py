"""Evidence, selection and a point of interest in the real 3D viewport (GL under Xvfb):
outlines round the bodies that keep their own colours, a marker drawn over everything,
and an orbit that turns a moderate angle per pixel dragged."""

from __future__ import annotations

import colorsys

import numpy as np
import pytest
from gestures import shown_viewport
from PySide6.QtCore import QPoint, Qt

from sim.camera import project_points
from sim.tabletop.world import TABLE_TOP_Z, TabletopWorld

W, H = 400, 300
YELLOW = (0.95, 0.85, 0.1, 1.0)
HALF = 0.035


@pytest.fixture
def world():
    w = TabletopWorld(with_robot=False)
    w.add_primitive("yellow_cube", "box", (HALF,) * 3, (0.0, 0.05, TABLE_TOP_Z + HALF), rgba=YELLOW)
    w.add_primitive(
        "blue_box", "box", (0.03,) * 3, (0.13, 0.12, TABLE_TOP_Z + 0.03), rgba=(0.1, 0.2, 0.9, 1)
    )
    yield w
    w.close()


@pytest.fixture
def viewport(qtbot, world):
    view = shown_viewport(qtbot, world, (W, H), "oblique")
    return view


def hue_sat(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hue in degrees and saturation of each pixel."""
    flat = rgb.reshape(-1, 3).astype(float) / 255
    hs = np.array([colorsys.rgb_to_hsv(*p)[:2] for p in flat])
    return (hs[:, 0] * 360).reshape(rgb.shape[:2]), hs[:, 1].reshape(rgb.shape[:2])


def yellow_mask(rgb: np.ndarray) -> np.ndarray:
    hue, sat = hue_sat(rgb)
    return (np.abs(hue - 52) < 14) & (sat > 0.6) & (rgb.max(axis=2) > 90)


def grow(mask: np.ndarray, steps: int) -> np.ndarray:
    out = mask.copy()
    for _ in range(steps):
        g = out.copy()
        g[1:] |= out[:-1]
        g[:-1] |= out[1:]
        g[:, 1:] |= out[:, :-1]
        g[:, :-1] |= out[:, 1:]
        out = g
    return out


def shrink(mask: np.ndarray, steps: int) -> np.ndarray:
    return ~grow(~mask, steps)


def cyan(rgb):
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    return (b > 200) & (g > 150) & (r < 90)


def orange(rgb):
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    return (r > 200) & (g > 80) & (g < 170) & (b < 70)


def magenta(rgb):
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    return (r > 200) & (g < 90) & (b > 170)


def assert_face_keeps_its_colour(plain: np.ndarray, marked: np.ndarray, face: np.ndarray):
    inner = shrink(face, 1)
    assert inner.sum() > 300
    hue_plain, _ = hue_sat(plain)
    hue_marked, sat_marked = hue_sat(marked)
    hue_diff = np.abs(hue_marked - hue_plain)[inner]
    assert np.mean(hue_diff < 4) > 0.98, f"the face changed hue: {np.median(hue_diff):.1f} deg"
    assert np.mean(sat_marked[inner] > 0.6) > 0.98
    assert np.abs(marked[inner].astype(int) - plain[inner].astype(int)).max() <= 3


def test_evidence_is_an_outline_and_a_yellow_cube_stays_yellow(viewport):
    plain = viewport.snapshot()
    face = yellow_mask(plain)
    viewport.set_highlight(["yellow_cube"])
    marked = viewport.snapshot()
    assert_face_keeps_its_colour(plain, marked, face)
    assert yellow_mask(marked)[shrink(face, 1)].all()
    assert not cyan(marked)[face].any()  # nothing drawn over the body itself
    band = grow(face, 3) & ~face
    assert np.mean(cyan(marked)[band]) > 0.6  # a cyan band all round it
    assert cyan(marked)[~grow(face, 6)].sum() == 0  # and nowhere else
    assert [i.body_key for i in viewport.evidence_outline.targets] == ["yellow_cube"]
    viewport.set_highlight([])
    np.testing.assert_array_equal(viewport.snapshot(), plain)


def test_selection_is_a_clearly_visible_outline_that_keeps_the_colour(viewport):
    plain = viewport.snapshot()
    face = yellow_mask(plain)
    viewport.select("yellow_cube")
    marked = viewport.snapshot()
    assert_face_keeps_its_colour(plain, marked, face)
    band = grow(face, 4) & ~face
    assert np.mean(orange(marked)[band]) > 0.6
    # clearly visible: many pixels change, in a colour far from the table's grey
    changed = np.abs(marked.astype(int) - plain.astype(int)).sum(axis=2) > 120
    assert changed.sum() > 0.5 * face.sum()
    # selection and evidence on one body: the selection's outline shows
    viewport.set_highlight(["yellow_cube"])
    both = viewport.snapshot()
    assert np.mean(orange(both)[band]) > 0.6 and not cyan(both)[band].any()


def test_a_hidden_body_is_outlined_where_it_is_faded_through_what_hides_it(qtbot, world):
    world.add_primitive(
        "shelf",
        "box",
        (0.07, 0.07, 0.005),
        (0.0, 0.05, TABLE_TOP_Z + 2 * HALF + 0.06),
        rgba=(0.2, 0.6, 0.3, 1),
    )  # 6 cm above the cube, hiding it from above
    view = shown_viewport(qtbot, world, (W, H), "top_down")
    plain = view.snapshot()
    assert not yellow_mask(plain).any()  # the shelf hides the cube
    view.set_highlight(["yellow_cube"])
    shown = view.snapshot()
    uv, _ = project_points(view.camera_spec(), [(0.0, 0.05, TABLE_TOP_Z + 2 * HALF)])
    u, v = (int(c) for c in uv[0])
    window = np.zeros(plain.shape[:2], dtype=bool)  # inside the shelf's square
    window[v - 24 : v + 25, u - 24 : u + 25] = True

    def tinted(rgb):  # bluer than the plain render: the cube's band, seen through the shelf
        return (rgb[..., 2].astype(int) - plain[..., 2].astype(int)) > 40

    assert tinted(shown).sum() > 100 and not tinted(shown)[~window].any()
    rows, cols = np.nonzero(tinted(shown))
    assert abs(np.median(cols) - u) < 6 and abs(np.median(rows) - v) < 6  # round the cube
    assert not cyan(shown)[window].any()  # faded, not solid: the shelf is in front
    # both evidence: each its own outline, the shelf's solid round the shelf
    view.set_highlight(["yellow_cube", "shelf"])
    both = view.snapshot()
    assert tinted(both)[window].sum() >= 0.8 * tinted(shown)[window].sum()
    assert cyan(both)[~window].sum() > 100


def test_marker_is_drawn_over_everything_at_its_point(viewport, world):
    plain = viewport.snapshot()
    inside = (0.0, 0.05, TABLE_TOP_Z + HALF)  # the cube's centre: hidden inside it
    viewport.set_marker(inside, pin=(inside, (0.0, 0.05, TABLE_TOP_Z + 0.15)))
    assert viewport.marked_point.tolist() == list(inside)
    shown = viewport.snapshot()
    uv, _ = project_points(viewport.camera_spec(), [inside])
    u, v = (int(c) for c in uv[0])
    assert magenta(shown[v - 2 : v + 3, u - 2 : u + 3]).all()
    assert 40 < magenta(shown).sum() < 2500  # a dot and a pin, not a blot
    top, _ = project_points(viewport.camera_spec(), [(0.0, 0.05, TABLE_TOP_Z + 0.14)])
    assert magenta(shown[int(top[0, 1]) - 1 : int(top[0, 1]) + 2, int(top[0, 0])]).any()
    viewport.set_marker(None)
    assert viewport.marked_point is None
    np.testing.assert_array_equal(viewport.snapshot(), plain)
    viewport.set_marker(inside)
    viewport.set_world(world)  # another world (or the same again) clears it
    assert viewport.marked_point is None


def drag(qtbot, view, start: QPoint, delta: QPoint, steps: int = 10) -> None:
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=start)
    for i in range(1, steps + 1):
        qtbot.mouseMove(view, start + QPoint(delta.x() * i // steps, delta.y() * i // steps))
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=start + delta)


def test_a_100_px_drag_turns_the_camera_a_moderate_angle(qtbot, viewport):
    before = viewport.view_params()
    with qtbot.assertNotEmitted(viewport.body_selected):
        drag(qtbot, viewport.gl_view, QPoint(150, 150), QPoint(100, 0))
    after = viewport.view_params()
    turned = abs(after.azimuth - before.azimuth)
    assert 25 <= turned <= 45, f"a 100 px drag turned {turned:.0f} degrees"
    assert after.elevation == pytest.approx(before.elevation)
    assert viewport.camera_preset == "free"
    drag(qtbot, viewport.gl_view, QPoint(150, 100), QPoint(0, 100))
    tilted = viewport.view_params().elevation - after.elevation
    assert 25 <= abs(tilted) <= 45
