"""Episodes with their steps, and images stored once by content hash."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable
from typing import Any

from annotation.models import STEP_KINDS, Episode, Step
from store.base import Repository, dumps, loads
from store.db import ProjectError, utc_now


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

    def get(self, sha256: str) -> tuple[str, bytes]:
        row = self.db.execute("SELECT mime, data FROM images WHERE sha256 = ?", [sha256]).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no image {sha256}")
        return row[0], row[1]


_EPISODE_COLUMNS = (
    "id, uid, benchmark, model, agent, mode, task, question_id, scene_id, outcome, success, "
    "score, header, created_at, (SELECT count(*) FROM steps s WHERE s.episode_id = episodes.id)"
)


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
                self.db.execute(
                    "INSERT INTO steps(episode_id, step_index, kind, name, arguments, result, ok, "
                    "feedback, model_text, raw_output, state, image_sha256) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        episode_id,
                        index,
                        kind,
                        step.get("name", ""),
                        dumps(step.get("arguments", {})),
                        dumps(step.get("result")),
                        step.get("ok"),
                        step.get("feedback", ""),
                        dumps(step.get("model_text", {})),
                        step.get("raw_output", ""),
                        dumps(step["state"]) if step.get("state") is not None else None,
                        step.get("image_sha256"),
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
            "SELECT episode_id, step_index, kind, name, arguments, result, ok, feedback, "
            "model_text, raw_output, state, image_sha256 FROM steps WHERE episode_id = ? "
            "ORDER BY step_index",
            [episode_id],
        ).fetchall()
        return [
            Step(
                episode_id=r[0],
                index=r[1],
                kind=r[2],
                name=r[3],
                arguments=loads(r[4], {}),
                result=loads(r[5]),
                ok=None if r[6] is None else bool(r[6]),
                feedback=r[7],
                model_text=loads(r[8], {}),
                raw_output=r[9],
                state=loads(r[10]),
                image_sha256=r[11],
            )
            for r in rows
        ]

    def ids(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT id FROM episodes ORDER BY id")]

    def find(self, uid: str) -> Episode | None:
        row = self.db.execute("SELECT id FROM episodes WHERE uid = ?", [uid]).fetchone()
        return self.get(row[0]) if row else None
