"""Object tracks in Annotate HOI, as a person does it: a moving object boxed through 30
frames with three keyframe edits, interpolated boxes drawn dashed, undo, End track."""

from __future__ import annotations

import pytest
from gestures import annotate_window, drag_on_panorama, press_shortcut
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import QRectF, Qt

from app.demo.jrdb_synth import SynthConfig

CONFIG = SynthConfig(frames=30, people=2, objects=0, points_per_sweep=300)
CTRL = Qt.KeyboardModifier.ControlModifier
CTRL_ALT = CTRL | Qt.KeyboardModifier.AltModifier
CTRL_SHIFT = CTRL | Qt.KeyboardModifier.ShiftModifier


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("annotate_tracks"), CONFIG).db


@pytest.fixture
def window(qtbot, imported, tmp_path):
    with annotate_window(qtbot, imported, tmp_path) as w:
        yield w


def go_to(qtbot, annotate, index: int) -> None:
    annotate.state.set_frame(index)
    qtbot.waitUntil(lambda: annotate.shown == annotate.state.frame.id, timeout=30000)


def centre(box) -> float:
    return box.x + box.w / 2


def test_a_moving_object_boxed_through_30_frames_with_three_keyframe_edits(qtbot, window):
    a = window.mode("annotate")
    repo = window.session.project.sequences
    a.boxes.ask_category = lambda: "bag"
    # edit 1, frame 0: the bag is drawn (a new entity, its first keyframe)
    drag_on_panorama(qtbot, a.panorama, (1000, 250), (1060, 310), CTRL)
    bag = a.state.selected
    assert a.state.entities[bag].category == "bag"
    # edit 2, frame 15: the carried box is dragged to where the bag is now
    go_to(qtbot, a, 15)
    carried = a.state.box_2d(bag)
    assert carried is not None and carried.attributes["interpolated"] is True
    assert centre(carried) == pytest.approx(1030, abs=6)
    drag_on_panorama(qtbot, a.panorama, (1030, 280), (1330, 280))
    # edit 3, frame 29: and once more
    go_to(qtbot, a, 29)
    drag_on_panorama(qtbot, a.panorama, (1330, 280), (1630, 280))
    frames = a.state.frames
    assert sorted(repo.keyframes(bag, "2d")) == [0, 15, 29]  # three edits, three rows
    centres = [centre(repo.box_record(bag, f.id).box) for f in frames]
    assert all(c is not None for c in centres) and len(centres) == 30
    assert all(b > a_ for a_, b in zip(centres, centres[1:], strict=False))  # it moves
    assert centres[7] == pytest.approx(1030 + 300 * 7 / 15, abs=8)
    # an interpolated box is drawn dashed, a keyframe solid
    go_to(qtbot, a, 7)
    [item] = a.panorama.items[bag]
    assert item.pen().style() == Qt.PenStyle.DashLine
    go_to(qtbot, a, 15)
    assert a.panorama.items[bag][0].pen().style() == Qt.PenStyle.SolidLine
    # undo takes the last keyframe back: frame 29 is carried from 15 again
    a.state.select(bag)
    press_shortcut(qtbot, window, Qt.Key.Key_Z, CTRL_ALT)
    assert sorted(repo.keyframes(bag, "2d")) == [0, 15]
    assert repo.box_record(bag, frames[29].id).source == "interpolated"
    # the bag leaves the view in frame 25: End track there
    go_to(qtbot, a, 25)
    a.state.select(bag)
    press_shortcut(qtbot, window, Qt.Key.Key_E, CTRL_SHIFT)
    assert repo.track_end(bag) == 25
    assert a.state.box_2d(bag) is None and repo.box_record(bag, frames[24].id) is not None
    # a keyframe after the end is refused, naming the rule
    go_to(qtbot, a, 27)
    a.state.select(bag)
    a.boxes.move_box_2d(bag, QRectF(1300, 250, 60, 60))
    assert "ended at frame 25" in a.mode.statusBar().currentMessage()
    assert sorted(repo.keyframes(bag, "2d")) == [0, 15]
    # Ctrl+K keys an interpolated box as it is
    go_to(qtbot, a, 10)
    a.state.select(bag)
    press_shortcut(qtbot, window, Qt.Key.Key_K, CTRL)
    assert sorted(repo.keyframes(bag, "2d")) == [0, 10, 15]


def test_a_carried_box_with_no_point_in_it_ends_its_track_where_it_is_shown(qtbot, window):
    """Two objects keyed in 3D in frame 0 only: a chair's box around a person's points
    (they are there in frame 1 too) and a bag's box three metres up in the air (no point
    there). Stepping to frame 1 shows their carried boxes: the bag has left the view, and
    its track ends there (one undo step); the chair's goes on."""
    a = window.mode("annotate")
    repo, s = window.session.project.sequences, a.state
    ada = window.session.annotator
    seq = s.sequence
    first = s.frames[0]
    person = next(b for b in s.boxes_3d if s.entities[b.entity_id].kind == "human")
    chair = repo.add_drawn_entity(seq.id, "object", "chair", ada)
    bag = repo.add_drawn_entity(seq.id, "object", "bag", ada)
    around = (person.cx, person.cy, person.cz, person.l, person.w, person.h, person.rot_z)
    repo.set_box_3d(chair, first.id, around, ada)
    repo.set_box_3d(bag, first.id, (2.0, 0.0, 3.0, 0.4, 0.3, 0.4, 0.0), ada)
    s.refresh()
    go_to(qtbot, a, 1)
    qtbot.waitUntil(lambda: repo.track_end(bag) == 1, timeout=10000)
    assert repo.track_end(chair) is None and s.box_3d(chair) is not None
    assert s.box_3d(bag) is None  # gone from the frame shown
    message = a.mode.statusBar().currentMessage()
    assert "bag" in message and "left the view" in message and "frame 1" in message
    press_shortcut(qtbot, window, Qt.Key.Key_Z, CTRL_ALT)  # taken back: reopened
    assert repo.track_end(bag) is None
