"""Package files: writing one person's assignment out of a project, hashing what it was
given, and reading back the work done in it.

A package file is an ordinary project file (same schema, opened by the same code) that
holds copies of the rows the work needs, under their ids in the sending project, and
a manifest in `project_meta` key `package`. The content hash covers exactly those
copied rows (less the columns the work itself may change), so it can be recomputed
from the returned file however much work was added to it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sqlite3
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from store import schema
from store.base import dumps, loads
from store.db import APPLICATION_ID, SQLITE_HEADER, defensive, open_project
from store.errors import ProjectError

# Copied tables in dependency order; each row is chosen by its id, or by its parent.
_BY_PARENT = {
    "scene_bodies": ("scene_id", "scenes"),
    "boxes_2d": ("frame_id", "frames"),
    "boxes_3d": ("frame_id", "frames"),
    "person_labels": ("frame_id", "frames"),
    "person_label_entries": ("frame_id", "frames"),
    "geometric_relations": ("frame_id", "frames"),
    "track_ends": ("entity_id", "entities"),  # where the copied tracks end (or reopened)
    "entity_removals": ("frame_id", "frames"),  # who was taken out of a copied frame
    "steps": ("episode_id", "episodes"),
}
# Content-addressed tables: the rows the copied steps refer to.
_BY_STEPS = {"states": "state_sha256", "images": "image_sha256"}
COPY_ORDER = (
    "annotators",
    "scenes",
    "scene_bodies",
    "sequences",
    "frames",
    "entities",
    "boxes_2d",
    "boxes_3d",
    "track_ends",
    "entity_removals",
    "person_labels",
    "person_label_entries",
    "geometric_relations",
    "hoi_labels",
    "questions",
    "verifications",
    "episodes",
    "steps",
    "states",
    "images",
)
# Columns the work in a package may change, left out of the content hash.
MUTABLE = {
    "questions": {"status", "is_current", "proposal_state"},
    "sequences": {"root"},
}
# What a blind package (a rater's, a human-baseline answerer's) leaves out of its copies of
# the questions, column -> the value it holds instead: what the Human study mode never
# shows (docs/human-study.md): the computed difficulty S, R, T, D, the answer, the
# evidence and the steps (which S and R are counted from); of the criteria only the
# images the question is asked on stay.
BLIND_QUESTIONS = {
    "difficulty_s": "NULL",
    "difficulty_r": "NULL",
    "difficulty_t": "NULL",
    "difficulty_d": "NULL",
    "answer": "'null'",
    "evidence_ids": "'[]'",
    "steps": "'[]'",
    "criteria": "(SELECT json_group_object(key, value) FROM json_each(questions.criteria) "
    "WHERE key IN ('frame_ids', 'image_ids'))",
}
# project_meta keys that belong to the file, never copied into a package.
OWN_META = {"application", "created_at", "project_id", "package", "demo_parts"}
_NOT_OWN = f"key NOT IN ({', '.join('?' * len(OWN_META))}) AND key NOT LIKE 'scene_draft:%'"


def _columns(conn: sqlite3.Connection, schema: str, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA {schema}.table_info({table})")]


def _key(table: str) -> str:
    if table in _BY_STEPS:
        return "sha256"
    if table == "track_ends":
        return "entity_id"
    return "rowid" if table == "person_label_entries" else "id"


def write_package(
    source: Path,
    target: Path,
    picks: Mapping[str, Iterable[int]],
    files: Iterable[tuple[int, str, bytes]] = (),
    *,
    blind: bool = False,
) -> dict[str, list[int]]:
    """Write a new package file at `target` with the chosen rows of the project at
    `source` (table -> ids; child tables follow their parents), its settings and
    `files` (sequence id, path under the root, bytes); `blind`: the questions without
    what `BLIND_QUESTIONS` leaves out. Returns table -> the ids copied, which
    `content_hash` covers (as the package holds them). The file has no manifest yet."""
    if target.exists():
        raise ProjectError(f"{target}: already exists; choose another package file")
    open_project(target, create=True).close()
    conn = sqlite3.connect(str(target), isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("ATTACH DATABASE ? AS src", [str(source)])
        conn.execute("BEGIN IMMEDIATE")
        copied: dict[str, list[int]] = {}
        for table in COPY_ORDER:
            columns = ", ".join(_columns(conn, "main", table))
            key = _key(table)
            if table in _BY_PARENT:
                parent_col, parent = _BY_PARENT[table]
                ids = copied.get(parent, [])
                where = f"{parent_col} IN (SELECT value FROM json_each(?))"
            else:
                ids = sorted(set(picks.get(table, ())))
                where = f"{key} IN (SELECT value FROM json_each(?))"
            if table in _BY_STEPS:
                column = _BY_STEPS[table]
                where = f"sha256 IN (SELECT {column} FROM main.steps WHERE {column} IS NOT NULL)"
                ids = [1] if copied.get("steps") else []
            if table == "entities":
                # Every entity of a copied sequence: boxes and labels refer to them.
                where = "sequence_id IN (SELECT value FROM json_each(?))"
                ids = copied.get("sequences", [])
            if not ids:
                copied[table] = []
                continue
            conn.execute(
                f"INSERT INTO main.{table}({columns}) SELECT {columns} FROM src.{table} "
                f"WHERE {where}",
                [dumps(ids)] if "?" in where else [],
            )
            copied[table] = [r[0] for r in conn.execute(f"SELECT {key} FROM main.{table}")]
        if blind:
            blank = ", ".join(f"{column} = {value}" for column, value in BLIND_QUESTIONS.items())
            conn.execute(f"UPDATE main.questions SET {blank}")
        conn.execute(
            "INSERT OR REPLACE INTO main.project_meta(key, value) SELECT key, value "
            f"FROM src.project_meta WHERE {_NOT_OWN}",
            sorted(OWN_META),
        )
        for sequence_id, path, data in files:
            conn.execute(
                "INSERT OR REPLACE INTO package_files(sequence_id, path, sha256, data) "
                "VALUES (?, ?, ?, ?)",
                [sequence_id, path, hashlib.sha256(data).hexdigest(), data],
            )
        conn.execute("COMMIT")
        conn.execute("DETACH DATABASE src")
    except BaseException:
        conn.close()
        target.unlink(missing_ok=True)
        for suffix in ("-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        raise
    conn.close()
    return copied


def one_line(exc: BaseException, limit: int = 160) -> str:
    """An error's text on one short line (SQLite quotes a broken schema's whole SQL)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def content_hash(path: Path, copied: Mapping[str, Iterable[int]]) -> str:
    """SHA-256 over the copied rows (canonical JSON, less `MUTABLE` columns), the
    settings and the carried files of the package file at `path`; a text saying what
    does not match when rows or files are missing or not what this build writes.
    `ProjectError` naming the file when its pages or texts cannot be read."""
    try:
        return _content_hash(path, copied)
    except (sqlite3.DatabaseError, ValueError, TypeError) as exc:  # ValueError: not UTF-8
        raise ProjectError(f"{path}: unreadable package file ({one_line(exc)})") from None


