"""Opening, checking and migrating a project file.

A project is one SQLite file opened through sqlite-utils with WAL, foreign
keys and a busy timeout. Every write goes through `Project.write()`, a
`BEGIN IMMEDIATE` transaction committed on exit, so a person's action is on
disk when the call returns and concurrent writers queue instead of failing.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import store.schema as schema
from store.errors import ProjectError, utc_now
from store.project import Project

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 30.0
#: The header's application id of every project and package file this build writes.
APPLICATION_ID = int.from_bytes(b"RScp", "big")


def defensive(conn: sqlite3.Connection) -> None:
    """SQLite's settings for a file that may come from anyone: no function of ours runs
    from its schema (triggers, views, defaults), and damaged pages are caught on read.
    (Python's sqlite3 never enables loading extensions.)"""
    conn.execute("PRAGMA trusted_schema = OFF")
    conn.execute("PRAGMA cell_size_check = ON")


def _header_problem(path: Path) -> str | None:
    """What is wrong with the fixed fields of a SQLite file's 100-byte header, if anything.

    Checked before SQLite sees the file: a damaged header whose version bytes happen
    to say WAL would otherwise make SQLite create (and remove) -wal and -shm files.
    """
    with path.open("rb") as fh:
        head = fh.read(100)
    if len(head) < 100:
        return f"{len(head)} bytes, a header has 100" if head else None
    page_size = int.from_bytes(head[16:18], "big")
    if page_size != 1 and (page_size < 512 or page_size & (page_size - 1)):
        return f"page size {page_size}"
    if head[18] not in (1, 2) or head[19] not in (1, 2):
        return f"file format versions {head[18]}/{head[19]}"
    if head[21:24] != bytes((64, 32, 32)):
        return "payload fractions are not 64/32/32"
    return None


def _check_file(path: Path, *, create: bool, readonly: bool) -> None:
    if path.is_dir():
        raise ProjectError(f"{path}: is a directory, not a project file")
    if not path.exists():
        if not create:
            raise ProjectError(f"{path}: no such project file")
        if not path.parent.exists():
            raise ProjectError(f"{path}: folder {path.parent} does not exist")
        if not os.access(path.parent, os.W_OK):
            raise ProjectError(f"{path}: cannot create a project in read-only folder {path.parent}")
        return
    try:
        with path.open("rb") as fh:
            header = fh.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise ProjectError(f"{path}: cannot be read ({exc.strerror})") from None
    if header and header != SQLITE_HEADER:
        raise ProjectError(f"{path}: not a SQLite database (wrong file header)")
    problem = _header_problem(path)
    if problem:
        raise ProjectError(f"{path}: not a usable SQLite database (damaged header: {problem})")
    if not readonly and (not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK)):
        raise ProjectError(
            f"{path}: is read-only; ReasonScope saves every change as it happens, "
            "so it needs write access (copy the file somewhere writable)"
        )


def _inspect(conn: sqlite3.Connection, path: Path) -> tuple[set[str], list[str]]:
    """Tables and applied reasonscope migrations of an existing file, read-only."""
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise ProjectError(f"{path}: not a usable SQLite database ({exc})") from None
    applied: list[str] = []
    if "_sqlite_migrations" in tables:
        applied = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM _sqlite_migrations WHERE migration_set = ? ORDER BY rowid",
                [schema.MIGRATION_SET],
            )
        ]
    return tables, applied


def _is_package(conn: sqlite3.Connection) -> bool:
    try:
        row = conn.execute("SELECT 1 FROM project_meta WHERE key = 'package'").fetchone()
    except sqlite3.DatabaseError:
        return False
    return row is not None


def _set_wal(conn: sqlite3.Connection) -> str:
    """Switch to WAL. SQLite does not apply the busy timeout to this pragma, so
    two processes creating the same new project at once retry here instead."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            return conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def open_project(
    path: str | os.PathLike[str], *, create: bool = False, readonly: bool = False
) -> Project:
    """Open (or with `create`, make) a project; migrate it to this build's schema.

    Raises `ProjectError` with a one-line message, leaving the file untouched,
    when the file is not SQLite, not a ReasonScope project, from a newer
    ReasonScope, or read-only (unless `readonly`).
    """
    path = Path(path).expanduser().absolute()
    _check_file(path, create=create, readonly=readonly)
    existed = path.exists() and path.stat().st_size > 0
    if readonly and not os.access(path, os.W_OK):
        # Nobody may write this file, so nobody is writing it: immutable needs no
        # -wal/-shm files (which a read-only connection could not clean up).
        uri = f"{path.as_uri()}?mode=ro&immutable=1"
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    else:
        # A readonly Project on a writable file still connects normally (so SQLite
        # removes its WAL index on close); Project.write() refuses all writes.
        conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=True
        )
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        defensive(conn)
        if existed:
            tables, applied = _inspect(conn, path)
            if "project_meta" not in tables and tables - {"sqlite_sequence"}:
                raise ProjectError(f"{path}: a SQLite database, but not a ReasonScope project")
            known = schema.known_migration_names()
            unknown = [name for name in applied if name not in known]
            if unknown:
                raise ProjectError(
                    f"{path}: written by a newer ReasonScope (schema {len(applied)}, "
                    f"this build knows {len(known)}); upgrade ReasonScope to open it"
                )
        if readonly:
            if existed and len(applied) < schema.SCHEMA_VERSION:
                raise ProjectError(
                    f"{path}: uses an older schema and is read-only; open a writable copy to upgrade it"
                )
            conn.execute("PRAGMA foreign_keys = ON")
            return Project(path, conn, readonly=True)
        if existed and _is_package(conn):
            # A work package is one file that travels: every commit goes into it at once
            # (no -wal beside it to forget when it is sent back).
            conn.execute("PRAGMA journal_mode = DELETE")
        else:
            mode = _set_wal(conn)
            if mode.lower() != "wal":
                raise ProjectError(f"{path}: cannot switch to WAL journal mode (got {mode})")
        # NORMAL in WAL mode: a commit survives the process being killed; only an
        # OS crash or power loss may lose the last transactions.
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        project = Project(path, conn, readonly=False)
        with project.write():  # BEGIN IMMEDIATE: concurrent first opens queue, not fail
            schema.migrations.apply(project.db)
        if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        if not existed:
            with project.write():
                project.db.execute(
                    "INSERT OR IGNORE INTO project_meta(key, value) VALUES ('created_at', ?)",
                    [utc_now()],
                )
        return project
    except ProjectError:
        conn.close()
        raise
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise ProjectError(f"{path}: {exc}") from None


def open_for_reading(path: str | os.PathLike[str]) -> Project:
    """Open a project to read it: normally, or read-only when the file or its folder
    may not be written (where `open_project` would refuse)."""
    path = Path(path).expanduser()
    return open_project(path, readonly=path.exists() and not writable(path))


def writable(path: Path) -> bool:
    """Whether this process may change the file and create its WAL files beside it."""
    return os.access(path, os.W_OK) and os.access(path.absolute().parent, os.W_OK)
