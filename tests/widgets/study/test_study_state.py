"""`StudyState` on a real project's reasoning store, without a screen: rating one benchmark,
going back to a question corrected since, the baseline's boxes, counts and words with and
without feedback, and what is refused and why. (A whole sitting is in
tests/app/modes/study/test_study_mode.py.)"""

from __future__ import annotations

import pytest

from annotation.jrdb.reasoning_eval import NO_GOLD, Score
from widgets.study.state import (
    ANSWER,
    RATE,
    StudyState,
    answer_kind,
    blind_header,
    blind_text,
    describe_score,
    parse_count,
    question_slots,
)

JRDB = {"benchmark": "jrdb", "options": None}
VG_ANSWER = {
    "entity_ids": ["pedestrian:1"],
    "image_id": "000005.jpg",
    "boxes": [[100, 50, 40, 120]],
}


@pytest.fixture
def questions(project):
    """Two tabletop questions to rate, and three JRDB questions (rated and answered)."""
    table = {"benchmark": "mgvqa", "task": "count", "options": None, "answer": 2}
    added = {
        "mugs": project.questions.add({**table, "text": "How many mugs?"}),
        "cubes": project.questions.add({**table, "text": "How many cubes?"}),
        "vg": project.questions.add(
            {
                **JRDB,
                "task": "vg",
                "text": "Find the tallest person.",
                "answer": VG_ANSWER,
                "criteria": {"image_ids": ["000000.jpg", "000005.jpg"]},
            }
        ),
        "count": project.questions.add(
            {**JRDB, "task": "vqa-count", "text": "How many persons sit?", "answer": 3}
        ),
        "wh": project.questions.add(
            {**JRDB, "task": "vqa-wh", "text": "What is the age of the woman?", "answer": "adult"}
        ),
    }
    return {name: q.id for name, q in added.items()}


def _state(project, annotator):
    state = StudyState(project.reasoning, annotator, project.questions)
    said = {"saved": [], "refused": []}
    state.saved.connect(said["saved"].append)
    state.refused.connect(said["refused"].append)
    return state, said


def test_rating_one_benchmark_and_going_back_to_a_corrected_question(project, alice, questions):
    state, said = _state(project, alice)
    assert (state.task, state.progress_text()) == (RATE, "0 / 5 rated")
    state.set_benchmark("mgvqa")
    assert state.progress_text() == "0 / 2 rated" and state.current.benchmark == "mgvqa"
    first = state.current.id
    assert state.rate(5)
    assert said["saved"] == [f"Rated question #{first}: 5 (very hard)"]
    # the question is corrected meanwhile: Back reopens its new version, rated as before
    newer = project.questions.correct(first, {"text": "How many red mugs?"}, alice)
    assert state.back() and state.reviewing
    assert state.current.id == newer.id and state.own_rating() == 5
    assert not state.back() and said["refused"][-1] == "This is the first question you rated"
    assert state.forward() and not state.reviewing  # past the last rated: the next unrated
    assert not state.forward() and said["refused"][-1] == "This is the next question to rate"
    assert state.rate(1) and state.current is None
    assert state.progress_text() == "2 / 2 rated"
    state.set_benchmark(None)
    assert state.progress_text() == "2 / 5 rated"


def test_the_baseline_takes_boxes_counts_and_words(project, alice, questions):
    state, said = _state(project, alice)
    draws = []
    state.draft_changed.connect(lambda: draws.append(list(state.boxes)))
    state.set_task(ANSWER)
    answered = {}
    while state.current is not None:
        q = state.current
        if state.kind == "box":
            assert state.slot == 1  # the answer's time slot: the last image
            state.set_slot(9)
            assert state.slot == 1
            state.set_slot(-3)
            assert state.slot == 0
            assert state.submit_box() is None and said["refused"][-1].startswith("Draw a box")
            state.set_box((0, 0, 10, 10))
            state.set_box((101, 52, 38, 118))  # redrawn: replaces
            state.set_box((300, 40, 20, 60), add=True)  # Shift+drag: one more person
            assert state.boxes == [[101.0, 52.0, 38.0, 118.0], [300.0, 40.0, 20.0, 60.0]]
            state.submit_box()
        elif state.kind == "count":
            assert state.submit_count("three") is None
            assert said["refused"][-1] == "Type a whole number, then press Enter"
            state.submit_count(" 3 ")
        else:
            assert state.kind == "text" and state.submit_text("  ") is None
            state.submit_text(" adult ")
        answered[q.task] = q.id
        assert state.feedback == f"Question #{q.id}: answer saved"  # no feedback by default
    stored = {a.question_id: a.answer for a in project.reasoning.human_answers(annotator=alice)}
    assert stored == {
        questions["vg"]: [[101.0, 52.0, 38.0, 118.0], [300.0, 40.0, 20.0, 60.0]],
        questions["count"]: 3,
        questions["wh"]: "adult",
    }
    assert state.progress_text() == "3 / 3 answered"
    assert [] in draws  # each new question starts without boxes


def test_feedback_says_right_or_wrong_when_asked_for(project, alice, questions):
    state, _ = _state(project, alice)
    state.set_task(ANSWER)
    state.set_show_feedback(True)
    while state.current is not None and state.kind != "count":
        state.submit("skip" if state.kind == "text" else [0, 0, 5, 5])
    q = state.current
    score = state.submit_count("4")
    assert not score.correct and state.last_correct is False
    assert state.feedback == f"Question #{q.id}: Wrong: counted 4, answer 3"


def test_what_is_refused_and_why(project, alice, questions):
    nobody, said = _state(project, None)
    assert nobody.current is None and not nobody.ready and nobody.progress_text() == "0 / 0 rated"
    assert not nobody.rate(3) and said["refused"] == ["Sign in first (Ctrl+Shift+U)"]
    no_store = StudyState()
    refused = []
    no_store.refused.connect(refused.append)
    assert no_store.submit(3) is None and refused == ["This project has no human-study store"]
    state, said = _state(project, alice)
    assert not state.back() and said["refused"][-1] == "Nothing rated yet"
    assert state.submit(3) is None
    assert said["refused"][-1] == "Answers are given in Human baseline (Alt+B)"
    state.set_task(ANSWER)
    assert not state.rate(3)
    assert said["refused"][-1] == "Ratings are given in Rate difficulty (Alt+R)"
    with pytest.raises(ValueError, match="task must be one of"):
        state.set_task("review")
    assert project.reasoning.ratings(annotator=alice) == []


def test_blind_text_slots_and_kinds(project, questions):
    vg = project.questions.get(questions["vg"])
    assert blind_header(vg) == f"Visual grounding · jrdb · question #{vg.id}"
    assert blind_text(vg) == "Find the tallest person."
    assert question_slots(vg) == ["000000.jpg", "000005.jpg"]
    assert answer_kind(vg) == "box"
    wh = project.questions.get(questions["wh"])
    assert answer_kind(wh) == "text" and question_slots(wh) == []
    assert parse_count(" 12 ") == 12 and parse_count("-1") is None and parse_count("2.5") is None
    right = project.reasoning.answer(vg.id, project.annotators.sign_in("Ada"), [100, 50, 40, 120])
    assert describe_score(right) == "Right (IoU 1.00)"
    # in a blind work package there is no gold answer: feedback says when it is scored
    blind = Score(False, None, NO_GOLD)
    assert describe_score(blind) == "saved; it is scored when the work package is merged"
