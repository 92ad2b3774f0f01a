"""The error labels an episode step can get: categories, their subcategories, where they come from.

The taxonomy lives in ``resources/taxonomies/episode_errors.json``: the error
analysis of the embodied-planning paper (environment errors; perceptual
reasoning, strategic planning and format errors of the model's output) plus
the MG-VQA failure kinds (premature answers, stale scene graphs, no recovery
after a failed grasp, wrong localisation). Labels are stored by id
(``category`` and ``subcategory``), shown by their labels.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

FORMAT = "reasonscope-taxonomy/1"


@dataclass(frozen=True)
class Subcategory:
    id: str
    label: str
    description: str = ""


@dataclass(frozen=True)
class Category:
    id: str
    label: str
    description: str = ""
    source: str = ""
    subcategories: tuple[Subcategory, ...] = ()

    def subcategory(self, sub_id: str) -> Subcategory | None:
        return next((s for s in self.subcategories if s.id == sub_id), None)


@dataclass(frozen=True)
class Taxonomy:
    name: str
    title: str
    categories: tuple[Category, ...]

    def category(self, category_id: str) -> Category | None:
        return next((c for c in self.categories if c.id == category_id), None)

    def check(self, category: str, subcategory: str = "") -> None:
        """Raise ValueError naming the valid choices when the pair is not in the taxonomy."""
        cat = self.category(category)
        if cat is None:
            known = ", ".join(c.id for c in self.categories)
            raise ValueError(f"unknown error category {category!r}; known: {known}")
        if subcategory and cat.subcategory(subcategory) is None:
            known = ", ".join(s.id for s in cat.subcategories) or "none"
            raise ValueError(f"unknown subcategory {subcategory!r} of {category!r}; known: {known}")

    def describe(self, category: str, subcategory: str = "") -> str:
        """`Category › Subcategory` in words; unknown ids are shown as they are."""
        cat = self.category(category)
        if cat is None:
            return f"{category} › {subcategory}" if subcategory else category
        if not subcategory:
            return cat.label
        sub = cat.subcategory(subcategory)
        return f"{cat.label} › {sub.label if sub else subcategory}"

    def pairs(self) -> list[tuple[str, str]]:
        """Every choosable (category, subcategory); a category without subcategories gives ""."""
        out: list[tuple[str, str]] = []
        for c in self.categories:
            out.extend((c.id, s.id) for s in c.subcategories)
            if not c.subcategories:
                out.append((c.id, ""))
        return out


def parse_taxonomy(data: dict[str, Any]) -> Taxonomy:
    """A taxonomy from its JSON form; ValueError says what is wrong with a bad one."""
    if data.get("format") != FORMAT:
        raise ValueError(f"a taxonomy needs format {FORMAT!r}, not {data.get('format')!r}")
    categories = []
    seen: set[str] = set()
    for c in data.get("categories") or []:
        if not c.get("id") or not c.get("label"):
            raise ValueError(f"every category needs an id and a label: {c!r}")
        if c["id"] in seen:
            raise ValueError(f"category id {c['id']!r} is used twice")
        seen.add(c["id"])
        subs = tuple(
            Subcategory(s["id"], s["label"], s.get("description", ""))
            for s in c.get("subcategories") or []
        )
        if len({s.id for s in subs}) != len(subs):
            raise ValueError(f"category {c['id']!r} repeats a subcategory id")
        categories.append(
            Category(c["id"], c["label"], c.get("description", ""), c.get("source", ""), subs)
        )
    if not categories:
        raise ValueError("a taxonomy needs at least one category")
    return Taxonomy(data.get("name", ""), data.get("title", ""), tuple(categories))


def load_taxonomy(path: str | Path | None = None) -> Taxonomy:
    """The shipped episode-error taxonomy, or the one in the JSON file `path`."""
    if path is not None:
        return parse_taxonomy(json.loads(Path(path).read_text(encoding="utf-8")))
    return _shipped()


@functools.cache
def _shipped() -> Taxonomy:
    text = (
        resources.files("resources")
        .joinpath("taxonomies")
        .joinpath("episode_errors.json")
        .read_text(encoding="utf-8")
    )
    return parse_taxonomy(json.loads(text))
