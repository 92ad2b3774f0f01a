"""The Verify questions mode's state: queues, the open question, the draft verdict, the clock.

Panels read it and call its methods; it tells them what changed through its
signals and writes only through the verification repository. Testable
without a screen: pass any object with the repository's methods and a clock.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from annotation.models import Annotator, Question, Scene
from annotation.verification import (
    ALL_CRITERIA,
    CRITERION_NAMES,
    TASK_CRITERIA,
    Outcome,
    Verdict,
    VerdictRecord,
    allowed_decisions,
    asked_criteria,
)
from store import ProjectError

QUEUE, ADJUDICATION = "queue", "adjudication"
FADED_ALPHA = 0.15  # clutter that is not answer-critical
COVER_ALPHA = 0.5  # Beneath: see the hidden object through its cover
ALL_FADED_ALPHA = 0.45  # no evidence objects (an absent target): see through every pile
DECISION_NEEDS = {
    "approve": "Approve needs all three criteria (1, 2, 3)",
    "correct": "Correct needs a valid scene: criteria 2 and 3",
}
#: The same for a Compare question, which asks criterion 4 (volumes distinct) too.
COMPARE_NEEDS = {
    "approve": "Approve needs all four criteria (1, 2, 3, 4)",
    "correct": "Correct needs a valid scene: criteria 2, 3 and 4 "
    "(no text makes volumes that look alike distinct)",
}


class VerificationSource(Protocol):
    """What the state needs of `project.verifications`."""

    def queue(self, annotator: Annotator, limit: int = 50) -> list[Question]: ...
    def adjudication_queue(self, annotator: Annotator, limit: int = 50) -> list[Question]: ...
    def submit(
        self, question_id: int, annotator: Annotator, verdict: Verdict, seconds_on_task: float
    ) -> VerdictRecord: ...
    def undo_last(self, annotator: Annotator) -> VerdictRecord: ...
    def can_undo(self, annotator: Annotator) -> bool: ...
    def last_verdict(self, annotator: Annotator) -> VerdictRecord | None: ...
    def visible_verdicts(self, question_id: int, annotator: Annotator) -> list[VerdictRecord]: ...
    def outcome(self, question_id: int) -> Outcome: ...


@dataclass(frozen=True)
class Draft:
    """The verdict being given: the criteria, and what the verifier is in the middle of.

    `volumes_distinct` (criterion 4) is False on a Compare question until ticked, and
    None on every other question (not asked)."""

    unambiguous: bool = False
    evidence_withheld: bool = False
    evidence_recoverable: bool = False
    volumes_distinct: bool | None = None
    reason: str = ""
    editing: bool = False  # the correction editor is open
    text: str = ""  # the correction editor's fields, as typed
    options_text: str = ""
    answer_text: str = ""

    @property
    def criteria(self) -> dict[str, bool]:
        """The criteria the open question asks, answered so far."""
        answered = {name: getattr(self, name) for name in ALL_CRITERIA}
        return {name: value for name, value in answered.items() if value is not None}


@dataclass(frozen=True)
class VerificationRendering:
    """How the verification view draws a question's scene: outlined evidence, faded clutter."""

    highlighted: frozenset[str]
    alpha: dict[str, float] = field(default_factory=dict)


def verification_rendering(
    *, task: str, evidence_ids: list[str], object_keys: list[str]
) -> VerificationRendering:
    """Evidence is outlined; every other object fades to `FADED_ALPHA`.

    Beneath's evidence is [cover, hidden] (the generator's order): the cover is
    half transparent too, so the hidden object shows through it. With no
    evidence objects (an absent target) every object is see-through.
    """
    evidence = [k for k in evidence_ids if k in object_keys]
    if not evidence:
        return VerificationRendering(frozenset(), dict.fromkeys(object_keys, ALL_FADED_ALPHA))
    alpha = {k: FADED_ALPHA for k in object_keys if k not in evidence}
    if task == "beneath" and len(evidence) >= 2:
        alpha[evidence[0]] = COVER_ALPHA
    return VerificationRendering(frozenset(evidence), alpha)


