"""Sequences, frames, entities, boxes, person labels, geometric relations and HOI labels.

Imports write with `source = 'import'` and no annotator; a person who draws or
adjusts an object box goes through `add_object`, `set_box_2d` and `set_box_3d`,
which need the `Annotator`, record `source = 'annotator'` and land in the audit
log. Bulk `add_*` methods join the caller's transaction, so an importer wraps
them all in one `project.write()`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from annotation.jrdb.dataset import (
    PERSON_LABEL_KINDS,
    BoxRecord,
    SequenceEntity,
    entity_kind,
)
from annotation.jrdb.geometry import GeometricRelation
from annotation.models import (
    ENTITY_KINDS,
    Annotator,
    Box2D,
    Box3D,
    Frame,
    Sequence,
)
from store.base import dumps, loads
from store.errors import ProjectError, utc_now
from store.tracks import TrackMethods

_BOX3D_FIELDS = ("cx", "cy", "cz", "l", "w", "h", "rot_z")
# On a person's first change of an imported box, the imported values are kept: JSON
# written by Python, bound as the last parameter (SQLite's json_array keeps 15 digits: a
# yaw of 1.5707963267948966 would come back 1.5707963267949).
_ORIGINAL = "COALESCE({table}.original, CASE WHEN {table}.source = 'import' THEN ? END)"
_BOX_TABLES = (("2d", "boxes_2d", "x, y, w, h"), ("3d", "boxes_3d", ", ".join(_BOX3D_FIELDS)))
#: What a person may draw in a sequence: someone or something the labels missed.
DRAWN_KINDS = ("human", "object")
_RELATION_FIELDS = (
    "subject_entity_id",
    "reference_entity_id",
    "direction",
    "vertical",
    "distance_bin",
    "distance_m",
    "method",
)


def _finite(values: Iterable[float], what: str) -> list[float]:
    out = [float(v) for v in values]
    if not all(math.isfinite(v) for v in out):
        raise ValueError(f"{what} must be finite numbers, got {out}")
    return out


def _relation_row(frame_id: int, relation: GeometricRelation | Mapping[str, Any]) -> list[Any]:
    get = relation.get if isinstance(relation, Mapping) else lambda k: getattr(relation, k)
    row = [frame_id] + [get(k) for k in _RELATION_FIELDS]
    if row[1] is None or not row[3] or not row[5]:
        raise ValueError("a relation needs subject_entity_id, direction and distance_bin")
    row[7] = row[7] or ""
    return row


class SequenceRepository(TrackMethods):
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

    def list(self) -> list[Sequence]:
        """Every sequence, in id order."""
        return [self.get(r[0]) for r in self.db.execute("SELECT id FROM sequences ORDER BY id")]

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

    def set_root(self, sequence_id: int, root: str) -> None:
        """Where the sequence's files are now (a work package unpacks them beside itself)."""
        with self.project.write():
            self.db.execute("UPDATE sequences SET root = ? WHERE id = ?", [root, sequence_id])

    def frame(self, frame_id: int) -> Frame:
        row = self.db.execute(
            "SELECT id, sequence_id, frame_index, image_path, pointcloud_paths FROM frames "
            "WHERE id = ?",
            [frame_id],
        ).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no frame with id {frame_id}")
        return Frame(row[0], row[1], row[2], row[3], tuple(loads(row[4], [])))

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
        timestamp: float | None = None,
    ) -> Frame:
        with self.project.write():
            cur = self.db.execute(
                "INSERT INTO frames(sequence_id, frame_index, image_path, pointcloud_paths, "
                "timestamp) VALUES (?, ?, ?, ?, ?)",
                [sequence_id, index, image_path, dumps(list(pointcloud_paths)), timestamp],
            )
        return Frame(cur.lastrowid, sequence_id, index, image_path, tuple(pointcloud_paths))

    def frame_times(self, sequence_id: int) -> dict[int, float | None]:
        """Frame index -> seconds from the sequence's start."""
        rows = self.db.execute(
            "SELECT frame_index, timestamp FROM frames WHERE sequence_id = ? ORDER BY frame_index",
            [sequence_id],
        ).fetchall()
        return dict(rows)

    def add_entity(
        self,
        sequence_id: int,
        key: str,
        kind: str,
        category: str = "",
        attributes: dict[str, Any] | None = None,
        source: str = "import",
    ) -> int:
        if kind not in ENTITY_KINDS:
            raise ValueError(f"entity kind must be one of {ENTITY_KINDS}, not {kind!r}")
        with self.project.write():
            cur = self.db.execute(
                "INSERT INTO entities(sequence_id, entity_key, kind, category, attributes, "
                "source) VALUES (?, ?, ?, ?, ?, ?)",
                [sequence_id, key, kind, category, dumps(attributes or {}), source],
            )
        return cur.lastrowid

    def entities(self, sequence_id: int, kind: str | None = None) -> list[SequenceEntity]:
        """The sequence's persons and objects (optionally one kind), in key order."""
        sql = (
            "SELECT id, entity_key, kind, category, attributes, source FROM entities "
            "WHERE sequence_id = ?"
        )
        params: list[Any] = [sequence_id]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        rows = self.db.execute(sql + " ORDER BY entity_key", params).fetchall()
        return [SequenceEntity(r[0], r[1], r[2], r[3], loads(r[4], {}), r[5]) for r in rows]

    def set_entity_attributes(self, entity_id: int, attributes: dict[str, Any]) -> None:
        """Replace an entity's attributes (imports: demographics gathered over frames)."""
        with self.project.write():
            self.db.execute(
                "UPDATE entities SET attributes = ? WHERE id = ?", [dumps(attributes), entity_id]
            )

    # -- calibration -------------------------------------------------------------
    def set_calibration(
        self, sequence_id: int, calibration: dict[str, Any], annotator: Annotator
    ) -> Sequence:
        """Replace a sequence's lidar calibration (a person's adjustment, audited)."""
        self._require(annotator)
        with self.project.write():
            old = self.get(sequence_id).calibration
            self.db.execute(
                "UPDATE sequences SET calibration = ? WHERE id = ?",
                [dumps(calibration), sequence_id],
            )
            self._audit(
                annotator, "update", "sequences", sequence_id, {"calibration": [old, calibration]}
            )
        return self.get(sequence_id)

    # -- boxes written by an import (join the caller's transaction) --------------
    def add_box_2d(
        self,
        entity_id: int,
        frame_id: int,
        box: Iterable[float],
        attributes: dict[str, Any] | None = None,
    ) -> None:
        x, y, w, h = _finite(box, "a 2D box [x, y, w, h]")
        with self.project.write():
            self.db.execute(
                "INSERT INTO boxes_2d(entity_id, frame_id, x, y, w, h, attributes, source) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'import')",
                [entity_id, frame_id, x, y, w, h, dumps(attributes or {})],
            )

    def add_box_3d(
        self,
        entity_id: int,
        frame_id: int,
        box: Iterable[float],
        attributes: dict[str, Any] | None = None,
    ) -> None:
        values = _finite(box, "a 3D box (cx, cy, cz, l, w, h, rot_z)")
        with self.project.write():
            self.db.execute(
                "INSERT INTO boxes_3d(entity_id, frame_id, cx, cy, cz, l, w, h, rot_z, "
                "attributes, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'import')",
                [entity_id, frame_id, *values, dumps(attributes or {})],
            )

    def add_person_label(
        self,
        frame_id: int,
        entity_id: int,
        kind: str,
        label: str,
        difficulty: int | None = None,
        other_entity_id: int | None = None,
    ) -> None:
        if kind not in PERSON_LABEL_KINDS:
            raise ValueError(f"person label kind must be one of {PERSON_LABEL_KINDS}, not {kind!r}")
        with self.project.write():
            self.db.execute(
                "INSERT INTO person_labels(frame_id, entity_id, kind, label, difficulty, "
                "other_entity_id) VALUES (?, ?, ?, ?, ?, ?)",
                [frame_id, entity_id, kind, label, difficulty, other_entity_id],
            )

    def add_label_entry(self, frame_id: int, entity_id: int, entry: dict[str, Any]) -> None:
        """Keep a person's entry of the activity/social file as written (import only)."""
        with self.project.write():
            self.db.execute(
                "INSERT INTO person_label_entries(frame_id, entity_id, entry) VALUES (?, ?, ?)",
                [frame_id, entity_id, dumps(entry)],
            )

    def label_entries(self, frame_id: int) -> dict[int, dict[str, Any]]:
        """A frame's activity/social entries as imported, by entity id."""
        rows = self.db.execute(
            "SELECT entity_id, entry FROM person_label_entries WHERE frame_id = ? ORDER BY rowid",
            [frame_id],
        ).fetchall()
        return {entity_id: loads(entry) for entity_id, entry in rows}

    def person_labels(self, frame_id: int) -> list[dict[str, Any]]:
        """A frame's activity/social/demographic labels, one dict a label."""
        rows = self.db.execute(
            "SELECT entity_id, kind, label, difficulty, other_entity_id FROM person_labels "
            "WHERE frame_id = ? ORDER BY entity_id, id",
            [frame_id],
        ).fetchall()
        keys = ("entity_id", "kind", "label", "difficulty", "other_entity_id")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    # -- entities and boxes a person draws, adjusts or removes (audited) -------------
    def next_key(self, sequence_id: int, category: str) -> str:
        """A label id no entity of the sequence has, after the highest of its prefix:
        "pedestrian:31" when the dataset's people run to pedestrian:30, "chair:4" after
        "chair:3". A person's prefix is JRDB's `pedestrian`."""
        kind, prefix = entity_kind(f"{category}:0")
        prefix = "pedestrian" if kind == "human" else prefix
        keys = set(self.entity_ids(sequence_id))
        numbers = [
            int(m.group(1)) for k in keys if (m := re.fullmatch(rf"{re.escape(prefix)}:(\d+)", k))
        ]
        return f"{prefix}:{max(numbers, default=0) + 1}"

    def add_drawn_entity(
        self,
        sequence_id: int,
        kind: str,
        category: str,
        annotator: Annotator,
        key: str | None = None,
        attributes: dict[str, Any] | None = None,
    ) -> int:
        """A person or object the dataset's labels missed, drawn by a person (source
        'annotator'). Without `key` it gets `next_key`; a key the sequence has is refused."""
        self._require(annotator)
        if kind not in DRAWN_KINDS:
            raise ValueError(f"a drawn entity is one of {', '.join(DRAWN_KINDS)}, not {kind!r}")
        category = " ".join(str(category).split()).lower()
        if kind == "human":
            category = "pedestrian"
        if not category or ":" in category:
            raise ValueError(f"an object needs a category name like 'chair', not {category!r}")
        with self.project.write():
            key = key or self.next_key(sequence_id, category)
            if entity_kind(key)[0] != kind:
                raise ValueError(f"{key} names a {entity_kind(key)[0]}, not a {kind}")
            if key in self.entity_ids(sequence_id):
                raise ProjectError(f"{self.project.path}: the sequence already has {key}")
            entity_id = self.add_entity(
                sequence_id, key, kind, category, attributes, source="annotator"
            )
            self._audit(annotator, "create", "entities", entity_id, {"key": key, "kind": kind})
        return entity_id

    def add_object(
        self,
        sequence_id: int,
        key: str,
        category: str,
        annotator: Annotator,
        attributes: dict[str, Any] | None = None,
    ) -> int:
        """A new object entity drawn by a person (source 'annotator')."""
        return self.add_drawn_entity(sequence_id, "object", category, annotator, key, attributes)

    def remove_entity(self, entity_id: int, frame_id: int, annotator: Annotator) -> dict:
        """Take an entity out of one frame (a box the dataset should not have): its 2D and
        3D boxes there are kept in `entity_removals` (the export lists it; `restore_entity`
        undoes it) and its computed relations there dropped. Refused while it has HOI
        labels in the frame, as subject or target: those are deleted first."""
        self._require(annotator)
        with self.project.write():
            labels = self.db.execute(
                "SELECT count(*) FROM hoi_labels WHERE frame_id = ? "
                "AND (subject_entity_id = ? OR object_entity_id = ?)",
                [frame_id, entity_id, entity_id],
            ).fetchone()[0]
            if labels:
                raise ProjectError(
                    f"{self.project.path}: {self._key_of(entity_id)} has {labels} HOI "
                    f"label(s) in frame {self.frame(frame_id).index}; delete them first"
                )
            boxes = {
                dims: row
                for dims, table, columns in _BOX_TABLES
                if (row := self._whole_box(table, columns, entity_id, frame_id))
            }
            if not any(boxes.values()):
                raise ProjectError(
                    f"{self.project.path}: {self._key_of(entity_id)} has no box in frame "
                    f"{self.frame(frame_id).index}; there is nothing to remove"
                )
            for _dims, table, _columns in _BOX_TABLES:
                self.db.execute(
                    f"DELETE FROM {table} WHERE entity_id = ? AND frame_id = ?",
                    [entity_id, frame_id],
                )
            self.db.execute(
                "DELETE FROM geometric_relations WHERE frame_id = ? "
                "AND (subject_entity_id = ? OR reference_entity_id = ?)",
                [frame_id, entity_id, entity_id],
            )
            cur = self.db.execute(
                "INSERT INTO entity_removals(frame_id, entity_id, boxes, annotator_id, "
                "removed_at) VALUES (?, ?, ?, ?, ?)",
                [frame_id, entity_id, dumps(boxes), annotator.id, utc_now()],
            )
            detail = {"entity_id": entity_id, "frame_id": frame_id, "boxes": boxes}
            self._audit(annotator, "delete", "entity_removals", cur.lastrowid, detail)
        return boxes

    def restore_entity(self, entity_id: int, frame_id: int, annotator: Annotator) -> None:
        """Put a removed entity back into the frame with the boxes it had (undo)."""
        self._require(annotator)
        with self.project.write():
            row = self.db.execute(
                "SELECT id, boxes FROM entity_removals WHERE entity_id = ? AND frame_id = ?",
                [entity_id, frame_id],
            ).fetchone()
            if row is None:
                raise ProjectError(
                    f"{self.project.path}: {self._key_of(entity_id)} was not removed from "
                    f"frame {self.frame(frame_id).index}"
                )
            boxes = loads(row[1], {})
            for dims, table, columns in _BOX_TABLES:
                box = boxes.get(dims)
                if box:  # back as it was: values, attributes, source, author, original
                    self.db.execute(
                        f"INSERT INTO {table}(entity_id, frame_id, {columns}, attributes, "
                        "source, annotator_id, updated_at, original) VALUES (?, ?, "
                        f"{', '.join('?' * len(box['values']))}, ?, ?, ?, ?, ?)",
                        [entity_id, frame_id, *box["values"], dumps(box["attributes"])]
                        + [box["source"], box["annotator_id"], box["updated_at"]]
                        + [dumps(box["original"]) if box["original"] else None],
                    )
            self.db.execute("DELETE FROM entity_removals WHERE id = ?", [row[0]])
            detail = {"entity_id": entity_id, "frame_id": frame_id}
            self._audit(annotator, "restore", "entity_removals", row[0], detail)

    def removals(self, sequence_id: int) -> list[dict[str, Any]]:
        """Entities people took out of frames: frame_id, frame_index, entity_id, key,
        boxes (as they were), annotator_id, removed_at; by frame, then key."""
        rows = self.db.execute(
            "SELECT r.id, r.frame_id, f.frame_index, r.entity_id, e.entity_key, r.boxes, "
            "r.annotator_id, r.removed_at FROM entity_removals r "
            "JOIN frames f ON f.id = r.frame_id JOIN entities e ON e.id = r.entity_id "
            "WHERE f.sequence_id = ? ORDER BY f.frame_index, e.entity_key",
            [sequence_id],
        ).fetchall()
        keys = ("id", "frame_id", "frame_index", "entity_id", "key", "boxes")
        keys += ("annotator_id", "removed_at")
        out = [dict(zip(keys, r, strict=True)) for r in rows]
        for row in out:
            row["boxes"] = loads(row["boxes"], {})
        return out

    def _whole_box(
        self, table: str, columns: str, entity_id: int, frame_id: int
    ) -> dict[str, Any] | None:
        row = self.db.execute(
            f"SELECT {columns}, attributes, source, annotator_id, updated_at, original "
            f"FROM {table} WHERE entity_id = ? AND frame_id = ?",
            [entity_id, frame_id],
        ).fetchone()
        if row is None:
            return None
        n = len(row) - 5
        return {
            "values": list(row[:n]),
            "attributes": loads(row[n], {}),
            "source": row[n + 1],
            "annotator_id": row[n + 2],
            "updated_at": row[n + 3],
            "original": loads(row[n + 4]) if row[n + 4] else None,
        }

    def _key_of(self, entity_id: int) -> str:
        row = self.db.execute(
            "SELECT entity_key FROM entities WHERE id = ?", [entity_id]
        ).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no entity with id {entity_id}")
        return row[0]

    def set_box_2d(
        self,
        entity_id: int,
        frame_id: int,
        box: Iterable[float],
        annotator: Annotator,
        attributes: dict[str, Any] | None = None,
    ) -> Box2D:
        """Add or move an entity's 2D box in a frame; it becomes the annotator's, and a
        keyframe of the entity's track (`check_keyframe` says what is refused)."""
        self._require(annotator)
        x, y, w, h = self.check_keyframe(entity_id, frame_id, "2d", box)
        with self.project.write():
            old = self._box_row("boxes_2d", "x, y, w, h", entity_id, frame_id)
            self.db.execute(
                "INSERT INTO boxes_2d(entity_id, frame_id, x, y, w, h, attributes, source, "
                "annotator_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'annotator', ?, ?) "
                "ON CONFLICT(entity_id, frame_id) DO UPDATE SET x = excluded.x, y = excluded.y, "
                "w = excluded.w, h = excluded.h, source = 'annotator', "
                f"original = {_ORIGINAL.format(table='boxes_2d')}, "
                "annotator_id = excluded.annotator_id, updated_at = excluded.updated_at"
                + (", attributes = excluded.attributes" if attributes is not None else ""),
                [entity_id, frame_id, x, y, w, h, dumps(attributes or {}), annotator.id, utc_now()]
                + [dumps(old) if old else None],
            )
            detail = {"entity_id": entity_id, "frame_id": frame_id, "box": [old, [x, y, w, h]]}
            self._audit(annotator, "update" if old else "create", "boxes_2d", entity_id, detail)
        record = self.box_record(entity_id, frame_id, "2d")
        assert record is not None
        return record.box

    def set_box_3d(
        self,
        entity_id: int,
        frame_id: int,
        box: Iterable[float],
        annotator: Annotator,
        attributes: dict[str, Any] | None = None,
    ) -> Box3D:
        """Add or adjust an entity's 3D box (cx, cy, cz, l, w, h, rot_z) in a frame: a
        keyframe of the entity's track (`check_keyframe` says what is refused)."""
        self._require(annotator)
        values = list(self.check_keyframe(entity_id, frame_id, "3d", box))
        with self.project.write():
            old = self._box_row("boxes_3d", ", ".join(_BOX3D_FIELDS), entity_id, frame_id)
            updates = ", ".join(f"{k} = excluded.{k}" for k in _BOX3D_FIELDS)
            self.db.execute(
                "INSERT INTO boxes_3d(entity_id, frame_id, cx, cy, cz, l, w, h, rot_z, "
                "attributes, source, annotator_id, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'annotator', ?, ?) "
                f"ON CONFLICT(entity_id, frame_id) DO UPDATE SET {updates}, "
                f"original = {_ORIGINAL.format(table='boxes_3d')}, "
                "source = 'annotator', annotator_id = excluded.annotator_id, "
                "updated_at = excluded.updated_at"
                + (", attributes = excluded.attributes" if attributes is not None else ""),
                [entity_id, frame_id, *values, dumps(attributes or {}), annotator.id, utc_now()]
                + [dumps(old) if old else None],
            )
            detail = {"entity_id": entity_id, "frame_id": frame_id, "box": [old, values]}
            self._audit(annotator, "update" if old else "create", "boxes_3d", entity_id, detail)
        record = self.box_record(entity_id, frame_id, "3d")
        assert record is not None
        return record.box

    def _box_row(self, table: str, columns: str, entity_id: int, frame_id: int) -> list | None:
        row = self.db.execute(
            f"SELECT {columns} FROM {table} WHERE entity_id = ? AND frame_id = ?",
            [entity_id, frame_id],
        ).fetchone()
        return list(row) if row else None

    # -- reading boxes -------------------------------------------------------------
    def boxes_2d(self, frame_id: int) -> list[Box2D]:
        return [r.box for r in self.box_records(frame_id, "2d")]

    def boxes_3d(self, frame_id: int) -> list[Box3D]:
        return [r.box for r in self.box_records(frame_id, "3d")]

    def box_record(self, entity_id: int, frame_id: int, dims: str = "2d") -> BoxRecord | None:
        """One entity's 2D (or 3D) box in a frame, with its provenance, or None."""
        found = self.box_records(frame_id, dims, entity_id=entity_id)
        return found[0] if found else None

    def box_records(
        self,
        frame_id: int,
        dims: str = "2d",
        *,
        entity_id: int | None = None,
        derived: bool = True,
    ) -> list[BoxRecord]:
        """A frame's 2D (or 3D) boxes (or one entity's) with their source, annotator and
        time of change; a tracked entity without a keyframe here has its derived box
        (source 'interpolated', `derived_records`) unless `derived` is False."""
        if dims == "2d":
            columns, table, make = "x, y, w, h", "boxes_2d", Box2D
        elif dims == "3d":
            columns, table, make = ", ".join(_BOX3D_FIELDS), "boxes_3d", Box3D
        else:
            raise ValueError(f"dims must be '2d' or '3d', not {dims!r}")
        one = "" if entity_id is None else " AND entity_id = ?"
        rows = self.db.execute(
            f"SELECT entity_id, frame_id, {columns}, attributes, source, annotator_id, "
            f"updated_at, original FROM {table} WHERE frame_id = ?{one} ORDER BY entity_id",
            [frame_id] if entity_id is None else [frame_id, entity_id],
        ).fetchall()
        stored = [
            BoxRecord(
                make(*r[:-5], attributes=loads(r[-5], {})),
                r[-4],
                r[-3],
                r[-2],
                tuple(loads(r[-1])) if r[-1] else None,
            )
            for r in rows
        ]
        if not derived:
            return stored
        more = self.derived_records(frame_id, dims, entity_id=entity_id)
        return sorted(stored + more, key=lambda r: r.box.entity_id) if more else stored

    # -- geometric relations ---------------------------------------------------------
    def set_relations(
        self, frame_id: int, relations: Iterable[GeometricRelation | Mapping[str, Any]]
    ) -> int:
        """Replace a frame's computed relations in one transaction; returns how many."""
        rows = [_relation_row(frame_id, r) for r in relations]
        with self.project.write():
            self.db.execute("DELETE FROM geometric_relations WHERE frame_id = ?", [frame_id])
            self.db.conn.executemany(
                "INSERT INTO geometric_relations(frame_id, subject_entity_id, "
                "reference_entity_id, direction, vertical, distance_bin, distance_m, method) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            self._audit(None, "compute", "geometric_relations", frame_id, {"count": len(rows)})
        return len(rows)

    def relations(self, frame_id: int) -> list[GeometricRelation]:
        """A frame's computed relations, subject by subject."""
        rows = self.db.execute(
            f"SELECT {', '.join(_RELATION_FIELDS)} FROM geometric_relations WHERE frame_id = ? "
            "ORDER BY subject_entity_id, reference_entity_id IS NOT NULL, reference_entity_id, id",
            [frame_id],
        ).fetchall()
        return [GeometricRelation(frame_id, *r) for r in rows]

    def has_relations(self, frame_id: int) -> bool:
        """Whether a frame has computed relations (without reading them)."""
        row = self.db.execute(
            "SELECT 1 FROM geometric_relations WHERE frame_id = ? LIMIT 1", [frame_id]
        ).fetchone()
        return row is not None
