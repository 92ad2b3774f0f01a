"""Drawing and adjusting boxes, and the lidar calibration, in Annotate HOI as a person does it."""

from __future__ import annotations

import numpy as np
import pytest
from gestures import annotate_window, drag_on_panorama, press_shortcut
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import QRectF, Qt

from app.demo.jrdb_synth import SynthConfig

CONFIG = SynthConfig(frames=2, people=3, objects=2, points_per_sweep=2_000)
CTRL = Qt.KeyboardModifier.ControlModifier
LEFT = Qt.MouseButton.LeftButton


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("annotate_boxes"), CONFIG).db


@pytest.fixture
def window(qtbot, imported, tmp_path):
    with annotate_window(qtbot, imported, tmp_path) as w:
        assert w.session.annotator is not None and w.session.annotator.name == "Ada"
        yield w


def record(project, frame_id, entity_id, dims="2d"):
    return next(
        r for r in project.sequences.box_records(frame_id, dims) if r.box.entity_id == entity_id
    )


def test_ctrl_drag_draws_a_new_object_saved_by_the_annotator(qtbot, window):
    a = window.mode("annotate")
    a.boxes.ask_category = lambda: "chair"
    before = set(a.state.entities)
    drag_on_panorama(qtbot, a.panorama, (200, 200), (400, 420), CTRL)
    new = set(a.state.entities) - before
    assert len(new) == 1
    entity_id = new.pop()
    entity = a.state.entities[entity_id]
    assert entity.kind == "object" and entity.category == "chair"
    assert entity.key.startswith("chair:")
    assert a.state.selected == entity_id
    rec = record(window.session.project, a.state.frame.id, entity_id)
    assert rec.source == "annotator" and rec.annotator_id == window.session.annotator.id
    x, y, w, h = rec.box.x, rec.box.y, rec.box.w, rec.box.h
    assert x == pytest.approx(200, abs=6) and y == pytest.approx(200, abs=6)
    assert w == pytest.approx(200, abs=8) and h == pytest.approx(220, abs=8)
    assert any(b.entity_id == entity_id for b in a.panorama.boxes)  # drawn in the image
    assert a.boxes.next_key("chair") != entity.key
    # a 3D box for it from the Box panel, placed along its column
    press_shortcut(qtbot, window, Qt.Key.Key_B, CTRL)
    assert a.boxes.dock.isVisible() and a.boxes.panel.create.isVisible()
    qtbot.mouseClick(a.boxes.panel.create, LEFT)
    assert a.state.box_3d(entity_id) is not None
    assert record(window.session.project, a.state.frame.id, entity_id, "3d").source == "annotator"


def test_dragging_the_selected_box_moves_and_saves_it(qtbot, window):
    a = window.mode("annotate")
    box = next(b for b in a.state.boxes_2d if 50 < b.x and b.x + b.w < 3000 and b.w > 30)
    a.state.select(box.entity_id)
    cx, cy = box.x + box.w / 2, box.y + box.h / 2
    drag_on_panorama(qtbot, a.panorama, (cx, cy), (cx + 300, cy))
    moved = a.state.box_2d(box.entity_id)
    assert moved.x == pytest.approx(box.x + 300, abs=8) and moved.w == pytest.approx(box.w)
    assert moved.y == pytest.approx(box.y, abs=4)
    rec = record(window.session.project, a.state.frame.id, box.entity_id)
    assert rec.source == "annotator" and rec.annotator_id == window.session.annotator.id
    assert a.state.selected == box.entity_id  # still selected: a drag is not a click
    # the bottom-right corner handle resizes it
    drag_on_panorama(
        qtbot, a.panorama, (moved.x + moved.w, moved.y + moved.h), (moved.x + moved.w + 90, 470)
    )
    resized = a.state.box_2d(box.entity_id)
    assert resized.x == pytest.approx(moved.x, abs=4)
    assert resized.w == pytest.approx(moved.w + 90, abs=8)


def test_nobody_signed_in_saves_nothing(qtbot, window):
    a = window.mode("annotate")
    window.session.annotator = None
    a.boxes.ask_category = lambda: "bag"
    before = set(a.state.entities)
    drag_on_panorama(qtbot, a.panorama, (600, 200), (700, 300), CTRL)
    assert set(a.state.entities) == before
    assert "Sign in" in a.mode.statusBar().currentMessage()


def test_editing_a_3d_spin_box_saves_the_box_and_moves_the_wireframe(qtbot, window):
    a = window.mode("annotate")
    box = a.state.boxes_3d[0]
    a.state.select(box.entity_id)
    panel = a.boxes.panel
    assert panel.entity_id == box.entity_id and panel.spins["cx"].isEnabled()
    assert panel.spins["l"].value() == pytest.approx(box.l, abs=0.01)
    panel.spins["cx"].setValue(box.cx + 1.0)
    panel.spins["rot_z"].setValue(30.0)
    stored = next(b for b in a.state.boxes_3d if b.entity_id == box.entity_id)
    assert stored.cx == pytest.approx(box.cx + 1.0, abs=0.01)
    assert stored.rot_z == pytest.approx(np.radians(30.0), abs=1e-3)
    assert record(window.session.project, a.state.frame.id, box.entity_id, "3d").source == (
        "annotator"
    )
    shown = next(b for b in a.cloud.boxes if b.entity_id == box.entity_id)
    assert shown.cx == pytest.approx(box.cx + 1.0, abs=0.01)  # the wireframe follows


