"""The pure rules of blind two-annotator verification."""

from __future__ import annotations

import pytest

from annotation.models import Question
from annotation.verification import (
    CRITERIA,
    Outcome,
    Verdict,
    allowed_decisions,
    asked_criteria,
    changed_fields,
    check_for_task,
    derive_outcome,
)

APPROVE = Verdict(True, True, True, "approve")
REJECT = Verdict(True, False, True, "reject", reason="the mug is visible from the start")
REJECT_OTHER = Verdict(True, True, False, "reject", reason="the apple cannot be uncovered")
REWORD = Verdict(False, True, True, "correct", corrections={"text": "How many red mugs?"})
REWORD_SAME = Verdict(False, True, True, "correct", corrections={"text": " How many red mugs? "})
REWORD_OTHER = Verdict(False, True, True, "correct", corrections={"text": "Count the red mugs."})
NEW_ANSWER = Verdict(True, True, True, "correct", corrections={"answer": 3})


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (APPROVE, APPROVE, Outcome("approved")),
        (REJECT, REJECT_OTHER, Outcome("excluded")),
        (APPROVE, REWORD, Outcome("corrected", adopted="second")),
        (REWORD, APPROVE, Outcome("corrected", adopted="first")),
        (REWORD, REWORD_SAME, Outcome("corrected", adopted="first")),
        (REWORD, REWORD_OTHER, Outcome("pending", needs_adjudication=True)),
        (APPROVE, NEW_ANSWER, Outcome("pending", needs_adjudication=True)),
        (APPROVE, REJECT, Outcome("pending", needs_adjudication=True)),
        (REJECT, REWORD, Outcome("pending", needs_adjudication=True)),
    ],
)
def test_outcome_of_two_first_round_verdicts(first, second, expected):
    assert derive_outcome(first, second) == expected


def test_one_or_no_verdict_is_pending():
    assert derive_outcome(None, None) == Outcome("pending")
    assert derive_outcome(APPROVE, None) == Outcome("pending")
    assert derive_outcome(None, REJECT) == Outcome("pending")


@pytest.mark.parametrize(
    ("adjudication", "expected"),
    [
        (APPROVE, Outcome("approved")),
        (REJECT, Outcome("excluded")),
        (REWORD_OTHER, Outcome("corrected", adopted="adjudication")),
    ],
)
def test_the_adjudicator_decides_a_disagreement(adjudication, expected):
    assert derive_outcome(APPROVE, REJECT, adjudication) == expected


def test_an_adjudication_nobody_asked_for_is_an_error():
    with pytest.raises(ValueError, match="two first-round"):
        derive_outcome(APPROVE, None, REJECT)
    with pytest.raises(ValueError, match="nothing to adjudicate"):
        derive_outcome(APPROVE, APPROVE, REJECT)


def test_allowed_decisions_follow_the_criteria():
    assert allowed_decisions(
        unambiguous=True, evidence_withheld=True, evidence_recoverable=True
    ) == ("approve", "correct", "reject")
    assert allowed_decisions(
        unambiguous=False, evidence_withheld=True, evidence_recoverable=True
    ) == ("correct", "reject")
    for withheld, recoverable in ((False, True), (True, False), (False, False)):
        assert allowed_decisions(
            unambiguous=True, evidence_withheld=withheld, evidence_recoverable=recoverable
        ) == ("reject",)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"decision": "maybe"}, "decision must be one of"),
        ({"decision": "reject"}, "needs a reason"),
        ({"decision": "reject", "reason": "   "}, "needs a reason"),
        ({"decision": "correct"}, "at least one edited field"),
        ({"decision": "correct", "corrections": {"task": "find"}}, "cannot correct"),
        ({"decision": "correct", "corrections": {"text": ""}}, "non-empty string"),
        ({"decision": "correct", "corrections": {"options": "A"}}, "must be a list"),
        ({"decision": "approve", "corrections": {"answer": 1}}, "only a correction"),
        ({"decision": "approve", "unambiguous": False}, "contradicts the criteria"),
        (
            {"decision": "correct", "evidence_withheld": False, "corrections": {"answer": 1}},
            "contradicts",
        ),
        ({"decision": "approve", "unambiguous": 1}, "yes or no"),
    ],
)
def test_inconsistent_verdicts_are_refused(kwargs, message):
    fields = {
        "unambiguous": True,
        "evidence_withheld": True,
        "evidence_recoverable": True,
        **kwargs,
    }
    with pytest.raises(ValueError, match=message):
        Verdict(**fields)


