"""Simulator state snapshots stored once by content: the sha256 of their JSON text.

Hundreds of episodes on one scene start from, and in Direct and Perception mode never
leave, the same state; each snapshot is kept once, zlib-compressed, and steps refer to
it by hash, as they refer to images.
"""

from __future__ import annotations

import hashlib
import zlib

from store.base import Repository


def state_blob(text: str) -> tuple[str, bytes]:
    """(sha256 of the JSON text, the text compressed) for the `states` table."""
    raw = text.encode("utf-8")
    return hashlib.sha256(raw).hexdigest(), zlib.compress(raw, 6)


def state_text(blob: bytes | None) -> str | None:
    return None if blob is None else zlib.decompress(blob).decode("utf-8")


class StateRepository(Repository):
    def put(self, text: str) -> str:
        """Store a state's JSON text once; return its sha256. Joins the caller's transaction."""
        sha, blob = state_blob(text)
        with self.project.write():
            self.db.execute(
                "INSERT OR IGNORE INTO states(sha256, size, data) VALUES (?, ?, ?)",
                [sha, len(text.encode("utf-8")), blob],
            )
        return sha

    def text(self, sha256: str) -> str | None:
        row = self.db.execute("SELECT data FROM states WHERE sha256 = ?", [sha256]).fetchone()
        return state_text(row[0]) if row else None