def test_adjusting_the_calibration_saves_it_and_changes_the_merged_cloud(qtbot, window):
    a = window.mode("annotate")
    seq_id = a.state.sequence.id
    before = a.cloud.cloud.points.copy()
    press_shortcut(qtbot, window, Qt.Key.Key_L, CTRL | Qt.KeyboardModifier.ShiftModifier)
    dialog = a.boxes.calibration
    assert dialog is not None and dialog.isVisible()
    dialog.spins[("lower", "x")].setValue(dialog.spins[("lower", "x")].value() + 0.5)
    dialog.spins[("lower", "yaw")].setValue(dialog.spins[("lower", "yaw")].value() + 10.0)
    old = a.cloud.cloud
    qtbot.mouseClick(dialog.apply_button, LEFT)
    stored = window.session.project.sequences.get(seq_id).calibration
    assert "Ada" in stored["source"]
    lower = stored["lidar_lower_to_rgb"]
    assert lower["translation"][0] == pytest.approx(dialog.spins[("lower", "x")].value())
    qtbot.waitUntil(lambda: a.cloud.cloud is not old and a.shown == a.state.frame.id, timeout=30000)
    after = a.cloud.cloud.points
    assert len(after) == len(before) and not np.allclose(np.sort(after, 0), np.sort(before, 0))
    dialog.close()


def test_ctrl_drag_draws_a_person_the_labels_missed(qtbot, window):
    """A person gets the next pedestrian id of the sequence, as the store gives it."""
    a = window.mode("annotate")
    project = window.session.project
    expected = project.sequences.next_key(a.state.sequence.id, "pedestrian")
    a.boxes.ask_category = lambda: "person"
    drag_on_panorama(qtbot, a.panorama, (900, 150), (980, 400), CTRL)
    entity = a.state.entities[a.state.selected]
    assert (entity.key, entity.kind, entity.source) == (expected, "human", "annotator")
    assert record(project, a.state.frame.id, entity.id).annotator_id == window.session.annotator.id


def test_an_entity_taken_out_of_a_frame_and_put_back(qtbot, window):
    a = window.mode("annotate")
    project, frame = window.session.project, a.state.frame
    labelled = {lab.subject_entity_id for lab in project.hoi.labels_for_frame(frame.id)}
    box = next(b for b in a.state.boxes_2d if b.entity_id not in labelled)
    a.state.select(box.entity_id)
    before = project.sequences.box_records(frame.id, "2d")
    press_shortcut(qtbot, window, Qt.Key.Key_Delete, CTRL)
    assert box.entity_id not in {b.entity_id for b in a.state.boxes_2d}
    assert box.entity_id not in {b.entity_id for b in a.panorama.boxes}  # gone from the image
    [removal] = project.sequences.removals(a.state.sequence.id)
    assert (removal["entity_id"], removal["frame_id"]) == (box.entity_id, frame.id)
    assert "taken out of frame" in a.mode.statusBar().currentMessage()
    press_shortcut(qtbot, window, Qt.Key.Key_Delete, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert project.sequences.box_records(frame.id, "2d") == before
    assert project.sequences.removals(a.state.sequence.id) == []
    assert a.state.selected == box.entity_id


def test_an_entity_with_labels_here_is_not_taken_out(qtbot, window):
    a = window.mode("annotate")
    project, frame = window.session.project, a.state.frame
    person = next(
        b.entity_id for b in a.state.boxes_2d if a.state.entities[b.entity_id].kind == "human"
    )
    project.hoi.add_label(
        frame_id=frame.id,
        subject_entity_id=person,
        object_entity_id=None,
        category="pose",
        predicate="standing",
        difficulty=1,
        annotator=window.session.annotator,
    )
    a.state.select(person)
    press_shortcut(qtbot, window, Qt.Key.Key_Delete, CTRL)
    assert "Not removed" in a.mode.statusBar().currentMessage()
    assert "delete them first" in a.mode.statusBar().currentMessage()
    assert person in {b.entity_id for b in a.state.boxes_2d}
    assert project.sequences.removals(a.state.sequence.id) == []


def test_fit_to_points_makes_the_tightest_box_around_the_objects_points(qtbot, window):
    a = window.mode("annotate")
    qtbot.waitUntil(lambda: a.cloud.cloud is not None and len(a.cloud.cloud.points) > 0)
    objects = [i for i in a.state.objects_in_frame() if a.state.box_3d(i) is not None]
    target = objects[0]
    truth = a.state.box_3d(target)
    a.state.select(target)
    # a sloppy box: twice as big, off by half a metre
    sloppy = (truth.cx + 0.3, truth.cy, truth.cz, truth.l * 2, truth.w * 2, truth.h * 2)
    a.boxes.save_box_3d(target, (*sloppy, truth.rot_z))
    press_shortcut(qtbot, window, Qt.Key.Key_F, CTRL | Qt.KeyboardModifier.AltModifier)
    fitted = a.state.box_3d(target)
    assert "fitted to its points" in a.mode.statusBar().currentMessage()
    assert fitted.rot_z == pytest.approx(truth.rot_z)  # aligned with the current yaw
    assert fitted.l <= truth.l + 0.1 and fitted.w <= truth.w + 0.1  # tight, not the sloppy
    assert min(fitted.l, fitted.w, fitted.h) > 0
    assert np.hypot(fitted.cx - truth.cx, fitted.cy - truth.cy) < 0.3
    # a 2D box over nothing but floor: refused, saying so, and nothing changes
    a.boxes.move_box_2d(target, QRectF(5, 470, 4, 4))
    before = a.state.box_3d(target)
    press_shortcut(qtbot, window, Qt.Key.Key_F, CTRL | Qt.KeyboardModifier.AltModifier)
    assert "lidar points" in a.mode.statusBar().currentMessage()
    assert a.state.box_3d(target) == before
