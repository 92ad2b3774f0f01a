"""Object tracks in the store: keyframes are the stored boxes, the rest is derived.

`TrackMethods` is part of `SequenceRepository` (`project.sequences`). An entity is
tracked when an annotator drew it (an object or a person the labels missed, source
'annotator'): its stored 2D and 3D boxes are keyframes, and `derived_records` gives the boxes between and after them
(`annotation.jrdb.tracks`), with source `interpolated` and JRDB's attribute
`interpolated: true`. Nothing derived is stored, so a 500-frame track with three
keyframes is three rows. Whatever the dataset boxed (people, objects of an imported
objects file) keeps exactly the boxes it gave: a frame without one is a frame it is
not in.

Every write of a keyframe (GUI, CLI, a package's merge) goes through `set_box_2d` /
`set_box_3d`, which call `check_keyframe` here: a non-positive size, a non-finite yaw,
or a frame at or after the track's end is refused, naming the rule.
"""

from __future__ import annotations

import bisect
from typing import Any

from annotation.jrdb.dataset import BoxRecord
from annotation.jrdb.tracks import (
    TrackError,
    check_keyframe_2d,
    check_keyframe_3d,
    derived_box,
)
from annotation.models import Annotator, Box2D, Box3D
from store.base import Repository, loads
from store.errors import ProjectError, utc_now

INTERPOLATED = "interpolated"  # the source of a derived box
_TRACKED = "(e.source = 'annotator')"
_COLUMNS = {"2d": "x, y, w, h", "3d": "cx, cy, cz, l, w, h, rot_z"}


class TrackMethods(Repository):
    """Keyframes, track ends and derived boxes (mixed into `SequenceRepository`)."""

    def is_tracked(self, entity_id: int) -> bool:
        """Drawn by an annotator (source 'annotator'): its boxes between keyframes are derived."""
        row = self.db.execute(
            f"SELECT {_TRACKED} FROM entities e WHERE e.id = ?", [entity_id]
        ).fetchone()
        return bool(row and row[0])

    def track_end(self, entity_id: int) -> int | None:
        """The first frame index the entity's track has no box in, if the annotator ended it."""
        row = self.db.execute(
            "SELECT end_frame FROM track_ends WHERE entity_id = ?", [entity_id]
        ).fetchone()
        return row[0] if row else None

    def keyframes(self, entity_id: int, dims: str = "2d") -> dict[int, tuple[float, ...]]:
        """An entity's stored boxes by frame index (its keyframes, when it is tracked)."""
        rows = self.db.execute(
            f"SELECT f.frame_index, {_COLUMNS[dims]} FROM boxes_{dims} b "
            "JOIN frames f ON f.id = b.frame_id WHERE b.entity_id = ? ORDER BY f.frame_index",
            [entity_id],
        ).fetchall()
        return {r[0]: tuple(r[1:]) for r in rows}

    def check_keyframe(
        self, entity_id: int, frame_id: int, dims: str, box: Any
    ) -> tuple[float, ...]:
        """The keyframe's values, or `TrackError` naming the rule it breaks."""
        values = check_keyframe_2d(box) if dims == "2d" else check_keyframe_3d(box)
        end = self.track_end(entity_id)
        if end is not None:
            index = self._frame_index(frame_id)
            if index >= end:
                raise TrackError(
                    f"the track of {self._entity_key(entity_id)} ended at frame {end} (the "
                    f"object is gone from there on): a keyframe in frame {index} would extend "
                    "it; reopen the track first (annotate end-track --reopen)"
                )
        return values

    def end_track(self, entity_id: int, frame_id: int, annotator: Annotator) -> int | None:
        """End the entity's track: from this frame on it has no box (the object left).
        Returns the end it had before (None: none). Refused for an entity that is not
        tracked, before its first keyframe, or with keyframes in or after this frame."""
        self._require(annotator)
        key, index = self._entity_key(entity_id), self._frame_index(frame_id)
        if not self.is_tracked(entity_id):
            raise TrackError(f"{key} was boxed by the dataset: it has no track to end")
        indices = sorted(
            set(self.keyframes(entity_id, "2d")) | set(self.keyframes(entity_id, "3d"))
        )
        if not indices or indices[0] >= index:
            raise TrackError(
                f"the track of {key} has no keyframe before frame {index}: nothing to end"
            )
        later = [i for i in indices if i >= index]
        if later:
            raise TrackError(
                f"{key} has a keyframe in frame {later[0]}: a track cannot end before one of "
                "its keyframes (delete it first)"
            )
        return self.set_track_end(entity_id, index, annotator)

    def set_track_end(self, entity_id: int, end: int | None, annotator: Annotator) -> int | None:
        """Set (or with None, clear: reopen) where the track ends; returns the old end. A
        reopening is kept as a row with no end and the end it had (it travels in work
        packages); reopening a track that has no end changes nothing."""
        self._require(annotator)
        with self.project.write():
            old = self.track_end(entity_id)
            if end is None and old is None:
                return None
            self.db.execute(
                "INSERT INTO track_ends(entity_id, end_frame, reopened_from, annotator_id, "
                "ended_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(entity_id) DO UPDATE SET "
                "end_frame = excluded.end_frame, reopened_from = excluded.reopened_from, "
                "annotator_id = excluded.annotator_id, ended_at = excluded.ended_at",
                [
                    entity_id,
                    None if end is None else int(end),
                    old if end is None else None,
                    annotator.id,
                    utc_now(),
                ],
            )
            detail = {"entity_id": entity_id, "end_frame": [old, end]}
            self._audit(annotator, "update", "track_ends", entity_id, detail)
        return old

    def reopen_track(self, entity_id: int, annotator: Annotator) -> int | None:
        """Undo a track's end: it runs on to the sequence's last frame again. Returns the end
        it had (None: it had none, and nothing changed). Refused for an entity that is not
        tracked."""
        self._require(annotator)
        if not self.is_tracked(entity_id):
            key = self._entity_key(entity_id)
            raise TrackError(f"{key} was boxed by the dataset: it has no track to reopen")
        return self.set_track_end(entity_id, None, annotator)

    def delete_keyframe(
        self, entity_id: int, frame_id: int, dims: str, annotator: Annotator
    ) -> None:
        """Take a tracked entity's keyframe out (its frame is derived again): the undo of
        a new keyframe."""
        self._require(annotator)
        if not self.is_tracked(entity_id):
            raise TrackError(f"{self._entity_key(entity_id)} has no track: remove it instead")
        with self.project.write():
            cur = self.db.execute(
                f"DELETE FROM boxes_{dims} WHERE entity_id = ? AND frame_id = ?",
                [entity_id, frame_id],
            )
            if cur.rowcount:
                detail = {"entity_id": entity_id, "frame_id": frame_id}
                self._audit(annotator, "delete", f"boxes_{dims}", entity_id, detail)

    def derived_records(
        self, frame_id: int, dims: str = "2d", *, entity_id: int | None = None
    ) -> list[BoxRecord]:
        """The frame's derived boxes (interpolated or carried forward) of tracked entities
        without a keyframe here."""
        frame = self.db.execute(
            "SELECT sequence_id, frame_index FROM frames WHERE id = ?", [frame_id]
        ).fetchone()
        if frame is None:
            return []
        sequence_id, index = frame
        one = "" if entity_id is None else " AND e.id = ?"
        rows = self.db.execute(
            f"SELECT b.entity_id, f.frame_index, {_columns(dims)}, b.attributes, t.end_frame "
            f"FROM boxes_{dims} b JOIN entities e ON e.id = b.entity_id "
            "JOIN frames f ON f.id = b.frame_id LEFT JOIN track_ends t ON t.entity_id = e.id "
            f"WHERE e.sequence_id = ? AND {_TRACKED}{one} "
            f"AND NOT EXISTS (SELECT 1 FROM boxes_{dims} h WHERE h.entity_id = e.id "
            "AND h.frame_id = ?) AND NOT EXISTS (SELECT 1 FROM entity_removals r "
            "WHERE r.entity_id = e.id AND r.frame_id = ?) ORDER BY b.entity_id, f.frame_index",
            [sequence_id] + ([entity_id] if entity_id is not None else []) + [frame_id] * 2,
        ).fetchall()
        if not rows:
            return []
        last = self.db.execute(
            "SELECT max(frame_index) FROM frames WHERE sequence_id = ?", [sequence_id]
        ).fetchone()[0]
        tracks: dict[int, list] = {}
        for r in rows:
            tracks.setdefault(r[0], []).append(r)
        out = []
        make = Box2D if dims == "2d" else Box3D
        for entity, keyrows in tracks.items():
            keyframes = {r[1]: tuple(r[2:-2]) for r in keyrows}
            order = [r[1] for r in keyrows]
            values = derived_box(
                keyframes, index, dims=dims, end=keyrows[0][-1], last_frame=last, order=order
            )
            if values is None:
                continue
            before = keyrows[max(bisect.bisect_left(order, index) - 1, 0)]
            attributes = {**loads(before[-2], {}), INTERPOLATED: True}
            box = make(entity, frame_id, *values, attributes=attributes)
            out.append(BoxRecord(box, INTERPOLATED, None, None))
        return out

    def _frame_index(self, frame_id: int) -> int:
        row = self.db.execute("SELECT frame_index FROM frames WHERE id = ?", [frame_id]).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no frame with id {frame_id}")
        return row[0]

    def _entity_key(self, entity_id: int) -> str:
        row = self.db.execute(
            "SELECT entity_key FROM entities WHERE id = ?", [entity_id]
        ).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no entity with id {entity_id}")
        return row[0]


