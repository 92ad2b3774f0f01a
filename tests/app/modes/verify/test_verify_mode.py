"""Verify questions as verifiers use it: two blind first-round verdicts, then adjudication.

The GUI tests drive the mode with its keys (A, R, E, 1/2/3, J/K, Ctrl+Z, V)
and check the store; the first tests drive `VerifyState` alone, without Qt
widgets.
"""

from __future__ import annotations

import pytest
from gestures import CRITERIA_KEYS, approve_question, open_as_ada, press_shortcut
from PySide6.QtCore import Qt
from question_fixtures import write_question_project

from annotation.verification import Verdict
from store import open_project
from widgets.verify.state import (
    ADJUDICATION,
    COVER_ALPHA,
    FADED_ALPHA,
    QUEUE,
    VerifyState,
    parse_answer,
    parse_options,
    verification_rendering,
)

ALL = Verdict(True, True, True, "approve")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _add(project, text: str, answer, options=None, task: str = "count") -> int:
    record = {"benchmark": "mgvqa", "task": task, "text": text, "options": options}
    return project.questions.add({**record, "answer": answer, "evidence_ids": ["obj_01"]}).id


# -- the state alone ----------------------------------------------------------------------
@pytest.fixture
def questions(project):
    return [
        _add(project, "How many mugs are on the table?", 2),
        _add(project, "What lies under the tray?", "red mug", ["red mug", "blue box"], "beneath"),
        _add(project, "How many cubes?", 3),
    ]


def _state(project, annotator, clock=None):
    state = VerifyState(
        project.verifications, annotator, scenes=project.scenes, clock=clock or Clock()
    )
    saved, refused = [], []
    state.verdict_saved.connect(saved.append)
    state.refused.connect(refused.append)
    return state, saved, refused


def test_state_saves_a_verdict_with_time_on_task_and_moves_on(project, alice, questions):
    clock = Clock()
    state, saved, refused = _state(project, alice, clock)
    assert [q.id for q in state.questions] == questions
    assert state.current.id == questions[0]
    assert not state.approve()  # no criterion yet
    assert refused[-1].startswith("Approve needs all three criteria")
    for i in (1, 2, 3):
        state.toggle(i)
    assert state.allowed() == ("approve", "correct", "reject")
    clock.now += 12.5
    assert state.approve()
    record = project.verifications.last_verdict(alice)
    assert record.question_id == questions[0] and record.seconds_on_task == pytest.approx(12.5)
    assert saved[-1].startswith(f"Saved: approve on question #{questions[0]}")
    assert [q.id for q in state.questions] == questions[1:]
    assert state.current.id == questions[1]  # the next one, with a fresh draft and clock
    assert not any(state.draft.criteria.values())
    assert state.seconds_on_task() == 0


def test_state_asks_criterion_4_of_a_compare_question_only(project, alice, questions):
    compare = _add(project, "Which labelled object is largest?", "B", ["A", "B", "C"], "compare")
    state, saved, refused = _state(project, alice)
    assert state.draft.volumes_distinct is None and not state.asks("volumes_distinct")
    state.open_row([q.id for q in state.questions].index(compare))
    assert state.asks("volumes_distinct") and state.draft.volumes_distinct is False
    for i in (1, 2, 3):
        state.toggle(i)
    assert state.allowed() == ("reject",)  # not distinct (yet): an invalid scene
    assert not state.approve() and refused[-1] == "Approve needs all four criteria (1, 2, 3, 4)"
    assert not state.correct()  # opens the editor
    state.set_correction(text=state.draft.text, options_text="A\nB\nC", answer_text="C")
    assert not state.correct()
    assert refused[-1].startswith("Correct needs a valid scene: criteria 2, 3 and 4")
    state.toggle(4)
    assert state.allowed() == ("approve", "correct", "reject")
    assert state.correct()  # the answer typed above: a correction now saves
    record = project.verifications.last_verdict(alice)
    assert record.question_id == compare and record.verdict.volumes_distinct is True
    assert project.questions.get(record.proposed_question_id).answer == "C"


