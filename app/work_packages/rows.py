"""The shape of each row of work read back from a package, checked before any rule is.

SQLite keeps any value in any column, so a package edited with `sqlite3` may hold a
text where an id belongs, 2.5 where a yes/no belongs, or a 200 MB reason. `check_row`
refuses such a row with `ValueError` naming the column; the rules themselves (a
verdict's criteria, a review's range, who may act) are then the store's and the
checked constructors', as for work given in the app (docs/work-packages.md#merge).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

#: The longest text a row of work may hold (a reason, a comment, a note): far over any
#: real one, far under what would fill a disk.
MAX_TEXT = 20_000

#: The package table each kind of work is read from (named in a refusal's reason).
TABLES = {
    "verdict": "verifications",
    "review": "hoi_reviews",
    "entity": "entities",
    "box": "boxes",
    "removal": "entity_removals",
    "restoration": "entity_removals",
    "track end": "track_ends",
    "label": "hoi_labels",
    "label edit": "hoi_labels",
    "label deletion": "hoi_label_trash",
    "error label": "error_labels",
    "rating": "difficulty_ratings",
    "answer": "human_answers",
}


def _id(value: Any) -> bool:
    return type(value) is int and 0 < value < 1 << 62


def _id_or_none(value: Any) -> bool:
    return value is None or _id(value)


def _int(value: Any) -> bool:
    return type(value) is int and abs(value) < 1 << 62


def _int_or_none(value: Any) -> bool:
    return value is None or _int(value)


def _yes_no(value: Any) -> bool:
    return type(value) is int and value in (0, 1)


def _yes_no_or_none(value: Any) -> bool:
    return value is None or _yes_no(value)


def _text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_TEXT


def _number_or_none(value: Any) -> bool:
    return value is None or (
        type(value) in (int, float) and math.isfinite(value) and abs(value) < 1e12
    )


def _mapping(value: Any) -> bool:
    return isinstance(value, dict)


def _numbers(value: Any) -> bool:
    return isinstance(value, list) and all(
        type(v) in (int, float) and math.isfinite(v) and abs(v) < 1e9 for v in value
    )


_SHAPES: dict[str, dict[str, tuple[Callable[[Any], bool], str]]] = {
    "verdict": {
        "question_id": (_id, "a question id"),
        "round": (_text, "first or adjudication"),
        "unambiguous": (_yes_no, "0 or 1"),
        "evidence_withheld": (_yes_no, "0 or 1"),
        "evidence_recoverable": (_yes_no, "0 or 1"),
        "volumes_distinct": (_yes_no_or_none, "0, 1 or empty (criterion 4: Compare only)"),
        "decision": (_text, "a decision"),
        "reason": (_text, f"a text of at most {MAX_TEXT:,} characters"),
        "corrections": (_mapping, "an object of corrected fields"),
        "seconds_on_task": (_number_or_none, "a finite number of seconds"),
    },
    "review": {
        "label_id": (_id, "a label id"),
        "round": (_int, "a round number"),
        "kind": (_text, "review or qc"),
        "verdict": (_text, "accept or reject"),
        "difficulty": (_int_or_none, "1, 2, 3 or empty"),
        "comment": (_text, f"a text of at most {MAX_TEXT:,} characters"),
    },
    "entity": {
        "sequence_id": (_id, "a sequence id"),
        "entity_key": (_text, "a label id"),
        "kind": (_text, "person or object"),
        "category": (_text, "a category name"),
        "attributes": (_mapping, "an object"),
    },
    "box": {
        "entity_id": (_id, "an entity id"),
        "frame_id": (_id, "a frame id"),
        "values": (_numbers, "finite numbers"),
    },
    "removal": {"entity_id": (_id, "an entity id"), "frame_id": (_id, "a frame id")},
    "restoration": {"entity_id": (_id, "an entity id"), "frame_id": (_id, "a frame id")},
    "track end": {
        "entity_id": (_id, "an entity id"),
        "frame_id": (_id, "a frame id"),
        "reopened": (_yes_no_or_none, "true, false or empty"),  # empty: before reopenings
    },
    "label": {
        "frame_id": (_id, "a frame id"),
        "subject_entity_id": (_id, "an entity id"),
        "object_entity_id": (_id_or_none, "an entity id or empty"),
        "category": (_text, "a category id"),
        "predicate": (_text, "a label id"),
        "difficulty": (_int, "1, 2 or 3"),
    },
    "label deletion": {"frame_id": (_id, "a frame id")},
    "error label": {
        "episode_id": (_id, "an episode id"),
        "step_index": (_int_or_none, "a step index or empty"),
        "category": (_text, "a category id"),
        "subcategory": (_text, "a subcategory id"),
        "note": (_text, f"a text of at most {MAX_TEXT:,} characters"),
    },
    "rating": {"question_id": (_id, "a question id"), "rating": (_int, "1 to 5")},
    "answer": {"question_id": (_id, "a question id")},
}
_SHAPES["label edit"] = _SHAPES["label"]


def check_row(kind: str, row: dict[str, Any]) -> None:
    """Refuse (`ValueError` naming the column) a row of work whose values are not of the
    shape the schema means; the rules come after, in the store."""
    for column, (fits, what) in _SHAPES.get(kind, {}).items():
        value = row.get(column)
        if not fits(value):
            shown = repr(value)
            shown = shown if len(shown) <= 40 else f"{shown[:37]}... ({len(shown):,} characters)"
            raise ValueError(f"{column} must be {what}, not {shown}")
