"""HOI labelling as annotators do it: keys for labels, targets clicked in a view, 1/2/3,
Tab, copying along the track, undo and redo (saved), and the review queues.

The first tests drive `HoiState` and `HoiReviewState` on the mode's real
`JrdbViewState`; the last ones press the keys of the installed panels.
"""

from __future__ import annotations

import pytest
from gestures import press_shortcut
from hoi_fixtures import build_hoi_project, copy_of
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from annotation.jrdb.hoi_review import ACCEPTED, HALF, RETURNED, UNREVIEWED
from app.modes.annotate.hoi_panels import install_hoi_panels
from app.session import ProjectSession
from store import open_project
from widgets.hoi.review_state import QUALITY, HoiReviewState
from widgets.hoi.review_state import RETURNED as RETURNED_LIST
from widgets.hoi.state import HoiState
from widgets.jrdb.state import JrdbViewState
from widgets.mode import ModeWindow


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("hoi_state"))


@pytest.fixture
def hp(base, tmp_path):
    return copy_of(base, tmp_path)


@pytest.fixture
def project(hp):
    with open_project(hp.db) as p:
        yield p


class Messages:
    def __init__(self, state: HoiState) -> None:
        self.saved: list[str] = []
        self.refused: list[str] = []
        state.saved.connect(self.saved.append)
        state.refused.connect(self.refused.append)


def _state(project, hp, name="Alice"):
    view = JrdbViewState()
    state = HoiState(view)
    view.load(project, hp.sequence_id)
    state.set_source(project.hoi, project.annotators.sign_in(name))
    return view, state


def _stored(project) -> list[tuple]:
    rows = project.db.execute(
        "SELECT frame_id, subject_entity_id, object_entity_id, predicate, difficulty "
        "FROM hoi_labels ORDER BY id"
    ).fetchall()
    return [tuple(r) for r in rows]


# -- the state alone ------------------------------------------------------------------------
def test_pose_key_toggles_a_label_and_difficulty_applies(project, hp):
    view, state = _state(project, hp)
    said = Messages(state)
    state.press("walking")
    assert said.refused[-1].startswith("Select a person")
    assert _stored(project) == []
    state.next_person()
    person = view.people_in_frame()[0]
    assert view.selected == person
    state.press("walking")
    assert _stored(project) == [(hp.frame_ids[0], person, None, "walking", 1)]
    assert state.selected.label.predicate == "walking"
    state.set_difficulty(3)
    assert _stored(project)[0][-1] == 3 and state.difficulty == 3
    state.press("standing")  # a second label: new labels take the last difficulty
    assert [r[3:] for r in _stored(project)] == [("walking", 3), ("standing", 3)]
    state.press("walking")  # pressing it again removes it
    assert [r[3] for r in _stored(project)] == ["standing"]
    assert [r.label.predicate for r in state.labels] == ["standing"]


def test_targeted_label_waits_for_a_picked_object(project, hp):
    view, state = _state(project, hp)
    said = Messages(state)
    person, bag = hp.persons["pedestrian:2"], hp.objects["bag:1"]
    view.select(person)
    state.press("carrying")
    assert view.picking and _stored(project) == []
    view.pick(hp.persons["pedestrian:1"])  # a person is not a target: still waiting
    assert view.picking and "not an object" in said.refused[-1]
    assert view.selected == person  # picking does not change the selection
    view.pick(bag)
    assert not view.picking
    assert _stored(project) == [(hp.frame_ids[0], person, bag, "carrying", 1)]
    # Another target for the same label.
    state.retarget()
    view.pick(hp.objects["chair:1"])
    assert _stored(project)[0][2] == hp.objects["chair:1"]
    # Esc cancels a pick; a frame change does too.
    state.press("holding")
    state.cancel_pick()
    assert not view.picking
    state.press("holding")
    view.step(1)
    assert not view.picking and len(_stored(project)) == 1


def test_selected_label_follows_the_frames(project, hp):
    view, state = _state(project, hp)
    view.select(hp.persons["pedestrian:1"])
    state.press("walking")
    state.propagate(1)
    view.step(1)
    assert state.selected is not None and state.selected.label.predicate == "walking"


