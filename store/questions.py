"""Benchmark questions: versioned, paged by keyset, corrected without losing history."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from annotation.models import QUESTION_STATUSES, Annotator, Difficulty, Page, Question
from store.base import Repository, dumps, loads
from store.errors import ProjectError, utc_now

QUESTION_COLUMNS = (
    "id, uid, version, benchmark, task, text, options, answer, evidence_ids, steps, "
    "difficulty_s, difficulty_r, difficulty_t, criteria, status, is_current, scene_id, "
    "sequence_id, seed, created_at, created_by"
)
_SORTS = {"created": "ASC", "-created": "DESC"}


def question_from_row(r: tuple) -> Question:
    difficulty = Difficulty(r[10], r[11], r[12]) if r[10] is not None else None
    return Question(
        id=r[0],
        uid=r[1],
        version=r[2],
        benchmark=r[3],
        task=r[4],
        text=r[5],
        options=loads(r[6]),
        answer=loads(r[7]),
        evidence_ids=loads(r[8], []),
        steps=loads(r[9], []),
        difficulty=difficulty,
        criteria=loads(r[13], {}),
        status=r[14],
        is_current=bool(r[15]),
        scene_id=r[16],
        sequence_id=r[17],
        seed=r[18],
        created_at=r[19],
        created_by=r[20],
    )


def question_row(q: dict[str, Any], *, created_by: int | None) -> list[Any]:
    for key in ("benchmark", "task", "text"):
        if not isinstance(q.get(key), str) or not q[key].strip():
            raise ValueError(f"question needs a non-empty {key!r}")
    if "answer" not in q:
        raise ValueError("question needs an 'answer'")
    status = q.get("status", "pending")
    if status not in QUESTION_STATUSES:
        raise ValueError(f"question status must be one of {QUESTION_STATUSES}, not {status!r}")
    d = q.get("difficulty")
    if isinstance(d, Difficulty):
        d = d.as_dict()
    s, r, t = (d["S"], d["R"], d["T"]) if d else (None, None, None)
    return [
        q.get("uid") or uuid.uuid4().hex,
        q.get("version", 1),
        q["benchmark"],
        q["task"],
        q["text"],
        dumps(q["options"]) if q.get("options") is not None else None,
        dumps(q["answer"]),
        dumps(list(q.get("evidence_ids", []))),
        dumps(list(q.get("steps", []))),
        s,
        r,
        t,
        None if s is None else s + r + t,
        dumps(q.get("criteria", {})),
        status,
        q.get("scene_id"),
        q.get("sequence_id"),
        q.get("seed"),
        q.get("created_at") or utc_now(),
        created_by,
    ]


INSERT_QUESTION = (
    "INSERT INTO questions(uid, version, benchmark, task, text, options, answer, evidence_ids, "
    "steps, difficulty_s, difficulty_r, difficulty_t, difficulty_d, criteria, status, scene_id, "
    "sequence_id, seed, created_at, created_by) VALUES (" + ", ".join(["?"] * 20) + ")"
)


class QuestionRepository(Repository):
    def add(self, question: dict[str, Any], annotator: Annotator | None = None) -> Question:
        """Store one new question (version 1). Generators pass no annotator."""
        with self.project.write():
            cur = self.db.execute(
                INSERT_QUESTION,
                question_row(question, created_by=annotator.id if annotator else None),
            )
            self._audit(annotator, "create", "questions", cur.lastrowid)
        return self.get(cur.lastrowid)

    def add_many(
        self, questions: Iterable[dict[str, Any]], annotator: Annotator | None = None
    ) -> int:
        """Store many questions in one transaction: all or nothing."""
        by = annotator.id if annotator else None
        with self.project.write():
            n = 0
            for q in questions:
                self.db.execute(INSERT_QUESTION, question_row(q, created_by=by))
                n += 1
            self._audit(annotator, "import", "questions", "*", {"count": n})
        return n

    def get(self, question_id: int) -> Question:
        row = self.db.execute(
            f"SELECT {QUESTION_COLUMNS} FROM questions WHERE id = ?", [question_id]
        ).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no question with id {question_id}")
        return question_from_row(row)

    def scene_ids(self, benchmark: str) -> list[int]:
        """The scenes the benchmark's current questions are asked on, in id order."""
        rows = self.db.execute(
            "SELECT DISTINCT scene_id FROM questions WHERE benchmark = ? AND is_current = 1 "
            "AND scene_id IS NOT NULL ORDER BY scene_id",
            [benchmark],
        ).fetchall()
        return [r[0] for r in rows]

    def versions(self, uid: str) -> list[Question]:
        """The question's history. A correction a verifier proposed is left out until
        the verification outcome adopts it (it would reveal a blind verdict)."""
        rows = self.db.execute(
            f"SELECT {QUESTION_COLUMNS} FROM questions WHERE uid = ? "
            "AND (proposal_state IS NULL OR proposal_state = 'adopted') ORDER BY version",
            [uid],
        ).fetchall()
        return [question_from_row(r) for r in rows]

    def page(
        self,
        *,
        status: str | None = None,
        benchmark: str | None = None,
        task: str | None = None,
        sort: str = "created",
        after: tuple[Any, ...] | None = None,
        limit: int = 100,
    ) -> Page:
        """One page of current question versions, filtered and sorted, by keyset.

        `after` is the `next_cursor` of the previous page; the cost of a page
        does not grow with how deep into the list it is.
        """
        if sort not in _SORTS:
            raise ValueError(f"sort must be one of {sorted(_SORTS)}, not {sort!r}")
        direction = _SORTS[sort]
        where, params = ["is_current = 1"], []
        for column, value in (("status", status), ("benchmark", benchmark), ("task", task)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if after is not None:
            where.append(f"(created_at, id) {'>' if direction == 'ASC' else '<'} (?, ?)")
            params.extend(after)
        sql = (
            f"SELECT {QUESTION_COLUMNS} FROM questions WHERE {' AND '.join(where)} "
            f"ORDER BY created_at {direction}, id {direction} LIMIT ?"
        )
        rows = self.db.execute(sql, [*params, limit]).fetchall()
        questions = [question_from_row(r) for r in rows]
        cursor = (questions[-1].created_at, questions[-1].id) if len(questions) == limit else None
        return Page(rows=questions, next_cursor=cursor)

    def seeds(self, benchmark: str, task: str) -> set[int]:
        """The generator seeds of the stored questions of a benchmark's task (for resuming
        a generation run)."""
        rows = self.db.execute(
            "SELECT DISTINCT seed FROM questions WHERE benchmark = ? AND task = ? "
            "AND seed IS NOT NULL",
            [benchmark, task],
        )
        return {int(r[0]) for r in rows}

    def counts_by_status(self) -> dict[str, int]:
        counts = dict.fromkeys(QUESTION_STATUSES, 0)
        for status, n in self.db.execute(
            "SELECT status, count(*) FROM questions WHERE is_current = 1 GROUP BY status"
        ):
            counts[status] = n
        return counts

    def set_status(self, question_id: int, status: str, annotator: Annotator) -> Question:
        self._require(annotator)
        if status not in QUESTION_STATUSES:
            raise ValueError(f"status must be one of {QUESTION_STATUSES}, not {status!r}")
        with self.project.write():
            old = self.get(question_id)
            self.db.execute("UPDATE questions SET status = ? WHERE id = ?", [status, question_id])
            self._audit(
                annotator, "status", "questions", question_id, {"from": old.status, "to": status}
            )
        return self.get(question_id)

    def correct(self, question_id: int, changes: dict[str, Any], annotator: Annotator) -> Question:
        """Make a new version with `changes` applied; the old version is kept, not current."""
        self._require(annotator)
        allowed = {"text", "options", "answer", "evidence_ids", "steps"}
        unknown = set(changes) - allowed
        if unknown:
            raise ValueError(f"cannot correct fields {sorted(unknown)}; allowed: {sorted(allowed)}")
        with self.project.write():
            old = self.get(question_id)
            if not old.is_current:
                raise ProjectError(
                    f"{self.project.path}: question {question_id} has a newer version"
                )
            latest = self.db.execute(
                "SELECT max(version) FROM questions WHERE uid = ?", [old.uid]
            ).fetchone()[0]
            fields = {
                "uid": old.uid,
                "version": latest + 1,
                "benchmark": old.benchmark,
                "task": old.task,
                "text": old.text,
                "options": old.options,
                "answer": old.answer,
                "evidence_ids": old.evidence_ids,
                "steps": old.steps,
                "difficulty": old.difficulty,
                "criteria": old.criteria,
                "status": "corrected",
                "scene_id": old.scene_id,
                "sequence_id": old.sequence_id,
                "seed": old.seed,
            }
            fields.update(changes)
            self.db.execute("UPDATE questions SET is_current = 0 WHERE id = ?", [question_id])
            cur = self.db.execute(INSERT_QUESTION, question_row(fields, created_by=annotator.id))
            self._audit(
                annotator,
                "correct",
                "questions",
                cur.lastrowid,
                {"previous_id": question_id, "changed": sorted(changes)},
            )
        return self.get(cur.lastrowid)
