"""Sequences, frames, entities, boxes, person labels, geometric relations and HOI labels.

Imports write with `source = 'import'` and no annotator; a person who draws or
adjusts an object box goes through `add_object`, `set_box_2d` and `set_box_3d`,
which need the `Annotator`, record `source = 'annotator'` and land in the audit
log. Bulk `add_*` methods join the caller's transaction, so an importer wraps
them all in one `project.write()`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from annotation.jrdb.dataset import (
    PERSON_LABEL_KINDS,
    BoxRecord,
    SequenceEntity,
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
from store.base import Repository, dumps, loads
from store.errors import ProjectError, utc_now

_BOX3D_FIELDS = ("cx", "cy", "cz", "l", "w", "h", "rot_z")
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

    # -- boxes a person draws or adjusts (audited) ---------------------------------
    def add_object(
        self,
        sequence_id: int,
        key: str,
        category: str,
        annotator: Annotator,
        attributes: dict[str, Any] | None = None,
    ) -> int:
        """A new object entity drawn by a person (source 'annotator')."""
        self._require(annotator)
        with self.project.write():
            entity_id = self.add_entity(
                sequence_id, key, "object", category, attributes, source="annotator"
            )
            self._audit(annotator, "create", "entities", entity_id, {"key": key})
        return entity_id

    def set_box_2d(
        self,
        entity_id: int,
        frame_id: int,
        box: Iterable[float],
        annotator: Annotator,
        attributes: dict[str, Any] | None = None,
    ) -> Box2D:
        """Add or move an entity's 2D box in a frame; it becomes the annotator's."""
        self._require(annotator)
        x, y, w, h = _finite(box, "a 2D box [x, y, w, h]")
        if w < 0 or h < 0:
            raise ValueError(f"box width and height must not be negative, got {[x, y, w, h]}")
        with self.project.write():
            old = self._box_row("boxes_2d", "x, y, w, h", entity_id, frame_id)
            self.db.execute(
                "INSERT INTO boxes_2d(entity_id, frame_id, x, y, w, h, attributes, source, "
                "annotator_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'annotator', ?, ?) "
                "ON CONFLICT(entity_id, frame_id) DO UPDATE SET x = excluded.x, y = excluded.y, "
                "w = excluded.w, h = excluded.h, source = 'annotator', "
                "annotator_id = excluded.annotator_id, updated_at = excluded.updated_at"
                + (", attributes = excluded.attributes" if attributes is not None else ""),
                [entity_id, frame_id, x, y, w, h, dumps(attributes or {}), annotator.id, utc_now()],
            )
            detail = {"entity_id": entity_id, "frame_id": frame_id, "box": [old, [x, y, w, h]]}
            self._audit(annotator, "update" if old else "create", "boxes_2d", entity_id, detail)
        return next(b for b in self.boxes_2d(frame_id) if b.entity_id == entity_id)

    def set_box_3d(
        self,
        entity_id: int,
        frame_id: int,
        box: Iterable[float],
        annotator: Annotator,
        attributes: dict[str, Any] | None = None,
    ) -> Box3D:
        """Add or adjust an entity's 3D box (cx, cy, cz, l, w, h, rot_z) in a frame."""
        self._require(annotator)
        values = _finite(box, "a 3D box (cx, cy, cz, l, w, h, rot_z)")
        if len(values) != 7 or min(values[3:6]) < 0:
            raise ValueError(f"a 3D box needs cx, cy, cz and non-negative l, w, h, rot_z: {values}")
        with self.project.write():
            old = self._box_row("boxes_3d", ", ".join(_BOX3D_FIELDS), entity_id, frame_id)
            updates = ", ".join(f"{k} = excluded.{k}" for k in _BOX3D_FIELDS)
            self.db.execute(
                "INSERT INTO boxes_3d(entity_id, frame_id, cx, cy, cz, l, w, h, rot_z, "
                "attributes, source, annotator_id, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'annotator', ?, ?) "
                f"ON CONFLICT(entity_id, frame_id) DO UPDATE SET {updates}, "
                "source = 'annotator', annotator_id = excluded.annotator_id, "
                "updated_at = excluded.updated_at"
                + (", attributes = excluded.attributes" if attributes is not None else ""),
                [entity_id, frame_id, *values, dumps(attributes or {}), annotator.id, utc_now()],
            )
            detail = {"entity_id": entity_id, "frame_id": frame_id, "box": [old, values]}
            self._audit(annotator, "update" if old else "create", "boxes_3d", entity_id, detail)
        return next(b for b in self.boxes_3d(frame_id) if b.entity_id == entity_id)

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

    def box_records(self, frame_id: int, dims: str = "2d") -> list[BoxRecord]:
        """A frame's 2D (or 3D) boxes with their source, annotator and time of change."""
        if dims == "2d":
            columns, table, make = "x, y, w, h", "boxes_2d", Box2D
        elif dims == "3d":
            columns, table, make = ", ".join(_BOX3D_FIELDS), "boxes_3d", Box3D
        else:
            raise ValueError(f"dims must be '2d' or '3d', not {dims!r}")
        rows = self.db.execute(
            f"SELECT entity_id, frame_id, {columns}, attributes, source, annotator_id, "
            f"updated_at FROM {table} WHERE frame_id = ? ORDER BY entity_id",
            [frame_id],
        ).fetchall()
        return [
            BoxRecord(make(*r[:-4], attributes=loads(r[-4], {})), r[-3], r[-2], r[-1]) for r in rows
        ]

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