def derived_frames(db: Any, entity_ids: list[int]) -> dict[int, set[int]]:
    """Tracked entity id -> ids of the frames where it has a box, keyframe or derived:
    from its first keyframe to its track's end (or the sequence's last frame), less the
    frames it was taken out of. Entities that are not tracked are left out."""
    if not entity_ids:
        return {}
    marks = ", ".join("?" * len(entity_ids))
    rows = db.execute(
        "SELECT e.id, f.id FROM entities e "
        "JOIN (SELECT entity_id, min(frame_index) AS first FROM (SELECT b.entity_id, "
        "g.frame_index FROM boxes_2d b JOIN frames g ON g.id = b.frame_id UNION ALL "
        "SELECT b.entity_id, g.frame_index FROM boxes_3d b JOIN frames g ON g.id = b.frame_id) "
        "GROUP BY entity_id) k ON k.entity_id = e.id "
        "JOIN frames f ON f.sequence_id = e.sequence_id AND f.frame_index >= k.first "
        "LEFT JOIN track_ends t ON t.entity_id = e.id "
        f"WHERE e.id IN ({marks}) AND {_TRACKED} "
        "AND (t.end_frame IS NULL OR f.frame_index < t.end_frame) "
        "AND NOT EXISTS (SELECT 1 FROM entity_removals r WHERE r.entity_id = e.id "
        "AND r.frame_id = f.id)",
        list(entity_ids),
    ).fetchall()
    out: dict[int, set[int]] = {}
    for entity, frame in rows:
        out.setdefault(entity, set()).add(frame)
    return out


def _columns(dims: str) -> str:
    return ", ".join(f"b.{c.strip()}" for c in _COLUMNS[dims].split(","))
