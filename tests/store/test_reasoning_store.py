"""`project.reasoning`: predictions imported and scored, difficulty ratings, human answers."""

from __future__ import annotations

import sqlite3

import pytest

from store import ProjectError, open_project


def jrdb_question(uid: str, task: str, answer, srt=(1, 0, 1), steps=None) -> dict:
    """A stored JRDB question record as docs/jrdb-questions.md describes it."""
    s, r, t = srt
    return {
        "uid": uid,
        "benchmark": "jrdb",
        "task": task,
        "text": f"Question {uid}?",
        "options": None,
        "answer": answer,
        "evidence_ids": ["pedestrian:3"],
        "steps": steps or [],
        "difficulty": {"S": s, "R": r, "T": t},
        "criteria": {"generator": "jrdb-query-engine/1", "image_ids": ["000012.jpg"]},
    }


VG_ANSWER = {"entity_ids": ["pedestrian:3"], "image_id": "000012.jpg", "boxes": [[10, 10, 20, 40]]}
VG_STEPS = [
    {
        "description": "all persons",
        "entity_ids": ["pedestrian:3", "pedestrian:4"],
        "slot": 0,
        "boxes": {"pedestrian:3": [10, 10, 20, 40], "pedestrian:4": [200, 10, 20, 40]},
    },
    {
        "description": "female",
        "entity_ids": ["pedestrian:3"],
        "slot": 0,
        "boxes": {"pedestrian:3": [10, 10, 20, 40]},
    },
]


@pytest.fixture
def questions(project):
    project.questions.add_many(
        [
            jrdb_question("vg1", "vg", VG_ANSWER, steps=VG_STEPS),
            jrdb_question("vg2", "vg", VG_ANSWER, srt=(2, 1, 1)),
            jrdb_question("wh1", "vqa-wh", "young_adulthood", srt=(3, 2, 1)),
            jrdb_question("count1", "vqa-count", 3, srt=(2, 1, 1)),
        ]
    )
    return {q.uid: q for q in project.questions.page(limit=10).rows}


def _count(project, table: str) -> int:
    return project.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


# -- predictions --------------------------------------------------------------------------------
def test_import_scores_against_the_current_version(project, questions):
    report = project.reasoning.import_predictions(
        "florence",
        [
            {"question_id": "vg1", "box": [11, 10, 20, 40], "steps": [[[10, 10, 20, 40]], 1]},
            {"question_id": "vg2", "answer": [100, 100, 5, 5]},
            {"question_id": "wh1", "answer": "Young adulthood"},
            {"question_id": "count1", "answer": "3"},
        ],
        source="florence.jsonl",
    )
    assert (report.imported, report.correct, report.replaced) == (4, 3, 0)
    assert report.accuracy_pct == 75.0 and report.by_model["florence"]["correct"] == 3
    by_uid = {p.question_uid: p for p in project.reasoning.predictions("florence")}
    vg1 = by_uid["vg1"]
    assert vg1.correct and vg1.iou == pytest.approx(0.9047619) and vg1.level == "D1"
    assert vg1.step_correct == [False, True] and vg1.source == "florence.jsonl"
    assert vg1.question_id == questions["vg1"].id and vg1.is_current
    assert not by_uid["vg2"].correct and by_uid["vg2"].iou == 0.0
    assert by_uid["wh1"].level == "D3" and by_uid["count1"].step_correct is None
    assert project.reasoning.models() == ["florence"]
    assert project.audit.recent(1)[0].table == "reasoning_predictions"


def test_a_bad_line_imports_nothing(project, questions):
    project.reasoning.import_predictions("qwen", [{"question_id": "vg1", "box": [0, 0, 1, 1]}])
    rows = [
        {"question_id": "wh1", "answer": "female"},
        {"question_id": "no-such-question", "answer": "male"},
    ]
    with pytest.raises(ValueError, match="line 7: no question with id 'no-such-question'"):
        project.reasoning.import_predictions("florence", rows, lines=[3, 7])
    with pytest.raises(ValueError, match="line 2: needs an 'answer', a 'box' or a 'track'"):
        project.reasoning.import_predictions("qwen", [rows[0], {"question_id": "vg2"}])
    with pytest.raises(ValueError, match="line 2: question wh1 already predicted on line 1"):
        project.reasoning.import_predictions("qwen", [rows[0], rows[0]])
    with pytest.raises(ValueError, match="line 1: no model name"):
        project.reasoning.import_predictions("", [rows[0]])
    # the earlier import is untouched: nothing of the refused ones was stored or deleted
    assert [(p.model, p.question_uid) for p in project.reasoning.predictions()] == [("qwen", "vg1")]


def test_reimport_replaces_the_models_rows(project, questions):
    repo = project.reasoning
    repo.import_predictions(
        "qwen",
        [{"question_id": "vg1", "box": [0, 0, 1, 1]}, {"question_id": "wh1", "answer": "male"}],
    )
    repo.import_predictions("intern", [{"question_id": "wh1", "answer": "male"}])
    report = repo.import_predictions("qwen", [{"question_id": "wh1", "answer": "young adulthood"}])
    assert report.replaced == 2 and report.correct == 1
    assert [(p.model, p.question_uid, p.correct) for p in repo.predictions()] == [
        ("intern", "wh1", False),
        ("qwen", "wh1", True),
    ]


def test_per_line_model_overrides_the_default(project, questions):
    report = project.reasoning.import_predictions(
        "",
        [
            {"question_id": "wh1", "answer": "male", "model": "a"},
            {"question_id": "wh1", "answer": "young adulthood", "model": "b"},
        ],
    )
    assert report.by_model == {
        "a": {"imported": 1, "correct": 0, "replaced": 0},
        "b": {"imported": 1, "correct": 1, "replaced": 0},
    }


