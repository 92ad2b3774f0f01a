"""Simulator state snapshots stored once by content: the sha256 of their JSON text.

Hundreds of episodes on one scene start from, and in Direct and Perception mode never
leave, the same state; each snapshot is kept once, zlib-compressed, and steps refer to
it by hash, as they refer to images (`store.state_blobs` says how a snapshot is kept).
"""

from __future__ import annotations

import sqlite3
import zlib

from store.base import Repository
from store.connection import ProjectFile
from store.state_blobs import state_sha256, state_text


class StateRepository(Repository):
    def put(self, text: str) -> str:
        """Store a state's JSON text once; return its sha256. Joins the caller's transaction.

        A state already stored costs a hash and a lookup (it is not compressed again)."""
        sha = state_sha256(text)
        with self.project.write():
            if self.has(sha):
                return sha
            self.db.execute(
                "INSERT INTO states(sha256, size, data) VALUES (?, ?, ?)",
                [sha, len(text.encode("utf-8")), zlib.compress(text.encode("utf-8"), 6)],
            )
        return sha

    def has(self, sha256: str) -> bool:
        row = self.db.execute("SELECT 1 FROM states WHERE sha256 = ?", [sha256]).fetchone()
        return row is not None

    def text(self, sha256: str) -> str | None:
        row = self.db.execute("SELECT data FROM states WHERE sha256 = ?", [sha256]).fetchone()
        return state_text(row[0]) if row else None

    def count(self) -> int:
        """How many distinct states the project holds."""
        return self.db.execute("SELECT count(*) FROM states").fetchone()[0]


def table_bytes(project: ProjectFile) -> dict[str, int]:
    """Bytes of the file's pages each table takes, its indexes counted with it: what the
    file would hold after VACUUM, by table. Needs SQLite's `dbstat` table (in the builds
    Python ships); without it, everything is reported under "(all)"."""
    db = project.db
    try:
        pages = db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    except sqlite3.OperationalError:  # SQLite built without SQLITE_ENABLE_DBSTAT_VTAB
        size = db.execute("PRAGMA page_size").fetchone()[0]
        used = (
            db.execute("PRAGMA page_count").fetchone()[0]
            - db.execute("PRAGMA freelist_count").fetchone()[0]
        )
        return {"(all)": used * size}
    owner = dict(db.execute("SELECT name, tbl_name FROM sqlite_master").fetchall())
    out: dict[str, int] = {}
    for name, size in pages:
        table = owner.get(name, name)
        out[table] = out.get(table, 0) + size
    return dict(sorted(out.items(), key=lambda item: -item[1]))