def test_state_reject_needs_a_reason_and_correct_opens_the_editor(project, alice, questions):
    state, _saved, refused = _state(project, alice)
    focus = []
    state.focus_requested.connect(focus.append)
    assert not state.reject()
    assert focus == ["reason"] and "reason" in refused[-1]
    state.set_reason("the mugs are hidden for good")
    assert state.reject()
    assert (
        project.verifications.last_verdict(alice).verdict.reason == "the mugs are hidden for good"
    )
    # a correction: E opens the editor, E again saves it
    state.toggle(2)
    state.toggle(3)
    assert not state.correct()
    assert state.draft.editing and focus[-1] == "correction"
    assert not state.correct()  # nothing edited yet
    assert "changes nothing" in refused[-1]
    state.set_correction(
        text=state.draft.text, options_text="red mug\nblue box\ngreen cup", answer_text="blue box"
    )
    assert state.corrections() == {
        "options": ["red mug", "blue box", "green cup"],
        "answer": "blue box",
    }
    assert state.correct()
    record = project.verifications.last_verdict(alice)
    assert record.decision == "correct" and record.proposed_question_id is not None
    proposed = project.questions.get(record.proposed_question_id)
    assert not proposed.is_current and proposed.answer == "blue box"
    assert project.verifications.outcome(questions[1]).status == "pending"


def test_state_is_blind_and_undo_follows_the_repository(project, alice, bob, questions):
    a, _, _ = _state(project, alice)
    for i in (1, 2, 3):
        a.toggle(i)
    assert a.approve()
    assert a.can_undo
    assert a.undo()
    assert a.current.id == questions[0]  # back in the queue, open again
    assert project.verifications.last_verdict(alice) is None
    for i in (1, 2, 3):
        a.toggle(i)
    assert a.approve()
    b, _, b_refused = _state(project, bob)
    assert b.current.id == questions[0]
    assert b.verdicts == []  # Alice's verdict is hidden from Bob
    b.set_reason("two mugs, not three")
    assert b.reject()
    record, visible, outcome = b.last_saved()
    assert {r.annotator_name for r in visible} == {"Alice", "Bob"}
    assert outcome.needs_adjudication
    assert not b.undo()  # paired: no longer blind
    assert "cannot undo" in b_refused[-1]
    carol = project.annotators.sign_in("Carol")
    c, _, _ = _state(project, carol)
    c.show_list(ADJUDICATION)
    assert c.current.id == questions[0]
    assert {r.annotator_name for r in c.verdicts} == {"Alice", "Bob"}
    for i in (1, 2, 3):
        c.toggle(i)
    assert c.approve()
    assert project.verifications.outcome(questions[0]).status == "approved"
    assert project.questions.get(questions[0]).status == "approved"


def test_state_reports_a_taken_slot_instead_of_raising(project, alice, bob, questions):
    carol = project.annotators.sign_in("Carol")
    a, _, refused = _state(project, alice)
    for other in (bob, carol):  # the two slots fill while Alice looks at it
        project.verifications.submit(questions[0], other, ALL, 3.0)
    for i in (1, 2, 3):
        a.toggle(i)
    assert not a.approve()
    assert "two verdicts" in refused[-1]
    assert a.current.id == questions[1]  # the queue was refreshed


def test_state_without_annotator_is_empty_and_refuses(project, questions):
    state, _, refused = _state(project, None)
    assert state.questions == [] and state.current is None
    state.next()
    assert not state.approve() and refused


def test_pure_helpers():
    r = verification_rendering(task="beneath", evidence_ids=["b", "c"], object_keys=["a", "b", "c"])
    assert r.highlighted == {"b", "c"}
    assert r.alpha == {"a": FADED_ALPHA, "b": COVER_ALPHA}
    r = verification_rendering(task="count", evidence_ids=["a"], object_keys=["a", "b"])
    assert r.alpha == {"b": FADED_ALPHA} and r.highlighted == {"a"}
    r = verification_rendering(task="find", evidence_ids=[], object_keys=["a", "b"])
    assert not r.highlighted and set(r.alpha) == {"a", "b"}
    assert parse_answer(" 4 ", 3) == 4
    assert parse_answer("4", "3 mugs") == "4"
    assert parse_answer('{"answer": "no", "point": null}', {}) == {"answer": "no", "point": None}
    assert parse_options("a\n\n b \n") == ["a", "b"] and parse_options(" \n") is None


# -- the mode, with a generated question and its scene ---------------------------------------
@pytest.fixture(scope="module")
def question_project(tmp_path_factory):
    return write_question_project(tmp_path_factory.mktemp("verify") / "questions.reasonscope")


@pytest.fixture
def window(qtbot, question_project, tmp_path):
    def small_renders(w):
        w.mode("verify").image_size = 256  # quick restores in tests

    w = open_as_ada(qtbot, question_project, "verify", copy_to=tmp_path, prepare=small_renders)
    yield w
    w.close()


