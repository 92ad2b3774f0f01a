"""Blind two-annotator verification against real project files."""

from __future__ import annotations

import pytest
from sqlite_utils import Database

from annotation.verification import Verdict
from store import ProjectError, open_project, schema
from store.project import Project

APPROVE = Verdict(True, True, True, "approve")
REJECT = Verdict(True, False, True, "reject", reason="the mug is visible from the start")
REWORD = Verdict(False, True, True, "correct", corrections={"text": "How many red mugs?"})
NEW_ANSWER = Verdict(True, True, True, "correct", corrections={"answer": 3})


@pytest.fixture
def carol(project):
    return project.annotators.sign_in("Carol")


@pytest.fixture
def dave(project):
    return project.annotators.sign_in("Dave")


@pytest.fixture
def question(project):
    return project.questions.add(
        {
            "benchmark": "mgvqa",
            "task": "count",
            "text": "How many mugs?",
            "options": [1, 2, 3],
            "answer": 2,
            "evidence_ids": ["mug_1", "mug_2"],
            "difficulty": {"S": 2, "R": 1, "T": 1},
        }
    )


def _rows(project: Project) -> tuple[int, int, int]:
    """Verification rows, question rows, audit entries: what a refused call must not change."""
    count = project.db.execute
    return (
        count("SELECT count(*) FROM verifications").fetchone()[0],
        count("SELECT count(*) FROM questions").fetchone()[0],
        project.audit.count(),
    )


def _status(project: Project, uid: str) -> str:
    current = [v for v in project.questions.versions(uid) if v.is_current]
    assert len(current) == 1
    return current[0].status


def test_the_second_annotator_sees_nothing_of_the_first_verdict(project, question, alice, bob):
    repo = project.verifications
    mine = repo.submit(question.id, alice, REWORD, seconds_on_task=42.0)
    assert repo.visible_verdicts(question.id, alice) == [mine]
    # Through every way Bob can ask, Alice's verdict is invisible.
    assert repo.visible_verdicts(question.id, bob) == []
    assert repo.last_verdict(bob) is None
    assert [q.id for q in repo.queue(bob)] == [question.id]
    assert repo.adjudication_queue(bob) == []
    assert repo.outcome(question.id).status == "pending"
    assert not repo.outcome(question.id).needs_adjudication
    assert repo.agreement()["n"] == 0
    assert [v.version for v in project.questions.versions(question.uid)] == [1]
    assert [q.text for q in project.questions.page().rows] == ["How many mugs?"]
    for entry in project.audit.recent():
        assert "correct" not in str(entry.detail) and "red mugs" not in str(entry.detail)
    assert project.questions.get(question.id).status == "pending"
    # Once Bob has submitted, both see both.
    his = repo.submit(question.id, bob, APPROVE, seconds_on_task=30.0)
    assert [r.id for r in repo.visible_verdicts(question.id, bob)] == [mine.id, his.id]
    assert [r.id for r in repo.visible_verdicts(question.id, alice)] == [mine.id, his.id]
    assert repo.visible_verdicts(question.id, bob)[0].verdict == REWORD


def test_one_annotator_cannot_fill_both_slots(project, question, alice):
    project.verifications.submit(question.id, alice, APPROVE, seconds_on_task=5)
    before = _rows(project)
    with pytest.raises(ProjectError, match="cannot fill two slots") as exc:
        project.verifications.submit(question.id, alice, REWORD, seconds_on_task=5)
    assert "\n" not in str(exc.value)
    assert _rows(project) == before  # no verdict, no proposed version, no audit entry


def test_there_is_no_third_slot(project, question, alice, bob, carol):
    project.verifications.submit(question.id, alice, APPROVE, seconds_on_task=5)
    project.verifications.submit(question.id, bob, APPROVE, seconds_on_task=5)
    assert _status(project, question.uid) == "approved"
    assert project.verifications.queue(carol) == []
    before = _rows(project)
    with pytest.raises(ProjectError, match="approved already|no third slot"):
        project.verifications.submit(question.id, carol, REJECT, seconds_on_task=5)
    assert _rows(project) == before


def test_both_reject_excludes(project, question, alice, bob):
    project.verifications.submit(question.id, alice, REJECT, seconds_on_task=5)
    other = Verdict(True, True, False, "reject", reason="cannot be uncovered")
    project.verifications.submit(question.id, bob, other, seconds_on_task=5)
    assert _status(project, question.uid) == "excluded"
    assert project.questions.counts_by_status()["excluded"] == 1


