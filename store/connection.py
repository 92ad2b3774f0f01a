"""An open project file: one SQLite connection, its write transactions and metadata."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

import store.schema as schema
from store.errors import ProjectError


class ProjectFile:
    """An open project file: its connection, transactions and metadata.

    `store.project.Project` adds the repositories; a repository gets this, so it
    can write, but not the other repositories unless they are handed to it.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, *, readonly: bool) -> None:
        self.path = path
        self.readonly = readonly
        self.db = Database(conn, execute_plugins=False)
        # While set, repositories write no audit entries: a package merge replays work
        # through them and copies the package's own entries (who did it, and when).
        self.audit_muted = False

    # -- transactions -------------------------------------------------------
    @contextmanager
    def write(self) -> Iterator[Database]:
        """One atomic, immediately committed write. Nested calls join the outer one."""
        if self.readonly:
            raise ProjectError(f"{self.path}: opened read-only; cannot change it")
        conn = self.db.conn
        if conn.in_transaction:
            yield self.db
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise ProjectError(f"{self.path}: cannot start a write ({exc})") from None
        try:
            yield self.db
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        """Inside a write: a part that is undone alone when it raises (the write goes on)."""
        self.db.execute("SAVEPOINT part")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK TO part")
            self.db.execute("RELEASE part")
            raise
        self.db.execute("RELEASE part")

    @property
    def data_version(self) -> int:
        """SQLite's `PRAGMA data_version`: it changes when another connection (another
        process: a command-line import, a second window) commits to the file, and not for
        this connection's own writes. Cheap enough to poll."""
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    @property
    def schema_version(self) -> int:
        return self.db.execute(
            "SELECT count(*) FROM _sqlite_migrations WHERE migration_set = ?",
            [schema.MIGRATION_SET],
        ).fetchone()[0]

    # -- project metadata ----------------------------------------------------
    def meta_get(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM project_meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else None

    def meta_list(self, key: str) -> list[str]:
        value = self.meta_get(key)
        return json.loads(value) if value else []

    def meta_append(self, key: str, item: str) -> None:
        with self.write():
            items = self.meta_list(key)
            if item not in items:
                items.append(item)
            self.db.execute(
                "INSERT INTO project_meta(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, json.dumps(items)],
            )

    def checkpoint(self) -> None:
        """Fold the WAL into the main file (before copying or moving it)."""
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def integrity_ok(self) -> bool:
        return self.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    def close(self) -> None:
        self.db.conn.close()

    def __enter__(self) -> ProjectFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