def _content_hash(path: Path, copied: Mapping[str, Iterable[int]]) -> str:
    conn = _open_ro(path)
    try:
        digest = hashlib.sha256()
        for table in COPY_ORDER:
            ids = sorted(set(copied.get(table, ())))
            columns = [c for c in _columns(conn, "main", table) if c not in MUTABLE.get(table, ())]
            if not columns and not ids:
                continue  # a table newer than the file, of which nothing was copied
            key = _key(table)
            rows = conn.execute(
                f"SELECT {key}, {', '.join(columns)} FROM {table} "
                f"WHERE {key} IN (SELECT value FROM json_each(?)) ORDER BY {key}",
                [dumps(ids)],
            ).fetchall()
            if len(rows) != len(ids):
                return f"missing rows of {table}"
            digest.update(dumps([table, columns, [_plain(r) for r in rows]]).encode())
        meta = conn.execute(
            f"SELECT key, value FROM project_meta WHERE {_NOT_OWN} ORDER BY key",
            sorted(OWN_META),
        ).fetchall()
        digest.update(dumps([list(r) for r in meta]).encode())
        for row in conn.execute(
            "SELECT sequence_id, path, sha256, data FROM package_files ORDER BY sequence_id, path"
        ):
            if not isinstance(row[3], bytes) or not all(isinstance(v, int | str) for v in row[:3]):
                return "a carried file that is not stored as this build stores files"
            if hashlib.sha256(row[3]).hexdigest() != row[2]:
                return f"file {row[1]} does not match its hash"
            digest.update(dumps(list(row[:3])).encode())
        return digest.hexdigest()
    finally:
        conn.close()


def _plain(row: tuple) -> list:
    """A row as JSON can hold it: BLOBs stand in by their SHA-256."""
    return [hashlib.sha256(v).hexdigest() if isinstance(v, bytes) else v for v in row]