def test_a_disagreement_goes_to_a_third_annotator(project, question, alice, bob, carol, dave):
    repo = project.verifications
    repo.submit(question.id, alice, APPROVE, seconds_on_task=5)
    repo.submit(question.id, bob, REJECT, seconds_on_task=5)
    assert repo.outcome(question.id).needs_adjudication
    assert _status(project, question.uid) == "pending"
    assert repo.adjudication_pending() == 1
    assert repo.adjudication_queue(alice) == [] and repo.adjudication_queue(bob) == []
    assert [q.id for q in repo.adjudication_queue(carol)] == [question.id]
    assert repo.queue(carol) == []  # no first-round slot left
    # The adjudicator sees both first-round verdicts before deciding.
    assert {r.annotator_name for r in repo.visible_verdicts(question.id, carol)} == {"Alice", "Bob"}
    with pytest.raises(ProjectError, match="cannot fill two slots"):
        repo.submit(question.id, alice, APPROVE, seconds_on_task=5)
    record = repo.submit(question.id, carol, REJECT, seconds_on_task=7)
    assert record.round == "adjudication"
    assert _status(project, question.uid) == "excluded"
    assert repo.adjudication_pending() == 0 and repo.adjudication_queue(dave) == []
    before = _rows(project)
    with pytest.raises(ProjectError, match="adjudicated already"):
        repo.submit(question.id, dave, APPROVE, seconds_on_task=5)
    assert _rows(project) == before


def test_a_correction_is_proposed_and_made_current_by_the_outcome(project, question, alice, bob):
    repo = project.verifications
    mine = repo.submit(question.id, alice, REWORD, seconds_on_task=5)
    proposal = project.questions.get(mine.proposed_question_id)
    assert (proposal.uid, proposal.version) == (question.uid, 2)
    assert proposal.text == "How many red mugs?" and proposal.answer == 2
    assert proposal.evidence_ids == question.evidence_ids
    assert proposal.difficulty == question.difficulty
    assert not proposal.is_current and project.questions.get(question.id).is_current
    repo.submit(question.id, bob, APPROVE, seconds_on_task=5)
    now = project.questions.get(proposal.id)
    assert now.is_current and now.status == "corrected"
    old = project.questions.get(question.id)
    assert not old.is_current and old.text == "How many mugs?"
    assert [(v.version, v.is_current) for v in project.questions.versions(question.uid)] == [
        (1, False),
        (2, True),
    ]
    assert project.questions.counts_by_status()["corrected"] == 1


def test_a_new_answer_against_an_approval_needs_adjudication(project, question, alice, bob, carol):
    repo = project.verifications
    repo.submit(question.id, alice, APPROVE, seconds_on_task=5)
    theirs = repo.submit(question.id, bob, NEW_ANSWER, seconds_on_task=5)
    assert repo.outcome(question.id).needs_adjudication
    assert not project.questions.get(theirs.proposed_question_id).is_current
    # The adjudicator's own correction becomes current; Bob's proposal stays out of history.
    fixed = Verdict(True, True, True, "correct", corrections={"answer": 3, "text": "Mugs?"})
    record = repo.submit(question.id, carol, fixed, seconds_on_task=5)
    current = project.questions.get(record.proposed_question_id)
    assert current.is_current and current.status == "corrected" and current.version == 3
    assert [v.version for v in project.questions.versions(question.uid)] == [1, 3]


def test_a_correction_that_changes_nothing_is_refused(project, question, alice):
    before = _rows(project)
    same = Verdict(False, True, True, "correct", corrections={"text": "How many mugs?"})
    with pytest.raises(ProjectError, match="changes nothing"):
        project.verifications.submit(question.id, alice, same, seconds_on_task=5)
    assert _rows(project) == before


def test_undo_is_saved_and_recomputes_the_status(project, question, alice, bob, carol):
    repo = project.verifications
    mine = repo.submit(question.id, alice, REWORD, seconds_on_task=5)
    assert repo.can_undo(alice)
    undone = repo.undo_last(alice)
    assert undone.id == mine.id and undone.retracted_at is not None
    # The row is kept, the undo is audited, the proposal is discarded, the slot is free again.
    assert project.db.execute("SELECT count(*) FROM verifications").fetchone()[0] == 1
    assert project.summary.summary().verifications == 0
    assert project.audit.recent()[0].action == "retract"
    state = project.db.execute(
        "SELECT proposal_state, is_current FROM questions WHERE id = ?", [mine.proposed_question_id]
    ).fetchone()
    assert state == ("discarded", 0)
    assert [q.id for q in repo.queue(alice)] == [question.id]
    assert repo.last_verdict(alice) is None and not repo.can_undo(alice)
    with pytest.raises(ProjectError, match="no verdict to undo"):
        repo.undo_last(alice)
    # Alice gives a new verdict; once Bob's completes the pair, neither can take theirs back.
    repo.submit(question.id, alice, APPROVE, seconds_on_task=5)
    repo.submit(question.id, bob, REJECT, seconds_on_task=5)
    for person in (alice, bob):
        assert not repo.can_undo(person)
        with pytest.raises(ProjectError, match="no longer blind"):
            repo.undo_last(person)
    # The adjudicator may undo: the corrected status falls back to pending.
    fixed = repo.submit(question.id, carol, REWORD, seconds_on_task=5)
    assert _status(project, question.uid) == "corrected"
    repo.undo_last(carol)
    assert _status(project, question.uid) == "pending"
    assert project.questions.get(question.id).is_current
    assert not project.questions.get(fixed.proposed_question_id).is_current
    assert [q.id for q in repo.adjudication_queue(carol)] == [question.id]
    actions = [e.action for e in project.audit.recent()]
    assert actions[:2] == ["derive_status", "retract"]