def test_verdicts_are_normalised():
    v = Verdict(False, False, True, "reject", reason="  wrong answer  ")
    assert v.reason == "wrong answer"
    assert v.criteria == {
        "unambiguous": False,
        "evidence_withheld": False,
        "evidence_recoverable": True,
    }
    fix = Verdict(True, True, True, "correct", corrections={"options": ("A", "B")})
    assert fix.corrections == {"options": ["A", "B"]}


def _question(**extra) -> Question:
    fields = {
        "id": 1,
        "uid": "u",
        "version": 1,
        "benchmark": "mgvqa",
        "task": "count",
        "text": "How many mugs?",
        "options": [1, 2, 3],
        "answer": 2,
        "evidence_ids": [],
        "steps": [],
        "difficulty": None,
        "criteria": {},
        "status": "pending",
        "is_current": True,
        "scene_id": None,
        "sequence_id": None,
        "seed": None,
        "created_at": "2025-01-01T00:00:00+00:00",
        "created_by": None,
    }
    fields.update(extra)
    return Question(**fields)


def test_changed_fields_keeps_only_real_changes():
    q = _question()
    assert changed_fields(q, {"text": "How many mugs?", "answer": 3}) == {"answer": 3}
    with pytest.raises(ValueError, match="changes nothing"):
        changed_fields(q, {"text": "How many mugs?", "options": [1, 2, 3]})


# -- criterion 4: Compare only (MG-VQA, appendix C.2) ---------------------------------------
def test_criterion_4_is_asked_of_compare_questions_only():
    assert asked_criteria("compare") == CRITERIA + ("volumes_distinct",)
    for task in ("count", "find", "beneath", "vg"):
        assert asked_criteria(task) == CRITERIA


def test_a_compare_verdict_must_answer_criterion_4():
    with pytest.raises(ValueError, match=r"criterion 4 \(volumes distinct\) must be answered"):
        check_for_task(APPROVE, "compare")
    with pytest.raises(ValueError, match="Compare question"):
        check_for_task(REJECT, "compare")  # any decision, not only approve
    check_for_task(Verdict(True, True, True, "approve", volumes_distinct=True), "compare")


def test_other_tasks_must_leave_criterion_4_unanswered():
    check_for_task(APPROVE, "count")
    with pytest.raises(ValueError, match=r"criterion 4 .* only for a Compare question"):
        check_for_task(Verdict(True, True, True, "approve", volumes_distinct=True), "count")


def test_volumes_not_distinct_leave_only_reject():
    """An invalid Compare scene: no correction of the text repairs it."""
    assert allowed_decisions(
        unambiguous=True, evidence_withheld=True, evidence_recoverable=True, volumes_distinct=True
    ) == ("approve", "correct", "reject")
    assert allowed_decisions(
        unambiguous=False, evidence_withheld=True, evidence_recoverable=True, volumes_distinct=True
    ) == ("correct", "reject")
    for unambiguous in (True, False):
        assert allowed_decisions(
            unambiguous=unambiguous,
            evidence_withheld=True,
            evidence_recoverable=True,
            volumes_distinct=False,
        ) == ("reject",)
    with pytest.raises(ValueError, match="'approve' contradicts the criteria; allowed: reject"):
        Verdict(True, True, True, "approve", volumes_distinct=False)
    with pytest.raises(ValueError, match="contradicts"):
        Verdict(False, True, True, "correct", corrections={"text": "x"}, volumes_distinct=False)
    no = Verdict(True, True, True, "reject", reason="two boxes of one size", volumes_distinct=False)
    assert no.criteria["volumes_distinct"] is False


def test_criterion_4_is_yes_no_or_not_asked():
    with pytest.raises(ValueError, match=r"criterion 4 \(volumes distinct\) must be yes or no"):
        Verdict(True, True, True, "approve", volumes_distinct=1)
    assert "volumes_distinct" not in APPROVE.criteria


def test_from_storage_reads_rows_from_before_criterion_4():
    old = Verdict.from_storage(
        unambiguous=1, evidence_withheld=1, evidence_recoverable=1, decision="approve"
    )
    assert old.volumes_distinct is None and old == APPROVE
    new = Verdict.from_storage(
        unambiguous=1,
        evidence_withheld=1,
        evidence_recoverable=1,
        decision="approve",
        volumes_distinct=1,
    )
    assert new.volumes_distinct is True


