"""Sequences, frames, entities and HOI labels with their reviews."""

from __future__ import annotations

from typing import Any

from annotation.models import (
    ENTITY_KINDS,
    HOI_DIFFICULTIES,
    REVIEW_VERDICTS,
    Annotator,
    Frame,
    HoiLabel,
    HoiReview,
    Sequence,
)
from store.base import Repository, dumps, loads
from store.db import ProjectError, utc_now


class SequenceRepository(Repository):
    def add(self, name: str, root: str, calibration: dict[str, Any] | None = None) -> Sequence:
        with self.project.write():
            cur = self.db.execute(
                "INSERT INTO sequences(name, root, calibration, imported_at) VALUES (?, ?, ?, ?)",
                [name, root, dumps(calibration or {}), utc_now()],
            )
            self._audit(None, "create", "sequences", cur.lastrowid, {"name": name})
        return self.get(cur.lastrowid)

    def get(self, sequence_id: int) -> Sequence:
        row = self.db.execute(
            "SELECT s.id, s.name, s.root, s.calibration, "
            "(SELECT count(*) FROM frames f WHERE f.sequence_id = s.id) "
            "FROM sequences s WHERE s.id = ?",
            [sequence_id],
        ).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no sequence with id {sequence_id}")
        return Sequence(row[0], row[1], row[2], loads(row[3], {}), row[4])

    def find(self, name: str) -> Sequence | None:
        row = self.db.execute("SELECT id FROM sequences WHERE name = ?", [name]).fetchone()
        return self.get(row[0]) if row else None

    def frames(self, sequence_id: int) -> list[Frame]:
        rows = self.db.execute(
            "SELECT id, sequence_id, frame_index, image_path, pointcloud_paths FROM frames "
            "WHERE sequence_id = ? ORDER BY frame_index",
            [sequence_id],
        ).fetchall()
        return [Frame(r[0], r[1], r[2], r[3], tuple(loads(r[4], []))) for r in rows]

    def entity_ids(self, sequence_id: int) -> dict[str, int]:
        """Entity key (e.g. "pedestrian:3") -> row id, for one sequence."""
        rows = self.db.execute(
            "SELECT entity_key, id FROM entities WHERE sequence_id = ?", [sequence_id]
        ).fetchall()
        return dict(rows)

    def add_frame(
        self,
        sequence_id: int,
        index: int,
        image_path: str | None = None,
        pointcloud_paths: tuple[str, ...] = (),
    ) -> Frame:
        with self.project.write():
            cur = self.db.execute(
                "INSERT INTO frames(sequence_id, frame_index, image_path, pointcloud_paths) "
                "VALUES (?, ?, ?, ?)",
                [sequence_id, index, image_path, dumps(list(pointcloud_paths))],
            )
        return Frame(cur.lastrowid, sequence_id, index, image_path, tuple(pointcloud_paths))

    def add_entity(
        self,
        sequence_id: int,
        key: str,
        kind: str,
        category: str = "",
        attributes: dict[str, Any] | None = None,
    ) -> int:
        if kind not in ENTITY_KINDS:
            raise ValueError(f"entity kind must be one of {ENTITY_KINDS}, not {kind!r}")
        with self.project.write():
            cur = self.db.execute(
                "INSERT INTO entities(sequence_id, entity_key, kind, category, attributes) "
                "VALUES (?, ?, ?, ?, ?)",
                [sequence_id, key, kind, category, dumps(attributes or {})],
            )
        return cur.lastrowid


_LABEL_COLUMNS = (
    "id, frame_id, subject_entity_id, object_entity_id, category, predicate, difficulty, "
    "annotator_id, created_at, updated_at"
)


def _check_difficulty(difficulty: int) -> None:
    if type(difficulty) is not int or difficulty not in HOI_DIFFICULTIES:
        raise ValueError(f"difficulty must be 1 (easy), 2 (medium) or 3 (hard), not {difficulty!r}")


class HoiRepository(Repository):
    def add_label(
        self,
        *,
        frame_id: int,
        subject_entity_id: int,
        object_entity_id: int | None,
        category: str,
        predicate: str,
        difficulty: int,
        annotator: Annotator,
    ) -> HoiLabel:
        """Save one HOI label now, carrying its annotator (autosave)."""
        self._require(annotator)
        _check_difficulty(difficulty)
        now = utc_now()
        with self.project.write():
            cur = self.db.execute(
                "INSERT INTO hoi_labels(frame_id, subject_entity_id, object_entity_id, category, "
                "predicate, difficulty, annotator_id, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    frame_id,
                    subject_entity_id,
                    object_entity_id,
                    category,
                    predicate,
                    difficulty,
                    annotator.id,
                    now,
                    now,
                ],
            )
            self._audit(
                annotator,
                "create",
                "hoi_labels",
                cur.lastrowid,
                {"predicate": predicate, "difficulty": difficulty},
            )
        return HoiLabel(
            cur.lastrowid,
            frame_id,
            subject_entity_id,
            object_entity_id,
            category,
            predicate,
            difficulty,
            annotator.id,
            now,
            now,
        )

    def get_label(self, label_id: int) -> HoiLabel:
        row = self.db.execute(
            f"SELECT {_LABEL_COLUMNS} FROM hoi_labels WHERE id = ?", [label_id]
        ).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no HOI label with id {label_id}")
        return HoiLabel(*row)

    def set_difficulty(self, label_id: int, difficulty: int, annotator: Annotator) -> HoiLabel:
        self._require(annotator)
        _check_difficulty(difficulty)
        with self.project.write():
            old = self.get_label(label_id)
            self.db.execute(
                "UPDATE hoi_labels SET difficulty = ?, updated_at = ? WHERE id = ?",
                [difficulty, utc_now(), label_id],
            )
            self._audit(
                annotator,
                "update",
                "hoi_labels",
                label_id,
                {"difficulty": [old.difficulty, difficulty]},
            )
        return self.get_label(label_id)

    def labels_for_frame(self, frame_id: int) -> list[HoiLabel]:
        rows = self.db.execute(
            f"SELECT {_LABEL_COLUMNS} FROM hoi_labels WHERE frame_id = ? ORDER BY id", [frame_id]
        ).fetchall()
        return [HoiLabel(*r) for r in rows]

    def review(
        self,
        label_id: int,
        *,
        reviewer: Annotator,
        verdict: str,
        difficulty: int | None = None,
        comment: str = "",
    ) -> HoiReview:
        """A second or third annotator's review; the label's author cannot review it."""
        self._require(reviewer)
        if verdict not in REVIEW_VERDICTS:
            raise ValueError(f"verdict must be one of {REVIEW_VERDICTS}, not {verdict!r}")
        if difficulty is not None:
            _check_difficulty(difficulty)
        with self.project.write():
            label = self.get_label(label_id)
            if label.annotator_id == reviewer.id:
                raise ProjectError(f"{self.project.path}: annotators cannot review their own label")
            now = utc_now()
            cur = self.db.execute(
                "INSERT INTO hoi_reviews(label_id, reviewer_id, verdict, difficulty, comment, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(label_id, reviewer_id) DO UPDATE "
                "SET verdict = excluded.verdict, difficulty = excluded.difficulty, "
                "comment = excluded.comment, created_at = excluded.created_at RETURNING id",
                [label_id, reviewer.id, verdict, difficulty, comment, now],
            )
            review_id = cur.fetchone()[0]
            self._audit(reviewer, "review", "hoi_labels", label_id, {"verdict": verdict})
        return HoiReview(review_id, label_id, reviewer.id, verdict, difficulty, comment, now)
