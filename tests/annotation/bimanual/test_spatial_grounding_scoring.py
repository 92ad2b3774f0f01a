"""Spatial grounding: object spacing, the prompt, reading and scoring a prediction, summaries."""

from __future__ import annotations

import math

import pytest

from annotation.bimanual.spatial_grounding import (
    SETTINGS,
    GroundingItem,
    choices_from_results,
    generate_items,
    min_gap,
    prompt_text,
    score_prediction,
    sight_gap,
    summarise,
)

ITEM = GroundingItem(
    "sparse-0-0",
    "sparse",
    {
        "red_block": (-0.2, 0.0, 0.76),
        "green_block": (0.05, 0.0, 0.76),
        "blue_block": (0.1, 0, 0.76),
    },
    ("red_block", "green_block", "blue_block"),
    0,
)


@pytest.mark.parametrize("setting", SETTINGS)
def test_objects_never_overlap_and_stay_on_their_strip(setting):
    for item in generate_items(setting, 40, 1):
        assert item.seed == 1 and item.id.startswith(f"{setting}-1-")
        names = list(item.objects)
        for k, a in enumerate(names):
            x, y, _ = item.objects[a]
            assert -0.35 <= x <= 0.35 and -0.25 <= y <= 0.10 and abs(x) >= 0.005
            for b in names[k + 1 :]:
                pa, pb = item.objects[a][:2], item.objects[b][:2]
                front, behind = (a, b) if pa[1] < pb[1] else (b, a)
                assert math.dist(pa, pb) >= min_gap(a, b) + sight_gap(front, behind)
    assert min_gap("tray", "bowl") > min_gap("red_block", "green_block") >= 0.06
    # a mug in front of a block must stand further off than one behind it
    assert sight_gap("mug", "red_block") > sight_gap("bread", "red_block") > 0
    assert sight_gap("red_block", "mug") == sight_gap("tray", "red_block") == 0


def test_prompt_names_every_asked_object_and_the_answer_shape():
    dense = generate_items("dense", 1, 0)[0]
    text = prompt_text(dense)
    for name in dense.asked:
        assert f"{{object: {name}, use_arm: (LEFT OR RIGHT)}}" in text
    assert "results" in text and "visual_state_description" in text
    assert "left" in text and "right" in text and "```" not in text
    assert "mug" not in prompt_text(generate_items("cluttered", 1, 0)[0])  # not asked


def test_a_prediction_is_read_and_scored_per_object():
    reply = "{results: [{object: RED_BLOCK, use_arm: LEFT}, {object: green_block, use_arm: LEFT}]}"
    p = score_prediction(ITEM, "m", reply=reply, sigma=0.1)
    by = {o.object: o for o in p.objects}
    assert by["red_block"].score == 100.0 and by["red_block"].correct == "left"
    assert by["green_block"].score == pytest.approx(100 * math.exp(-0.0025 / 0.02))
    assert by["green_block"].distance == pytest.approx(0.05)
    assert by["blue_block"].predicted is None and by["blue_block"].score == 0.0
    assert p.readable and "no arm for blue_block" in p.notes
    assert p.score == pytest.approx((100 + 100 * math.exp(-0.125)) / 3)
    # rescoring with another sigma uses the stored arms and distances
    wide = p.rescored(0.2)
    assert wide.per_object["green_block"] == pytest.approx(100 * math.exp(-0.0025 / 0.08))


def test_unreadable_output_scores_zero_and_says_why():
    p = score_prediction(ITEM, "m", reply="Sorry, I cannot help with that.")
    assert not p.readable and p.score == 0.0
    assert p.notes == ["no object/use_arm pairs found"]
    parsed = score_prediction(ITEM, "m", results=[{"OBJECT": "Blue Block", "use_arm": "Right"}])
    assert parsed.choices == {"blue_block": "right"} and parsed.reply is None
    assert choices_from_results("left")[0] == {}


def test_summary_has_one_row_per_model_with_the_mean_of_settings():
    dense = GroundingItem("dense-0-0", "dense", ITEM.objects, ITEM.asked)
    right = {n: ITEM.answer(n) for n in ITEM.asked}
    preds = [
        score_prediction(
            ITEM, "a", results=[{"object": k, "use_arm": v} for k, v in right.items()]
        ),
        score_prediction(dense, "a", reply=""),
        score_prediction(ITEM, "b", reply=""),
    ]
    out = summarise(preds, 0.1)
    assert out["sigma"] == 0.1 and list(out["by_model"]) == ["a", "b"]
    a = out["by_model"]["a"]
    assert a["sparse"] == {"score": 100.0, "items": 1}
    assert a["dense"] == {"score": 0.0, "items": 1}
    # no cluttered items: Avg. is over all three settings, so the row has none
    assert "cluttered" not in a and a["average"] is None and a["missing"] == ["cluttered"]
    assert out["by_model"]["b"] == {
        "sparse": {"score": 0.0, "items": 1},
        "average": None,
        "missing": ["dense", "cluttered"],
    }
    empty = summarise([], 0.1)
    assert (
        empty["by_model"] == {}
        and "first answer is scored" in empty["settings"]["conflicting_answers"]
    )


def test_one_item_does_not_make_an_average():
    # one imported item, all right: 100 in its setting, but no Avg. (it read 100.0)
    right = [{"object": n, "use_arm": ITEM.answer(n)} for n in ITEM.asked]
    out = summarise([score_prediction(ITEM, "m", results=right)], 0.1)["by_model"]["m"]
    assert out["sparse"]["score"] == 100.0 and out["average"] is None


def test_all_three_settings_average_each_setting_equally():
    right = [{"object": n, "use_arm": ITEM.answer(n)} for n in ITEM.asked]
    items = [GroundingItem(f"{s}-0-0", s, ITEM.objects, ITEM.asked) for s in SETTINGS]
    preds = [score_prediction(items[0], "m", results=right)] * 3 + [
        score_prediction(items[1], "m", reply=""),
        score_prediction(items[2], "m", results=right),
    ]
    row = summarise(preds, 0.1)["by_model"]["m"]
    assert row["average"] == pytest.approx((100 + 0 + 100) / 3) and row["missing"] == []


@pytest.mark.parametrize(
    "reply",
    [
        '{"results": [{"object": "red_block", "use_arm": "right"},'
        ' {"object": "red_block", "use_arm": "left"}]}',
        "object: red_block, use_arm: right; object: red_block, use_arm: left",
    ],
)
def test_an_object_answered_twice_scores_its_first_answer(reply):
    # red_block is at x = -0.2: the left arm is right. Wrong then right must not score 100.
    p = score_prediction(ITEM, "m", reply=reply, sigma=0.1)
    by = {o.object: o for o in p.objects}
    assert by["red_block"].predicted == "right"
    assert by["red_block"].score == pytest.approx(100 * math.exp(-0.04 / 0.02))
    assert "red_block answered twice (right, then left): the first is scored" in p.notes
