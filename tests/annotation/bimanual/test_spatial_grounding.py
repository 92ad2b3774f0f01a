"""Foundational spatial grounding: items, the Gaussian-weighted score, tolerant replies."""

from __future__ import annotations

import math

import pytest

from annotation.bimanual.spatial_grounding import (
    DEFAULT_SIGMA,
    GroundingItem,
    averages,
    generate_items,
    parse_arm_choices,
    score_item,
    spatial_score,
)


def test_items_are_seeded_and_answers_follow_the_sign_of_x():
    a, b = generate_items("dense", 5, 3), generate_items("dense", 5, 3)
    assert a == b and a != generate_items("dense", 5, 4)
    for item in a:
        assert len(item.asked) == 5
        for name in item.asked:
            x = item.objects[name][0]
            assert item.answer(name) == ("left" if x < 0 else "right") and abs(x) >= 0.005
    cluttered = generate_items("cluttered", 2, 0)[0]
    assert len(cluttered.objects) == 8 and len(cluttered.asked) == 3
    with pytest.raises(ValueError, match="setting must be one of"):
        generate_items("crowded", 1, 0)


def test_score_is_full_when_right_and_gaussian_when_wrong():
    assert spatial_score(0.2, "right", "right") == 100.0
    assert spatial_score(-0.1, "right", "left") == pytest.approx(100 * math.exp(-0.5))
    assert spatial_score(0.0001, "left", "right") == pytest.approx(100.0, abs=0.01)
    assert spatial_score(0.3, "left", "right") < 2  # far from the centreline: no credit
    assert spatial_score(0.3, None, "right") == 0.0  # not answered
    assert spatial_score(0.1, "left", "right", sigma=0.2) > spatial_score(0.1, "left", "right")
    with pytest.raises(ValueError):
        spatial_score(0.1, "left", "right", sigma=0)
    assert DEFAULT_SIGMA == 0.10


def test_replies_are_read_tolerantly():
    prose = (
        "{visual_state_description: three blocks, results: [{object: red_block, use_arm: LEFT}, "
        "{object: green_block, use_arm: (RIGHT)}, {object: blue_block, use_arm: right}]}"
    )
    choices, notes = parse_arm_choices(prose)
    assert choices == {"red_block": "left", "green_block": "right", "blue_block": "right"}
    strict, _ = parse_arm_choices('{"RESULTS": [{"OBJECT": "Red Block", "USE_ARM": "Left"}]}')
    assert strict == {"red_block": "left"}
    nothing, notes = parse_arm_choices("I cannot see the table.")
    assert nothing == {} and notes == ["no object/use_arm pairs found"]


def test_item_scores_and_setting_averages():
    item = GroundingItem(
        "i",
        "sparse",
        {
            "red_block": (-0.2, 0, 0.76),
            "green_block": (0.05, 0, 0.76),
            "blue_block": (0.3, 0, 0.76),
        },
        ("red_block", "green_block", "blue_block"),
    )
    s = score_item(item, {"red_block": "left", "green_block": "left"})
    assert s.per_object["red_block"] == 100.0
    assert s.per_object["green_block"] == pytest.approx(100 * math.exp(-0.0025 / 0.02))
    assert s.per_object["blue_block"] == 0.0
    perfect = score_item(item, {n: item.answer(n) for n in item.asked})
    other = GroundingItem("j", "dense", item.objects, item.asked)
    table = averages([s, perfect, score_item(other, {})])
    assert table["sparse"]["n"] == 2 and table["dense"]["score"] == 0.0
    assert table["avg"]["score"] is None and table["avg"]["missing"] == ["cluttered"]
    cluttered = GroundingItem("k", "cluttered", item.objects, item.asked)
    table = averages([s, perfect, score_item(other, {}), perfect_in(cluttered)])
    assert table["avg"]["score"] == pytest.approx(((s.score + 100) / 2 + 0 + 100) / 3)


def perfect_in(item: GroundingItem):
    return score_item(item, {n: item.answer(n) for n in item.asked})