def set_manifest(path: Path, manifest: Mapping[str, Any]) -> None:
    """Write the manifest into the package and make it one self-contained file."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        conn.execute(
            "INSERT OR REPLACE INTO project_meta(key, value) VALUES ('package', ?)",
            [dumps(dict(manifest))],
        )
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode = DELETE")
    finally:
        conn.close()


#: Far over any real package: a table of more rows, or a text cell of more characters,
#: refuses the file before its rows are read.
MAX_ROWS = 200_000
MAX_CELL = 8_000_000


@functools.cache
def _reference_schema() -> dict[tuple[str, str], tuple[str, tuple[str, ...]]]:
    """(type, name) -> (SQL, columns) of every table, index, trigger and view a file of this
    build has: the migrations applied to an empty database."""
    from sqlite_utils import Database

    db = Database(memory=True)
    schema.migrations.apply(db)
    return _schema_of(db.conn)


def _schema_of(conn: sqlite3.Connection) -> dict[tuple[str, str], tuple[str, tuple[str, ...]]]:
    out = {}
    for kind, name, sql in conn.execute("SELECT type, name, sql FROM sqlite_master"):
        columns = ()
        if kind == "table" and not (sql or "").upper().startswith("CREATE VIRTUAL"):
            columns = tuple(r[1] for r in conn.execute(f'PRAGMA table_info("{name}")'))
        out[(kind, name)] = (sql or "", columns)
    return out


def _schema_problem(conn: sqlite3.Connection) -> str | None:
    """What makes a file's schema other than a package's of this build, if anything."""
    found = conn.execute("PRAGMA application_id").fetchone()[0]
    if found != APPLICATION_ID:
        return f"application id {found}, not a ReasonScope file's ({APPLICATION_ID})"
    older = _older_build(conn)
    if older:
        return older
    reference, schema_of_file = _reference_schema(), _schema_of(conn)
    for (kind, name), (sql, columns) in schema_of_file.items():
        if sql.upper().startswith("CREATE VIRTUAL"):
            return f"it holds a virtual table {name!r}"
        if (kind, name) not in reference:
            return f"it holds a {kind} {name!r} that a work package does not have"
        want_sql, want_columns = reference[(kind, name)]
        if kind == "table" and columns != want_columns:
            extra = sorted(set(columns) - set(want_columns))
            return f"its table {name!r} has columns {extra or list(columns)} a package does not"
        if kind in ("trigger", "view", "index") and sql != want_sql:
            return f"its {kind} {name!r} differs from a package's"
    missing = sorted(n for k, n in set(reference) - set(schema_of_file) if k == "table")
    if missing:
        return f"it lacks the table {missing[0]!r} a package has"
    applied = [r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations ORDER BY rowid")]
    if applied != schema.known_migration_names():
        return f"schema version {len(applied)}; this build writes {schema.SCHEMA_VERSION}"
    return None


def _applied(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(name, applied_at) of the migrations a file records, [] when it records none."""
    has = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlite_migrations'"
    ).fetchone()
    if not has:
        return []
    return conn.execute("SELECT name, applied_at FROM _sqlite_migrations ORDER BY rowid").fetchall()


def _older_build(conn: sqlite3.Connection) -> str | None:
    """A package made by an older build (its migrations a strict start of this build's):
    what it lacks, and what to do, since its rows do not have this build's columns (a
    verdict made before criterion 4 existed cannot say whether a Compare question's
    volumes are distinct)."""
    applied = [name for name, _at in _applied(conn)]
    known = schema.known_migration_names()
    if not applied or len(applied) >= len(known) or applied != known[: len(applied)]:
        return None
    return (
        f"made by an older ReasonScope (schema version {len(applied)}; this build writes "
        f"{len(known)}, adding {', '.join(known[len(applied) :])}); recall it "
        "(reasonscope pack recall) and send the work out again in a new package"
    )


def migrated_since(path: Path, created: str) -> list[str]:
    """The migrations applied to a package file after it was made at `created`: a newer
    build opened it, so its schema, and its content hash, are no longer what was sent."""
    try:
        made = datetime.fromisoformat(created)
        conn = _open_ro(path)
        try:
            applied = _applied(conn)
        finally:
            conn.close()
        return [str(n) for n, at in applied if datetime.fromisoformat(str(at)) > made]
    except (sqlite3.DatabaseError, ValueError, TypeError):
        return []  # not readable as migrations: the hash check says what is wrong