def test_tab_cycles_the_people_in_the_frame(project, hp):
    view, state = _state(project, hp)
    people = view.people_in_frame()
    seen = []
    for _ in range(len(people) + 1):
        state.next_person()
        seen.append(view.selected)
    assert seen == people + people[:1]
    state.next_person(-1)
    assert view.selected == people[-1]


def test_undo_and_redo_are_saved(project, hp):
    view, state = _state(project, hp)
    view.select(hp.persons["pedestrian:1"])
    state.press("walking")
    state.set_difficulty(2)
    state.press("walking")  # removed
    assert _stored(project) == []
    assert state.undo()  # back, with difficulty 2 and its id
    assert [r[3:] for r in _stored(project)] == [("walking", 2)]
    assert state.undo()
    assert [r[3:] for r in _stored(project)] == [("walking", 1)]
    assert state.undo()
    assert _stored(project) == []
    assert not state.undo()
    assert state.redo() and state.redo()
    assert [r[3:] for r in _stored(project)] == [("walking", 2)]
    # A new change drops what could be redone.
    state.press("standing")
    assert not state.can_redo
    audit = [e.action for e in project.audit.recent(20) if e.table == "hoi_labels"]
    assert "restore" in audit and "delete" in audit


def test_undo_refuses_after_someone_reviewed(project, hp):
    view, state = _state(project, hp)
    said = Messages(state)
    view.select(hp.persons["pedestrian:1"])
    state.press("walking")
    label_id = state.selected_id
    project.hoi.review(label_id, reviewer=project.annotators.sign_in("Bob"), verdict="accept")
    assert not state.undo()
    assert "changed since" in said.refused[-1]
    assert project.hoi.record(label_id) is not None


def test_propagation_is_one_undo_step(project, hp):
    view, state = _state(project, hp)
    said = Messages(state)
    view.select(hp.persons["pedestrian:2"])
    state.press("carrying")
    view.pick(hp.objects["bag:1"])
    state.press("walking")
    state.set_propagate_count(3)
    state.propagate(1, all_labels=True)
    frames = {r[0] for r in _stored(project)}
    assert frames == set(hp.frame_ids[:4]) and len(_stored(project)) == 8
    assert "Copied 2 label(s) forward" in said.saved[-1]
    state.undo()
    assert len(_stored(project)) == 2


def test_others_labels_are_reviewed_not_edited(project, hp):
    view, alice = _state(project, hp, "Alice")
    view.select(hp.persons["pedestrian:1"])
    alice.press("walking")
    bob_view, bob = _state(project, hp, "Bob")
    said = Messages(bob)
    bob_view.select(hp.persons["pedestrian:1"])
    bob.press("walking")
    assert "only its author" in said.refused[-1]
    assert len(_stored(project)) == 1


def test_review_flow_returned_then_fixed(project, hp):
    view, alice = _state(project, hp, "Alice")
    view.select(hp.persons["pedestrian:2"])
    alice.press("holding")
    view.pick(hp.objects["bag:1"])
    label_id = alice.selected_id

    bob_view, bob = _state(project, hp, "Bob")
    review = HoiReviewState(bob)
    said = Messages(bob)
    review.refresh()
    assert [r.id for r in review.records] == [label_id]
    review.step(1)
    assert review.current.id == label_id
    assert bob_view.selected == hp.persons["pedestrian:2"]  # the views show it
    assert review.visible_reviews() == []  # blind: nothing of others
    assert not review.accept() and "difficulty" in said.refused[-1]
    review.set_difficulty(2)
    assert not review.reject() and "comment" in said.refused[-1]
    review.set_comment("carrying, not holding")
    assert review.reject()
    assert project.hoi.record(label_id).status == RETURNED
    assert review.records == []
    assert bob.undo()  # a review can be taken back too
    assert project.hoi.record(label_id).status == UNREVIEWED
    assert bob.redo()

    alice_review = HoiReviewState(alice)
    alice_review.refresh()
    alice_review.show_list(RETURNED_LIST)
    alice_review.step(1)
    assert [r.comment for r in alice_review.visible_reviews()] == ["carrying, not holding"]
    alice.set_difficulty(3)  # the author changes it: a new round
    record = project.hoi.record(label_id)
    assert (record.round, record.status) == (2, UNREVIEWED)
    alice_review.refresh()
    assert alice_review.records == []


