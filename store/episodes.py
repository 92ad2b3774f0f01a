"""Episodes with their steps, error labels on them, and images stored once by content hash."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable
from typing import Any

from annotation.error_taxonomy import load_taxonomy
from annotation.models import STEP_KINDS, Annotator, Episode, ErrorLabel, Step
from store.base import Repository, dumps, loads
from store.connection import ProjectFile
from store.errors import ProjectError, utc_now
from store.state_blobs import pack_text, state_json, state_text, unpack_text
from store.states import StateRepository


class ImageRepository(Repository):
    def put(
        self, data: bytes, mime: str, width: int | None = None, height: int | None = None
    ) -> str:
        """Store image bytes once; return their sha256. Joins the caller's transaction."""
        sha = hashlib.sha256(data).hexdigest()
        with self.project.write():
            self.db.execute(
                "INSERT OR IGNORE INTO images(sha256, mime, width, height, data, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [sha, mime, width, height, data, utc_now()],
            )
        return sha

    def has(self, sha256: str) -> bool:
        return (
            self.db.execute("SELECT 1 FROM images WHERE sha256 = ?", [sha256]).fetchone()
            is not None
        )

    def get(self, sha256: str) -> tuple[str, bytes]:
        row = self.db.execute("SELECT mime, data FROM images WHERE sha256 = ?", [sha256]).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no image {sha256}")
        return row[0], row[1]


_EPISODE_COLUMNS = (
    "id, uid, benchmark, model, agent, mode, task, question_id, scene_id, outcome, success, "
    "score, header, created_at, (SELECT count(*) FROM steps s WHERE s.episode_id = episodes.id)"
)


_LABEL_COLUMNS = "id, episode_id, step_index, category, subcategory, note, annotator_id, created_at"
# An episode "has a failed grasp" when one of its grasp calls did not succeed.
_FAILED_GRASP = (
    "EXISTS (SELECT 1 FROM steps s WHERE s.episode_id = episodes.id "
    "AND s.name = 'grasp' AND s.ok = 0)"
)