def _size_problem(conn: sqlite3.Connection) -> str | None:
    """A table or a text far over any real package's (read by SQLite, not into memory)."""
    for (kind, name), (_sql, columns) in _reference_schema().items():
        if kind != "table" or name.startswith("sqlite_"):
            continue
        rows = conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]
        if rows > MAX_ROWS:
            return f"its table {name!r} has {rows:,} rows (a package has at most {MAX_ROWS:,})"
        for column in columns:
            longest = conn.execute(
                f'SELECT max(length("{column}")) FROM "{name}" WHERE typeof("{column}") = \'text\''
            ).fetchone()[0]
            if longest is not None and longest > MAX_CELL:
                return f"{name}.{column} holds a text of {longest:,} characters"
    return None


def check_package_file(path: Path) -> None:
    """Refuse, in one `ProjectError` naming the file, what is not a package of this build:
    no file, an empty one, not SQLite, a schema with triggers, views, virtual tables,
    tables or columns a package does not have, another schema version or application
    id, or tables and texts far over any real size. Read-only, with SQLite's defensive
    settings; nothing of the file runs."""
    if not path.is_file():
        raise ProjectError(f"{path}: no such package file")
    with path.open("rb") as fh:
        head = fh.read(len(SQLITE_HEADER))
    if not head:
        raise ProjectError(f"{path}: an empty file, not a work package")
    if head != SQLITE_HEADER:
        raise ProjectError(f"{path}: not a work package (not a SQLite file)")
    try:
        conn = _open_ro(path)
        try:
            problem = _schema_problem(conn) or _size_problem(conn)
        finally:
            conn.close()
    except (sqlite3.DatabaseError, ValueError) as exc:  # ValueError: a text not UTF-8
        raise ProjectError(f"{path}: not a usable package file ({one_line(exc)})") from None
    if problem:
        raise ProjectError(f"{path}: refused as a work package: {problem}")


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of a package file, after `check_package_file`; `ProjectError` naming
    the file when it is none."""
    check_package_file(path)
    try:
        conn = _open_ro(path)
    except (sqlite3.DatabaseError, ValueError) as exc:
        raise ProjectError(f"{path}: not a package file ({one_line(exc)})") from None
    try:
        row = conn.execute("SELECT value FROM project_meta WHERE key = 'package'").fetchone()
    except (sqlite3.DatabaseError, ValueError) as exc:
        raise ProjectError(f"{path}: not a package file ({one_line(exc)})") from None
    finally:
        conn.close()
    if row is None:
        raise ProjectError(f"{path}: a project file, not a work package (no manifest)")
    try:
        manifest = loads(row[0])
    except ValueError:
        raise ProjectError(f"{path}: its package manifest is not valid JSON") from None
    if not isinstance(manifest, dict):
        raise ProjectError(f"{path}: its package manifest is not a JSON object")
    return manifest


_VERDICT = (
    "id, question_id, annotator_id, round, unambiguous, evidence_withheld, "
    "evidence_recoverable, volumes_distinct, decision, reason, corrections, seconds_on_task, "
    "created_at"
)
_REVIEW = "id, label_id, reviewer_id, round, kind, verdict, difficulty, comment, created_at"
_ERROR = "id, episode_id, step_index, category, subcategory, note, annotator_id, created_at"
_LABEL = (
    "id, frame_id, subject_entity_id, object_entity_id, category, predicate, difficulty, "
    "annotator_id, created_at, updated_at"
)
# A rating or answer is known by its question (a person has one of each per question in a
# package; rating again replaces the row, under a new id or the same): a new rating of a
# question merged before is a changed row, whatever id SQLite gave it.
_RATING = "id, question_id, annotator_id, rating, created_at"
_ANSWER = "id, question_id, annotator_id, answer, correct, iou, reason, created_at"
_BY_QUESTION = ("difficulty_ratings", "human_answers")


def read_work(path: Path, copied: Mapping[str, Iterable[int]]) -> dict:
    """The work done in a package: its live verdicts, reviews, error labels, labels (new
    ones flagged apart from the copied ones), difficulty ratings, human answers (a package
    copies none: every one is its person's work) and audit entries (a package starts with
    an empty audit log), as plain dicts."""
    conn = _open_ro(path)
    try:

        def rows(sql: str, names: str, params: list) -> list[dict[str, Any]]:
            keys = [n.strip() for n in names.split(",")]
            return [dict(zip(keys, r, strict=True)) for r in conn.execute(sql, params)]

        old_verdicts = dumps(sorted(set(copied.get("verifications", ()))))
        old_labels = sorted(set(copied.get("hoi_labels", ())))
        work = {
            "verdicts": rows(
                f"SELECT {_VERDICT} FROM verifications WHERE retracted_at IS NULL "
                "AND id NOT IN (SELECT value FROM json_each(?)) ORDER BY id",
                _VERDICT,
                [old_verdicts],
            ),
            "reviews": rows(f"SELECT {_REVIEW} FROM hoi_reviews ORDER BY id", _REVIEW, []),
            "errors": rows(f"SELECT {_ERROR} FROM error_labels ORDER BY id", _ERROR, []),
            "labels": rows(f"SELECT {_LABEL} FROM hoi_labels ORDER BY id", _LABEL, []),
            "ratings": rows(
                f"SELECT question_id AS {_RATING} FROM difficulty_ratings ORDER BY id", _RATING, []
            ),
            "answers": rows(
                f"SELECT question_id AS {_ANSWER} FROM human_answers ORDER BY id", _ANSWER, []
            ),
            "audit": rows(
                "SELECT id, at, annotator_id, action, table_name, row_id, detail "
                "FROM audit_log ORDER BY id",
                "id, at, annotator_id, action, table_name, row_id, detail",
                [],
            ),
            "annotators": rows("SELECT id, name FROM annotators", "id, name", []),
        }
        for verdict in work["verdicts"]:
            verdict["corrections"] = loads(verdict["corrections"], {})
        for entry in work["audit"]:
            entry["detail"] = loads(entry["detail"], {})
            if entry["table_name"] in _BY_QUESTION and "question_id" in entry["detail"]:
                entry["row_id"] = entry["detail"]["question_id"]  # the rating's or answer's id
        for label in work["labels"]:
            label["copied"] = label["id"] in old_labels
        for answer in work["answers"]:
            answer["answer"] = loads(answer["answer"])
        return work
    finally:
        conn.close()


def package_files(path: Path) -> list[tuple[int, str, bytes]]:
    """The files a package carries: (sequence id, path under the root, bytes)."""
    conn = _open_ro(path)
    try:
        return [tuple(r) for r in conn.execute("SELECT sequence_id, path, data FROM package_files")]
    finally:
        conn.close()


def _open_ro(path: Path) -> sqlite3.Connection:
    """A connection that only reads. Where the folder may be written it is an ordinary one,
    so that closing it removes the -wal and -shm files a package worked in (WAL) gets
    beside it; a read-only SQLite connection would leave them behind."""
    if not path.is_file():
        raise ProjectError(f"{path}: no such package file")
    if os.access(path, os.W_OK) and os.access(path.absolute().parent, os.W_OK):
        conn = sqlite3.connect(str(path))
    else:
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    conn.execute("PRAGMA query_only = ON")
    defensive(conn)
    return conn


_BOX_WORK = {
    "boxes_2d": "id, entity_id, frame_id, x, y, w, h, annotator_id, updated_at",
    "boxes_3d": "id, entity_id, frame_id, cx, cy, cz, l, w, h, rot_z, annotator_id, updated_at",
}
_TRASHED = "label_id, record, deleted_at, deleted_by"


def _restorations(conn: sqlite3.Connection, copied: set[int]) -> list[dict]:
    """Copied removals no longer in the package: put back there. Where and by whom come
    from the package's audit log (its last 'restore' entry of the removal)."""
    present = {r[0] for r in conn.execute("SELECT id FROM entity_removals")}
    last = {  # removal id -> its last 'restore' entry (later entries overwrite earlier)
        row_id: (who, at, detail)
        for row_id, who, at, detail in conn.execute(
            "SELECT row_id, annotator_id, at, detail FROM audit_log WHERE action = 'restore' "
            "AND table_name = 'entity_removals' ORDER BY id"
        )
    }
    out = []
    for removal_id in sorted(copied - present):
        who, at, detail = last.get(str(removal_id), (None, None, None))
        detail = loads(detail, {})
        detail = detail if isinstance(detail, dict) else {}
        out.append(
            {
                "id": removal_id,
                "entity_id": detail.get("entity_id"),
                "frame_id": detail.get("frame_id"),
                "restored_by": who,
                "restored_at": at,
            }
        )
    return out


