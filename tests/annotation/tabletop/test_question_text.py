"""Question wording: every template fills completely, grammatically enough."""

from __future__ import annotations

import random
import re

import pytest

from annotation.tabletop.question_text import TEMPLATES, fill, phrase, plural, with_article
from sim.tabletop.catalog import load_catalog


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("red mug", "red mugs"),
        ("tissue box", "tissue boxes"),
        ("glass", "glasses"),
        ("battery", "batteries"),
        ("toy", "toys"),
        ("sticky notes", "sticky notes"),
        ("bus", "buses"),
    ],
)
def test_plural(name, expected):
    assert plural(name) == expected


def test_article():
    assert with_article("orange") == "an orange"
    assert with_article("red mug") == "a red mug"


def test_a_thousand_questions_have_no_unfilled_slots():
    rng = random.Random(0)
    names = [e.name for e in load_catalog()]
    for _ in range(1000):
        task = rng.choice(list(TEMPLATES))
        name = rng.choice(names)
        values = {
            "count": {"plural": plural(name)},
            "find": {"a_name": with_article(name)},
            "beneath": {"cover": name},
            "compare": {"extreme": rng.choice(["largest", "smallest"])},
        }[task]
        text = phrase(task, rng, **values)
        assert not re.search(r"[{}]", text) and text[0].isupper() and text.endswith(("?", "."))
        assert "  " not in text and " a a" not in text and " a e" not in text


def test_fill_refuses_missing_or_extra_values():
    with pytest.raises(ValueError):
        fill("How many {plural}?")
    with pytest.raises(ValueError):
        fill("How many {plural}?", plural="mugs", extra="x")
