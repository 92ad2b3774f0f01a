"""The HOI label set: four kinds of interaction, their labels and the key that sets each one.

The shipped taxonomy is ``resources/taxonomies/hoi.json``. A stored HOI label
keeps the label's id as its ``predicate`` and the kind's id as its
``category``; the words shown on screen and written by the export are the
label's ``label``. Pose-based labels describe the person alone; every other
kind needs a target object. The store accepts any predicate (older projects
and tools write their own); the Annotate panels only offer this taxonomy.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

FORMAT = "reasonscope-hoi-taxonomy/1"
#: Keys the HOI panels use for something else: difficulty and the review queue.
RESERVED_KEYS = frozenset({"1", "2", "3", "A", "R", "J", "K"})


@dataclass(frozen=True)
class HoiLabelType:
    """One choosable label, e.g. `holding` (category `physical`, key H, needs a target)."""

    id: str
    label: str
    category: str
    key: str
    needs_target: bool
    description: str = ""


@dataclass(frozen=True)
class HoiCategory:
    id: str
    label: str
    needs_target: bool
    labels: tuple[HoiLabelType, ...]
    description: str = ""


@dataclass(frozen=True)
class HoiTaxonomy:
    name: str
    title: str
    categories: tuple[HoiCategory, ...]

    def labels(self) -> list[HoiLabelType]:
        """Every label, in the file's order (category by category)."""
        return [label for c in self.categories for label in c.labels]

    def label(self, label_id: str) -> HoiLabelType | None:
        return next((t for t in self.labels() if t.id == label_id), None)

    def by_key(self, key: str) -> HoiLabelType | None:
        return next((t for t in self.labels() if t.key == key.upper()), None)

    def category(self, category_id: str) -> HoiCategory | None:
        return next((c for c in self.categories if c.id == category_id), None)

    def words(self, label_id: str) -> str:
        """What a stored predicate reads as; an unknown id is shown as it is."""
        found = self.label(label_id)
        return found.label if found else label_id

    def check(self, label_id: str, has_target: bool) -> HoiLabelType:
        """The label, or ValueError when it is unknown or its target is missing or extra."""
        found = self.label(label_id)
        if found is None:
            known = ", ".join(t.id for t in self.labels())
            raise ValueError(f"unknown HOI label {label_id!r}; known: {known}")
        if found.needs_target and not has_target:
            raise ValueError(f"{found.label!r} needs a target object")
        if not found.needs_target and has_target:
            raise ValueError(f"{found.label!r} is pose-based and takes no target")
        return found


def check_label(taxonomy: HoiTaxonomy, predicate: str, category: str, has_target: bool) -> None:
    """A label given from outside the panels (a work package, a script): one of the
    taxonomy's, with its own category, and a target exactly when it takes one; else
    `ValueError` saying which."""
    found = taxonomy.check(predicate, has_target)
    if category != found.category:
        raise ValueError(f"{found.label!r} is a {found.category} label, not {category!r}")


def parse_hoi_taxonomy(data: dict[str, Any]) -> HoiTaxonomy:
    """A taxonomy from its JSON form; ValueError names what is wrong with a bad one."""
    if data.get("format") != FORMAT:
        raise ValueError(f"an HOI taxonomy needs format {FORMAT!r}, not {data.get('format')!r}")
    categories: list[HoiCategory] = []
    ids: set[str] = set()
    keys: dict[str, str] = {}
    for c in data.get("categories") or []:
        if not c.get("id") or not c.get("label"):
            raise ValueError(f"every category needs an id and a label: {c!r}")
        needs_target = bool(c.get("target", True))
        labels = []
        for item in c.get("labels") or []:
            label_id, key = item.get("id"), str(item.get("key", "")).upper()
            if not label_id or not item.get("label"):
                raise ValueError(f"every label of {c['id']!r} needs an id and a label: {item!r}")
            if label_id in ids:
                raise ValueError(f"label id {label_id!r} is used twice")
            if len(key) != 1 or not key.isalnum():
                raise ValueError(f"label {label_id!r} needs a one-character key, not {key!r}")
            if key in RESERVED_KEYS:
                raise ValueError(f"label {label_id!r}: key {key} is reserved for the panels")
            if key in keys:
                raise ValueError(f"key {key} is given to both {keys[key]!r} and {label_id!r}")
            ids.add(label_id)
            keys[key] = label_id
            labels.append(
                HoiLabelType(
                    label_id, item["label"], c["id"], key, needs_target, item.get("description", "")
                )
            )
        if not labels:
            raise ValueError(f"category {c['id']!r} has no labels")
        if any(existing.id == c["id"] for existing in categories):
            raise ValueError(f"category id {c['id']!r} is used twice")
        categories.append(
            HoiCategory(c["id"], c["label"], needs_target, tuple(labels), c.get("description", ""))
        )
    if not categories:
        raise ValueError("an HOI taxonomy needs at least one category")
    return HoiTaxonomy(data.get("name", ""), data.get("title", ""), tuple(categories))


def load_hoi_taxonomy(path: str | Path | None = None) -> HoiTaxonomy:
    """The shipped HOI taxonomy, or the one in the JSON file `path`."""
    if path is not None:
        return parse_hoi_taxonomy(json.loads(Path(path).read_text(encoding="utf-8")))
    return _shipped()


@functools.cache
def _shipped() -> HoiTaxonomy:
    text = (
        resources.files("resources")
        .joinpath("taxonomies")
        .joinpath("hoi.json")
        .read_text(encoding="utf-8")
    )
    return parse_hoi_taxonomy(json.loads(text))
