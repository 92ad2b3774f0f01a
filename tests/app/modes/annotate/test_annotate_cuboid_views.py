"""A new object boxed in 2D and 3D with no typed number: Ctrl+drag in the panorama, Fit to
points, then the cuboid's top view to adjust it, each drag saved once by the annotator and
undone in one step."""

from __future__ import annotations

import math

import pytest
from gestures import annotate_window, drag_on_panorama, press_shortcut
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import QPointF, Qt

from app.demo.jrdb_synth import SynthConfig

CONFIG = SynthConfig(frames=2, people=3, objects=2, points_per_sweep=2_000)
CTRL = Qt.KeyboardModifier.ControlModifier
ALT = Qt.KeyboardModifier.AltModifier
NONE = Qt.KeyboardModifier.NoModifier
LEFT = Qt.MouseButton.LeftButton


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("annotate_cuboid"), CONFIG).db


@pytest.fixture
def window(qtbot, imported, tmp_path):
    with annotate_window(qtbot, imported, tmp_path) as w:
        qtbot.waitUntil(lambda: w.mode("annotate").cloud.total_count > 0)
        yield w


def stored_3d(project, frame_id, entity_id):
    return next(
        r for r in project.sequences.box_records(frame_id, "3d") if r.box.entity_id == entity_id
    )


def drag_in_view(qtbot, view, start: QPointF, end: QPointF) -> None:
    a, b = start.toPoint(), end.toPoint()
    qtbot.mousePress(view, LEFT, NONE, a)
    qtbot.mouseMove(view, (a + b) / 2)
    qtbot.mouseMove(view, b)
    qtbot.mouseRelease(view, LEFT, NONE, b)


def back_face(box) -> tuple[float, float]:
    return (box.cx - box.l / 2 * math.cos(box.rot_z), box.cy - box.l / 2 * math.sin(box.rot_z))


def new_fitted_chair(qtbot, window) -> int:
    """Box the labels' chair again as a new object, with the mouse and keys only: Ctrl+drag
    around it in the panorama, its category, Fit to points; then Ctrl+B for the views."""
    a = window.mode("annotate")
    chair = next(b for b in a.state.boxes_2d if a.state.entities[b.entity_id].category == "chair")
    a.boxes.ask_category = lambda: "chair"  # the chooser's key, as the other box tests answer it
    before = set(a.state.entities)
    drag_on_panorama(
        qtbot, a.panorama, (chair.x, chair.y), (chair.x + chair.w, chair.y + chair.h), CTRL
    )
    (new,) = set(a.state.entities) - before
    assert a.state.selected == new and a.state.box_3d(new) is None
    # Fit to points gives it its first 3D box, around the chair's points
    press_shortcut(qtbot, window, Qt.Key.Key_F, CTRL | ALT)
    fitted = a.state.box_3d(new)
    assert fitted is not None, a.mode.statusBar().currentMessage()
    truth = a.state.box_3d(chair.entity_id)
    assert math.hypot(fitted.cx - truth.cx, fitted.cy - truth.cy) < 0.5
    # Ctrl+B: the Box dock and the cuboid views, following the selection
    press_shortcut(qtbot, window, Qt.Key.Key_B, CTRL)
    views = a.boxes.views
    qtbot.waitUntil(lambda: views.isVisible() and views.views["top"].height() > 100)
    return new


