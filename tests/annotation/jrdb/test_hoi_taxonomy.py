"""The shipped HOI taxonomy: the paper's four kinds, unique keys clear of the panels' own,
and checks that name what is wrong with a bad file."""

from __future__ import annotations

import json

import pytest

from annotation.jrdb.hoi_taxonomy import (
    FORMAT,
    RESERVED_KEYS,
    load_hoi_taxonomy,
    parse_hoi_taxonomy,
)


def test_four_categories_with_their_labels():
    t = load_hoi_taxonomy()
    assert [c.id for c in t.categories] == ["pose", "observational", "physical", "manipulative"]
    assert [c.needs_target for c in t.categories] == [False, True, True, True]
    ids = {label.id for label in t.labels()}
    assert {"standing", "walking", "sitting", "looking_at", "touching", "holding"} <= ids
    assert {"carrying", "pushing", "operating", "working_on", "typing_on"} <= ids
    assert t.words("looking_at") == "looking at" and t.words("dancing") == "dancing"
    assert t.category("physical").label == "Physical"


def test_keys_are_unique_single_characters_outside_the_reserved_ones():
    labels = load_hoi_taxonomy().labels()
    keys = [label.key for label in labels]
    assert len(set(keys)) == len(keys)
    assert all(len(k) == 1 for k in keys)
    assert not set(keys) & RESERVED_KEYS
    t = load_hoi_taxonomy()
    assert t.by_key("h").id == "holding" and t.by_key("1") is None


def test_check_wants_a_target_exactly_where_the_kind_needs_one():
    t = load_hoi_taxonomy()
    assert t.check("holding", has_target=True).category == "physical"
    assert t.check("walking", has_target=False).category == "pose"
    with pytest.raises(ValueError, match="needs a target"):
        t.check("holding", has_target=False)
    with pytest.raises(ValueError, match="takes no target"):
        t.check("walking", has_target=True)
    with pytest.raises(ValueError, match="unknown HOI label"):
        t.check("juggling", has_target=False)


def _taxonomy(**label) -> dict:
    item = {"id": "x", "label": "x", "key": "Q", **label}
    return {"format": FORMAT, "categories": [{"id": "c", "label": "C", "labels": [item]}]}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"format": "other"}, "format"),
        ({"format": FORMAT, "categories": []}, "at least one"),
        (_taxonomy(key="1"), "reserved"),
        (_taxonomy(key="QQ"), "one-character"),
        ({"format": FORMAT, "categories": [{"id": "c", "label": "C", "labels": []}]}, "no labels"),
    ],
)
def test_bad_taxonomies_are_refused(data, message):
    with pytest.raises(ValueError, match=message):
        parse_hoi_taxonomy(data)


def test_keys_must_not_repeat(tmp_path):
    data = _taxonomy()
    data["categories"][0]["labels"].append({"id": "y", "label": "y", "key": "q"})
    path = tmp_path / "hoi.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="given to both"):
        load_hoi_taxonomy(path)
