"""Human study as annotators use it: rate difficulty blind with keys 1-5, then answer JRDB
questions as the human baseline (a count, a word, a box drawn on the panorama).

The first tests drive `StudyState` alone on a project's `reasoning` store; the
GUI tests press the mode's keys, drag on the panorama and check what was stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gestures import open_as_ada, press_shortcut
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton
from question_fixtures import WH_ANSWER, jrdb_questions

from annotation.jrdb.dataset import PANORAMA_WIDTH
from annotation.jrdb.question_frames import slot_frame
from app.demo.jrdb_synth import SynthConfig
from store import open_project
from widgets.study.boxes import drag_box
from widgets.study.state import ANSWER, RATE, StudyState, answer_kind

CONFIG = SynthConfig(frames=2, people=3, objects=2, points_per_sweep=2_000)
LEFT = Qt.MouseButton.LeftButton
ALT = Qt.KeyboardModifier.AltModifier


@pytest.fixture(scope="module")
def study_db(tmp_path_factory):
    hoi = build_hoi_project(tmp_path_factory.mktemp("study"), CONFIG)
    with open_project(hoi.db) as project:
        project.questions.add_many(jrdb_questions(project, hoi.sequence_id).values())
    return hoi.db


def _by_task(project) -> dict[str, object]:
    rows = project.questions.page(benchmark="jrdb").rows
    return {q.task: q for q in rows}


# -- the state alone ---------------------------------------------------------------------------
def test_state_rates_goes_back_and_replaces_a_rating(study_db, tmp_path):
    db = tmp_path / "state.reasonscope"
    db.write_bytes(Path(study_db).read_bytes())
    with open_project(db) as project:
        ada = project.annotators.sign_in("Ada")
        state = StudyState(project.reasoning, ada, project.questions)
        refused = []
        state.refused.connect(refused.append)
        assert state.progress_text() == "0 / 3 rated"
        first = state.current.id
        assert state.rate(2) and state.current.id != first
        assert state.back() and state.current.id == first and state.own_rating() == 2
        assert not state.back() and refused  # nothing before the first
        assert state.rate(4)  # replaces, then returns to the next unrated question
        assert state.position is None and state.current.id != first
        mine = project.reasoning.ratings(annotator=ada)
        assert [(r.question_id, r.rating) for r in mine] == [(first, 4)]
        assert state.progress_text() == "1 / 3 rated"
        state.set_task(ANSWER)
        assert state.progress_text() == "0 / 3 answered" and state.kind in ("box", "count", "text")
        assert state.submit(3) is not None and state.progress_text() == "1 / 3 answered"
        if state.kind == "box":
            assert state.submit_box() is None and "Draw a box" in refused[-1]


def test_answer_kinds_boxes_and_frames():
    assert drag_box((10, 20), (5, 50), width=100, height=40) == [5.0, 20.0, 5.0, 20.0]
    assert drag_box((10, 10), (11, 30), width=100, height=40) is None  # a slip
    # a flat image clips at its edges; a panorama wraps at the seam and keeps x in [0, W)
    assert drag_box((90, 0), (120, 10), width=100, height=40) == [90.0, 0.0, 10.0, 10.0]
    assert drag_box((90, 0), (120, 10), width=100, height=40, wrap=True) == [90, 0, 30, 10]
    assert drag_box((-10, 0), (15, 10), width=100, height=40, wrap=True) == [90, 0, 25, 10]
    assert drag_box((10, 0), (95, 10), width=100, height=40, wrap=True) == [10, 0, 50, 10]
    assert answer_kind(None) is None


# -- the GUI -----------------------------------------------------------------------------------
@pytest.fixture
def window(qtbot, study_db, tmp_path):
    w = open_as_ada(qtbot, study_db, "study", copy_to=tmp_path)
    assert w.session.annotator is not None and w.session.annotator.name == "Ada"
    yield w
    qtbot.waitUntil(lambda: w.mode("study").task is None, timeout=30000)
    w.close()


def _shown_text(window) -> str:
    mode = window.mode_window("study")
    texts = [label.text() for label in mode.findChildren(QLabel) if label.isVisible()]
    texts += [b.text() for b in mode.findChildren(QPushButton) if b.isVisible()]
    return "\n".join(texts + [window.windowTitle(), mode.statusBar().currentMessage()])


def _assert_blind(window, question) -> None:
    text = _shown_text(window)
    for hint in ("D =", "D=", "S =", "S=", "R =", "T =", "difficulty", "Difficulty"):
        assert hint not in text, f"{hint!r} shown: {text}"
    assert WH_ANSWER not in text
    if isinstance(question.answer, dict):
        assert not any(str(round(v)) in text for v in question.answer["boxes"][0])
    for step in question.steps:
        assert step["description"] not in text
    for key in question.evidence_ids:
        assert key not in text


def test_rating_with_keys_stores_ratings_blind(qtbot, window):
    study, project = window.mode("study"), window.session.project
    assert window.current_mode == "study" and study.page.isVisible()
    assert study.actions["rate_task"].isChecked()
    rated = {}
    for key, value in ((Qt.Key.Key_2, 2), (Qt.Key.Key_5, 5), (Qt.Key.Key_3, 3)):
        q = study.state.current
        assert q is not None and q.text in study.panel.text.text()
        _assert_blind(window, q)
        assert study.image.panorama.has_image  # the question's frame
        press_shortcut(qtbot, window, key)
        rated[q.id] = value
        assert study.panel.progress.text() == f"{len(rated)} / 3 rated"
    assert study.state.current is None  # all three rated
    ada = window.session.annotator
    stored = project.reasoning.ratings(annotator=ada)
    assert {r.question_id: r.rating for r in stored} == rated
    assert all(r.annotator_id == ada.id for r in stored)
    # Back reopens the last one with its rating shown; a new key replaces it
    press_shortcut(qtbot, window, Qt.Key.Key_Backspace)
    last = list(rated)[-1]
    assert study.state.current.id == last
    assert study.panel.scale.button(3).isChecked()
    _assert_blind(window, study.state.current)
    press_shortcut(qtbot, window, Qt.Key.Key_1)
    assert {r.question_id: r.rating for r in project.reasoning.ratings(annotator=ada)}[last] == 1
    assert len(project.reasoning.ratings(annotator=ada)) == 3


def drag(qtbot, panorama, start, end) -> None:
    """Press at image point `start`, move and release at `end` (image pixels)."""
    viewport = panorama.view.viewport()
    a = panorama.scene_to_widget(*start).toPoint()
    b = panorama.scene_to_widget(*end).toPoint()
    qtbot.mousePress(viewport, LEFT, Qt.KeyboardModifier.NoModifier, a)
    qtbot.mouseMove(viewport, (a + b) / 2)
    qtbot.mouseMove(viewport, b)
    qtbot.mouseRelease(viewport, LEFT, Qt.KeyboardModifier.NoModifier, b)


def _answer_all(qtbot, window, *, right: bool) -> dict[str, object]:
    """Answer every question of the baseline as a person would; return the stored answers
    by task."""
    study, project = window.mode("study"), window.session.project
    press_shortcut(qtbot, window, Qt.Key.Key_B, ALT)
    assert study.state.task == ANSWER and study.actions["answer_task"].isChecked()
    assert not study.actions["r1"].isVisible()  # digits type into the fields now
    questions = _by_task(project)
    for _ in range(3):
        q = study.state.current
        _assert_blind(window, q)
        if q.task == "vg":
            x, y, w, h = q.answer["boxes"][0]
            if right:
                drag(qtbot, study.image.panorama, (x + 2, y + 2), (x + w - 2, y + h - 2))
            else:
                far = (x + 1500) % (PANORAMA_WIDTH - 200)
                drag(qtbot, study.image.panorama, (far, 40), (far + 120, 200))
            assert len(study.state.boxes) == 1
            press_shortcut(qtbot, window, Qt.Key.Key_Return)
        elif q.task == "vqa-count":
            field = study.panel.count_field
            assert field.isVisible() and field.hasFocus()
            qtbot.keyClicks(field, str(q.answer if right else q.answer + 3))
            press_shortcut(qtbot, field, Qt.Key.Key_Return)
        else:
            field = study.panel.text_field
            assert field.isVisible() and field.hasFocus()
            assert WH_ANSWER in study.panel.completer.model().stringList()  # seen in project
            qtbot.keyClicks(field, WH_ANSWER if right else "childhood")
            press_shortcut(qtbot, field, Qt.Key.Key_Return)
        assert study.state.current is None or study.state.current.id != q.id
    assert study.state.current is None
    assert study.panel.progress.text() == "3 / 3 answered"
    answers = project.reasoning.human_answers(annotator=window.session.annotator)
    by_id = {a.question_id: a for a in answers}
    return {task: by_id[q.id] for task, q in questions.items()}


def test_baseline_answers_right_are_stored_and_scored(qtbot, window):
    answers = _answer_all(qtbot, window, right=True)
    vg = answers["vg"]
    assert vg.correct and vg.iou > 0.5 and len(vg.answer) == 4  # one box [x, y, w, h]
    assert answers["vqa-count"].correct and isinstance(answers["vqa-count"].answer, int)
    assert answers["vqa-wh"].correct and answers["vqa-wh"].answer == WH_ANSWER
    # feedback stays off by default: the baseline does not learn whether it was right
    assert not window.mode("study").feedback_action.isChecked()
    assert "Right" not in window.mode("study").panel.feedback.text()


def test_baseline_answers_wrong_are_scored_wrong_and_feedback_says_so(qtbot, window):
    window.mode("study").feedback_action.trigger()  # Show feedback on
    answers = _answer_all(qtbot, window, right=False)
    assert not answers["vg"].correct and answers["vg"].iou < 0.5
    assert not answers["vqa-count"].correct
    assert not answers["vqa-wh"].correct
    assert window.mode("study").panel.feedback.text().split(": ", 1)[1].startswith("Wrong")


def test_drag_only_draws_in_the_baselines_visual_grounding(qtbot, window):
    study = window.mode("study")
    assert study.state.task == RATE and not study.image.gesture.enabled
    drag(qtbot, study.image.panorama, (100, 100), (300, 300))
    assert study.state.boxes == []
    frames = window.session.project.sequences.frames(study.state.current.sequence_id)
    assert slot_frame(study.state.current, 0, frames) is not None


# -- the panorama's seam -------------------------------------------------------------------------
SEAM_GOLD = [PANORAMA_WIDTH - 60.0, 100.0, 120.0, 200.0]  # a person standing across the seam


@pytest.fixture
def seam_window(qtbot, tmp_path_factory, tmp_path):
    hoi = build_hoi_project(tmp_path_factory.mktemp("seam"), CONFIG)
    with open_project(hoi.db) as project:
        vg = jrdb_questions(project, hoi.sequence_id)["vg"]
        key = vg["answer"]["entity_ids"][0]
        vg["answer"] = {**vg["answer"], "boxes": [SEAM_GOLD]}
        vg["steps"] = [{**vg["steps"][0], "boxes": {key: SEAM_GOLD}}]
        project.questions.add_many([vg])
    w = open_as_ada(qtbot, hoi.db, "study", copy_to=tmp_path)
    yield w
    qtbot.waitUntil(lambda: w.mode("study").task is None, timeout=30000)
    w.close()


def test_a_box_drawn_across_the_seam_is_stored_across_it_and_scores(qtbot, seam_window):
    window = seam_window
    study, project = window.mode("study"), window.session.project
    press_shortcut(qtbot, window, Qt.Key.Key_B, ALT)
    assert study.state.kind == "box"
    panorama = study.image.panorama
    # the panorama wraps: a strip of its other end shows past each edge, the seam dashed
    assert panorama.wrap_margin > 0 and all(item.isVisible() for item in panorama.wrap_items)
    scene = panorama.scene.sceneRect()
    assert scene.left() < 0 and scene.right() > PANORAMA_WIDTH
    # zoom in and look at the seam, as a person would to draw a tight box there
    panorama.zoom_by(4.0)
    panorama.view.centerOn(PANORAMA_WIDTH, 240)
    visible = panorama.visible_rect()
    assert visible.left() < PANORAMA_WIDTH < visible.right()
    x, y, w, h = SEAM_GOLD
    drag(qtbot, panorama, (x + 2, y + 2), (x + w - 2, y + h - 2))  # from 3702 to 3818
    (box,) = study.state.boxes
    assert box[0] == pytest.approx(x + 2, abs=0.6) and box[0] + box[2] > PANORAMA_WIDTH
    # the drawn box shows at both ends of the image
    shown = [item.rect() for item in study.image.gesture.box_items]
    assert any(r.left() < 0 < r.right() for r in shown)  # its copy at the left edge
    press_shortcut(qtbot, window, Qt.Key.Key_Return)
    (answer,) = project.reasoning.human_answers(annotator=window.session.annotator)
    assert answer.correct and answer.iou > 0.9
    # a drag that starts in the strip left of 0 is stored from the right end, across the seam
    assert drag_box((-58, 102), (58, 298), width=PANORAMA_WIDTH, height=480, wrap=True) == [
        PANORAMA_WIDTH - 58,
        102.0,
        116.0,
        196.0,
    ]