def test_qc_list_is_reviewed_with_kind_qc(project, hp):
    view, alice = _state(project, hp, "Alice")
    view.select(hp.persons["pedestrian:1"])
    alice.press("walking")
    label_id = alice.selected_id
    for name in ("Bob", "Carol"):
        who = project.annotators.sign_in(name)
        project.hoi.review(label_id, reviewer=who, verdict="accept", difficulty=1)
    with project.write():
        project.db.execute("INSERT INTO project_meta(key, value) VALUES ('hoi_qc_rate', '1')")
    _v, dan = _state(project, hp, "Dan")
    review = HoiReviewState(dan)
    review.show_list(QUALITY)
    review.refresh()
    review.step(1)
    review.set_difficulty(1)
    assert review.accept()
    assert project.hoi.record(label_id).status == ACCEPTED
    assert [r.kind for r in project.hoi.record(label_id).reviews] == ["review", "review", "qc"]
    assert review.records == []


# -- the keys of the installed panels ----------------------------------------------------------
@pytest.fixture
def annotate(qtbot, hp):
    session = ProjectSession()
    session.open(hp.db)
    session.sign_in("Alice")
    view = JrdbViewState()
    mode = ModeWindow("annotate", "Annotate HOI", QLabel("views"))
    panels = install_hoi_panels(mode, view, session)
    view.load(session.project, hp.sequence_id)
    qtbot.addWidget(mode)
    mode.resize(1400, 800)
    mode.show()
    qtbot.waitExposed(mode)
    yield mode, view, panels, session
    panels.shutdown()
    session.close()


def test_keys_label_a_person(qtbot, annotate, hp):
    mode, view, panels, session = annotate
    key = lambda k, m=Qt.KeyboardModifier.NoModifier: press_shortcut(qtbot, mode, k, m)  # noqa: E731
    key(Qt.Key.Key_Tab)
    person = view.people_in_frame()[0]
    assert view.selected == person
    key(Qt.Key.Key_W)  # walking
    key(Qt.Key.Key_2)
    (record,) = panels.state.labels
    assert (record.label.predicate, record.label.difficulty) == ("walking", 2)
    assert panels.actions["label:walking"].isChecked() and panels.actions["d2"].isChecked()
    shown = panels.panel.list.model()
    assert shown.rowCount() == 1 and "walking" in shown.index(0, 0).data()
    assert "not reviewed" in shown.index(0, 0).data()
    key(Qt.Key.Key_H)  # holding: waits for a target
    assert view.picking and panels.panel.banner.isVisible()
    view.pick(hp.objects["bag:1"])
    assert len(panels.state.labels) == 2
    key(Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert session.project.hoi.progress(hp.sequence_id).labels == 2 * 6
    key(Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert session.project.hoi.progress(hp.sequence_id).labels == 2
    key(Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert session.project.hoi.progress(hp.sequence_id).labels == 12
    key(Qt.Key.Key_Delete)  # the selected label (holding) goes
    assert [r.label.predicate for r in panels.state.labels] == ["walking"]
    key(Qt.Key.Key_Tab, Qt.KeyboardModifier.ShiftModifier)
    assert view.selected == view.people_in_frame()[-1]
    assert "labelled" in panels.panel.progress.text()


def test_keys_review_a_label(qtbot, annotate, hp, project):
    mode, view, panels, session = annotate
    bob = project.annotators.sign_in("Bob")
    frame, person = hp.frame_ids[1], hp.persons["pedestrian:3"]
    label = project.hoi.add_label(
        frame_id=frame,
        subject_entity_id=person,
        object_entity_id=None,
        category="pose",
        predicate="standing",
        difficulty=1,
        annotator=bob,
    )
    session.data_changed.emit()  # someone else's change: the queues are read again
    review = panels.review
    assert [r.id for r in review.records] == [label.id]
    key = lambda k, m=Qt.KeyboardModifier.NoModifier: press_shortcut(qtbot, mode, k, m)  # noqa: E731
    key(Qt.Key.Key_J)
    assert review.current.id == label.id
    assert view.frame.id == frame and view.selected == person
    key(Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    assert panels.actions["r2"].isChecked()
    key(Qt.Key.Key_A)
    record = project.hoi.record(label.id)
    assert record.status == HALF
    assert (record.reviews[0].difficulty, record.reviews[0].label_difficulty) == (2, 1)
    assert review.records == []
    assert "To review (0)" in panels.review_panel.tabs.tabText(0)
