"""HOI labels and their reviews: rounds, undo, queues, propagation along a track, progress.

`project.hoi` is this repository: add_label, get_label, set_difficulty,
labels_for_frame, review, and what the Annotate panels need. The review
rules are `annotation.jrdb.hoi_review.review_refusal`, checked here inside the
write and backed by triggers (migration 0005), so no caller can break them:
nobody reviews their own label, a round takes two reviews by two people, a
QC check comes from a third. Label ids are never given out twice (a deleted
label waits in `hoi_label_trash`), so an undone delete comes back as itself.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from annotation.jrdb.hoi_review import (
    QC,
    QC_RATE,
    REVIEW,
    LabelRecord,
    PropagationPlan,
    ReviewRecord,
    SequenceProgress,
    needs_qc_by,
    needs_review_by,
    plan_propagation,
    returned_to,
    review_refusal,
    sequence_progress,
)
from annotation.models import HOI_DIFFICULTIES, REVIEW_VERDICTS, Annotator, HoiLabel, HoiReview
from store.base import Repository, dumps
from store.errors import ProjectError, given_time, utc_now
from store.packages import held_review_refusal, review_slot_free, reviews_held
from store.tracks import derived_frames

_LABEL_COLUMNS = (
    "id, frame_id, subject_entity_id, object_entity_id, category, predicate, difficulty, "
    "annotator_id, created_at, updated_at"
)


def _check_difficulty(difficulty: int) -> None:
    if type(difficulty) is not int or difficulty not in HOI_DIFFICULTIES:
        raise ValueError(f"difficulty must be 1 (easy), 2 (medium) or 3 (hard), not {difficulty!r}")


_KEEP: Any = object()
_ANY: Any = object()
_NEXT_ID = (
    "(SELECT max(coalesce((SELECT max(id) FROM hoi_labels), 0), "
    "coalesce((SELECT max(label_id) FROM hoi_label_trash), 0)) + 1)"
)
_RECORD_SELECT = (
    "SELECT l.id, l.frame_id, l.subject_entity_id, l.object_entity_id, l.category, "
    "l.predicate, l.difficulty, l.annotator_id, l.created_at, l.updated_at, l.review_round, "
    "f.sequence_id, f.frame_index, a.name FROM hoi_labels l "
    "JOIN frames f ON f.id = l.frame_id JOIN annotators a ON a.id = l.annotator_id"
)
_REVIEW_SELECT = (
    "SELECT r.id, r.label_id, r.reviewer_id, r.round, r.kind, r.verdict, r.difficulty, "
    "r.comment, r.created_at, r.label_difficulty, a.name FROM hoi_reviews r "
    "JOIN annotators a ON a.id = r.reviewer_id"
)


def record_to_json(record: LabelRecord) -> str:
    return dumps(dataclasses.asdict(record))


def record_from_json(text: str) -> LabelRecord:
    data = json.loads(text)
    return LabelRecord(
        label=HoiLabel(**data["label"]),
        round=data["round"],
        reviews=tuple(ReviewRecord(**r) for r in data["reviews"]),
        sequence_id=data.get("sequence_id"),
        frame_index=data.get("frame_index"),
        author_name=data.get("author_name", ""),
    )


class HoiRepository(Repository):
    """HOI labels and their reviews: authored, audited, in review rounds."""

    # -- reading --------------------------------------------------------------------
    def get_label(self, label_id: int) -> HoiLabel:
        row = self.db.execute(
            f"SELECT {_LABEL_COLUMNS} FROM hoi_labels WHERE id = ?", [label_id]
        ).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no HOI label with id {label_id}")
        return HoiLabel(*row)

    def labels_for_frame(self, frame_id: int) -> list[HoiLabel]:
        rows = self.db.execute(
            f"SELECT {_LABEL_COLUMNS} FROM hoi_labels WHERE frame_id = ? ORDER BY id", [frame_id]
        ).fetchall()
        return [HoiLabel(*r) for r in rows]

    def record(self, label_id: int) -> LabelRecord | None:
        """The label with its round and every review, or None when there is none."""
        found = self.records(label_ids=[label_id])
        return found[0] if found else None

    def records(
        self,
        *,
        sequence_id: int | None = None,
        frame_id: int | None = None,
        subject_entity_id: int | None = None,
        author_id: int | None = None,
        label_ids: Iterable[int] | None = None,
    ) -> list[LabelRecord]:
        """Labels with their reviews, in frame, person and creation order."""
        where, params = [], []
        for column, value in (
            ("f.sequence_id", sequence_id),
            ("l.frame_id", frame_id),
            ("l.subject_entity_id", subject_entity_id),
            ("l.annotator_id", author_id),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if label_ids is not None:
            ids = list(label_ids)
            where.append(f"l.id IN ({', '.join('?' * len(ids))})" if ids else "0")
            params.extend(ids)
        sql = _RECORD_SELECT + (" WHERE " + " AND ".join(where) if where else "")
        rows = self.db.execute(
            sql + " ORDER BY f.sequence_id, f.frame_index, l.subject_entity_id, l.id", params
        ).fetchall()
        if not rows:
            return []
        reviews: dict[int, list[ReviewRecord]] = {r[0]: [] for r in rows}
        ids = list(reviews)
        for chunk in range(0, len(ids), 900):
            part = ids[chunk : chunk + 900]
            for r in self.db.execute(
                f"{_REVIEW_SELECT} WHERE r.label_id IN ({', '.join('?' * len(part))}) "
                "ORDER BY r.created_at, r.id",
                part,
            ).fetchall():
                reviews[r[1]].append(ReviewRecord(*r))
        return [
            LabelRecord(HoiLabel(*r[:10]), r[10], tuple(reviews[r[0]]), r[11], r[12], r[13])
            for r in rows
        ]

    def _existing(self, label_id: int) -> LabelRecord:
        record = self.record(label_id)
        if record is None:
            raise ProjectError(f"{self.project.path}: no HOI label with id {label_id}")
        return record

    def _duplicate(self, frame_id: int, subject: int, predicate: str, target: int | None) -> bool:
        return (
            self.db.execute(
                "SELECT 1 FROM hoi_labels WHERE frame_id = ? AND subject_entity_id = ? "
                "AND predicate = ? AND object_entity_id IS ?",
                [frame_id, subject, predicate, target],
            ).fetchone()
            is not None
        )

    def find_label(
        self, frame_id: int, subject: int, predicate: str, target: int | None, annotator: Annotator
    ) -> HoiLabel:
        """The person's label of this kind (and target) on the subject in the frame."""
        row = self.db.execute(
            "SELECT id FROM hoi_labels WHERE frame_id = ? AND subject_entity_id = ? "
            "AND predicate = ? AND object_entity_id IS ? AND annotator_id = ?",
            [frame_id, subject, predicate, target, annotator.id],
        ).fetchone()
        if row is None:
            raise ProjectError(
                f"{self.project.path}: {annotator.name} has no {predicate!r} label "
                "of this person (with this target) in this frame"
            )
        return self.get_label(row[0])

    def check_label_entities(self, frame_id: int, subject: int, target: int | None) -> None:
        """A label is about a person with a box in the frame and, when it has a target, an
        object with a box there: what the panels offer, asked of every other writer."""
        for entity, kind, role in ((subject, "human", "subject"), (target, "object", "target")):
            if entity is None:
                continue
            row = self.db.execute(
                "SELECT e.entity_key, e.kind, (SELECT count(*) FROM boxes_2d b WHERE "
                "b.entity_id = e.id AND b.frame_id = ?) + (SELECT count(*) FROM boxes_3d b "
                "WHERE b.entity_id = e.id AND b.frame_id = ?) FROM entities e WHERE e.id = ?",
                [frame_id, frame_id, entity],
            ).fetchone()
            if row is None:
                raise ProjectError(f"{self.project.path}: no entity with id {entity}")
            if row[1] != kind:
                what = "a person" if kind == "human" else "an object"
                raise ValueError(f"the {role} {row[0]} is not {what}")
            if not row[2]:
                raise ValueError(f"the {role} {row[0]} has no box in this frame")

    # -- labels ---------------------------------------------------------------------
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
        unique: bool = False,
    ) -> HoiLabel:
        """Save one HOI label now (autosave). With `unique`, refuse a label the person
        already has in this frame (same predicate and target); the panels always ask."""
        self._require(annotator)
        _check_difficulty(difficulty)
        now = utc_now()
        with self.project.write():
            if unique and self._duplicate(frame_id, subject_entity_id, predicate, object_entity_id):
                raise ProjectError(
                    f"{self.project.path}: the person already has {predicate!r} "
                    "(with this target) in this frame"
                )
            cur = self.db.execute(
                "INSERT INTO hoi_labels(id, frame_id, subject_entity_id, object_entity_id, "
                "category, predicate, difficulty, annotator_id, created_at, updated_at) "
                f"VALUES ({_NEXT_ID}, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [frame_id, subject_entity_id, object_entity_id, category, predicate]
                + [difficulty, annotator.id, now, now],
            )
            label_id = cur.lastrowid
            self._audit(
                annotator,
                "create",
                "hoi_labels",
                label_id,
                {"predicate": predicate, "difficulty": difficulty},
            )
        return HoiLabel(
            label_id,
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

    def update_label(
        self,
        label_id: int,
        annotator: Annotator,
        *,
        predicate: str | None = None,
        category: str | None = None,
        object_entity_id: int | None = _KEEP,
        difficulty: int | None = None,
    ) -> LabelRecord:
        """Change a label's predicate, target or difficulty. When the current round has
        reviews, the change starts the next round (the old reviews are kept)."""
        self._require(annotator)
        if difficulty is not None:
            _check_difficulty(difficulty)
        with self.project.write():
            old = self._existing(label_id)
            self._author_only(old, annotator, "changes")
            label = old.label
            new = dataclasses.replace(
                label,
                predicate=label.predicate if predicate is None else predicate,
                category=label.category if category is None else category,
                object_entity_id=(
                    label.object_entity_id if object_entity_id is _KEEP else object_entity_id
                ),
                difficulty=label.difficulty if difficulty is None else difficulty,
            )
            changes = {
                k: [getattr(label, k), getattr(new, k)]
                for k in ("predicate", "category", "object_entity_id", "difficulty")
                if getattr(label, k) != getattr(new, k)
            }
            if not changes:
                return old
            key = (new.predicate, new.object_entity_id)
            if key != (label.predicate, label.object_entity_id) and self._duplicate(
                label.frame_id, label.subject_entity_id, *key
            ):
                raise ProjectError(
                    f"{self.project.path}: the person already has {new.predicate!r} "
                    "(with this target) in this frame"
                )
            round_ = old.round + 1 if old.current(REVIEW) or old.current(QC) else old.round
            if round_ != old.round:
                changes["round"] = [old.round, round_]
            self.db.execute(
                "UPDATE hoi_labels SET predicate = ?, category = ?, object_entity_id = ?, "
                "difficulty = ?, review_round = ?, updated_at = ? WHERE id = ?",
                [new.predicate, new.category, new.object_entity_id, new.difficulty, round_]
                + [utc_now(), label_id],
            )
            self._audit(annotator, "update", "hoi_labels", label_id, changes)
            return self._existing(label_id)

    def set_difficulty(self, label_id: int, difficulty: int, annotator: Annotator) -> HoiLabel:
        return self.update_label(label_id, annotator, difficulty=difficulty).label

    def resubmit(self, label_id: int, annotator: Annotator) -> LabelRecord:
        """Send a returned label for review again unchanged (the author stands by it)."""
        self._require(annotator)
        with self.project.write():
            old = self._existing(label_id)
            self._author_only(old, annotator, "resubmits")
            if not (old.current(REVIEW) or old.current(QC)):
                return old
            self.db.execute(
                "UPDATE hoi_labels SET review_round = ?, updated_at = ? WHERE id = ?",
                [old.round + 1, utc_now(), label_id],
            )
            self._audit(
                annotator, "resubmit", "hoi_labels", label_id, {"round": [old.round, old.round + 1]}
            )
            return self._existing(label_id)

    def delete_label(self, label_id: int, annotator: Annotator) -> LabelRecord:
        """Delete a label and its reviews; they wait in the trash (`restore_label`)."""
        self._require(annotator)
        with self.project.write():
            old = self._existing(label_id)
            self._author_only(old, annotator, "deletes")
            self._delete(old, annotator)
        return old

    def _author_only(self, record: LabelRecord, annotator: Annotator, doing: str) -> None:
        """Only a label's author changes, resubmits or deletes it; others review it."""
        if record.label.annotator_id != annotator.id:
            raise ProjectError(
                f"{self.project.path}: label #{record.id} is {record.author_name or 'someone else'}"
                f"'s: only its author {doing} it (review it instead)"
            )

    def _delete(self, old: LabelRecord, annotator: Annotator) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO hoi_label_trash(label_id, record, deleted_at, deleted_by) "
            "VALUES (?, ?, ?, ?)",
            [old.id, record_to_json(old), utc_now(), annotator.id],
        )
        self.db.execute("DELETE FROM hoi_labels WHERE id = ?", [old.id])
        label = old.label
        detail = {"predicate": label.predicate, "frame_id": label.frame_id}
        self._audit(annotator, "delete", "hoi_labels", old.id, detail)

    def restore_label(self, label_id: int, annotator: Annotator) -> LabelRecord:
        """Bring a deleted label back from the trash, with its reviews."""
        self._require(annotator)
        with self.project.write():
            row = self.db.execute(
                "SELECT record FROM hoi_label_trash WHERE label_id = ?", [label_id]
            ).fetchone()
            if row is None:
                raise ProjectError(f"{self.project.path}: no deleted HOI label with id {label_id}")
            restored = self.put_label(label_id, record_from_json(row[0]), annotator, expect=None)
        assert restored is not None
        return restored

    def put_label(
        self,
        label_id: int,
        record: LabelRecord | None,
        annotator: Annotator,
        *,
        expect: LabelRecord | None = _ANY,
    ) -> LabelRecord | None:
        """Make the stored label exactly `record` (or absent): how undo and redo write.

        With `expect`, refuses (ProjectError, nothing written) when the label is no
        longer what the caller last saw, e.g. someone reviewed it in between.
        """
        self._require(annotator)
        try:
            return self._put_label(label_id, record, annotator, expect)
        except sqlite3.IntegrityError as exc:  # e.g. its frame or person was deleted since
            message = f"{self.project.path}: cannot put back label #{label_id}: {exc}"
            raise ProjectError(message) from None

    def _put_label(
        self, label_id: int, record: LabelRecord | None, annotator: Annotator, expect: Any
    ) -> LabelRecord | None:
        with self.project.write():
            current = self.record(label_id)
            if expect is not _ANY and _content(current) != _content(expect):
                raise ProjectError(
                    f"{self.project.path}: label #{label_id} has changed since"
                    + (" (it has new reviews)" if current and expect else "")
                )
            if record is None:
                if current is not None:
                    self._delete(current, annotator)
                return None
            lab = record.label
            values = [lab.frame_id, lab.subject_entity_id, lab.object_entity_id, lab.category]
            values += [lab.predicate, lab.difficulty, lab.annotator_id, lab.created_at]
            values += [lab.updated_at, record.round]
            if current is None:
                self.db.execute(
                    "INSERT INTO hoi_labels(id, frame_id, subject_entity_id, object_entity_id, "
                    "category, predicate, difficulty, annotator_id, created_at, updated_at, "
                    "review_round) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [label_id, *values],
                )
                self.db.execute("DELETE FROM hoi_label_trash WHERE label_id = ?", [label_id])
            else:
                self.db.execute(
                    "UPDATE hoi_labels SET frame_id = ?, subject_entity_id = ?, "
                    "object_entity_id = ?, category = ?, predicate = ?, difficulty = ?, "
                    "annotator_id = ?, created_at = ?, updated_at = ?, review_round = ? "
                    "WHERE id = ?",
                    [*values, label_id],
                )
            if current is None or {r.content() for r in current.reviews} != {
                r.content() for r in record.reviews
            }:
                self.db.execute("DELETE FROM hoi_reviews WHERE label_id = ?", [label_id])
                for review in record.reviews:
                    self._insert_review(review)
            action = "restore" if current is None else "revert"
            self._audit(annotator, action, "hoi_labels", label_id, {"round": record.round})
            return self.record(label_id)

    def _insert_review(self, r: ReviewRecord) -> None:
        taken = self.db.execute("SELECT 1 FROM hoi_reviews WHERE id = ?", [r.id]).fetchone()
        self.db.execute(
            "INSERT INTO hoi_reviews(id, label_id, reviewer_id, round, kind, verdict, difficulty, "
            "label_difficulty, comment, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [None if taken else r.id, r.label_id, r.reviewer_id, r.round, r.kind, r.verdict]
            + [r.difficulty, r.label_difficulty, r.comment, r.created_at],
        )

    # -- propagation along a track ------------------------------------------------------
    def propagate(
        self, label_id: int, annotator: Annotator, count: int, direction: int = 1
    ) -> tuple[list[HoiLabel], PropagationPlan]:
        """Copy a label to the next (or previous) `count` frames of its sequence where the
        same person has a box, and its target too; frames that have it already are
        skipped. One transaction; the copies are the annotator's."""
        self._require(annotator)
        with self.project.write():
            label = self._existing(label_id).label
            sequence_id = self.db.execute(
                "SELECT sequence_id FROM frames WHERE id = ?", [label.frame_id]
            ).fetchone()[0]
            frame_ids = [
                r[0]
                for r in self.db.execute(
                    "SELECT id FROM frames WHERE sequence_id = ? ORDER BY frame_index",
                    [sequence_id],
                )
            ]
            target = label.object_entity_id
            present = self.entity_frames([label.subject_entity_id] + ([target] if target else []))
            labelled = {
                r[0]
                for r in self.db.execute(
                    "SELECT frame_id FROM hoi_labels WHERE subject_entity_id = ? "
                    "AND predicate = ? AND object_entity_id IS ?",
                    [label.subject_entity_id, label.predicate, target],
                )
            }
            plan = plan_propagation(
                frame_ids,
                frame_ids.index(label.frame_id),
                count,
                direction,
                present.get(label.subject_entity_id, set()),
                present.get(target, set()) if target else None,
                labelled,
            )
            created = [
                self.add_label(
                    frame_id=frame_id,
                    subject_entity_id=label.subject_entity_id,
                    object_entity_id=target,
                    category=label.category,
                    predicate=label.predicate,
                    difficulty=label.difficulty,
                    annotator=annotator,
                    unique=True,
                )
                for frame_id in plan.frame_ids
            ]
        return created, plan

    def entity_frames(self, entity_ids: Iterable[int]) -> dict[int, set[int]]:
        """Entity id -> ids of the frames where it has a 2D or a 3D box."""
        ids = list(dict.fromkeys(entity_ids))
        out: dict[int, set[int]] = {i: set() for i in ids}
        if not ids:
            return out
        marks = ", ".join("?" * len(ids))
        for entity, frame in self.db.execute(
            f"SELECT entity_id, frame_id FROM boxes_2d WHERE entity_id IN ({marks}) UNION "
            f"SELECT entity_id, frame_id FROM boxes_3d WHERE entity_id IN ({marks})",
            ids + ids,
        ):
            out[entity].add(frame)
        for entity, frames in derived_frames(self.db, ids).items():
            out[entity] |= frames  # a tracked object's interpolated and carried boxes
        return out

    def person_frames(self, sequence_id: int) -> set[tuple[int, int]]:
        """(frame id, person id) for every person with a box in a frame of the sequence."""
        join = "JOIN entities e ON e.id = b.entity_id WHERE e.sequence_id = ? AND e.kind = 'human'"
        rows = self.db.execute(
            f"SELECT b.frame_id, b.entity_id FROM boxes_2d b {join} UNION "
            f"SELECT b.frame_id, b.entity_id FROM boxes_3d b {join}",
            [sequence_id, sequence_id],
        )
        return {(r[0], r[1]) for r in rows}

    def sequences(self) -> list[tuple[int, str]]:
        """(id, name) of every sequence, by name: what progress is reported for."""
        return [tuple(r) for r in self.db.execute("SELECT id, name FROM sequences ORDER BY name")]

    def progress(self, sequence_id: int) -> SequenceProgress:
        return sequence_progress(
            self.person_frames(sequence_id), self.records(sequence_id=sequence_id)
        )

    # -- reviews --------------------------------------------------------------------------
    def review(
        self,
        label_id: int,
        *,
        reviewer: Annotator,
        verdict: str,
        difficulty: int | None = None,
        comment: str = "",
        kind: str = REVIEW,
        created_at: str | None = None,
        package: str | None = None,
    ) -> HoiReview:
        """A review of the label's current round (kind 'review') or a quality check ('qc').
        A reject (or fix) needs a comment; giving it again replaces one's own review of the
        round. Slots out in work packages are not free here (`package`: merging that one's)."""
        self._require(reviewer)
        if verdict not in REVIEW_VERDICTS:
            raise ValueError(f"verdict must be one of {REVIEW_VERDICTS}, not {verdict!r}")
        if difficulty is not None:
            _check_difficulty(difficulty)
        if not isinstance(comment, str):
            raise ValueError(f"a review's comment is text, not {comment!r}")
        if created_at is not None:
            given_time(created_at, "created_at")
        if verdict != "accept" and not comment.strip():
            raise ValueError(f"a {verdict} needs a comment saying what is wrong")
        with self.project.write():
            record = self._existing(label_id)
            refusal = review_refusal(record, reviewer.id, kind)
            if not refusal and kind == REVIEW:
                refusal = held_review_refusal(self.db, record, reviewer, package)
            if refusal:
                raise ProjectError(f"{self.project.path}: {refusal}")
            now = created_at or utc_now()
            cur = self.db.execute(
                "INSERT INTO hoi_reviews(label_id, reviewer_id, round, kind, verdict, difficulty, "
                "label_difficulty, comment, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(label_id, kind, round, reviewer_id) DO UPDATE SET "
                "verdict = excluded.verdict, difficulty = excluded.difficulty, "
                "label_difficulty = excluded.label_difficulty, comment = excluded.comment, "
                "created_at = excluded.created_at RETURNING id",
                [label_id, reviewer.id, record.round, kind, verdict, difficulty]
                + [record.label.difficulty, comment.strip(), now],
            )
            review_id = cur.fetchone()[0]
            detail = {"verdict": verdict, "round": record.round}
            self._audit(reviewer, kind, "hoi_labels", label_id, detail)
        return HoiReview(
            review_id, label_id, reviewer.id, verdict, difficulty, comment.strip(), now
        )

    def own_review(
        self, label_id: int, reviewer_id: int, kind: str = REVIEW
    ) -> ReviewRecord | None:
        """The reviewer's review of the label's current round, if any."""
        record = self.record(label_id)
        mine = [r for r in record.current(kind) if r.reviewer_id == reviewer_id] if record else []
        return mine[0] if mine else None

    def put_review(
        self,
        label_id: int,
        reviewer: Annotator,
        kind: str,
        round_: int,
        review: ReviewRecord | None,
        *,
        expect: ReviewRecord | None,
    ) -> None:
        """Make the reviewer's review of one round `review` (or none): undo and redo of a
        review. Refuses when their review is not `expect` any more or the round moved on."""
        self._require(reviewer)
        with self.project.write():
            record = self._existing(label_id)
            mine = [
                r
                for r in record.reviews
                if r.round == round_ and r.kind == kind and r.reviewer_id == reviewer.id
            ]
            now = mine[0] if mine else None
            if record.round != round_ or _content(now) != _content(expect):
                raise ProjectError(f"{self.project.path}: label #{label_id} has changed since")
            if now is not None:
                self.db.execute("DELETE FROM hoi_reviews WHERE id = ?", [now.id])
            if review is not None:
                self._insert_review(review)
            detail = {"round": round_, "verdict": review.verdict if review else None}
            self._audit(reviewer, "revert", "hoi_reviews", label_id, detail)

    # -- queues ----------------------------------------------------------------------------
    def qc_settings(self) -> tuple[int, float]:
        """The QC sample's seed and rate (project_meta `hoi_qc_seed`, `hoi_qc_rate`)."""
        seed = self.project.meta_get("hoi_qc_seed")
        rate = self.project.meta_get("hoi_qc_rate")
        return (int(seed) if seed else 0, float(rate) if rate else QC_RATE)

    def queues(self, annotator: Annotator, sequence_id: int | None = None) -> dict[str, list]:
        """The three lists of `review_queue`, `returned_queue` and `qc_queue` from one read,
        keyed "review", "returned" and "qc"."""
        seed, rate = self.qc_settings()
        records, held = self.records(sequence_id=sequence_id), reviews_held(self.db)
        return {
            "review": [
                r
                for r in records
                if needs_review_by(r, annotator.id) and review_slot_free(r, annotator.id, held)
            ],
            "returned": [r for r in records if returned_to(r, annotator.id)],
            "qc": [r for r in records if needs_qc_by(r, annotator.id, seed, rate)],
        }

    def review_queue(self, annotator: Annotator, sequence_id: int | None = None) -> list:
        """Labels whose current round still needs a review this annotator may give (and
        whose review slots are not out in packages)."""
        return self.queues(annotator, sequence_id)["review"]

    def returned_queue(self, annotator: Annotator, sequence_id: int | None = None) -> list:
        """This annotator's labels that a reviewer (or a QC check) rejected."""
        return [
            r
            for r in self.records(sequence_id=sequence_id, author_id=annotator.id)
            if returned_to(r, annotator.id)
        ]

    def qc_queue(self, annotator: Annotator, sequence_id: int | None = None) -> list:
        """Accepted labels of the seeded QC sample that this annotator may check."""
        seed, rate = self.qc_settings()
        return [
            r
            for r in self.records(sequence_id=sequence_id)
            if needs_qc_by(r, annotator.id, seed, rate)
        ]


def _content(item: LabelRecord | ReviewRecord | None) -> Any:
    return None if item is None else item.content()