def read_annotator_work(path: Path, copied: Mapping[str, Iterable[int]], since: str) -> dict:
    """What an annotator did in a package to the boxes and labels it was sent with, beyond
    the new labels of `read_work`:

    - `entities`: people and objects drawn there (source 'annotator', not copied) that
      have a box there, with `frame_id`, the first frame they have one in;
    - `boxes`: 2D and 3D boxes set there after the package was made (`since`), with
      `dims` ('2d'/'3d') and `values`;
    - `removals`: entities taken out of a frame there;
    - `restorations`: entities the project had taken out of a frame (copied removals)
      put back there, `id` being the removal's, with who put them back and when from
      the package's audit log (None when it has no entry);
    - `track_ends`: tracks ended there after the package was made (`since`), with the
      frame (`frame_id`) they end in, `id` being the entity's;
    - `label_edits`: copied labels changed there (updated after `since`);
    - `label_deletions`: copied labels deleted there, from its trash (with who deleted
      them; a copied label missing without a trash entry has `deleted_by` None).
    """
    conn = _open_ro(path)
    try:
        copied_entities = set(copied.get("entities", ()))
        copied_labels = set(copied.get("hoi_labels", ()))
        first_frame = dict(
            conn.execute(
                "SELECT entity_id, min(frame_id) FROM (SELECT entity_id, frame_id FROM boxes_2d "
                "UNION ALL SELECT entity_id, frame_id FROM boxes_3d) GROUP BY entity_id"
            ).fetchall()
        )
        entities = []
        for r in conn.execute(
            "SELECT id, sequence_id, entity_key, kind, category, attributes FROM entities "
            "WHERE source = 'annotator' AND sequence_id IS NOT NULL ORDER BY id"
        ):
            if r[0] not in copied_entities and r[0] in first_frame:
                keys = ("id", "sequence_id", "entity_key", "kind", "category")
                entity = dict(zip(keys, r[:5], strict=True))
                entities.append(
                    {**entity, "attributes": loads(r[5], {}), "frame_id": first_frame[r[0]]}
                )
        boxes = []
        for table, columns in _BOX_WORK.items():
            names = [c.strip() for c in columns.split(",")]
            for r in conn.execute(
                f"SELECT {columns} FROM {table} WHERE source = 'annotator' AND updated_at > ? "
                "ORDER BY id",
                [since],
            ):
                row = dict(zip(names, r, strict=True))
                values = [row.pop(k) for k in names[3:-2]]
                boxes.append({**row, "dims": table[-2:], "values": values})
        removals = [
            {
                "id": r[0],
                "frame_id": r[1],
                "entity_id": r[2],
                "annotator_id": r[3],
                "removed_at": r[4],
            }
            for r in conn.execute(
                "SELECT id, frame_id, entity_id, annotator_id, removed_at FROM entity_removals "
                "WHERE removed_at > ? ORDER BY id",  # not those copied from the project
                [since],
            )
        ]
        restorations = _restorations(conn, set(copied.get("entity_removals", ())))
        present = {r[0]: r for r in conn.execute(f"SELECT {_LABEL} FROM hoi_labels")}
        names = [c.strip() for c in _LABEL.split(",")]
        edits = [
            dict(zip(names, present[i], strict=True))
            for i in sorted(copied_labels & set(present))
            if present[i][-1] > since
        ]
        trash = {r[0]: r for r in conn.execute(f"SELECT {_TRASHED} FROM hoi_label_trash")}
        deletions = []
        for label_id in sorted(copied_labels - set(present)):
            entry = trash.get(label_id)
            record = loads(entry[1], {}) if entry else {}
            deletions.append(
                {
                    "id": label_id,
                    "frame_id": (record.get("label") or {}).get("frame_id"),
                    "deleted_at": entry[2] if entry else None,
                    "deleted_by": entry[3] if entry else None,
                }
            )
        track_ends = [
            dict(
                zip(
                    ("id", "entity_id", "end_frame", "reopened", "frame_id", "annotator_id"),
                    r,
                    strict=True,
                )
            )
            for r in conn.execute(
                "SELECT t.entity_id, t.entity_id, t.end_frame, t.end_frame IS NULL, f.id, "
                "t.annotator_id FROM track_ends t JOIN entities e ON e.id = t.entity_id "
                "JOIN frames f ON f.sequence_id = e.sequence_id "
                "AND f.frame_index = coalesce(t.end_frame, t.reopened_from) "
                "WHERE t.ended_at > ? ORDER BY t.entity_id",
                [since],
            )
        ]
        return {
            "entities": entities,
            "boxes": boxes,
            "removals": removals,
            "restorations": restorations,
            "track_ends": track_ends,
            "label_edits": edits,
            "label_deletions": deletions,
        }
    finally:
        conn.close()