def test_a_new_object_is_boxed_in_2d_and_3d_with_the_mouse_only(qtbot, window):
    a = window.mode("annotate")
    project, frame = window.session.project, a.state.frame
    new = new_fitted_chair(qtbot, window)
    fitted = a.state.box_3d(new)
    views = a.boxes.views
    top = views.views["top"]
    assert views.entity_id == new and top.box is not None and len(top.points) > 10
    undo_steps = len(a.boxes.history.steps)

    # the front edge dragged 30 px out: longer, the back face where it was, saved once
    start = top.to_screen(fitted.l / 2, 0.0)
    end = start + QPointF(30, 0)
    grown = 30 / top.scale
    drag_in_view(qtbot, top, start, end)
    longer = stored_3d(project, frame.id, new)
    assert longer.source == "annotator" and longer.annotator_id == window.session.annotator.id
    assert longer.box.l == pytest.approx(fitted.l + grown, abs=2 / top.scale)
    assert back_face(longer.box) == pytest.approx(back_face(fitted), abs=1e-3)
    assert (longer.box.w, longer.box.h, longer.box.cz) == pytest.approx(
        (fitted.w, fitted.h, fitted.cz)
    )
    assert a.boxes.panel.spins["l"].value() == pytest.approx(longer.box.l, abs=0.01)
    assert len(a.boxes.history.steps) == undo_steps + 1  # one drag, one undo step
    shown = next(b for b in a.cloud.boxes if b.entity_id == new)
    assert shown.l == pytest.approx(longer.box.l)  # the cloud's wireframe follows

    # while a drag goes on the cloud's wireframe follows it; Esc puts it back, unsaved
    a_, b_ = top.to_screen(longer.box.l / 2, 0.0).toPoint(), top.to_screen(0.0, 0.0).toPoint()
    qtbot.mousePress(top, LEFT, NONE, a_)
    qtbot.mouseMove(top, (a_ + b_) / 2)
    qtbot.mouseMove(top, b_)
    dragging = next(b for b in a.cloud.boxes if b.entity_id == new)
    assert dragging.l < longer.box.l - 0.1 and stored_3d(project, frame.id, new).box == longer.box
    qtbot.keyClick(top, Qt.Key.Key_Escape)
    qtbot.mouseRelease(top, LEFT, NONE, b_)
    shown = next(b for b in a.cloud.boxes if b.entity_id == new)
    assert shown.l == pytest.approx(longer.box.l) and len(a.boxes.history.steps) == undo_steps + 1

    # the handle in front of it, a quarter turn to the left
    box = a.state.box_3d(new)
    reach = box.l / 2 + 22 / top.scale
    drag_in_view(qtbot, top, top.to_screen(reach, 0.0), top.to_screen(0.0, reach))
    turned = stored_3d(project, frame.id, new).box
    assert math.remainder(turned.rot_z - box.rot_z, 2 * math.pi) == pytest.approx(
        math.pi / 2, abs=0.05
    )
    assert (turned.cx, turned.cy, turned.l) == pytest.approx((box.cx, box.cy, box.l))

    # Undo box edit takes the turn back, and only the turn
    press_shortcut(qtbot, window, Qt.Key.Key_Z, CTRL | ALT)
    back = stored_3d(project, frame.id, new).box
    assert back.rot_z == pytest.approx(box.rot_z) and back.l == pytest.approx(longer.box.l)
    assert views.values[6] == pytest.approx(box.rot_z)  # the views follow the undo


def test_a_drag_keys_a_carried_box_and_nobody_signed_in_saves_nothing(qtbot, window):
    a = window.mode("annotate")
    project = window.session.project
    new = new_fitted_chair(qtbot, window)
    keyed = a.state.box_3d(new)
    first = a.state.frame
    press_shortcut(qtbot, window, Qt.Key.Key_PageDown)  # the next frame: the box carried on
    qtbot.waitUntil(lambda: a.state.frame.id != first.id and a.shown == a.state.frame.id)
    frame = a.state.frame
    assert stored_3d(project, frame.id, new).source == "interpolated"
    views = a.boxes.views
    top, side = views.views["top"], views.views["side"]
    assert views.entity_id == new and top.interpolated and "interpolated" in views.title.text()
    # raised 20 px in Side: a keyframe here, the first frame's box as it was
    start = side.to_screen(0.0, 0.0)
    rise = 20 / side.scale
    drag_in_view(qtbot, side, start, start - QPointF(0, 20))
    here = stored_3d(project, frame.id, new)
    assert here.source == "annotator" and here.box.cz == pytest.approx(keyed.cz + rise, abs=0.01)
    assert stored_3d(project, first.id, new).box == keyed
    assert not views.interpolated  # drawn solid now
    # with nobody signed in a drag saves nothing and the box goes back where it was
    window.session.annotator = None
    drag_in_view(qtbot, top, top.to_screen(0.0, 0.0), top.to_screen(0.0, 0.0) + QPointF(40, 0))
    assert "Sign in" in a.mode.statusBar().currentMessage()
    assert stored_3d(project, frame.id, new).box == here.box
    assert views.values == pytest.approx(
        (here.box.cx, here.box.cy, here.box.cz, here.box.l, here.box.w, here.box.h, here.box.rot_z)
    )