def test_time_on_task_is_stored(project, question, alice, bob):
    record = project.verifications.submit(question.id, alice, APPROVE, seconds_on_task=12.5)
    assert record.seconds_on_task == 12.5
    assert record.annotator_name == "Alice" and record.round == "first"
    project.verifications.submit(question.id, bob, APPROVE, seconds_on_task=7.5)
    assert project.verifications.time_on_task() == {
        "verdicts": 2,
        "total_s": 20.0,
        "median_s": 10.0,
        "mean_s": 10.0,
    }
    with pytest.raises(ValueError, match="seconds_on_task"):
        project.verifications.submit(question.id, alice, APPROVE, seconds_on_task=-1)


def test_only_current_pending_questions_are_verified(project, question, alice, bob):
    imported = project.questions.add(
        {
            "benchmark": "mgvqa",
            "task": "find",
            "text": "Is there a key?",
            "answer": "yes",
            "status": "approved",
        }
    )
    assert [q.id for q in project.verifications.queue(alice)] == [question.id]
    with pytest.raises(ProjectError, match="approved already"):
        project.verifications.submit(imported.id, alice, APPROVE, seconds_on_task=5)
    newer = project.questions.correct(question.id, {"text": "How many cups?"}, bob)
    with pytest.raises(ProjectError, match="not the current version"):
        project.verifications.submit(question.id, alice, APPROVE, seconds_on_task=5)
    assert project.verifications.queue(alice) == []  # the newer version is corrected already
    assert newer.is_current


def test_agreement_over_complete_pairs(project, alice, bob, carol):
    questions = [
        project.questions.add(
            {"benchmark": "mgvqa", "task": "count", "text": f"Q{i}?", "answer": i}
        )
        for i in range(4)
    ]
    verdicts = [(APPROVE, APPROVE), (APPROVE, REJECT), (REJECT, REJECT), (APPROVE, None)]
    for q, (first, second) in zip(questions, verdicts, strict=True):
        project.verifications.submit(q.id, alice, first, seconds_on_task=3)
        if second is not None:
            project.verifications.submit(q.id, bob, second, seconds_on_task=3)
    result = project.verifications.agreement()
    assert result["n"] == 3  # the unpaired verdict does not count
    # Decisions approve/approve, approve/reject, reject/reject: p_o = 2/3;
    # rater 1 approve 2 reject 1, rater 2 approve 1 reject 2: p_e = (2 + 2) / 9 = 4/9;
    # kappa = (2/3 - 4/9) / (5/9) = 2/5.
    assert result["decision"]["kappa"] == pytest.approx(0.4)
    assert result["decision"]["disagreements"] == 1
    assert result["criteria"]["evidence_withheld"]["disagreements"] == 1


def test_a_project_from_before_0003_keeps_its_verifications(tmp_path):
    path = tmp_path / "old.reasonscope"
    db = Database(path)
    schema.migrations.apply(db, stop_before="0003_verification_protocol")
    db.execute("INSERT INTO annotators(id, name, created_at) VALUES (1, 'Alice', 't0')")
    db.execute("INSERT INTO annotators(id, name, created_at) VALUES (2, 'Bob', 't0')")
    db.execute(
        "INSERT INTO questions(id, uid, version, benchmark, task, text, answer, created_at) "
        "VALUES (7, 'u7', 1, 'mgvqa', 'count', 'How many?', '2', 't0')"
    )
    db.execute(
        "INSERT INTO verifications(id, question_id, annotator_id, unambiguous, evidence_withheld, "
        "evidence_recoverable, decision, reason, created_at) "
        "VALUES (3, 7, 1, 1, 1, 1, 'approve', '', 't1')"
    )
    db.conn.commit()
    db.close()
    with open_project(path) as p:
        assert p.schema_version == schema.SCHEMA_VERSION
        row = p.db.execute(
            "SELECT id, question_id, annotator_id, round, decision, corrections, retracted_at "
            "FROM verifications"
        ).fetchall()
        assert row == [(3, 7, 1, "first", "approve", "{}", None)]
        assert p.summary.summary().verifications == 1
        alice, bob = p.annotators.get(1), p.annotators.get(2)
        assert p.verifications.visible_verdicts(7, alice)[0].verdict == APPROVE
        assert p.verifications.visible_verdicts(7, bob) == []
        # The old verdict fills a slot: Bob's completes the pair.
        p.verifications.submit(7, bob, APPROVE, seconds_on_task=4)
        assert p.questions.get(7).status == "approved"
        assert p.integrity_ok()


