"""Blind two-annotator verification of questions: verdicts, derived status, undo, agreement.

The rules live in `annotation.verification`; this repository stores verdicts,
enforces who may fill which slot, and keeps each question's status and current
version equal to what `derive_outcome` makes of its live verdicts. Verdicts are
only ever returned through the blind rule of `visible_verdicts`, and the audit
log records that a verdict was given, never what it was.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from annotation.agreement import verification_agreement
from annotation.models import Annotator, Question
from annotation.verification import (
    Outcome,
    Verdict,
    VerdictRecord,
    changed_fields,
    check_for_task,
    derive_outcome,
)
from store.base import Repository, dumps, loads
from store.connection import ProjectFile
from store.errors import ProjectError, given_time, utc_now
from store.packages import OUTSTANDING
from store.questions import (
    INSERT_QUESTION,
    QUESTION_COLUMNS,
    QuestionRepository,
    question_from_row,
    question_row,
)

_SELECT = (
    "SELECT v.id, v.question_id, v.annotator_id, a.name, v.round, v.unambiguous, "
    "v.evidence_withheld, v.evidence_recoverable, v.decision, v.reason, v.corrections, "
    "v.seconds_on_task, v.created_at, v.retracted_at, v.proposed_question_id, "
    "v.volumes_distinct "
    "FROM verifications v JOIN annotators a ON a.id = v.annotator_id"
)
# What a proposed correction copies from the version it corrects.
_COPIED = (
    "uid benchmark task text options answer evidence_ids steps difficulty criteria "
    "scene_id sequence_id seed"
).split()
_LIVE_FIRST = (
    "(SELECT count(*) FROM verifications v WHERE v.question_id = q.id "
    "AND v.round = 'first' AND v.retracted_at IS NULL)"
)
# Work packages still out with a question (store.packages): they hold its slots.
_OUT = f"FROM assignments a WHERE a.kind = 'question' AND a.item_id = q.id AND {OUTSTANDING}"


def _record(r: tuple) -> VerdictRecord:
    verdict = Verdict.from_storage(
        unambiguous=r[5],
        evidence_withheld=r[6],
        evidence_recoverable=r[7],
        decision=r[8],
        reason=r[9],
        corrections=loads(r[10], {}),
        volumes_distinct=r[15],
    )
    return VerdictRecord(
        id=r[0],
        question_id=r[1],
        annotator_id=r[2],
        annotator_name=r[3],
        round=r[4],
        verdict=verdict,
        seconds_on_task=r[11],
        created_at=r[12],
        retracted_at=r[13],
        proposed_question_id=r[14],
    )


class VerificationRepository(Repository):
    def __init__(self, project: ProjectFile, *, questions: QuestionRepository) -> None:
        super().__init__(project)
        self.questions = questions

    # -- work lists ------------------------------------------------------------
    def queue(self, annotator: Annotator, limit: int = 50) -> list[Question]:
        """Current pending questions with a free first-round slot this annotator has not used
        (a slot out in a work package is not free; one's own is done in the package)."""
        self._require(annotator)
        rows = self.db.execute(
            f"SELECT {QUESTION_COLUMNS} FROM questions q WHERE q.is_current = 1 "
            f"AND q.status = 'pending' AND {_LIVE_FIRST} + (SELECT count(*) {_OUT} "
            "AND a.role = 'verifier') < 2 AND NOT EXISTS ("
            "SELECT 1 FROM verifications v WHERE v.question_id = q.id "
            f"AND v.annotator_id = ? AND v.retracted_at IS NULL) AND NOT EXISTS (SELECT 1 {_OUT} "
            "AND a.annotator_id = ?) ORDER BY q.created_at, q.id LIMIT ?",
            [annotator.id, annotator.id, limit],
        ).fetchall()
        return [question_from_row(r) for r in rows]

    def adjudication_queue(self, annotator: Annotator, limit: int = 50) -> list[Question]:
        """Questions whose two verdicts disagree, awaiting a third annotator (not this one's own)."""
        self._require(annotator)
        ids = [
            qid
            for qid in self._awaiting_adjudication()
            if all(r.annotator_id != annotator.id for r in self._live(qid))
            and qid not in self._out_for_adjudication()
        ][:limit]
        return [self.questions.get(qid) for qid in ids]

    def adjudication_pending(self) -> int:
        """How many questions wait for an adjudicator."""
        return len(self._awaiting_adjudication())

    # -- verdicts --------------------------------------------------------------
    def submit(
        self,
        question_id: int,
        annotator: Annotator,
        verdict: Verdict,
        seconds_on_task: float,
        *,
        created_at: str | None = None,
        package: str | None = None,
    ) -> VerdictRecord:
        """Save one verdict now (one audited transaction) and re-derive the question's status.

        The first two distinct annotators fill the first round; a third one may
        adjudicate only a question whose first-round verdicts disagree. A
        correction stores a proposed question version (same uid, next version,
        not current) that becomes current only if the outcome is corrected.
        Raises `ProjectError` (nothing written) when the protocol forbids it.
        """
        self._require(annotator)
        if not isinstance(verdict, Verdict):
            raise TypeError("submit() needs an annotation.verification.Verdict")
        if isinstance(seconds_on_task, bool) or not isinstance(seconds_on_task, int | float):
            raise ValueError(f"seconds_on_task must be a number, not {seconds_on_task!r}")
        seconds = float(seconds_on_task)
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"seconds_on_task must be a finite number >= 0, not {seconds_on_task}")
        if created_at is not None:
            given_time(created_at, "created_at")
        where = f"{self.project.path}: question {question_id}"
        with self.project.write():
            question = self.questions.get(question_id)
            try:  # criterion 4 answered on Compare questions, and on them only
                check_for_task(verdict, question.task)
            except ValueError as exc:
                raise ProjectError(f"{where}: {exc}") from None
            live = self._live(question_id)
            mine = [r for r in live if r.annotator_id == annotator.id]
            if mine:
                raise ProjectError(
                    f"{where}: {annotator.name} has already given a verdict on it; "
                    "one person cannot fill two slots"
                )
            round_ = self._free_round(question, live, where)
            if round_ == "first":
                self._check_held(question_id, annotator, live, where, package)
            corrections: dict[str, Any] = {}
            proposed_id = None
            if verdict.decision == "correct":
                try:
                    corrections = changed_fields(question, verdict.corrections)
                except ValueError as exc:
                    raise ProjectError(f"{where}: {exc}") from None
                proposed_id = self._propose(question, corrections, annotator)
            cur = self.db.execute(
                "INSERT INTO verifications(question_id, annotator_id, round, unambiguous, "
                "evidence_withheld, evidence_recoverable, volumes_distinct, decision, reason, "
                "corrections, proposed_question_id, seconds_on_task, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    question_id,
                    annotator.id,
                    round_,
                    int(verdict.unambiguous),
                    int(verdict.evidence_withheld),
                    int(verdict.evidence_recoverable),
                    None if verdict.volumes_distinct is None else int(verdict.volumes_distinct),
                    verdict.decision,
                    verdict.reason,
                    dumps(corrections),
                    proposed_id,
                    seconds,
                    created_at or utc_now(),
                ],
            )
            # What was decided stays out of the audit log, which everyone can read.
            self._audit(
                annotator,
                "verdict",
                "verifications",
                cur.lastrowid,
                {"question_id": question_id, "round": round_, "seconds_on_task": seconds},
            )
            self._settle(question_id, annotator)
            return self._get(cur.lastrowid)

    def _check_held(self, question_id, annotator, live, where, package) -> None:
        """First-round slots out in work packages are not free in the project; the one a
        person holds is theirs to fill from their package (`package`: merging it)."""
        held = self.db.execute(
            "SELECT a.annotator_id, n.name FROM assignments a JOIN annotators n "
            "ON n.id = a.annotator_id WHERE a.kind = 'question' AND a.item_id = ? "
            f"AND a.role = 'verifier' AND {OUTSTANDING}",
            [question_id],
        ).fetchall()
        if package is None and any(a == annotator.id for a, _ in held):
            raise ProjectError(
                f"{where}: is out with {annotator.name} in a work package; "
                "give the verdict there (it merges back)"
            )
        others = [name for a, name in held if a != annotator.id]
        if others and sum(r.round == "first" for r in live) + len(others) >= 2:
            raise ProjectError(
                f"{where}: its first-round slots are out in work packages "
                f"(with {', '.join(others)})"
            )

    def _free_round(self, question: Question, live: list[VerdictRecord], where: str) -> str:
        first = [r for r in live if r.round == "first"]
        if len(first) < 2:
            if not question.is_current:
                raise ProjectError(f"{where}: is not the current version of its question")
            if question.status != "pending":
                raise ProjectError(f"{where}: is {question.status} already; nothing to verify")
            return "first"
        if any(r.round == "adjudication" for r in live):
            raise ProjectError(f"{where}: has been adjudicated already")
        outcome = derive_outcome(first[0].verdict, first[1].verdict)
        if not outcome.needs_adjudication:
            raise ProjectError(
                f"{where}: already has its two verdicts ({outcome.status}); there is no third slot"
            )
        return "adjudication"

    def undo_last(self, annotator: Annotator) -> VerdictRecord:
        """Retract this annotator's most recent live verdict (kept, stamped, audited).

        The question's status is derived again and a correction proposed by the
        verdict is discarded. A first-round verdict that has been paired with the
        other annotator's cannot be undone: both have seen each other's verdicts,
        and changing one now would fake agreement. Raises `ProjectError`.
        """
        self._require(annotator)
        with self.project.write():
            record, blocker = self._undo_target(annotator)
            if blocker:
                raise ProjectError(f"{self.project.path}: {blocker}")
            self.db.execute(
                "UPDATE verifications SET retracted_at = ? WHERE id = ?", [utc_now(), record.id]
            )
            self._audit(
                annotator,
                "retract",
                "verifications",
                record.id,
                {"question_id": record.question_id, "round": record.round},
            )
            self._settle(record.question_id, annotator)
            return self._get(record.id)

    def can_undo(self, annotator: Annotator) -> bool:
        """Whether `undo_last` would succeed now (for enabling the Undo action)."""
        return self._undo_target(annotator)[1] is None

    def last_verdict(self, annotator: Annotator) -> VerdictRecord | None:
        """This annotator's most recent live verdict (their own, so always visible)."""
        row = self.db.execute(
            f"{_SELECT} WHERE v.annotator_id = ? AND v.retracted_at IS NULL "
            "ORDER BY v.id DESC LIMIT 1",
            [annotator.id],
        ).fetchone()
        return _record(row) if row else None

    def visible_verdicts(self, question_id: int, annotator: Annotator) -> list[VerdictRecord]:
        """The live verdicts on a question this annotator may see (the blind rule).

        One's own verdicts always. Everyone else's only once both first-round
        verdicts exist: then no one can still fill a first-round slot, and an
        adjudicator needs to see both.
        """
        self._require(annotator)
        live = self._live(question_id)
        if sum(1 for r in live if r.round == "first") >= 2:
            return live
        return [r for r in live if r.annotator_id == annotator.id]

    def first_round_people(self, question_id: int) -> list[int]:
        """Who has given a live first-round verdict on a question (not what they decided)."""
        return [r.annotator_id for r in self._live(question_id) if r.round == "first"]

    def first_round_verdicts(self) -> list[tuple[int, int, str, Verdict]]:
        """(question id, annotator id, name, verdict) of every live first-round verdict whose
        question has its pair complete (the blind rule's end), for agreement per person."""
        rows = self.db.execute(
            f"{_SELECT} WHERE v.round = 'first' AND v.retracted_at IS NULL AND (SELECT count(*) "
            "FROM verifications w WHERE w.question_id = v.question_id AND w.round = 'first' "
            "AND w.retracted_at IS NULL) >= 2 ORDER BY v.question_id, v.id"
        ).fetchall()
        return [(r[1], r[2], r[3], _record(r).verdict) for r in rows]

    def outcome(self, question_id: int) -> Outcome:
        """What the live verdicts make of a question (reveals nothing before the pair is full)."""
        return self._derive(self._live(question_id))

    # -- agreement --------------------------------------------------------------
    def agreement(self, benchmark: str | None = None) -> dict[str, Any]:
        """Agreement over every complete first-round pair (see `verification_agreement`),
        of one benchmark's questions or of all."""
        where, params = "", []
        if benchmark is not None:
            where = " AND v.question_id IN (SELECT id FROM questions WHERE benchmark = ?)"
            params = [benchmark]
        rows = self.db.execute(
            f"{_SELECT} WHERE v.round = 'first' AND v.retracted_at IS NULL{where} "
            "ORDER BY v.question_id, v.id",
            params,
        ).fetchall()
        by_question: dict[int, list[Verdict]] = {}
        for r in rows:
            by_question.setdefault(r[1], []).append(_record(r).verdict)
        pairs = [(v[0], v[1]) for v in by_question.values() if len(v) >= 2]
        return verification_agreement(pairs)

    def time_on_task(self) -> dict[str, Any]:
        """Seconds spent per live verdict: count, total, median and mean."""
        seconds = [
            r[0]
            for r in self.db.execute(
                "SELECT seconds_on_task FROM verifications "
                "WHERE retracted_at IS NULL AND seconds_on_task IS NOT NULL"
            )
        ]
        return {
            "verdicts": len(seconds),
            "total_s": sum(seconds),
            "median_s": statistics.median(seconds) if seconds else None,
            "mean_s": statistics.fmean(seconds) if seconds else None,
        }

    # -- internals ----------------------------------------------------------------
    def _get(self, verification_id: int) -> VerdictRecord:
        return _record(self.db.execute(f"{_SELECT} WHERE v.id = ?", [verification_id]).fetchone())

    def _live(self, question_id: int) -> list[VerdictRecord]:
        """Every live verdict on a question, unfiltered: never hand this out directly."""
        rows = self.db.execute(
            f"{_SELECT} WHERE v.question_id = ? AND v.retracted_at IS NULL ORDER BY v.id",
            [question_id],
        ).fetchall()
        return [_record(r) for r in rows]

    @staticmethod
    def _slots(
        live: list[VerdictRecord],
    ) -> tuple[list[VerdictRecord], VerdictRecord | None]:
        # Files from before 0003 may hold more than two verdicts; the first two count.
        first = [r for r in live if r.round == "first"][:2]
        adjudication = next((r for r in live if r.round == "adjudication"), None)
        return first, adjudication

    def _derive(self, live: list[VerdictRecord]) -> Outcome:
        first, adjudication = self._slots(live)
        verdicts = [r.verdict for r in first] + [None] * (2 - len(first))
        pair = derive_outcome(verdicts[0], verdicts[1])
        if adjudication is None or not pair.needs_adjudication:
            return pair
        return derive_outcome(verdicts[0], verdicts[1], adjudication.verdict)

    def _out_for_adjudication(self) -> set[int]:
        rows = self.db.execute(
            f"SELECT q.id FROM questions q WHERE EXISTS (SELECT 1 {_OUT} AND a.role = 'adjudicator')"
        ).fetchall()
        return {r[0] for r in rows}

    def _awaiting_adjudication(self) -> list[int]:
        candidates = self.db.execute(
            f"SELECT q.id FROM questions q WHERE q.is_current = 1 AND q.status = 'pending' "
            f"AND {_LIVE_FIRST} >= 2 AND NOT EXISTS (SELECT 1 FROM verifications v "
            "WHERE v.question_id = q.id AND v.round = 'adjudication' AND v.retracted_at IS NULL) "
            "ORDER BY q.created_at, q.id"
        ).fetchall()
        return [qid for (qid,) in candidates if self._derive(self._live(qid)).needs_adjudication]

    def _undo_target(self, annotator: Annotator) -> tuple[VerdictRecord | None, str | None]:
        record = self.last_verdict(annotator)
        if record is None:
            return None, f"{annotator.name} has no verdict to undo"
        if record.round == "first":
            others = [
                r
                for r in self._live(record.question_id)
                if r.round == "first" and r.id != record.id
            ]
            if others:
                return record, (
                    f"cannot undo {annotator.name}'s verdict on question {record.question_id}: "
                    "it is paired with another annotator's and no longer blind "
                    "(a disagreement goes to adjudication)"
                )
        return record, None

    def _propose(self, question: Question, corrections: dict[str, Any], by: Annotator) -> int:
        """Store a correction as the next, non-current version of the question."""
        latest = self.db.execute(
            "SELECT max(version) FROM questions WHERE uid = ?", [question.uid]
        ).fetchone()[0]
        fields: dict[str, Any] = {name: getattr(question, name) for name in _COPIED}
        fields.update(version=latest + 1, status="pending", **corrections)
        cur = self.db.execute(INSERT_QUESTION, question_row(fields, created_by=by.id))
        self.db.execute(
            "UPDATE questions SET is_current = 0, proposal_state = 'proposed' WHERE id = ?",
            [cur.lastrowid],
        )
        return cur.lastrowid

    def _settle(self, question_id: int, annotator: Annotator) -> None:
        """Make the question's status and current version what its live verdicts imply."""
        question = self.questions.get(question_id)
        live = self._live(question_id)
        outcome = self._derive(live)
        adopted_id = None
        if outcome.adopted is not None:
            first, adjudication = self._slots(live)
            slot = {"first": 0, "second": 1}.get(outcome.adopted)
            adopter = adjudication if slot is None else first[slot]
            adopted_id = adopter.proposed_question_id
        proposals = self.db.execute(
            "SELECT proposed_question_id, retracted_at FROM verifications "
            "WHERE question_id = ? AND proposed_question_id IS NOT NULL",
            [question_id],
        ).fetchall()
        chain = [question_id] + [pid for pid, _ in proposals]
        marks = ", ".join("?" * len(chain))
        outside = self.db.execute(
            f"SELECT count(*) FROM questions WHERE uid = ? AND is_current = 1 "
            f"AND id NOT IN ({marks})",
            [question.uid, *chain],
        ).fetchone()[0]
        if outside:
            raise ProjectError(
                f"{self.project.path}: question {question_id} has been edited outside "
                "verification since; its verdicts can no longer change it"
            )
        before = self.db.execute(
            f"SELECT id, status FROM questions WHERE is_current = 1 AND id IN ({marks})", chain
        ).fetchone()
        for pid, retracted_at in proposals:
            state = "adopted" if pid == adopted_id else "discarded" if retracted_at else "proposed"
            self.db.execute(
                "UPDATE questions SET is_current = ?, status = ?, proposal_state = ? WHERE id = ?",
                [
                    int(pid == adopted_id),
                    "corrected" if pid == adopted_id else "pending",
                    state,
                    pid,
                ],
            )
        status = outcome.status if adopted_id is None else "pending"
        self.db.execute(
            "UPDATE questions SET is_current = ?, status = ? WHERE id = ?",
            [int(adopted_id is None), status, question_id],
        )
        after = (adopted_id or question_id, outcome.status)
        if before is None or tuple(before) != after:
            self._audit(
                annotator,
                "derive_status",
                "questions",
                question_id,
                {
                    "from": before[1] if before else None,
                    "to": outcome.status,
                    "current_id": after[0],
                },
            )
