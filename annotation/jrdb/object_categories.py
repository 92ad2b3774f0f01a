"""What a drawn box can be: the object categories of `resources/taxonomies/object_categories.json`.

Like the HOI taxonomy (`annotation.jrdb.hoi_taxonomy`), the list lives in a file, not in
code: each category has an id (the `label_id` prefix: `bag` gives `bag:3`), a label, a
key that picks it in the app's chooser, a kind (`object`, or `human` for `person`) and
the size of its first 3D box. A malformed file is refused naming the entry and the rule.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

FORMAT = "reasonscope-object-categories/1"
KINDS = ("object", "human")


@dataclass(frozen=True)
class ObjectCategory:
    id: str
    label: str
    key: str
    kind: str = "object"
    size: tuple[float, float, float] = (0.5, 0.5, 0.5)


def parse_object_categories(data: Any) -> tuple[ObjectCategory, ...]:
    """The categories of a parsed file, checked: ids are lower-case names without ':',
    keys one letter or digit, both unique; kinds object or human; sizes three positive
    numbers."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f'an object category file has "format": "{FORMAT}"')
    entries = data.get("categories")
    if not isinstance(entries, list) or not entries:
        raise ValueError('"categories": expected a non-empty list')
    out: list[ObjectCategory] = []
    ids: set[str] = set()
    keys: set[str] = set()
    for n, entry in enumerate(entries):
        where = f"categories[{n}]"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: expected an object")
        cid, key = entry.get("id"), str(entry.get("key", "")).upper()
        if not isinstance(cid, str) or not cid or cid != cid.lower() or ":" in cid:
            raise ValueError(f"{where}.id: a lower-case name without ':', not {cid!r}")
        if len(key) != 1 or not key.isalnum():
            raise ValueError(f"{where}.key: one letter or digit, not {entry.get('key')!r}")
        if cid in ids or key in keys:
            raise ValueError(f"{where}: {cid!r} or key {key!r} appears twice")
        kind = entry.get("kind", "object")
        if kind not in KINDS:
            raise ValueError(f"{where}.kind: one of {', '.join(KINDS)}, not {kind!r}")
        size = entry.get("size", [0.5, 0.5, 0.5])
        if (
            not isinstance(size, list)
            or len(size) != 3
            or not all(type(v) in (int, float) and math.isfinite(v) and v > 0 for v in size)
        ):
            raise ValueError(f"{where}.size: three positive numbers (l, w, h in metres)")
        ids.add(cid)
        keys.add(key)
        label = str(entry.get("label") or cid)
        out.append(ObjectCategory(cid, label, key, kind, tuple(float(v) for v in size)))
    return tuple(out)


def load_object_categories(path: str | Path | None = None) -> tuple[ObjectCategory, ...]:
    """The shipped categories, or those of the JSON file `path`."""
    if path is not None:
        return parse_object_categories(json.loads(Path(path).read_text(encoding="utf-8")))
    return _shipped()


@functools.cache
def _shipped() -> tuple[ObjectCategory, ...]:
    text = (
        resources.files("resources")
        .joinpath("taxonomies")
        .joinpath("object_categories.json")
        .read_text(encoding="utf-8")
    )
    return parse_object_categories(json.loads(text))
