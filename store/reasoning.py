"""JRDB-Reasoning evaluation records: model predictions, difficulty ratings, human answers.

`project.reasoning` is this repository. Scoring is `annotation.jrdb.reasoning_eval`; this
module stores what it decided, each write in one audited transaction.

Which question a record belongs to (docs/jrdb-questions.md, "Difficulty ratings and human
baseline"):

- predictions and human answers belong to the question **version** (questions.id) they
  were scored against. When a verifier corrects a question, the old scores stay with the
  old version and are reported as stale; re-import the predictions (or answer again) to
  score against the correction.
- difficulty ratings follow the question's **uid**: D cannot change by a correction, so a
  person rates each question once; rating a newer version replaces their older rating.

The rating and answering queues leave out excluded questions, and those out with the
annotator in a rater or human-baseline work package (done there; docs/work-packages.md),
and hand each annotator the questions in their own stable pseudo-random order (a hash of
annotator and uid), so that nobody works through them in generation order, which would
group them by difficulty. The same queues choose what such a package hands out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from annotation.formats.json_text import brief, clip
from annotation.jrdb.reasoning_eval import (
    RATINGS,
    HumanAnswer,
    ImportReport,
    Prediction,
    Rating,
    RatingPoint,
    Score,
    difficulty_level,
    impossible_boxes,
    parse_boxes,
    score_answer,
    score_steps,
    track_boxes,
)
from annotation.models import Annotator, Question
from store.base import Repository, dumps, loads
from store.connection import ProjectFile
from store.errors import ProjectError, given_time, utc_now
from store.questions import QuestionRepository

# A question's modality, from its preferences; imported questions without one are images.
_MODALITY = "COALESCE(json_extract(q.criteria, '$.preferences.modality'), 'image')"
_PREDICTION_SELECT = (
    "SELECT p.id, p.question_id, q.uid, p.model, p.answer, p.step_answers, p.correct, p.iou, "
    "p.reason, p.step_correct, p.source, p.imported_at, q.benchmark, q.task, q.difficulty_s, "
    "q.difficulty_r, q.difficulty_t, q.is_current, q.status, " + _MODALITY + " "
    "FROM reasoning_predictions p "
    "JOIN questions q ON q.id = p.question_id"
)
_HUMAN_SELECT = (
    "SELECT h.id, h.question_id, q.uid, h.annotator_id, h.answer, h.correct, h.iou, h.reason, "
    "h.created_at, q.benchmark, q.task, q.difficulty_s, q.difficulty_r, q.difficulty_t, "
    "q.is_current, q.status, " + _MODALITY + " "
    "FROM human_answers h JOIN questions q ON q.id = h.question_id"
)
_QUEUE_WHERE = "is_current = 1 AND status != 'excluded'"
# Questions out with a person in a work package of theirs (kind 'rating' or 'answer'):
# they rate or answer them there (docs/work-packages.md).
_HELD = (
    "SELECT item_id FROM assignments WHERE kind = ? AND annotator_id = ? "
    "AND recalled_at IS NULL AND done_at IS NULL"
)


def _prediction(r: tuple) -> Prediction:
    return Prediction(
        id=r[0],
        question_id=r[1],
        question_uid=r[2],
        model=r[3],
        answer=loads(r[4]),
        step_answers=loads(r[5]),
        correct=bool(r[6]),
        iou=r[7],
        reason=r[8],
        step_correct=loads(r[9]),
        source=r[10],
        imported_at=r[11],
        benchmark=r[12],
        task=r[13],
        level=difficulty_level(r[14], r[15], r[16]),
        is_current=bool(r[17]),
        question_status=r[18],
        modality=r[19],
    )


def _human(r: tuple) -> HumanAnswer:
    return HumanAnswer(
        id=r[0],
        question_id=r[1],
        question_uid=r[2],
        annotator_id=r[3],
        answer=loads(r[4]),
        correct=bool(r[5]),
        iou=r[6],
        reason=r[7],
        created_at=r[8],
        benchmark=r[9],
        task=r[10],
        level=difficulty_level(r[11], r[12], r[13]),
        is_current=bool(r[14]),
        question_status=r[15],
        modality=r[16],
    )


@dataclass(frozen=True)
class _Target:
    """A question version as scoring sees it."""

    id: int
    task: str
    answer: Any
    steps: list[dict[str, Any]]


def _row_error(line: int, problem: str) -> ValueError:
    return ValueError(f"line {line}: {problem}")


class ReasoningRepository(Repository):
    """Predictions (imported, scored), difficulty ratings and human answers."""

    def __init__(self, project: ProjectFile, *, questions: QuestionRepository) -> None:
        super().__init__(project)
        self.questions = questions

    # -- model predictions ----------------------------------------------------------------
    def import_predictions(
        self,
        model: str,
        rows: list[dict[str, Any]],
        *,
        source: str = "",
        lines: Sequence[int] | None = None,
    ) -> ImportReport:
        """Score and store parsed prediction rows in one transaction, all or nothing.

        Each row is {"question_id": "<question uid>", "answer": ... or "box": [x, y, w, h]
        or "track": {image_id: box, ...} (video VG),
        "steps": [...] (optional), "model": "..." (optional, overrides `model`)}; it is
        scored against the question's current version. A row naming an unknown question,
        lacking an answer, or repeating a question for its model raises ValueError naming
        its line (`lines[i]`, else i + 1) and nothing is stored. Importing a model again
        replaces all of that model's earlier predictions.
        """
        lines = list(lines) if lines is not None else list(range(1, len(rows) + 1))
        if len(lines) != len(rows):
            raise ValueError(f"{len(rows)} rows but {len(lines)} line numbers")
        parsed: list[tuple[str, str, Any, Any, int]] = []
        seen: dict[tuple[str, str], int] = {}
        for row, line in zip(rows, lines, strict=True):
            if not isinstance(row, dict):
                raise _row_error(line, "not a JSON object")
            name = row.get("model", model)
            if not isinstance(name, str) or not name.strip():
                raise _row_error(line, "no model name (give --model or a 'model' field)")
            uid = row.get("question_id")
            if not isinstance(uid, str) or not uid.strip():
                raise _row_error(line, "'question_id' must be a question's id (a string)")
            if "box" in row:
                answer = row["box"]
                if isinstance(answer, str):
                    raise _row_error(line, "'box' must be [x, y, w, h], four numbers, not a string")
                try:
                    parse_boxes(answer)  # one box, or one per target
                except ValueError as exc:
                    raise _row_error(line, f"'box': {exc}") from None
            elif "track" in row:  # video VG: the target's box in each frame of the window
                try:
                    track_boxes(row["track"])
                except ValueError as exc:
                    raise _row_error(line, f"'track': {exc}") from None
                answer = {"track": row["track"]}
            elif "answer" in row:
                answer = row["answer"]
            else:
                raise _row_error(line, "needs an 'answer', a 'box' or a 'track'")
            steps = row.get("steps")
            if steps is not None and not isinstance(steps, list):
                raise _row_error(line, "'steps' must be a list, one answer per step")
            key = (name.strip(), uid)
            if key in seen:
                raise _row_error(
                    line, f"question {clip(uid)} already predicted on line {seen[key]}"
                )
            seen[key] = line
            parsed.append((key[0], uid, answer, steps, line))
        now = utc_now()
        by_model: dict[str, dict[str, int]] = {}
        with self.project.write():
            questions = self._current_by_uid({uid for _, uid, *_ in parsed})
            for _, uid, answer, _, line in parsed:
                if uid not in questions:
                    raise _row_error(line, f"no question with id {brief(uid)} in this project")
                problem = impossible_boxes(questions[uid].task, questions[uid].answer, answer)
                if problem:
                    raise _row_error(line, problem)
            for name in dict.fromkeys(m for m, *_ in parsed):
                cur = self.db.execute("DELETE FROM reasoning_predictions WHERE model = ?", [name])
                by_model[name] = {"imported": 0, "correct": 0, "replaced": cur.rowcount}
            for name, uid, answer, steps, _ in parsed:
                score = self._insert_scored(questions[uid], name, answer, steps, source, now)
                by_model[name]["imported"] += 1
                by_model[name]["correct"] += int(score.correct)
            for name, counts in by_model.items():
                self._audit(
                    None, "import", "reasoning_predictions", name, {"source": source, **counts}
                )
        return ImportReport(
            source=source,
            imported=sum(c["imported"] for c in by_model.values()),
            correct=sum(c["correct"] for c in by_model.values()),
            replaced=sum(c["replaced"] for c in by_model.values()),
            by_model=by_model,
        )

    def _insert_scored(
        self,
        q: _Target,
        model: str,
        answer: Any,
        steps: Any,
        source: str,
        now: str,
        *,
        score: Score | None = None,
        request: dict[str, Any] | None = None,
    ) -> Score:
        """Score one prediction against question version `q` (`score_answer`, `score_steps`;
        or the `score` given) and store it; `request`: the columns of a prediction a run
        made here (settings, raw_output, latency_s, tokens_in, tokens_out)."""
        if score is None:
            score = score_answer(q.task, q.answer, answer)
        request = request or {}
        self.db.execute(
            "INSERT INTO reasoning_predictions(question_id, model, answer, step_answers, "
            "correct, iou, reason, step_correct, source, imported_at, settings, raw_output, "
            "latency_s, tokens_in, tokens_out) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [q.id, model, dumps(answer), None if steps is None else dumps(steps)]
            + [int(score.correct), score.iou, score.reason]
            + [_maybe_dumps(score_steps(q.steps, steps)), source, now]
            + [request.get(k) for k in RUN_COLUMNS],
        )
        return score

    # -- predictions a model run makes here (run-agent --benchmark jrdb) --------------------
    def run_settings_problem(self, model: str, settings: dict[str, Any]) -> str | None:
        """Why `model`'s predictions cannot take those of a run with `settings`, or None:
        one model name holds predictions made one way only (imported from a file, or a
        run with other settings would be counted with them as one model)."""
        wanted = settings_text(settings)
        rows = self.db.execute(
            "SELECT settings, source, count(*) FROM reasoning_predictions WHERE model = ? "
            "GROUP BY settings, source",
            [model],
        ).fetchall()
        for stored, source, n in rows:
            if stored == wanted:
                continue
            how = (
                f"imported from {source or 'a file'}"
                if stored is None
                else f"made by a run with {settings_words(loads(stored))}"
            )
            return (
                f"{model} has {n} prediction{'s' * (n != 1)} {how}; this run "
                f"({settings_words(settings)}) would be counted with them as one model: "
                "give the run another name (an endpoints file's name) or delete them first"
            )
        return None

    def run_predicted(self, model: str, settings: dict[str, Any]) -> set[str]:
        """Uids of the questions whose current version has a prediction of `model` made
        with `settings` (for --resume)."""
        rows = self.db.execute(
            "SELECT q.uid FROM reasoning_predictions p JOIN questions q ON q.id = p.question_id "
            "WHERE p.model = ? AND p.settings = ? AND q.is_current = 1",
            [model, settings_text(settings)],
        )
        return {r[0] for r in rows}

    def record_run_prediction(
        self,
        model: str,
        question_uid: str,
        answer: Any,
        *,
        source: str,
        settings: dict[str, Any],
        raw_output: str | None = None,
        unreadable: str | None = None,
        latency_s: float | None = None,
        tokens_in: int | None = None,
        tokens_out: int | None = None,
    ) -> Score:
        """Score and store one reply a model run got (one transaction): `answer` as the
        run read it (a VQA answer, or VG boxes [[x, y, w, h], ...]; None when the reply
        could not be read: `unreadable` says why), scored against the question's current
        version like an imported prediction, replacing the model's earlier prediction of
        that version. A box that an import would refuse (`impossible_boxes`) is stored as
        wrong with that reason: a model's reply cannot be refused. ValueError when the
        question is unknown or the model holds predictions made another way
        (`run_settings_problem`)."""
        now = utc_now()
        with self.project.write():
            problem = self.run_settings_problem(model, settings)
            if problem:
                raise ValueError(problem)
            q = self._current_by_uid({question_uid}).get(question_uid)
            if q is None:
                raise ValueError(f"no question with id {brief(question_uid)} in this project")
            score = None
            if unreadable is not None:
                score = score_answer(q.task, q.answer, None)
                score = Score(False, score.iou, f"unreadable reply: {unreadable}")
            else:
                impossible = impossible_boxes(q.task, q.answer, answer)
                if impossible:
                    score = Score(False, 0.0, impossible)
            self.db.execute(
                "DELETE FROM reasoning_predictions WHERE question_id = ? AND model = ?",
                [q.id, model],
            )
            request = {
                "settings": settings_text(settings),
                "raw_output": raw_output,
                "latency_s": latency_s,
                "tokens_in": tokens_in,
                "tokens_out": tokens_out,
            }
            return self._insert_scored(
                q, model, answer, None, source, now, score=score, request=request
            )

    def usage_by_model(
        self,
    ) -> list[tuple[str, int, int, int, float | None, int | None, int | None]]:
        """Per model, over its predictions of current, not excluded questions: (model,
        predictions, correct, requests timed, latency summed, tokens in, tokens out;
        sums None when none was reported), for the `per_model` rows of `metrics`."""
        return [
            tuple(r)
            for r in self.db.execute(
                "SELECT p.model, count(*), sum(p.correct), count(p.latency_s), "
                "sum(p.latency_s), sum(p.tokens_in), sum(p.tokens_out) "
                "FROM reasoning_predictions p JOIN questions q ON q.id = p.question_id "
                "WHERE q.is_current = 1 AND q.status != 'excluded' GROUP BY p.model "
                "ORDER BY p.model"
            )
        ]

    def _current_by_uid(self, uids: set[str]) -> dict[str, _Target]:
        """What scoring needs of each current question named (id, task, answer, steps),
        without reading the rest of its record."""
        found: dict[str, _Target] = {}
        ordered = sorted(uids)
        for start in range(0, len(ordered), 900):
            part = ordered[start : start + 900]
            rows = self.db.execute(
                "SELECT id, uid, task, answer, steps FROM questions WHERE is_current = 1 "
                f"AND uid IN ({', '.join('?' * len(part))})",
                part,
            ).fetchall()
            found.update((r[1], _Target(r[0], r[2], loads(r[3]), loads(r[4], []))) for r in rows)
        return found

    def predictions(self, model: str | None = None) -> list[Prediction]:
        """Stored predictions (of one model), by model and question."""
        where, params = ("WHERE p.model = ?", [model]) if model is not None else ("", [])
        rows = self.db.execute(
            f"{_PREDICTION_SELECT} {where} ORDER BY p.model, p.question_id", params
        ).fetchall()
        return [_prediction(r) for r in rows]

    def models(self) -> list[str]:
        """Names of the models with stored predictions, sorted."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT model FROM reasoning_predictions ORDER BY model"
            )
        ]

    def delete_predictions(self, model: str) -> int:
        """Remove one model's predictions; returns how many."""
        with self.project.write():
            n = self.db.execute("DELETE FROM reasoning_predictions WHERE model = ?", [model])
            self._audit(None, "delete", "reasoning_predictions", model, {"count": n.rowcount})
        return n.rowcount

    # -- difficulty ratings ---------------------------------------------------------------
    def _current_question(self, question_id: int) -> Question:
        q = self.questions.get(question_id)
        if not q.is_current:
            raise ProjectError(f"{self.project.path}: question {question_id} has a newer version")
        return q

    def rate(
        self, question_id: int, annotator: Annotator, rating: int, *, created_at: str | None = None
    ) -> None:
        """Save `annotator`'s difficulty rating 1 (easy) .. 5 (hard) of a question now (or
        at `created_at`: a rating merged from a work package keeps its time), replacing
        their earlier rating of it (of any version)."""
        self._require(annotator)
        if type(rating) is not int or rating not in RATINGS:
            raise ValueError(f"a difficulty rating is 1 (easy) to 5 (hard), not {rating!r}")
        if created_at is not None:
            given_time(created_at, "created_at")
        with self.project.write():
            q = self._current_question(question_id)
            old = self.db.execute(
                "SELECT r.id, r.rating FROM difficulty_ratings r "
                "JOIN questions q ON q.id = r.question_id WHERE q.uid = ? AND r.annotator_id = ?",
                [q.uid, annotator.id],
            ).fetchone()
            if old:
                self.db.execute("DELETE FROM difficulty_ratings WHERE id = ?", [old[0]])
            cur = self.db.execute(
                "INSERT INTO difficulty_ratings(question_id, annotator_id, rating, created_at) "
                "VALUES (?, ?, ?, ?)",
                [question_id, annotator.id, rating, created_at or utc_now()],
            )
            detail = {"question_id": question_id, "rating": rating}
            if old:
                detail["previous"] = old[1]
            self._audit(annotator, "rate", "difficulty_ratings", cur.lastrowid, detail)

    def ratings(
        self, question_id: int | None = None, *, annotator: Annotator | None = None
    ) -> list[Rating]:
        """Stored ratings, of one question version and/or one annotator, oldest first."""
        where, params = [], []
        if question_id is not None:
            where.append("r.question_id = ?")
            params.append(question_id)
        if annotator is not None:
            where.append("r.annotator_id = ?")
            params.append(annotator.id)
        rows = self.db.execute(
            "SELECT r.id, r.question_id, q.uid, r.annotator_id, r.rating, r.created_at "
            "FROM difficulty_ratings r JOIN questions q ON q.id = r.question_id "
            + ("WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY r.created_at, r.id",
            params,
        ).fetchall()
        return [Rating(*r) for r in rows]

    def rating_points(self) -> list[RatingPoint]:
        """Every rating of a non-excluded question with the current version's D."""
        rows = self.db.execute(
            "SELECT c.benchmark, c.task, c.uid, r.annotator_id, r.rating, "
            "c.difficulty_s + c.difficulty_r + c.difficulty_t "
            "FROM difficulty_ratings r JOIN questions q ON q.id = r.question_id "
            "JOIN questions c ON c.uid = q.uid AND c.is_current = 1 "
            "WHERE c.status != 'excluded' AND c.difficulty_s IS NOT NULL "
            "ORDER BY c.benchmark, c.task, c.uid, r.annotator_id"
        ).fetchall()
        return [RatingPoint(*r) for r in rows]

    def _queue(
        self, annotator: Annotator, benchmark: str | None, done_sql: str, kind: str
    ) -> list[int]:
        """Ids of the current, not excluded questions still to do, in the annotator's own
        stable order. A question out with them in a work package (`kind` 'rating' or
        'answer') is done there, not here."""
        where = [_QUEUE_WHERE, f"uid NOT IN ({done_sql})", f"id NOT IN ({_HELD})"]
        params: list[Any] = [annotator.id, kind, annotator.id]
        if benchmark is not None:
            where.append("benchmark = ?")
            params.append(benchmark)
        rows = self.db.execute(
            f"SELECT id, uid FROM questions WHERE {' AND '.join(where)}", params
        ).fetchall()
        return [r[0] for r in sorted(rows, key=lambda r: _order_key(annotator.id, r[1]))]

    def _progress(self, annotator: Annotator, benchmark: str | None, done_sql: str):
        where, params = [_QUEUE_WHERE], []
        if benchmark is not None:
            where.append("benchmark = ?")
            params.append(benchmark)
        total = self.db.execute(
            f"SELECT count(*) FROM questions WHERE {' AND '.join(where)}", params
        ).fetchone()[0]
        done = self.db.execute(
            f"SELECT count(*) FROM questions WHERE {' AND '.join(where)} AND uid IN ({done_sql})",
            [*params, annotator.id],
        ).fetchone()[0]
        return done, total

    _RATED = (
        "SELECT q2.uid FROM difficulty_ratings r JOIN questions q2 ON q2.id = r.question_id "
        "WHERE r.annotator_id = ?"
    )
    _ANSWERED = (
        "SELECT q2.uid FROM human_answers h JOIN questions q2 ON q2.id = h.question_id "
        "WHERE h.annotator_id = ? AND q2.is_current = 1"
    )

    def rating_queue(self, annotator: Annotator, benchmark: str | None = None) -> list[int]:
        """Ids of the current, not excluded questions `annotator` has not rated (in any
        version) and has not out in a rater package, in their own stable order."""
        self._require(annotator)
        return self._queue(annotator, benchmark, self._RATED, "rating")

    def next_to_rate(self, annotator: Annotator, benchmark: str | None = None) -> Question | None:
        """The first of `rating_queue`; None when they have rated them all. Do not show
        its D."""
        queue = self.rating_queue(annotator, benchmark)
        return self.questions.get(queue[0]) if queue else None

    def rating_progress(
        self, annotator: Annotator, benchmark: str | None = None
    ) -> tuple[int, int]:
        """(questions rated by `annotator`, questions to rate) over the rating queue."""
        return self._progress(annotator, benchmark, self._RATED)

    # -- the human baseline ---------------------------------------------------------------
    def answer(
        self, question_id: int, annotator: Annotator, answer: Any, *, created_at: str | None = None
    ) -> Score:
        """Score `annotator`'s own answer (VQA) or box [x, y, w, h] (VG) to a current
        question and save it now (or at `created_at`: merged from a work package); a
        second answer to the same version replaces the first."""
        self._require(annotator)
        if created_at is not None:
            given_time(created_at, "created_at")
        with self.project.write():
            q = self._current_question(question_id)
            score = score_answer(q.task, q.answer, answer)
            old = self.db.execute(
                "SELECT id, answer FROM human_answers WHERE question_id = ? AND annotator_id = ?",
                [question_id, annotator.id],
            ).fetchone()
            if old:
                self.db.execute("DELETE FROM human_answers WHERE id = ?", [old[0]])
            cur = self.db.execute(
                "INSERT INTO human_answers(question_id, annotator_id, answer, correct, iou, "
                "reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [question_id, annotator.id, dumps(answer), int(score.correct), score.iou]
                + [score.reason, created_at or utc_now()],
            )
            detail = {"question_id": question_id, "correct": score.correct}
            if old:
                detail["previous"] = loads(old[1])
            self._audit(annotator, "answer", "human_answers", cur.lastrowid, detail)
        return score

    def human_answers(
        self,
        question_id: int | None = None,
        *,
        annotator: Annotator | None = None,
        benchmark: str | None = None,
    ) -> list[HumanAnswer]:
        """Stored human answers, filtered by question version, annotator and benchmark."""
        where, params = [], []
        for column, value in (
            ("h.question_id", question_id),
            ("h.annotator_id", annotator.id if annotator else None),
            ("q.benchmark", benchmark),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        rows = self.db.execute(
            _HUMAN_SELECT
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY h.created_at, h.id",
            params,
        ).fetchall()
        return [_human(r) for r in rows]

    def answer_queue(self, annotator: Annotator, benchmark: str = "jrdb") -> list[int]:
        """Ids of the current, not excluded questions of `benchmark` that `annotator` has
        not answered in this version and has not out in a human-baseline package, in their
        own stable order."""
        self._require(annotator)
        return self._queue(annotator, benchmark, self._ANSWERED, "answer")

    def next_to_answer(self, annotator: Annotator, benchmark: str = "jrdb") -> Question | None:
        """The first of `answer_queue`. Do not show its answer."""
        queue = self.answer_queue(annotator, benchmark)
        return self.questions.get(queue[0]) if queue else None

    def answer_progress(self, annotator: Annotator, benchmark: str = "jrdb") -> tuple[int, int]:
        """(questions answered by `annotator` in their current version, questions to answer)."""
        return self._progress(annotator, benchmark, self._ANSWERED)

    # -- counts ---------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """Rows of each table: predictions, ratings, human answers."""
        return {
            key: self.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for key, table in (
                ("predictions", "reasoning_predictions"),
                ("ratings", "difficulty_ratings"),
                ("human_answers", "human_answers"),
            )
        }


#: The columns a prediction made by a run here adds (NULL for imported ones).
RUN_COLUMNS = ("settings", "raw_output", "latency_s", "tokens_in", "tokens_out")


def settings_text(settings: dict[str, Any]) -> str:
    """A run's settings as stored: compact JSON, keys sorted (equal settings, equal text)."""
    return dumps(dict(sorted(settings.items())))


def settings_words(settings: dict[str, Any]) -> str:
    """A run's settings in a line: "prompt jrdb-reasoning, image scale 0.5"."""
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(settings.items()))


def _maybe_dumps(value: Any) -> str | None:
    return None if value is None else dumps(value)


def _order_key(annotator_id: int, uid: str) -> bytes:
    return hashlib.sha256(f"{annotator_id}:{uid}".encode()).digest()