# -- the refusals' words: the verifier reads them in the app, the CLI and a package's log ----
def _refusal(**kwargs) -> str:
    fields = {"unambiguous": True, "evidence_withheld": True, "evidence_recoverable": True}
    with pytest.raises(ValueError) as refused:
        Verdict(**{**fields, **kwargs})
    return str(refused.value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"decision": "maybe"},
            "decision must be one of ('approve', 'correct', 'reject'), not 'maybe'",
        ),
        (
            {"decision": "approve", "evidence_withheld": 1},
            "criterion 'evidence_withheld' must be yes or no (a bool)",
        ),
        (
            {"decision": "approve", "volumes_distinct": "yes"},
            "criterion 4 (volumes distinct) must be yes or no (a bool), or None where not asked",
        ),
        ({"decision": "reject", "reason": None}, "a reject needs a reason"),
        (
            {"decision": "correct", "corrections": None},
            "a correction needs at least one edited field: text, options, answer",
        ),
        (
            {"decision": "reject", "reason": "r", "corrections": {"text": "x"}},
            "only a correction carries edits, not 'reject'",
        ),
        (
            {"decision": "correct", "corrections": {"task": "find", "answer": 1, "seed": 2}},
            "cannot correct ['seed', 'task']; only text, options, answer",
        ),
        (
            {"decision": "correct", "corrections": {"text": "  "}},
            "a corrected text must be a non-empty string",
        ),
        (
            {"decision": "correct", "corrections": {"text": 7}},
            "a corrected text must be a non-empty string",
        ),
        (
            {"decision": "correct", "corrections": {"options": {"A": 1}}},
            "corrected options must be a list (or None for an open question)",
        ),
        (
            {"decision": "approve", "unambiguous": False},
            "'approve' contradicts the criteria; allowed: correct, reject "
            "(criterion 1 (unambiguous) not met)",
        ),
        # a correction needs a valid scene, not an unambiguous text: only the scene's
        # criteria are named
        (
            {
                "decision": "correct",
                "unambiguous": False,
                "evidence_withheld": False,
                "corrections": {"answer": 1},
            },
            "'correct' contradicts the criteria; allowed: reject "
            "(criterion 2 (evidence withheld) not met)",
        ),
        (
            {"decision": "approve", "evidence_recoverable": False, "volumes_distinct": False},
            "'approve' contradicts the criteria; allowed: reject "
            "(criterion 3 (evidence recoverable), criterion 4 (volumes distinct) not met)",
        ),
    ],
)
def test_refusals_name_what_is_wrong(kwargs, message):
    assert _refusal(**kwargs) == message


def test_refusals_of_criterion_4_and_of_adjudications_name_what_is_wrong():
    with pytest.raises(ValueError) as refused:
        check_for_task(REJECT, "compare")
    assert str(refused.value) == (
        "criterion 4 (volumes distinct) must be answered for a Compare question"
    )
    with pytest.raises(ValueError) as refused:
        check_for_task(
            Verdict(True, True, True, "reject", reason="r", volumes_distinct=False), "find"
        )
    assert str(refused.value) == (
        "criterion 4 (volumes distinct) is asked only for a Compare question, not for a 'find' one"
    )
    with pytest.raises(ValueError) as refused:
        derive_outcome(None, APPROVE, REJECT)
    assert str(refused.value) == "an adjudication needs two first-round verdicts"
    with pytest.raises(ValueError) as refused:
        derive_outcome(REJECT, REJECT_OTHER, APPROVE)
    assert str(refused.value) == "the first-round verdicts agree; there is nothing to adjudicate"
    with pytest.raises(ValueError) as refused:
        changed_fields(_question(), {"answer": 2})
    assert str(refused.value) == "the correction changes nothing: edit the text, options or answer"


def test_a_new_answer_against_an_approve_needs_adjudication_in_either_order():
    assert derive_outcome(NEW_ANSWER, APPROVE) == Outcome("pending", needs_adjudication=True)
    reword_and_answer = Verdict(
        True, True, True, "correct", corrections={"text": "How many red mugs?", "answer": 3}
    )
    assert derive_outcome(reword_and_answer, APPROVE) == derive_outcome(APPROVE, reword_and_answer)
    assert derive_outcome(APPROVE, reword_and_answer).needs_adjudication


def test_corrections_are_normalised():
    open_question = Verdict(
        True, True, True, "correct", corrections={"options": None, "text": "  Which mug?\n"}
    )
    assert open_question.corrections == {"options": None, "text": "Which mug?"}
    assert Verdict(True, True, True, "approve", reason=None).reason == ""


def test_from_storage_keeps_every_stored_field():
    stored = Verdict.from_storage(
        unambiguous=0,
        evidence_withheld=1,
        evidence_recoverable=0,
        decision="reject",
        reason="the mug shows from the start",
        corrections=None,
        volumes_distinct=0,
    )
    assert (stored.reason, stored.corrections, stored.volumes_distinct) == (
        "the mug shows from the start",
        {},
        False,
    )
    assert stored.criteria == {
        "unambiguous": False,
        "evidence_withheld": True,
        "evidence_recoverable": False,
        "volumes_distinct": False,
    }
