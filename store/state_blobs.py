"""How a state snapshot is stored: the sha256 of its JSON text and the text zlib-compressed.

Imports nothing of the store, so that migration 0009 (`store.schema`) can move the
states of older projects with the same functions `store.states` writes new ones with.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any


def state_json(state: Any) -> str:
    """A state's JSON text as every state is stored and hashed: compact, UTF-8 kept."""
    return json.dumps(state, separators=(",", ":"), ensure_ascii=False)


def state_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def state_blob(text: str) -> tuple[str, bytes]:
    """(sha256 of the JSON text, the text compressed) for the `states` table."""
    raw = text.encode("utf-8")
    return hashlib.sha256(raw).hexdigest(), zlib.compress(raw, 6)


def state_text(blob: bytes | None) -> str | None:
    return None if blob is None else zlib.decompress(blob).decode("utf-8")


def move_inline_states(db: Any, batch: int = 500) -> int:
    """Migration 0009's data step: every `steps.state` moved to `states`; return how many.

    Each state is written again as new ones are (`state_json`), so a snapshot stored by
    an older build and the same snapshot stored now share one row. Steps are read a
    batch at a time, so a project of many episodes never sits in memory at once.
    """
    moved = last = 0
    while True:
        rows = db.execute(
            "SELECT id, state FROM steps WHERE state IS NOT NULL AND id > ? ORDER BY id LIMIT ?",
            [last, batch],
        ).fetchall()
        if not rows:
            return moved
        for step_id, stored in rows:
            text = state_json(json.loads(stored))
            sha, blob = state_blob(text)
            db.execute(
                "INSERT OR IGNORE INTO states(sha256, size, data) VALUES (?, ?, ?)",
                [sha, len(text.encode("utf-8")), blob],
            )
            db.execute(
                "UPDATE steps SET state_sha256 = ?, state = NULL WHERE id = ?", [sha, step_id]
            )
        moved += len(rows)
        last = rows[-1][0]


# -- long step text, compressed in place ----------------------------------------------------
PACK_MIN = 256  # bytes: shorter text is kept as it is (small answers stay readable in SQL)


def pack_text(text: str) -> str | bytes:
    """A step's text column as stored: text of PACK_MIN bytes or more becomes a zlib BLOB
    (SQLite keeps a column's type per value; these columns hold no other BLOBs), shorter
    text stays text, so SQL's JSON functions still read small results and answers."""
    raw = text.encode("utf-8")
    if len(raw) < PACK_MIN:
        return text
    packed = zlib.compress(raw, 6)
    return packed if len(packed) < len(raw) else text


def unpack_text(value: str | bytes | None) -> str | None:
    """The text of a value `pack_text` stored (text as it is, a BLOB decompressed)."""
    if isinstance(value, bytes):
        return zlib.decompress(value).decode("utf-8")
    return value