def test_a_correction_leaves_scores_on_the_old_version(project, questions, alice):
    project.reasoning.import_predictions("m", [{"question_id": "count1", "answer": 3}])
    new = project.questions.correct(questions["count1"].id, {"answer": 4}, alice)
    (p,) = project.reasoning.predictions()
    assert p.question_id == questions["count1"].id and not p.is_current
    project.reasoning.import_predictions("m", [{"question_id": "count1", "answer": 3}])
    (p,) = project.reasoning.predictions()
    assert p.question_id == new.id and not p.correct


# -- difficulty ratings -------------------------------------------------------------------------
def test_ratings_are_1_to_5_and_replace_the_annotators_earlier_one(project, questions, alice):
    q = questions["wh1"]
    for bad in (0, 6, 2.5, "3", True):
        with pytest.raises(ValueError, match="1 \\(easy\\) to 5 \\(hard\\)"):
            project.reasoning.rate(q.id, alice, bad)
    with pytest.raises(ProjectError, match="signed-in annotator"):
        project.reasoning.rate(q.id, None, 3)
    project.reasoning.rate(q.id, alice, 2)
    project.reasoning.rate(q.id, alice, 4)
    (rating,) = project.reasoning.ratings(q.id)
    assert (rating.rating, rating.annotator_id, rating.question_uid) == (4, alice.id, "wh1")
    entry = project.audit.recent(1)[0]
    assert (entry.action, entry.annotator, entry.detail["previous"]) == ("rate", "Alice", 2)
    with pytest.raises(sqlite3.IntegrityError):  # the table holds the rule as well
        with project.write():
            project.db.execute(
                "INSERT INTO difficulty_ratings(question_id, annotator_id, rating, created_at) "
                "VALUES (?, ?, 9, 'now')",
                [questions["vg1"].id, alice.id],
            )


def test_next_to_rate_excludes_rated_and_excluded_questions(project, questions, alice, bob):
    repo = project.reasoning
    project.questions.set_status(questions["count1"].id, "excluded", bob)
    assert repo.rating_progress(alice) == (0, 3)
    seen = []
    while (q := repo.next_to_rate(alice)) is not None:
        assert repo.next_to_rate(alice).id == q.id  # stable until rated
        seen.append(q.uid)
        repo.rate(q.id, alice, 3)
    assert sorted(seen) == ["vg1", "vg2", "wh1"]
    assert repo.rating_progress(alice) == (3, 3) and repo.rating_progress(bob) == (0, 3)
    assert repo.next_to_rate(bob) is not None
    assert repo.next_to_rate(alice, benchmark="mgvqa") is None


def test_a_rating_follows_the_uid_across_a_correction(project, questions, alice, bob):
    repo = project.reasoning
    repo.rate(questions["wh1"].id, alice, 2)
    new = project.questions.correct(questions["wh1"].id, {"text": "Who is young?"}, bob)
    assert repo.rating_progress(alice) == (1, 4)  # still rated: the rating follows the uid
    assert repo.ratings(new.id) == []  # ... though it sits on the version Alice saw
    with pytest.raises(ProjectError, match="newer version"):
        repo.rate(questions["wh1"].id, alice, 5)
    repo.rate(new.id, alice, 5)
    assert [(r.question_id, r.rating) for r in repo.ratings(annotator=alice)] == [(new.id, 5)]
    (point,) = repo.rating_points()
    assert (point.question_uid, point.rating, point.D) == ("wh1", 5, 6)


# -- human baseline -----------------------------------------------------------------------------
def test_human_answers_are_scored_and_replaced(project, questions, alice, bob):
    repo = project.reasoning
    score = repo.answer(questions["vg1"].id, alice, [10, 10, 20, 41])
    assert score.correct and score.iou == pytest.approx(800 / 820)
    assert not repo.answer(questions["count1"].id, alice, "4").correct
    assert repo.answer(questions["count1"].id, alice, "three").correct  # replaces the first
    repo.answer(questions["wh1"].id, bob, "Young Adulthood")
    answers = repo.human_answers(annotator=alice)
    assert [(a.question_uid, a.correct) for a in answers] == [("vg1", True), ("count1", True)]
    assert _count(project, "human_answers") == 3
    assert repo.human_answers(questions["wh1"].id)[0].level == "D3"
    assert project.audit.recent(1)[0].action == "answer"


def test_next_to_answer_skips_answered_versions(project, questions, alice, bob):
    repo = project.reasoning
    assert repo.answer_progress(alice) == (0, 4)
    answered = set()
    for _ in range(4):
        q = repo.next_to_answer(alice)
        answered.add(q.uid)
        repo.answer(q.id, alice, "x")
    assert repo.next_to_answer(alice) is None and len(answered) == 4
    assert repo.answer_progress(alice) == (4, 4)
    # a corrected answer makes the question due again: the old answer was to another version
    project.questions.correct(questions["count1"].id, {"answer": 5}, bob)
    assert repo.next_to_answer(alice).uid == "count1"
    assert repo.answer_progress(alice) == (3, 4)


def test_every_write_is_on_disk_when_the_call_returns(tmp_path):
    path = tmp_path / "p.reasonscope"
    with open_project(path, create=True) as p:
        alice = p.annotators.sign_in("Alice")
        q = p.questions.add(jrdb_question("c", "vqa-count", 2))
        p.reasoning.rate(q.id, alice, 1)
        p.reasoning.answer(q.id, alice, 2)
        with open_project(path) as other:  # another connection sees both
            assert len(other.reasoning.ratings()) == 1
            assert other.reasoning.human_answers()[0].correct