# -- criterion 4 (volumes distinct): Compare questions only -----------------------------------
COMPARE_APPROVE = Verdict(True, True, True, "approve", volumes_distinct=True)


def _compare(project: Project):
    return project.questions.add(
        {
            "benchmark": "mgvqa",
            "task": "compare",
            "text": "Which of the three labelled objects is largest?",
            "options": ["A", "B", "C"],
            "answer": "B",
            "evidence_ids": ["box_1", "mug_2", "can_3"],
            "difficulty": {"S": 3, "R": 0, "T": 1},
        }
    )


def test_a_compare_verdict_without_criterion_4_is_refused_and_changes_nothing(project, alice):
    q = _compare(project)
    before = _rows(project)
    with pytest.raises(ProjectError, match=r"criterion 4 \(volumes distinct\) must be answered"):
        project.verifications.submit(q.id, alice, APPROVE, seconds_on_task=3)
    reject = Verdict(True, True, True, "reject", reason="too dark")
    with pytest.raises(ProjectError, match="must be answered for a Compare question"):
        project.verifications.submit(q.id, alice, reject, seconds_on_task=3)
    assert _rows(project) == before


def test_criterion_4_on_another_task_is_refused(project, question, alice):
    before = _rows(project)
    with pytest.raises(ProjectError, match=r"criterion 4 .* only for a Compare question"):
        project.verifications.submit(question.id, alice, COMPARE_APPROVE, seconds_on_task=3)
    assert _rows(project) == before


def test_criterion_4_is_stored_and_read_back(project, question, alice, bob):
    q = _compare(project)
    repo = project.verifications
    mine = repo.submit(q.id, alice, COMPARE_APPROVE, seconds_on_task=3)
    no = Verdict(True, True, True, "reject", reason="same size", volumes_distinct=False)
    his = repo.submit(q.id, bob, no, seconds_on_task=4)
    other = repo.submit(question.id, alice, APPROVE, seconds_on_task=2)
    stored = dict(project.db.execute("SELECT id, volumes_distinct FROM verifications").fetchall())
    assert stored == {mine.id: 1, his.id: 0, other.id: None}
    seen = repo.visible_verdicts(q.id, alice)
    assert [r.verdict.volumes_distinct for r in seen] == [True, False]
    assert seen[1].verdict == no
    assert repo.last_verdict(alice).verdict.volumes_distinct is None
    assert repo.outcome(q.id).needs_adjudication


def test_a_project_from_before_0013_keeps_its_compare_verdicts(tmp_path):
    """Old rows keep NULL; a new verdict on the same Compare question must answer 4."""
    path = tmp_path / "old.reasonscope"
    db = Database(path)
    schema.migrations.apply(db, stop_before="0013_compare_volumes_distinct")
    db.execute("INSERT INTO annotators(id, name, created_at) VALUES (1, 'Alice', 't0')")
    db.execute("INSERT INTO annotators(id, name, created_at) VALUES (2, 'Bob', 't0')")
    db.execute(
        "INSERT INTO questions(id, uid, version, benchmark, task, text, answer, created_at) "
        "VALUES (7, 'u7', 1, 'mgvqa', 'compare', 'Which is largest?', '\"A\"', 't0')"
    )
    db.execute(
        "INSERT INTO verifications(id, question_id, annotator_id, round, unambiguous, "
        "evidence_withheld, evidence_recoverable, decision, reason, created_at) "
        "VALUES (3, 7, 1, 'first', 1, 1, 1, 'approve', '', 't1')"
    )
    db.conn.commit()
    db.close()
    with open_project(path) as p:
        assert p.schema_version == schema.SCHEMA_VERSION
        assert p.db.execute("SELECT volumes_distinct FROM verifications").fetchall() == [(None,)]
        alice, bob = p.annotators.get(1), p.annotators.get(2)
        old = p.verifications.visible_verdicts(7, alice)[0].verdict
        assert old == APPROVE and old.volumes_distinct is None
        with pytest.raises(ProjectError, match="criterion 4"):
            p.verifications.submit(7, bob, APPROVE, seconds_on_task=4)
        p.verifications.submit(7, bob, COMPARE_APPROVE, seconds_on_task=4)
        assert p.questions.get(7).status == "approved"
        assert p.integrity_ok()