def format_answer(answer: Any) -> str:
    """An answer as the verifier reads and edits it (JSON unless it is plain text)."""
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


def parse_answer(text: str, original: Any) -> Any:
    """The typed answer, of the original's kind: text stays text, anything else is JSON."""
    text = text.strip()
    if isinstance(original, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_options(text: str) -> list[str] | None:
    """One option a line; no lines means an open question (None)."""
    options = [line.strip() for line in text.splitlines() if line.strip()]
    return options or None


class VerifyState(QObject):
    queue_changed = Signal()
    question_opened = Signal()  # `current` is the new question (or None)
    draft_changed = Signal()
    verdict_saved = Signal(str)  # a one-line message: what was saved or undone
    refused = Signal(str)  # a one-line reason nothing was saved
    focus_requested = Signal(str)  # "reason" or "correction": where the verifier types next
    evidence_changed = Signal()  # the restored scene's visibility arrived

    def __init__(
        self,
        source: VerificationSource | None = None,
        annotator: Annotator | None = None,
        *,
        scenes: Any = None,
        clock: Callable[[], float] = time.monotonic,
        needs: Callable[[str, str], str] | None = None,
    ) -> None:
        super().__init__()
        self.clock = clock
        self.needs = needs  # (benchmark, decision) -> why the criteria refuse it, in its words
        self.list_name = QUEUE
        self.lists: dict[str, list[Question]] = {QUEUE: [], ADJUDICATION: []}
        self.current: Question | None = None
        self.scene: Scene | None = None
        self.verdicts: list[VerdictRecord] = []  # only what `visible_verdicts` allows
        self.draft = Draft()
        self.visibility: dict[str, float] = {}
        self.started = clock()
        self.set_source(source, annotator, scenes)

    # -- queues -----------------------------------------------------------------
    @property
    def questions(self) -> list[Question]:
        """The list shown now: the first-round queue or the adjudication queue."""
        return self.lists[self.list_name]

    @property
    def index(self) -> int:
        ids = [q.id for q in self.questions]
        return ids.index(self.current.id) if self.current and self.current.id in ids else -1

    def set_source(
        self, source: VerificationSource | None, annotator: Annotator | None, scenes: Any = None
    ) -> None:
        """Another project or another person: start again from the top of the queue."""
        self.source, self.annotator, self.scenes = source, annotator, scenes
        self.current = None
        self._reload_lists()
        # Start where the work is: adjudication only when the first-round queue is empty.
        wanted = ADJUDICATION if self.lists[ADJUDICATION] and not self.lists[QUEUE] else QUEUE
        if wanted != self.list_name:
            self.list_name = wanted
            self.queue_changed.emit()
        questions = self.questions
        self._open(questions[0] if questions else None)

    def refresh(self) -> None:
        """Re-read both queues; keep the open question if still listed, else open the one
        that now takes its row."""
        row = self.index
        self._reload_lists()
        questions = self.questions
        if self.current is not None and self.index >= 0:
            self.current = questions[self.index]  # same id, fresh copy; the draft stays
        elif questions:
            self._open(questions[min(max(row, 0), len(questions) - 1)])
        elif self.current is not None:
            self._open(None)

    def _reload_lists(self) -> None:
        if self.source is None or self.annotator is None:
            self.lists = {QUEUE: [], ADJUDICATION: []}
        else:
            self.lists = {
                QUEUE: self.source.queue(self.annotator),
                ADJUDICATION: self.source.adjudication_queue(self.annotator),
            }
        self.queue_changed.emit()

    def show_list(self, name: str) -> None:
        """Switch between the first-round queue and the adjudication queue."""
        if name not in self.lists:
            raise ValueError(f"list must be {QUEUE!r} or {ADJUDICATION!r}, not {name!r}")
        if name != self.list_name:
            self.list_name = name
            self.queue_changed.emit()
            questions = self.questions
            self._open(questions[0] if questions else None)

    # -- the open question --------------------------------------------------------
    def open_row(self, row: int) -> None:
        questions = self.questions
        if 0 <= row < len(questions) and (self.current is None or row != self.index):
            self._open(questions[row])

    def next(self) -> None:
        self._step(+1)

    def previous(self) -> None:
        self._step(-1)

    def _step(self, delta: int) -> None:
        questions = self.questions
        if not questions:
            where = "adjudication queue" if self.list_name == ADJUDICATION else "queue"
            self.refused.emit(f"No questions in the {where}")
            return
        row = self.index
        self.open_row(0 if row < 0 else min(max(row + delta, 0), len(questions) - 1))

    def _open(self, question: Question | None) -> None:
        self.current = question
        self.scene = None
        if question is not None and question.scene_id is not None and self.scenes is not None:
            self.scene = self.scenes.get(question.scene_id)
        self.draft = self._fresh_draft()
        self.visibility = {}
        self.verdicts = self._visible(question)
        self.restart_clock()
        self.question_opened.emit()
        self.draft_changed.emit()

    def _visible(self, question: Question | None) -> list[VerdictRecord]:
        if question is None or self.source is None or self.annotator is None:
            return []
        return self.source.visible_verdicts(question.id, self.annotator)

    def _fresh_draft(self) -> Draft:
        q = self.current
        if q is None:
            return Draft()
        return Draft(
            volumes_distinct=False if "volumes_distinct" in asked_criteria(q.task) else None,
            text=q.text,
            options_text="\n".join(str(o) for o in q.options or []),
            answer_text=format_answer(q.answer),
        )

    def restart_clock(self) -> None:
        """Time on task counts from now (the question is on screen)."""
        self.started = self.clock()

    def seconds_on_task(self) -> float:
        return max(0.0, self.clock() - self.started)

    def set_visibility(self, visibility: dict[str, float]) -> None:
        """How much of each body the model's first view shows (from the restored scene)."""
        self.visibility = dict(visibility)
        self.evidence_changed.emit()

    def evidence_names(self) -> dict[str, str]:
        """Evidence body key -> its name in the scene (the key itself if unknown)."""
        names = {b.key: b.name for b in self.scene.bodies} if self.scene else {}
        return {k: names.get(k, k) for k in (self.current.evidence_ids if self.current else [])}

    # -- the draft verdict ----------------------------------------------------------
    def asks(self, name: str) -> bool:
        """Whether the open question asks this criterion (4: Compare questions only)."""
        return self.current is not None and name in asked_criteria(self.current.task)

    def toggle(self, criterion: int | str) -> None:
        """Flip a criterion: 1, 2, 3, 4 (Compare only) or its name."""
        name = ALL_CRITERIA[criterion - 1] if isinstance(criterion, int) else criterion
        self.set_criterion(name, not getattr(self.draft, name))

    def set_criterion(self, name: str, value: bool) -> None:
        if name not in ALL_CRITERIA:
            raise ValueError(f"criterion must be one of {ALL_CRITERIA}, not {name!r}")
        if self.current is not None and not self.asks(name):
            only = TASK_CRITERIA[name].capitalize()
            self.refused.emit(
                f"{CRITERION_NAMES[name].capitalize()} is asked of {only} questions only"
            )
            return
        self._edit(**{name: bool(value)})

    def set_reason(self, reason: str) -> None:
        self._edit(reason=reason)

    def set_correction(self, *, text: str, options_text: str, answer_text: str) -> None:
        self._edit(text=text, options_text=options_text, answer_text=answer_text)

    def _edit(self, **changes: Any) -> None:
        if self.current is None:
            return
        draft = replace(self.draft, **changes)
        if draft != self.draft:
            self.draft = draft
            self.draft_changed.emit()

    def allowed(self) -> tuple[str, ...]:
        """The decisions the criteria allow now (none without an open question)."""
        return allowed_decisions(**self.draft.criteria) if self.current else ()

    def corrections(self) -> dict[str, Any]:
        """The fields the correction editor changes, parsed."""
        q, d = self.current, self.draft
        if q is None:
            return {}
        edited = {
            "text": d.text.strip(),
            "options": parse_options(d.options_text),
            "answer": parse_answer(d.answer_text, q.answer),
        }
        current = {"text": q.text, "options": q.options, "answer": q.answer}
        return {k: v for k, v in edited.items() if v != current[k]}

    # -- decisions --------------------------------------------------------------------
    def approve(self) -> bool:
        return self.submit("approve")

    def reject(self) -> bool:
        """Reject with the typed reason; without one, ask for it (Enter then saves)."""
        if self.current is not None and not self.draft.reason.strip():
            self.refused.emit("A reject needs a reason: type it, then press Enter")
            self.focus_requested.emit("reason")
            return False
        return self.submit("reject")

    def correct(self) -> bool:
        """Open the correction editor; when it is open, save the correction."""
        if self.current is not None and not self.draft.editing:
            self._edit(editing=True)
            self.focus_requested.emit("correction")
            return False
        return self.submit("correct")

    def cancel_correction(self) -> None:
        if self.current is not None:
            d = self._fresh_draft()
            self._edit(
                editing=False, text=d.text, options_text=d.options_text, answer_text=d.answer_text
            )

    def submit(self, decision: str) -> bool:
        """Save the verdict now; on success open the next question. False if refused."""
        q = self.current
        if q is None or self.source is None or self.annotator is None:
            self.refused.emit("No question open" if q is None else "Sign in to verify")
            return False
        if decision not in self.allowed():
            if self.asks("volumes_distinct"):
                why = COMPARE_NEEDS.get(decision)
            else:
                why = self.needs(q.benchmark, decision) if self.needs else None
            self.refused.emit(why or DECISION_NEEDS.get(decision, f"{decision} is not allowed"))
            return False
        d = self.draft
        if decision == "correct" and not self.corrections():
            self.refused.emit("The correction changes nothing: edit the text, options or answer")
            return False
        try:
            verdict = Verdict(
                **d.criteria,
                decision=decision,
                reason=d.reason if decision == "reject" else "",
                corrections=self.corrections() if decision == "correct" else {},
            )
        except ValueError as exc:
            self.refused.emit(_one_line(exc))
            return False
        seconds = self.seconds_on_task()
        try:
            record = self.source.submit(q.id, self.annotator, verdict, seconds)
        except ProjectError as exc:
            self.refresh()  # someone else may have taken the slot meanwhile
            self.refused.emit(_one_line(exc))
            return False
        self.refresh()  # it leaves this queue: the question after it takes its row
        self.verdict_saved.emit(
            f"Saved: {decision} on question #{q.id} ({record.round} round, {seconds:.0f} s)"
        )
        return True

    # -- undo and what has been saved ----------------------------------------------------
    @property
    def can_undo(self) -> bool:
        return bool(self.source and self.annotator and self.source.can_undo(self.annotator))

    def undo(self) -> bool:
        """Retract this annotator's last verdict (saved too) and reopen its question."""
        if self.source is None or self.annotator is None:
            self.refused.emit("Sign in to verify")
            return False
        try:
            record = self.source.undo_last(self.annotator)
        except ProjectError as exc:
            self.refused.emit(_one_line(exc))
            return False
        self.list_name = ADJUDICATION if record.round == ADJUDICATION else QUEUE
        self._reload_lists()
        match = [q for q in self.questions if q.id == record.question_id]
        if match:
            self._open(match[0])
        else:
            self.refresh()
        self.verdict_saved.emit(
            f"Undone: your {record.decision} on question #{record.question_id} (kept as retracted)"
        )
        return True

    def last_saved(self) -> tuple[VerdictRecord | None, list[VerdictRecord], Outcome | None]:
        """This annotator's last live verdict, the verdicts on it they may see, its outcome."""
        if self.source is None or self.annotator is None:
            return None, [], None
        record = self.source.last_verdict(self.annotator)
        if record is None:
            return None, [], None
        visible = self.source.visible_verdicts(record.question_id, self.annotator)
        return record, visible, self.source.outcome(record.question_id)


def _one_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
