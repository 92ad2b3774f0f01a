"""Dragging bodies in the 3D viewport (a real PyBullet world in DIRECT mode, GL under Xvfb):
while enabled a press on a movable body starts a drag, each move reports the ray under the
cursor, the release ends it; anything else still orbits the camera."""

from __future__ import annotations

import numpy as np
import pytest
from gestures import shown_viewport
from PySide6.QtCore import QPoint, Qt

from sim.camera import project_points
from sim.tabletop.world import TABLE_TOP_Z, TabletopWorld
from widgets.viewport.drag import BodyDrag
from widgets.viewport.view import SceneViewport

HALF = 0.03
LEFT = Qt.MouseButton.LeftButton
CUBE = (0.0, 0.05, TABLE_TOP_Z + HALF)
BLOCK = (0.15, -0.1, TABLE_TOP_Z + HALF)


@pytest.fixture
def world():
    w = TabletopWorld(with_robot=False)
    w.add_primitive("cube", "box", (HALF,) * 3, CUBE, rgba=(0.95, 0.85, 0.1, 1))
    w.add_primitive("block", "box", (HALF,) * 3, BLOCK, rgba=(0.1, 0.2, 0.9, 1))
    yield w
    w.close()


@pytest.fixture
def viewport(qtbot, world):
    view = shown_viewport(qtbot, world, (400, 300), "top_down")
    return view


@pytest.fixture
def drag(viewport):
    d = BodyDrag(viewport, lambda key: key == "cube")  # the block may not move
    d.set_enabled(True)
    return d


def pixel(viewport: SceneViewport, point) -> QPoint:
    uv, _ = project_points(viewport.camera_spec(), np.array([point]))
    return QPoint(int(uv[0, 0]), int(uv[0, 1]))


def on_table(origin, direction) -> np.ndarray:
    """Where a ray meets the table top."""
    t = (TABLE_TOP_Z - origin[2]) / direction[2]
    return np.asarray(origin) + t * np.asarray(direction)


def test_a_drag_on_a_movable_body_reports_rays_and_keeps_the_camera(qtbot, viewport, drag):
    gl_view, camera = viewport.gl_view, viewport.view_params()
    top = (CUBE[0], CUBE[1], TABLE_TOP_Z + 2 * HALF)
    moved = []
    drag.moved.connect(lambda key, origin, direction: moved.append((key, origin, direction)))
    with qtbot.waitSignal(drag.started, timeout=1000) as started:
        qtbot.mousePress(gl_view, LEFT, pos=pixel(viewport, top))
    assert started.args == ["cube"] and drag.key == "cube"
    target = (0.1, 0.15, TABLE_TOP_Z)
    qtbot.mouseMove(gl_view, pixel(viewport, (0.05, 0.1, TABLE_TOP_Z)))
    qtbot.mouseMove(gl_view, pixel(viewport, target))
    with qtbot.waitSignal(drag.finished, timeout=1000) as finished:
        qtbot.mouseRelease(gl_view, LEFT, pos=pixel(viewport, target))
    assert finished.args == ["cube"] and drag.key == ""
    assert [key for key, _, _ in moved] == ["cube", "cube"]
    _, origin, direction = moved[-1]
    assert np.linalg.norm(direction) == pytest.approx(1.0, abs=1e-6)
    assert on_table(origin, direction)[:2] == pytest.approx(target[:2], abs=0.005)
    assert viewport.view_params() == camera  # the press did not orbit


def test_what_may_not_move_and_ctrl_still_orbit(qtbot, viewport, drag):
    gl_view = viewport.gl_view
    with qtbot.assertNotEmitted(drag.started):
        for start, modifier in (
            (pixel(viewport, BLOCK), Qt.KeyboardModifier.NoModifier),  # not movable
            (pixel(viewport, (-0.2, -0.15, TABLE_TOP_Z)), Qt.KeyboardModifier.NoModifier),  # table
            (pixel(viewport, CUBE), Qt.KeyboardModifier.ControlModifier),  # Ctrl: the camera
        ):
            azimuth = viewport.view_params().azimuth
            qtbot.mousePress(gl_view, LEFT, modifier, start)
            for dx in (20, 40, 60):
                qtbot.mouseMove(gl_view, start + QPoint(dx, 0))
            qtbot.mouseRelease(gl_view, LEFT, modifier, start + QPoint(60, 0))
            assert viewport.view_params().azimuth != azimuth  # orbited
    assert drag.key == ""


def test_disabled_it_takes_nothing_and_disabling_ends_a_drag(qtbot, viewport, drag):
    gl_view, cube = viewport.gl_view, pixel(viewport, CUBE)
    drag.set_enabled(False)
    with qtbot.assertNotEmitted(drag.started):
        qtbot.mousePress(gl_view, LEFT, pos=cube)
        qtbot.mouseRelease(gl_view, LEFT, pos=cube)
    drag.set_enabled(True)
    qtbot.mousePress(gl_view, LEFT, pos=cube)
    assert drag.key == "cube"
    with qtbot.waitSignal(drag.finished, timeout=1000) as finished:
        drag.set_enabled(False)  # e.g. editing switched off mid-drag
    assert finished.args == ["cube"] and drag.key == "" and not drag.enabled
    with qtbot.assertNotEmitted(drag.moved):
        qtbot.mouseMove(gl_view, cube + QPoint(30, 0))
    qtbot.mouseRelease(gl_view, LEFT, pos=cube + QPoint(30, 0))
