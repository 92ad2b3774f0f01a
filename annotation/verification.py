"""The blind two-annotator verification protocol, as pure rules.

A verifier answers three yes/no criteria (MG-VQA, section 3.2 and appendix C.2):

- `unambiguous`: the wording, the options and the answer are unambiguous;
- `evidence_withheld`: the initial view withholds the answer-critical evidence;
- `evidence_recoverable`: feasible clutter removal reveals that evidence;

and, for Compare questions only (appendix C.2), a fourth:

- `volumes_distinct`: the three labelled objects are visibly distinct in occupied
  volume, so their volumes can be compared from the top-down view.

It is asked of a Compare question and of no other: `asked_criteria(task)` says which
criteria a task's verdict answers, and `check_for_task` refuses a verdict that leaves
criterion 4 out on a Compare question or answers it on another (the store calls it on
every verdict it saves, however it came: the app, the CLI or a work package). A
Compare scene whose volumes are not visibly distinct is invalid, as one that gives the
evidence away is: no edit of the text repairs it, so only reject is left.

then decides: approve, correct (edit the text, options or answer) or reject
(with a reason). Two distinct annotators give first-round verdicts, blind to
each other; when they disagree a third annotator adjudicates. The question's
final status is derived from the verdicts by `derive_outcome`, never typed in.

Outcome of the two first-round verdicts (order does not matter):

| first   | second  | outcome                                                       |
| ------- | ------- | ------------------------------------------------------------- |
| approve | approve | approved                                                      |
| reject  | reject  | excluded (the reasons may differ)                             |
| approve | correct | corrected, if the correction keeps the answer; else adjudicate |
| correct | correct | corrected, if both corrections are identical; else adjudicate  |
| reject  | approve or correct | adjudicate                                         |

An adjudicator's verdict then decides alone: approve -> approved, correct ->
corrected (with the adjudicator's correction), reject -> excluded.

Approving with an amended answer is not an agreement: the answer is the ground
truth, and one annotator accepted the old one. A correction of the wording or
options only clarifies a question the other annotator already found sound.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from annotation.models import Question

CRITERIA = ("unambiguous", "evidence_withheld", "evidence_recoverable")
#: Criteria asked only of some tasks: criterion 4, of Compare questions (MG-VQA, C.2).
TASK_CRITERIA = {"volumes_distinct": "compare"}
#: Every criterion a verdict may answer, numbered 1 to 4 in this order.
ALL_CRITERIA = (*CRITERIA, *TASK_CRITERIA)
#: A criterion as its number and words, for refusals ("criterion 4 (volumes distinct)").
CRITERION_NAMES = {
    name: f"criterion {i} ({name.replace('_', ' ')})" for i, name in enumerate(ALL_CRITERIA, 1)
}
DECISIONS = ("approve", "correct", "reject")
CORRECTABLE_FIELDS = ("text", "options", "answer")
ROUNDS = ("first", "adjudication")
OUTCOME_STATUSES = ("pending", "approved", "corrected", "excluded")

_FINAL_BY_DECISION = {"approve": "approved", "correct": "corrected", "reject": "excluded"}


def asked_criteria(task: str) -> tuple[str, ...]:
    """The criteria a verdict on a question of this task answers: the three, and for a
    Compare question criterion 4 (`volumes_distinct`) too."""
    return CRITERIA + tuple(name for name, only in TASK_CRITERIA.items() if only == task)


def check_for_task(verdict: Verdict, task: str) -> None:
    """Refuse (`ValueError` naming the criterion) a verdict that does not answer exactly
    the criteria its question's task asks: criterion 4 left out on a Compare question,
    or answered on a question of another task."""
    asked = asked_criteria(task)
    for name in TASK_CRITERIA:
        value = getattr(verdict, name)
        if name in asked and value is None:
            raise ValueError(
                f"{CRITERION_NAMES[name]} must be answered for a "
                f"{TASK_CRITERIA[name].capitalize()} question"
            )
        if name not in asked and value is not None:
            raise ValueError(
                f"{CRITERION_NAMES[name]} is asked only for a "
                f"{TASK_CRITERIA[name].capitalize()} question, not for a {task!r} one"
            )


def allowed_decisions(
    *,
    unambiguous: bool,
    evidence_withheld: bool,
    evidence_recoverable: bool,
    volumes_distinct: bool | None = None,
) -> tuple[str, ...]:
    """The decisions consistent with the criteria (the GUI enables only these).

    Approve needs every criterion met. Correct needs a valid scene (evidence
    withheld and recoverable, and for Compare the three volumes visibly distinct):
    editing text cannot fix a scene that gives the answer away, hides it for good or
    holds no visible difference to compare. Reject is always possible.
    `volumes_distinct` is None for a question that does not ask it (not Compare).
    """
    scene_valid = evidence_withheld and evidence_recoverable and volumes_distinct is not False
    if scene_valid and unambiguous:
        return DECISIONS
    if scene_valid:
        return ("correct", "reject")
    return ("reject",)


@dataclass(frozen=True)
class Verdict:
    """One annotator's answer to the criteria and their decision.

    `volumes_distinct` (criterion 4) is None unless the question is a Compare
    question; whether it must be answered depends on the question, so the store
    checks that with `check_for_task`.

    Raises `ValueError` when the parts contradict each other: an unknown decision, a
    reject without a reason, a correction that edits nothing or a field other than
    text, options and answer, corrections on an approve or a reject, or a decision
    the criteria do not allow (see `allowed_decisions`).
    """

    unambiguous: bool
    evidence_withheld: bool
    evidence_recoverable: bool
    decision: str
    reason: str = ""
    corrections: Mapping[str, Any] = field(default_factory=dict)
    volumes_distinct: bool | None = None

    def __post_init__(self) -> None:
        if self.decision not in DECISIONS:
            raise ValueError(f"decision must be one of {DECISIONS}, not {self.decision!r}")
        for name in CRITERIA:
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"criterion {name!r} must be yes or no (a bool)")
        for name in TASK_CRITERIA:
            if not isinstance(getattr(self, name), bool | None):
                raise ValueError(
                    f"{CRITERION_NAMES[name]} must be yes or no (a bool), or None where not asked"
                )
        object.__setattr__(self, "reason", (self.reason or "").strip())
        object.__setattr__(self, "corrections", _clean_corrections(self.corrections))
        if self.decision == "reject" and not self.reason:
            raise ValueError("a reject needs a reason")
        if self.decision == "correct" and not self.corrections:
            raise ValueError("a correction needs at least one edited field: text, options, answer")
        if self.decision != "correct" and self.corrections:
            raise ValueError(f"only a correction carries edits, not {self.decision!r}")
        allowed = allowed_decisions(**self.criteria)
        if self.decision not in allowed:
            needed = [n for n in self.criteria if self.decision == "approve" or n != "unambiguous"]
            unmet = [CRITERION_NAMES[n] for n in needed if self.criteria[n] is False]
            raise ValueError(
                f"{self.decision!r} contradicts the criteria; allowed: {', '.join(allowed)} "
                f"({', '.join(unmet)} not met)"
            )

    @classmethod
    def from_storage(
        cls,
        *,
        unambiguous: bool,
        evidence_withheld: bool,
        evidence_recoverable: bool,
        decision: str,
        reason: str = "",
        corrections: Mapping[str, Any] | None = None,
        volumes_distinct: bool | None = None,
    ) -> Verdict:
        """A verdict as saved, without the checks (rows from before these rules existed;
        `volumes_distinct` NULL in rows from before criterion 4, and for other tasks)."""
        verdict = object.__new__(cls)
        values = {
            "unambiguous": bool(unambiguous),
            "evidence_withheld": bool(evidence_withheld),
            "evidence_recoverable": bool(evidence_recoverable),
            "decision": decision,
            "reason": reason,
            "corrections": dict(corrections or {}),
            "volumes_distinct": None if volumes_distinct is None else bool(volumes_distinct),
        }
        for name, value in values.items():
            object.__setattr__(verdict, name, value)
        return verdict

    @property
    def criteria(self) -> dict[str, bool]:
        """The criteria this verdict answers: the three, and criterion 4 when answered."""
        answered = {name: getattr(self, name) for name in ALL_CRITERIA}
        return {name: value for name, value in answered.items() if value is not None}


def _clean_corrections(corrections: Mapping[str, Any] | None) -> dict[str, Any]:
    corrections = dict(corrections or {})
    unknown = sorted(set(corrections) - set(CORRECTABLE_FIELDS))
    if unknown:
        raise ValueError(f"cannot correct {unknown}; only {', '.join(CORRECTABLE_FIELDS)}")
    if "text" in corrections:
        text = corrections["text"]
        if not isinstance(text, str) or not text.strip():
            raise ValueError("a corrected text must be a non-empty string")
        corrections["text"] = text.strip()
    if "options" in corrections:
        options = corrections["options"]
        if options is not None and not isinstance(options, (list, tuple)):
            raise ValueError("corrected options must be a list (or None for an open question)")
        corrections["options"] = None if options is None else list(options)
    return corrections


def changed_fields(question: Question, corrections: Mapping[str, Any]) -> dict[str, Any]:
    """The corrections that really change `question`; raises `ValueError` if none do."""
    current = {"text": question.text, "options": question.options, "answer": question.answer}
    changed = {k: v for k, v in corrections.items() if current[k] != v}
    if not changed:
        raise ValueError("the correction changes nothing: edit the text, options or answer")
    return changed


@dataclass(frozen=True)
class Outcome:
    """What the verdicts so far make of a question.

    `status` is one of pending / approved / corrected / excluded.
    `needs_adjudication` is true while two first-round verdicts disagree and no
    adjudicator has decided. `adopted` names the verdict whose correction
    becomes the current version ("first", "second" or "adjudication") when the
    status is corrected, else None.
    """

    status: str
    needs_adjudication: bool = False
    adopted: str | None = None


def derive_outcome(
    first: Verdict | None, second: Verdict | None, adjudication: Verdict | None = None
) -> Outcome:
    """The status the verdicts imply, by the rules in this module's docstring.

    Raises `ValueError` for an adjudication the first-round verdicts do not call
    for (the pair is incomplete or agrees).
    """
    if first is None or second is None:
        if adjudication is not None:
            raise ValueError("an adjudication needs two first-round verdicts")
        return Outcome("pending")
    agreed = _agreement(first, second)
    if agreed is not None:
        if adjudication is not None:
            raise ValueError("the first-round verdicts agree; there is nothing to adjudicate")
        return agreed
    if adjudication is None:
        return Outcome("pending", needs_adjudication=True)
    status = _FINAL_BY_DECISION[adjudication.decision]
    return Outcome(status, adopted="adjudication" if status == "corrected" else None)


def _agreement(first: Verdict, second: Verdict) -> Outcome | None:
    """The outcome two first-round verdicts agree on, or None if they disagree."""
    decisions = (first.decision, second.decision)
    if decisions == ("approve", "approve"):
        return Outcome("approved")
    if decisions == ("reject", "reject"):
        return Outcome("excluded")
    if decisions == ("correct", "correct"):
        if first.corrections == second.corrections:
            return Outcome("corrected", adopted="first")
        return None
    if set(decisions) == {"approve", "correct"}:
        slot = "first" if first.decision == "correct" else "second"
        correction = first if slot == "first" else second
        if "answer" in correction.corrections:
            return None  # a new answer against an approved old one: a real disagreement
        return Outcome("corrected", adopted=slot)
    return None  # a reject against an approve or a correct


@dataclass(frozen=True)
class VerdictRecord:
    """A stored verdict: who gave it, in which round, and how long it took.

    `proposed_question_id` is the question version a correction proposes (not
    current until the outcome is corrected); `retracted_at` is set by an undo.
    """

    id: int
    question_id: int
    annotator_id: int
    annotator_name: str
    round: str
    verdict: Verdict
    seconds_on_task: float | None
    created_at: str
    retracted_at: str | None = None
    proposed_question_id: int | None = None

    @property
    def decision(self) -> str:
        return self.verdict.decision