def _wait_scene(qtbot, verify):
    qtbot.waitUntil(
        lambda: verify.loaded is not None and verify.loaded.scene.id == verify.state.scene.id,
        timeout=30000,
    )


def _keys(qtbot, window, *keys):
    for key in keys:
        press_shortcut(qtbot, window, key)


def test_two_blind_verifiers_disagree_and_a_third_adjudicates(qtbot, window):
    verify, session = window.mode("verify"), window.session
    project, repo = session.project, session.project.verifications
    assert verify.pages.currentWidget() is verify.page
    first = verify.state.current
    assert first is not None and first.task == "beneath"
    assert verify.queue.model.rowCount() == 2
    _wait_scene(qtbot, verify)
    _keys(qtbot, window, *CRITERIA_KEYS)
    shown = [b for b in verify.panel.criteria.values() if b.isVisibleTo(verify.panel)]
    assert len(shown) == 3 and all(box.isChecked() for box in shown)  # 4: Compare only
    assert verify.actions["c3"].isChecked() and not verify.actions["c4"].isVisible()
    press_shortcut(qtbot, window, Qt.Key.Key_A)
    ada = session.annotator
    record = repo.last_verdict(ada)
    assert record.question_id == first.id and record.decision == "approve"
    assert record.seconds_on_task > 0
    assert first.id not in [q.id for q in repo.queue(ada)]
    assert verify.state.current.id != first.id
    assert "Saved: approve" in verify.mode.statusBar().currentMessage()
    assert "approve" in verify.panel.last.text()

    session.sign_in("Ben")
    assert verify.state.current.id == first.id
    shown = verify.panel.verdicts.text() + verify.panel.last.text()
    assert "Ada" not in shown and "approve" not in verify.panel.verdicts.text()
    press_shortcut(qtbot, window, Qt.Key.Key_1)
    press_shortcut(qtbot, window, Qt.Key.Key_R)  # asks for the reason
    assert verify.panel.reason.hasFocus()
    assert repo.last_verdict(session.annotator) is None
    qtbot.keyClicks(verify.panel.reason, "the tray hides nothing")
    qtbot.keyClick(verify.panel.reason, Qt.Key.Key_Return)
    ben_record = repo.last_verdict(session.annotator)
    assert ben_record.decision == "reject" and ben_record.verdict.reason == "the tray hides nothing"
    assert repo.outcome(first.id).needs_adjudication
    assert "Ada" in verify.panel.last.text()  # both are in: now Ben may see Ada's verdict
    press_shortcut(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert "cannot undo" in verify.mode.statusBar().currentMessage()
    assert repo.last_verdict(session.annotator).id == ben_record.id

    session.sign_in("Cleo")
    assert [q.id for q in verify.state.lists[ADJUDICATION]] == [first.id]
    tabs = verify.queue.tabs
    qtbot.mouseClick(tabs, Qt.MouseButton.LeftButton, pos=tabs.tabRect(1).center())
    assert verify.state.list_name == ADJUDICATION and verify.state.current.id == first.id
    text = verify.panel.verdicts.text()
    assert "Ada" in text and "Ben" in text and "reject" in text
    approve_question(qtbot, window)
    assert repo.outcome(first.id).status == "approved"
    assert project.questions.get(first.id).status == "approved"
    assert verify.state.lists[ADJUDICATION] == []


def test_undo_is_saved_and_reopens_the_question(qtbot, window):
    verify, session = window.mode("verify"), window.session
    repo = session.project.verifications
    first = verify.state.current
    approve_question(qtbot, window)
    assert verify.state.current.id != first.id
    press_shortcut(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert repo.last_verdict(session.annotator) is None
    assert verify.state.current.id == first.id
    entry = session.project.audit.recent(1)[0]
    assert entry.action == "retract" and entry.annotator == "Ada"
    assert "Undone" in verify.mode.statusBar().currentMessage()


def test_key_4_ticks_criterion_4_on_a_compare_question(qtbot, window):
    verify, session = window.mode("verify"), window.session
    repo = session.project.verifications
    compare = _add(session.project, "Which labelled object is largest?", "B", ["A", "B"], "compare")
    session.data_changed.emit()
    press_shortcut(qtbot, window, Qt.Key.Key_4)  # not asked of the open Beneath question:
    assert verify.state.draft.volumes_distinct is None  # its action is hidden, the key idle
    assert not verify.actions["c4"].isVisible()
    verify.state.open_row([q.id for q in verify.state.questions].index(compare))
    assert (
        verify.actions["c4"].isVisible() and verify.panel.criteria["volumes_distinct"].isVisible()
    )
    _keys(qtbot, window, *CRITERIA_KEYS, Qt.Key.Key_A)
    assert "Approve needs all four criteria" in verify.mode.statusBar().currentMessage()
    assert repo.last_verdict(session.annotator) is None
    press_shortcut(qtbot, window, Qt.Key.Key_4)
    assert verify.actions["c4"].isChecked() and verify.panel.buttons["approve"].isEnabled()
    press_shortcut(qtbot, window, Qt.Key.Key_A)
    record = repo.last_verdict(session.annotator)
    assert record.question_id == compare and record.verdict.volumes_distinct is True
    assert not verify.actions["c4"].isVisible()  # the next question is no Compare one


def test_next_previous_keys_walk_the_queue(qtbot, window):
    state = window.mode("verify").state
    ids = [q.id for q in state.lists[QUEUE]]
    press_shortcut(qtbot, window, Qt.Key.Key_J)
    assert state.current.id == ids[1]
    press_shortcut(qtbot, window, Qt.Key.Key_K)
    assert state.current.id == ids[0]
    press_shortcut(qtbot, window, Qt.Key.Key_Down)
    assert state.current.id == ids[1]
    assert window.mode("verify").queue.view.currentIndex().row() == 1
    press_shortcut(qtbot, window, Qt.Key.Key_Up)
    assert state.current.id == ids[0]
    rows = {(g, a.text()) for g, a in window.shortcut_groups() if not a.shortcut().isEmpty()}
    for text in ("Approve", "Reject…", "Correct…", "Next", "Previous", "Undo verdict"):
        assert ("Verify questions", text) in rows


def test_correct_makes_a_proposed_version_not_yet_current(qtbot, window):
    verify, session = window.mode("verify"), window.session
    project, repo = session.project, session.project.verifications
    question = verify.state.current
    _keys(qtbot, window, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_E)  # ambiguous but valid scene
    panel = verify.panel
    assert panel.editor.isVisible() and panel.edit_text.hasFocus()
    new_answer = next(o for o in question.options if o != question.answer)
    panel.edit_answer.selectAll()
    qtbot.keyClicks(panel.edit_answer, new_answer)
    press_shortcut(qtbot, panel.edit_answer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    record = repo.last_verdict(session.annotator)
    assert record.decision == "correct" and record.verdict.corrections == {"answer": new_answer}
    proposed = project.questions.get(record.proposed_question_id)
    assert proposed.version == question.version + 1 and not proposed.is_current
    assert project.questions.get(question.id).is_current
    assert [v.version for v in project.questions.versions(question.uid)] == [question.version]
    assert repo.outcome(question.id).status == "pending"
    assert not panel.editor.isVisible()


def test_viewport_shows_evidence_glowing_and_clutter_transparent(qtbot, window):
    verify = window.mode("verify")
    _wait_scene(qtbot, verify)
    question, world = verify.state.current, verify.loaded.world
    cover, hidden = question.evidence_ids
    viewport = verify.viewport
    assert viewport.highlighted_keys == {cover, hidden}
    assert viewport.alpha_of(cover) == COVER_ALPHA and viewport.alpha_of(hidden) == 1.0
    clutter = [b.key for b in world.objects() if b.key not in question.evidence_ids]
    assert clutter and all(viewport.alpha_of(k) == FADED_ALPHA for k in clutter)
    assert viewport.camera_preset == "oblique"
    assert verify.image.segmentation is verify.loaded.view.segmentation
    assert verify.state.visibility[hidden] <= 0.1 + 1e-6  # what the model's view shows of it
    press_shortcut(qtbot, window, Qt.Key.Key_V)  # plain rendering
    assert not viewport.highlighted_keys and all(viewport.alpha_of(k) == 1.0 for k in clutter)
    press_shortcut(qtbot, window, Qt.Key.Key_V)
    assert viewport.highlighted_keys == {cover, hidden}
    press_shortcut(qtbot, window, Qt.Key.Key_S)  # the evidence's pixels in the model's view
    assert verify.image.overlay_box.isChecked()
    assert verify.image.coloured_ids == {world.bodies[k].uid for k in (cover, hidden)}
    press_shortcut(qtbot, window, Qt.Key.Key_J)  # same scene, another question: re-rendered
    second = verify.state.current
    assert viewport.highlighted_keys == set(second.evidence_ids)


def test_refusals_are_messages_not_exceptions(qtbot, window):
    verify, session = window.mode("verify"), window.session
    project, repo = session.project, session.project.verifications
    question = verify.state.current
    press_shortcut(qtbot, window, Qt.Key.Key_A)  # no criteria ticked
    assert "Approve needs all three criteria" in verify.mode.statusBar().currentMessage()
    assert repo.last_verdict(session.annotator) is None
    for name in ("Ben", "Cleo"):  # both slots fill while Ada looks at it
        repo.submit(question.id, project.annotators.sign_in(name), ALL, 5.0)
    approve_question(qtbot, window)
    assert "two verdicts" in verify.mode.statusBar().currentMessage()
    assert "two verdicts" in verify.panel.message.text()
    assert repo.last_verdict(session.annotator) is None
    assert verify.state.current.id != question.id  # the queue moved on
    press_shortcut(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert "no verdict to undo" in verify.mode.statusBar().currentMessage()


def test_a_project_without_questions_shows_the_empty_state(qtbot, window, tmp_path):
    path = tmp_path / "empty.reasonscope"
    open_project(path, create=True).close()
    assert window.open_path(path)
    verify = window.mode("verify")
    assert verify.pages.currentIndex() == 0
    assert verify.state.current is None and verify.loaded is None


# -- Verify: the model view after a tabletop question -----------------------------------------
@pytest.fixture(scope="module")
def mixed_db(tmp_path_factory):
    """A JRDB question (panorama) and a tabletop question (a restored scene) in one queue."""
    from pathlib import Path

    from hoi_fixtures import build_hoi_project

    from app.demo.jrdb_synth import SynthConfig
    from app.jobs.questions import generate_questions
    from store import open_project

    hp = build_hoi_project(
        tmp_path_factory.mktemp("mixed"),
        SynthConfig(frames=1, people=2, objects=1, points_per_sweep=1_000),
    )
    with open_project(hp.db) as project:
        frame = project.sequences.frames(hp.sequence_id)[0]
        box = project.sequences.boxes_2d(frame.id)[0]
        key = {e.id: e.key for e in project.sequences.entities(hp.sequence_id)}[box.entity_id]
        image = Path(frame.image_path).name
        xywh = [box.x, box.y, box.w, box.h]
        project.questions.add(
            {
                "benchmark": "jrdb",
                "task": "vg",
                "text": "Find the person.",
                "seed": 0,
                "sequence_id": hp.sequence_id,
                "evidence_ids": [key],
                "answer": {"entity_ids": [key], "image_id": image, "boxes": [xywh]},
                "steps": [
                    {
                        "description": "all persons",
                        "entity_ids": [key],
                        "slot": 0,
                        "boxes": {key: xywh},
                    }
                ],
                "difficulty": {"S": 1, "R": 0, "T": 1},
                "criteria": {
                    "generator": "jrdb-query-engine/1",
                    "frame_ids": [frame.id],
                    "image_ids": [image],
                    "preferences": {"task": "vg"},
                },
            }
        )
    generate_questions(hp.db, tasks=["count"], n=1, seed=1, image_size=256)  # and a scene's
    return hp.db


def test_the_model_view_shows_the_panorama_again_after_a_tabletop_question(
    qtbot, mixed_db, tmp_path
):
    from gestures import open_as_ada, press_shortcut
    from PySide6.QtCore import Qt

    def small(w):
        w.mode("verify").image_size = 256

    window = open_as_ada(qtbot, mixed_db, "verify", copy_to=tmp_path, prepare=small)
    verify = window.mode("verify")
    image = verify.image.image_item
    assert verify.state.current.benchmark == "jrdb"
    qtbot.waitUntil(lambda: not image.pixmap().isNull(), timeout=20_000)  # the panorama
    press_shortcut(qtbot, window, Qt.Key.Key_J)  # the tabletop question
    assert verify.state.current.benchmark == "mgvqa"
    # while its scene is restored: no stale panorama, and the view says what is coming
    assert image.pixmap().isNull()
    assert verify.central.currentWidget() is verify.busy
    assert "Restoring scene" in verify.busy.text()
    qtbot.waitUntil(lambda: verify.loaded is not None, timeout=30_000)
    assert verify.central.currentWidget() is verify.viewport and not image.pixmap().isNull()
    press_shortcut(qtbot, window, Qt.Key.Key_K)  # back to the JRDB question (cached image)
    assert verify.state.current.benchmark == "jrdb"
    qtbot.waitUntil(lambda: not image.pixmap().isNull(), timeout=5_000)
    assert "The model's image" in verify.image.caption.text()
    qtbot.waitUntil(lambda: verify.task is None and verify.jrdb.task is None, timeout=30_000)
    window.close()