def _number(value: Any, kind: type) -> Any:
    """A step's latency or token count as stored: a number of `kind`, or NULL."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return kind(value)


def _episode(r: tuple) -> Episode:
    return Episode(
        id=r[0],
        uid=r[1],
        benchmark=r[2],
        model=r[3],
        agent=r[4],
        mode=r[5],
        task=r[6],
        question_id=r[7],
        scene_id=r[8],
        outcome=r[9],
        success=None if r[10] is None else bool(r[10]),
        score=r[11],
        header=loads(r[12], {}),
        created_at=r[13],
        step_count=r[14],
    )


class EpisodeRepository(Repository):
    def __init__(self, project: ProjectFile, *, states: StateRepository) -> None:
        super().__init__(project)
        self.states = states

    def add(
        self, header: dict[str, Any], steps: Iterable[dict[str, Any]], source: str = ""
    ) -> Episode:
        """Store an episode and all its steps in one transaction: all or nothing."""
        with self.project.write():
            cur = self.db.execute(
                "INSERT INTO episodes(uid, benchmark, model, agent, mode, task, question_id, "
                "scene_id, outcome, success, score, header, source, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    header.get("uid") or uuid.uuid4().hex,
                    header.get("benchmark", ""),
                    header.get("model", ""),
                    header.get("agent", ""),
                    header.get("mode", ""),
                    header.get("task", ""),
                    header.get("question_id"),
                    header.get("scene_id"),
                    header.get("outcome", ""),
                    header.get("success"),
                    header.get("score"),
                    dumps(header),
                    source,
                    utc_now(),
                ],
            )
            episode_id = cur.lastrowid
            for index, step in enumerate(steps):
                kind = step.get("kind", "tool")
                if kind not in STEP_KINDS:
                    raise ValueError(
                        f"step {index}: kind must be one of {STEP_KINDS}, not {kind!r}"
                    )
                state = step.get("state")
                self.db.execute(
                    "INSERT INTO steps(episode_id, step_index, kind, name, arguments, result, ok, "
                    "feedback, model_text, raw_output, state_sha256, image_sha256, latency_s, "
                    "tokens_in, tokens_out) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        episode_id,
                        index,
                        kind,
                        step.get("name", ""),
                        pack_text(dumps(step.get("arguments", {}))),
                        pack_text(dumps(step.get("result"))),
                        step.get("ok"),
                        step.get("feedback", ""),
                        pack_text(dumps(step.get("model_text", {}))),
                        pack_text(step.get("raw_output", "")),
                        None if state is None else self.states.put(state_json(state)),
                        step.get("image_sha256"),
                        _number(step.get("latency_s"), float),
                        _number(step.get("tokens_in"), int),
                        _number(step.get("tokens_out"), int),
                    ],
                )
            self._audit(None, "create", "episodes", episode_id, {"source": source})
        return self.get(episode_id)

    def get(self, episode_id: int) -> Episode:
        row = self.db.execute(
            f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE id = ?", [episode_id]
        ).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no episode with id {episode_id}")
        return _episode(row)

    def steps(self, episode_id: int) -> list[Step]:
        rows = self.db.execute(
            "SELECT s.episode_id, s.step_index, s.kind, s.name, s.arguments, s.result, s.ok, "
            "s.feedback, s.model_text, s.raw_output, t.data, s.image_sha256, s.latency_s, "
            "s.tokens_in, s.tokens_out FROM steps s LEFT JOIN states t "
            "ON t.sha256 = s.state_sha256 WHERE s.episode_id = ? ORDER BY s.step_index",
            [episode_id],
        ).fetchall()
        return [
            Step(
                episode_id=r[0],
                index=r[1],
                kind=r[2],
                name=r[3],
                arguments=loads(unpack_text(r[4]), {}),
                result=loads(unpack_text(r[5])),
                ok=None if r[6] is None else bool(r[6]),
                feedback=r[7],
                model_text=loads(unpack_text(r[8]), {}),
                raw_output=unpack_text(r[9]),
                state=loads(state_text(r[10])),
                image_sha256=r[11],
                latency_s=r[12],
                tokens_in=r[13],
                tokens_out=r[14],
            )
            for r in rows
        ]

    def stored_bytes(self) -> dict[str, int]:
        """What the episodes' own columns hold, in bytes of text: each episode's header, and
        each step column (states and images are stored apart, once by content)."""
        columns = ("arguments", "result", "feedback", "model_text", "raw_output")
        sums = ", ".join(f"coalesce(sum(length(CAST({c} AS BLOB))), 0)" for c in columns)
        steps = self.db.execute(f"SELECT {sums} FROM steps").fetchone()
        header = self.db.execute(
            "SELECT coalesce(sum(length(CAST(header AS BLOB))), 0) FROM episodes"
        ).fetchone()[0]
        return {"header": header, **{f"steps.{c}": n for c, n in zip(columns, steps, strict=True)}}

    def ids(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT id FROM episodes ORDER BY id")]

    def find(self, uid: str) -> Episode | None:
        row = self.db.execute("SELECT id FROM episodes WHERE uid = ?", [uid]).fetchone()
        return self.get(row[0]) if row else None

    # -- listing with filters ---------------------------------------------------------
    def list(
        self,
        *,
        model: str | None = None,
        task: str | None = None,
        mode: str | None = None,
        outcome: str | None = None,
        success: bool | None = None,
        failed_grasp: bool | None = None,
        limit: int = 10_000,
    ) -> list[Episode]:
        """Episodes matching every filter given (None: any), oldest first."""
        where, params = [], []
        for column, value in (("model", model), ("task", task), ("mode", mode)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if outcome is not None:
            where.append("outcome = ?")
            params.append(outcome)
        if success is not None:
            where.append("success = ?")
            params.append(int(success))
        if failed_grasp is not None:
            where.append(_FAILED_GRASP if failed_grasp else f"NOT {_FAILED_GRASP}")
        sql = f"SELECT {_EPISODE_COLUMNS} FROM episodes"
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self.db.execute(sql + " ORDER BY id LIMIT ?", [*params, limit]).fetchall()
        return [_episode(r) for r in rows]

    def facets(self) -> dict[str, list[str]]:
        """The distinct models, tasks, modes and outcomes stored: the filters' choices."""
        return {
            column: [
                r[0]
                for r in self.db.execute(
                    f"SELECT DISTINCT {column} FROM episodes WHERE {column} != '' "
                    f"ORDER BY {column} COLLATE NOCASE"
                )
            ]
            for column in ("model", "task", "mode", "outcome")
        }

    def failed_grasps(self) -> dict[int, int]:
        """Episode id -> how many of its grasp calls failed (episodes without any left out)."""
        rows = self.db.execute(
            "SELECT episode_id, count(*) FROM steps WHERE name = 'grasp' AND ok = 0 "
            "GROUP BY episode_id"
        )
        return {r[0]: r[1] for r in rows}

    # -- error labels -----------------------------------------------------------------
    def add_label(
        self,
        episode_id: int,
        step_index: int | None,
        category: str,
        subcategory: str = "",
        note: str = "",
        annotator: Annotator | None = None,
    ) -> ErrorLabel:
        """Label a step (or, with step_index None, the whole episode); saved and audited now.

        The category and subcategory must be ids of the episode-error taxonomy.
        """
        annotator = self._require(annotator)
        load_taxonomy().check(category, subcategory)
        episode = self.get(episode_id)
        if step_index is not None and not 0 <= step_index < episode.step_count:
            raise ProjectError(
                f"{self.project.path}: episode {episode_id} has no step {step_index} "
                f"(it has {episode.step_count})"
            )
        with self.project.write():
            cur = self.db.execute(
                "INSERT INTO error_labels(episode_id, step_index, category, subcategory, note, "
                "annotator_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    episode_id,
                    step_index,
                    category,
                    subcategory,
                    note.strip(),
                    annotator.id,
                    utc_now(),
                ],
            )
            label_id = cur.lastrowid
            self._audit(
                annotator,
                "create",
                "error_labels",
                label_id,
                {
                    "episode_id": episode_id,
                    "step_index": step_index,
                    "category": category,
                    "subcategory": subcategory,
                },
            )
        return self.label(label_id)

    def label(self, label_id: int) -> ErrorLabel:
        row = self.db.execute(
            f"SELECT {_LABEL_COLUMNS} FROM error_labels WHERE id = ?", [label_id]
        ).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no error label with id {label_id}")
        return ErrorLabel(*row)

    def labels(self, episode_id: int) -> list[ErrorLabel]:
        """Every label on an episode, by step (episode-wide ones first), oldest first."""
        rows = self.db.execute(
            f"SELECT {_LABEL_COLUMNS} FROM error_labels WHERE episode_id = ? "
            "ORDER BY step_index IS NOT NULL, step_index, id",
            [episode_id],
        ).fetchall()
        return [ErrorLabel(*r) for r in rows]

    def remove_label(self, label_id: int, annotator: Annotator | None) -> None:
        """Delete one's own label; saved and audited now. Another person's label is refused."""
        annotator = self._require(annotator)
        label = self.label(label_id)
        if label.annotator_id != annotator.id:
            raise ProjectError(
                f"{self.project.path}: error label {label_id} belongs to another annotator"
            )
        with self.project.write():
            self.db.execute("DELETE FROM error_labels WHERE id = ?", [label_id])
            self._audit(
                annotator,
                "delete",
                "error_labels",
                label_id,
                {
                    "episode_id": label.episode_id,
                    "step_index": label.step_index,
                    "category": label.category,
                    "subcategory": label.subcategory,
                },
            )

    def label_authors(self, episode_id: int) -> dict[int, str]:
        """Annotator id -> name, for everyone who labelled this episode."""
        rows = self.db.execute(
            "SELECT DISTINCT a.id, a.name FROM error_labels l JOIN annotators a "
            "ON a.id = l.annotator_id WHERE l.episode_id = ?",
            [episode_id],
        )
        return {r[0]: r[1] for r in rows}
