"""JRDB-Reasoning scoring: IoU, levels, answers, steps, Spearman and the tables."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace as NS

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import spearmanr

from annotation.jrdb.reasoning_eval import (
    NO_GOLD,
    RatingPoint,
    Score,
    box_outside_image,
    difficulty_level,
    impossible_boxes,
    iou_xywh,
    match_boxes,
    parse_count,
    score_answer,
    score_step,
    score_steps,
)
from annotation.jrdb.reasoning_tables import (
    accuracy_by_level,
    average_ranks,
    human_accuracy_by_level,
    paper_table,
    rho_words,
    spearman,
    spearman_p,
    spearman_table,
    step_curves,
)

GOLD = {"entity_ids": ["pedestrian:3"], "image_id": "000012.jpg", "boxes": [[0, 0, 10, 10]]}


# -- IoU ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ([0, 0, 10, 10], [0, 0, 10, 10], 1.0),
        ([0, 0, 10, 10], [5, 0, 10, 10], 50 / 150),
        ([0, 0, 10, 10], [0, 0, 5, 10], 0.5),
        ([0, 0, 10, 10], [10, 0, 10, 10], 0.0),  # touching edges overlap nothing
        ([0, 0, 10, 10], [20, 20, 5, 5], 0.0),
        ([0, 0, 10, 10], [2, 2, 6, 6], 36 / 100),  # one inside the other
        ([0, 0, 0, 0], [0, 0, 0, 0], 0.0),
    ],
)
def test_iou_exact_values(a, b, expected):
    assert iou_xywh(a, b) == pytest.approx(expected)
    assert iou_xywh(b, a) == pytest.approx(expected)


def test_the_iou_threshold_is_strict():
    exactly_half = [0, 0, 5, 10]  # IoU 0.5 exactly
    score = score_answer("vg", GOLD, exactly_half)
    assert score.iou == 0.5 and not score.correct and "<= 0.5" in score.reason
    assert score_answer("vg", GOLD, [0, 0, 5.01, 10]).correct


# -- the panorama's seam ----------------------------------------------------------------------
W = 3760


@pytest.mark.parametrize(
    ("gold", "predicted", "expected"),
    [
        # a gold box past the seam against its visible part at the left edge: 80 of 100 columns
        ([3740, 100, 100, 200], [0, 100, 80, 200], 0.8),
        # the same box written starting left of 0
        ([3712.2, 100, 100, 200], [-47.8, 100, 100, 200], 1.0),
        # a gold box written left of 0 against a prediction at the right edge
        ([-20, 0, 40, 10], [3740, 0, 20, 10], 0.5),
        # both across the seam, written differently (x + w past W vs negative x)
        ([3750, 0, 20, 10], [-10, 0, 20, 10], 1.0),
        # far from the seam nothing changes
        ([100, 0, 10, 10], [105, 0, 10, 10], 50 / 150),
        ([0, 0, 10, 10], [3750, 0, 10, 10], 0.0),  # touching across the seam
    ],
)
def test_iou_wraps_at_the_seam_in_both_directions(gold, predicted, expected):
    assert iou_xywh(gold, predicted, W) == pytest.approx(expected)
    assert iou_xywh(predicted, gold, W) == pytest.approx(expected)
    assert match_boxes([gold], [predicted])[1] == pytest.approx(expected)  # the default


def test_vg_scores_seam_boxes_on_the_cylinder():
    gold = {"entity_ids": ["pedestrian:7"], "boxes": [[3740, 100, 100, 200]]}
    score = score_answer("vg", gold, [0, 100, 80, 200])
    assert score.correct and score.iou == pytest.approx(0.8)
    assert score_answer("vg", {"boxes": [[3712.2, 50, 90, 300]]}, [-47.8, 50, 90, 300]).correct
    # a flat image (no wrap) keeps the plain IoU: the parts do not meet
    assert match_boxes([[3740, 100, 100, 200]], [[0, 100, 80, 200]], wrap=None) == (False, 0.0)


@given(
    st.floats(-W / 2, 1.5 * W),
    st.floats(0, 400),
    st.floats(1, W / 2),
    st.floats(1, 300),
    st.floats(-W / 2, 1.5 * W),
    st.floats(0, 400),
    st.floats(1, W / 2),
    st.floats(1, 300),
    st.integers(-2, 2),
)
def test_seam_iou_is_the_best_shift_and_shift_invariant(ax, ay, aw, ah, bx, by, bw, bh, k):
    a, b = [ax, ay, aw, ah], [bx, by, bw, bh]
    # an independent reading of "compare on the cylinder": the best of the plain IoUs of a
    # against b shifted by whole panorama widths
    best = max(iou_xywh(a, [bx + j * W, by, bw, bh]) for j in range(-3, 4))
    assert iou_xywh(a, b, W) == pytest.approx(best, abs=1e-9)
    assert iou_xywh(a, [bx + k * W, by, bw, bh], W) == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize(
    ("box", "problem"),
    [
        ([1000, 150, 1100, 420], "runs past the image's rows"),  # [x1, y1, x2, y2]
        ([1000, -40, 50, 100], "runs past the image's rows"),
        ([100, 100, 2500, 200], "more than half the panorama"),
        ([6000, 100, 50, 100], "off the panorama"),
    ],
)
def test_boxes_that_cannot_be_xywh_on_the_panorama(box, problem):
    assert problem in box_outside_image(box, W, 480)
    gold = {"boxes": [[100, 100, 50, 100]]}
    assert problem in impossible_boxes("vg", gold, box)


@pytest.mark.parametrize(
    "box",
    [[3740, 100, 100, 200], [-47.8, 100, 100, 200], [0, 0, 50, 480], [10, -3, 20, 486]],
)
def test_boxes_across_the_seam_or_at_the_edges_are_fine(box):
    assert box_outside_image(box, W, 480) is None
    assert impossible_boxes("vg", {"boxes": [[0, 0, 1, 1]]}, box) is None
    assert impossible_boxes("vqa-count", 3, box) is None  # not a VG question: not judged
    assert box_outside_image([3740, 100, 100, 200], W, 480, wrap=False) is not None


# -- levels ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("srt", "level"),
    [
        ((1, 0, 1), "D1"),
        ((2, 1, 1), "D2"),
        ((2, 3, 1), "D2"),
        ((3, 2, 1), "D3"),
        ((3, 5, 1), "D3"),
        ((1, 1, 1), "other"),  # one node with a relation (to the robot): not D1
        ((2, 0, 1), "other"),
        ((3, 1, 1), "other"),
        ((4, 3, 1), "other"),
        ((1, 0, 2), "other"),  # video
        ((None, None, None), "other"),
    ],
)
def test_difficulty_levels_follow_the_paper(srt, level):
    assert difficulty_level(*srt) == level


# -- answers --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "predicted",
    [
        [1, 1, 10, 10],
        {"box": [1, 1, 10, 10]},
        {"bbox": [1, 1, 10, 10]},
        [[1, 1, 10, 10]],
        {"boxes": [[1, 1, 10, 10]]},
        "[1, 1, 10, 10]",
    ],
)
def test_vg_box_forms(predicted):
    score = score_answer("vg", GOLD, predicted)
    assert score.correct and score.iou == pytest.approx(81 / 119)


@pytest.mark.parametrize(
    ("predicted", "why"),
    [
        ([1, 2, 3], "not [x, y, w, h]"),
        (["a", 0, 1, 1], "non-number"),
        ([0, 0, float("nan"), 1], "non-number"),
        ([0, 0, -5, 10], "negative"),
        ([True, 0, 10, 10], "non-number"),
        ("a box", "not [x, y, w, h]"),
        ({"where": [0, 0, 1, 1]}, "no 'box'"),
        (7, "not [x, y, w, h]"),
    ],
)
def test_malformed_boxes_are_incorrect_with_a_reason(predicted, why):
    score = score_answer("vg", GOLD, predicted)
    assert not score.correct and score.iou == 0.0
    assert score.reason.startswith("malformed") and why in score.reason


def test_missing_answer_and_unusable_gold_never_raise():
    assert score_answer("vg", GOLD, None).reason == "no answer"
    assert score_answer("vqa-count", 3, None) == Score(False, None, "no answer")
    bad_gold = score_answer("vg", {"entity_ids": [], "boxes": []}, [0, 0, 1, 1])
    assert not bad_gold.correct and "no gold box" in bad_gold.reason
    odd_gold = score_answer("vg", {"boxes": [["x"]]}, [0, 0, 1, 1])
    assert not odd_gold.correct and "unusable" in odd_gold.reason
    # a blind work package holds no gold answer: nothing to score against, whatever the task
    for task, answer in (("vg", [0, 0, 1, 1]), ("vqa-count", 3), ("vqa-wh", "adult")):
        assert score_answer(task, None, answer) == Score(False, None, NO_GOLD)


def test_several_targets_match_one_to_one():
    gold = {"entity_ids": ["a", "b"], "boxes": [[0, 0, 10, 10], [100, 0, 10, 10]]}
    both = score_answer("vg", gold, [[100, 0, 10, 10], [0, 0, 10, 10]])  # any order
    assert both.correct and both.iou == pytest.approx(1.0)
    one = score_answer("vg", gold, [0, 0, 10, 10])
    assert not one.correct and "1 box(es) for 2 target(s)" in one.reason
    assert one.iou == pytest.approx(0.5)  # the unpaired gold box counts 0
    same_twice = score_answer("vg", gold, [[0, 0, 10, 10], [0, 0, 10, 10]])
    assert not same_twice.correct


def test_hungarian_prefers_more_pairs_above_threshold_over_total_iou():
    gold = [[2, 3, 13, 11], [5, 2, 14, 14]]
    predicted = [[1, 4, 14, 13], [4, 3, 11, 11]]
    # the largest total IoU pairs g0-p1 (0.85) and g1-p0 (0.47, not enough); pairing g0-p0
    # (0.67) and g1-p1 (0.53) has less IoU in total but both pairs above 0.5
    ok, mean_iou = match_boxes(gold, predicted)
    assert ok and mean_iou == pytest.approx((2 / 3 + 0.5314009661835749) / 2)


@pytest.mark.parametrize("predicted", [3, "3", " 3 ", "3.", 3.0, "three", "There are 3 people."])
def test_counts_are_read_tolerantly(predicted):
    assert score_answer("vqa-count", 3, predicted).correct


@pytest.mark.parametrize("predicted", [4, "4", "3 or 4", True, 3.5, [3], "many"])
def test_wrong_or_unreadable_counts(predicted):
    score = score_answer("vqa-count", 3, predicted)
    assert not score.correct and score.iou is None


def test_parse_count_refuses_booleans():
    with pytest.raises(ValueError, match="boolean"):
        parse_count(False)


@pytest.mark.parametrize(
    ("gold", "predicted", "correct"),
    [
        ("young_adulthood", "young adulthood", True),
        ("young adulthood", "Young_Adulthood", True),
        ("female", "  FEMALE ", True),
        ("female", "female.", True),
        ("middle_adulthood", "middle-adulthood", True),
        ("female", "male", False),
        ("sitting", {"answer": "Sitting"}, True),
        (["chair", "seat"], "seat", True),
    ],
)
def test_wh_answers_ignore_case_spaces_and_underscores(gold, predicted, correct):
    assert score_answer("vqa-wh", gold, predicted).correct is correct


# -- steps ----------------------------------------------------------------------------------
STEPS = [
    {
        "description": "all persons",
        "entity_ids": ["p:1", "p:2", "p:3"],
        "slot": 0,
        "boxes": {"p:1": [0, 0, 10, 10], "p:2": [50, 0, 10, 10], "p:3": [100, 0, 10, 10]},
    },
    {
        "description": "female",
        "entity_ids": ["p:1", "p:3"],
        "slot": 0,
        "boxes": {"p:1": [0, 0, 10, 10], "p:3": [100, 0, 10, 10]},
    },
    {
        "description": "sitting",
        "entity_ids": ["p:3"],
        "slot": 0,
        "boxes": {"p:3": [100, 0, 10, 10]},
    },
]


def test_step_boxes_match_one_to_one():
    assert score_step(STEPS[1], [[101, 0, 10, 10], [0, 1, 10, 10]])
    assert score_step(STEPS[1], {"boxes": [[0, 0, 10, 10], [100, 0, 10, 10]]})
    assert not score_step(STEPS[1], [[0, 0, 10, 10]])  # one entity missing
    assert not score_step(STEPS[1], [[0, 0, 10, 10], [100, 0, 10, 10], [50, 0, 10, 10]])
    assert not score_step(STEPS[1], [[0, 0, 10, 10], [0, 0, 10, 10]])  # same box twice
    assert not score_step(STEPS[1], [[0, 0, 1, 2, 3]])  # malformed


def test_step_counts_and_entity_ids():
    assert score_step(STEPS[0], 3) and score_step(STEPS[0], "3") and not score_step(STEPS[0], 2)
    assert score_step(STEPS[1], ["p:3", "p:1"]) and not score_step(STEPS[1], ["p:1"])
    assert score_step(STEPS[2], {"entity_ids": ["p:3"]}) and score_step(STEPS[2], {"count": 1})
    assert not score_step(STEPS[2], None) and not score_step(STEPS[2], True)


def test_score_steps_pads_missing_steps_as_wrong():
    assert score_steps(STEPS, None) is None
    assert score_steps(STEPS, [3, 2]) == [True, True, False]
    assert score_steps(STEPS, "oops") == [False, False, False]


# -- Spearman -------------------------------------------------------------------------------
def test_average_ranks_share_ties():
    assert average_ranks([10, 20, 20, 30]) == [1, 2.5, 2.5, 4]
    assert average_ranks([3, 3, 3]) == [2, 2, 2]


@pytest.mark.parametrize("seed", range(6))
def test_spearman_equals_scipy_with_and_without_ties(seed):
    rng = random.Random(seed)
    n = rng.randint(3, 60)
    xs = [rng.randint(1, 5) for _ in range(n)]  # ratings: many ties
    ys = [rng.choice([3, 4, 5, 6, 7]) + rng.random() * (seed % 2) for _ in range(n)]
    expected = spearmanr(xs, ys)
    if math.isnan(expected.statistic):
        assert spearman(xs, ys) is None
        return
    assert spearman(xs, ys) == pytest.approx(expected.statistic, abs=1e-12)
    assert spearman_p(spearman(xs, ys), n) == pytest.approx(expected.pvalue, rel=1e-6)


def test_spearman_edge_cases():
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1], [1]) is None
    assert spearman([2, 2, 2], [1, 2, 3]) is None
    with pytest.raises(ValueError):
        spearman([1, 2], [1])
    assert rho_words(0.85) == "very strong positive" and rho_words(-0.45) == "moderate negative"
    assert rho_words(0.1) == "very weak" and rho_words(None) == "undefined"


# -- tables ---------------------------------------------------------------------------------
def _p(model, level, correct, *, task="vg", iou=None, steps=None, modality="image"):
    return NS(
        model=model,
        benchmark="jrdb",
        task=task,
        level=level,
        correct=correct,
        iou=iou,
        step_correct=steps,
        modality=modality,
    )


def test_accuracy_by_level():
    rows = accuracy_by_level(
        [
            _p("A", "D1", True, iou=0.9),
            _p("A", "D1", False, iou=0.1),
            _p("A", "D3", True, iou=0.7),
            _p("B", "D2", False, task="vqa-count"),
        ]
    )
    (a, b) = rows
    assert (a["model"], a["task"], b["model"], b["task"]) == ("A", "vg", "B", "vqa-count")
    assert a["levels"]["D1"] == {"n": 2, "correct": 1, "accuracy_pct": 50.0, "mean_iou": 0.5}
    assert a["levels"]["D2"]["n"] == 0 and a["levels"]["D2"]["accuracy_pct"] is None
    assert a["all"]["accuracy_pct"] == pytest.approx(66.67) and b["all"]["mean_iou"] is None


def test_image_and_video_questions_never_share_a_row():
    rows = accuracy_by_level(
        [
            _p("A", "D1", True, task="vqa-wh"),
            _p("A", "D1", False, task="vqa-wh", modality="video"),
        ]
    )
    assert [(r["modality"], r["levels"]["D1"]["accuracy_pct"]) for r in rows] == [
        ("image", 100.0),
        ("video", 0.0),
    ]


def test_human_rows_are_the_mean_of_annotators():
    def h(who, level, correct):
        return NS(
            annotator_id=who,
            benchmark="jrdb",
            task="vqa-wh",
            level=level,
            correct=correct,
            iou=None,
            modality="image",
        )

    # annotator 1: 1/1 at D1; annotator 2: 1/3 at D1 -> mean of 100 and 33.3, not 2/4
    answers = [h(1, "D1", True), h(2, "D1", True), h(2, "D1", False), h(2, "D1", False)]
    (row,) = human_accuracy_by_level(answers)
    d1 = row["levels"]["D1"]
    assert row["model"] == "human" and d1["annotators"] == 2 and d1["n"] == 4
    assert d1["accuracy_pct"] == pytest.approx((100 + 100 / 3) / 2, abs=0.01)
    assert row["levels"]["D2"]["annotators"] == 0


def test_step_curves_per_model_and_level():
    preds = [
        _p("A", "D1", True, steps=[True, True, False]),
        _p("A", "D1", True, steps=[True, False, False]),
        _p("A", "D2", True, steps=[True, True, True, False]),
        _p("A", "D2", True, steps=None),  # no step answers: left out
    ]
    curves = {(c["model"], c["level"]): c["curve"] for c in step_curves(preds)}
    assert [p["accuracy_pct"] for p in curves[("A", "D1")]] == [100.0, 50.0, 0.0]
    assert [p["n"] for p in curves[("A", "all")]] == [3, 3, 3, 1]
    assert curves[("A", "all")][3]["accuracy_pct"] == 0.0


def test_spearman_table_uses_each_question_once():
    points = [
        RatingPoint("jrdb", "vg", "q1", 1, 1, 3),
        RatingPoint("jrdb", "vg", "q1", 2, 2, 3),
        RatingPoint("jrdb", "vg", "q2", 1, 3, 5),
        RatingPoint("jrdb", "vg", "q3", 1, 5, 7),
        RatingPoint("jrdb", "vqa-wh", "q4", 1, 4, 4),
    ]
    rows = spearman_table(points)
    assert [(r["task"], r["n"], r["ratings"]) for r in rows] == [
        ("vg", 3, 4),
        ("vqa-wh", 1, 1),
        ("all", 4, 5),
    ]
    assert rows[0]["rho"] == pytest.approx(1.0) and rows[0]["annotators"] == 2
    assert rows[1]["rho"] is None and rows[1]["words"] == "undefined"


def test_the_paper_tables_pool_vqa_and_keep_modalities_apart():
    preds = [
        # model A on images: Wh 1/2 at D1, Count 1/1 at D1, Wh 1/1 at D2, Count 0/1 at D3
        _p("A", "D1", True, task="vqa-wh"),
        _p("A", "D1", False, task="vqa-wh"),
        _p("A", "D1", True, task="vqa-count"),
        _p("A", "D2", True, task="vqa-wh"),
        _p("A", "D3", False, task="vqa-count"),
        _p("A", "other", True, task="vqa-wh"),  # T > 1: left out of D1-D3
        _p("A", "D1", False, task="vqa-wh", modality="video"),  # another table's
        _p("A", "D1", True, task="vg", iou=0.8),  # the VG table's
    ]
    humans = [
        NS(
            annotator_id=who,
            benchmark="jrdb",
            task=task,
            level=lv,
            correct=ok,
            iou=None,
            modality="image",
        )
        for who, task, lv, ok in [
            (1, "vqa-wh", "D1", True),
            (2, "vqa-count", "D1", False),
            (2, "vqa-wh", "D1", True),
        ]
    ]
    table = paper_table("vqa_images", preds, humans)
    rows = {(r["model"], r["part"]): r for r in table["rows"]}
    assert list(rows) == [
        ("A", "VQA"),
        ("A", "Wh"),
        ("A", "Count"),
        ("human", "VQA"),
        ("human", "Wh"),
        ("human", "Count"),
    ]
    pooled = rows[("A", "VQA")]
    assert [pooled["levels"][lv]["accuracy_pct"] for lv in ("D1", "D2", "D3")] == [
        pytest.approx(66.67),
        100.0,
        0.0,
    ]
    assert pooled["average_pct"] == pytest.approx((200 / 3 + 100 + 0) / 3, abs=0.01)
    assert rows[("A", "Wh")]["missing"] == ["D3"] and rows[("A", "Wh")]["average_pct"] is None
    assert rows[("A", "Count")]["levels"]["D1"]["accuracy_pct"] == 100.0
    # humans: annotator 1 100 %, annotator 2 50 % on the pooled D1 -> 75, not 2 of 3
    assert rows[("human", "VQA")]["levels"]["D1"]["accuracy_pct"] == 75.0
    assert table["left_out"] == {"other": 1}
    video = paper_table("vqa_videos", preds, [])
    assert [(r["part"], r["levels"]["D1"]["n"]) for r in video["rows"]] == [
        ("VQA", 1),
        ("Wh", 1),
        ("Count", 0),
    ]
    (vg,) = paper_table("vg_images", preds, [])["rows"]
    assert vg["part"] == "VG" and vg["levels"]["D1"]["accuracy_pct"] == 100.0


def test_a_video_track_scores_by_its_mean_iou_over_the_frames():
    from annotation.jrdb.reasoning_eval import (
        score_track,
    )

    track = [
        {"image_id": "000001.jpg", "boxes": [[100, 50, 40, 100]]},
        {"image_id": "000002.jpg", "boxes": [[110, 50, 40, 100]]},
        {"image_id": "000003.jpg", "boxes": [None]},  # not boxed there: not counted
        {"image_id": "000004.jpg", "boxes": [[130, 50, 40, 100]]},
    ]
    gold = {
        "entity_ids": ["pedestrian:1"],
        "image_id": "000004.jpg",
        "boxes": [[130, 50, 40, 100]],
        "track": track,
    }
    exact = {
        "000001.jpg": [100, 50, 40, 100],
        "000002.jpg": [110, 50, 40, 100],
        "000004.jpg": [130, 50, 40, 100],
    }
    s = score_answer("vg", gold, {"track": exact})
    assert s.correct and s.iou == 1.0 and "over 3 frames" in s.reason
    # one frame left out: (1 + 1 + 0) / 3 = 0.67 > 0.5, still right
    partial = {k: v for k, v in exact.items() if k != "000002.jpg"}
    s = score_answer("vg", gold, {"track": partial})
    assert s.correct and s.iou == pytest.approx(2 / 3, abs=1e-4)
    # only the last frame: 1/3, wrong, though that frame alone is perfect
    s = score_answer("vg", gold, {"track": [{"image_id": "000004.jpg", "box": [130, 50, 40, 100]}]})
    assert not s.correct and s.iou == pytest.approx(1 / 3, abs=1e-4)
    assert score_track(track, "boxes").reason.startswith("malformed")
    assert not score_answer("vg", gold, {"track": {"000001.jpg": "left"}}).correct
    # a single box on a video question is still scored on the answer frame
    assert score_answer("vg", gold, [130, 50, 40, 100]).correct
    # a track for an image question cannot be scored as one
    image = {k: v for k, v in gold.items() if k != "track"}
    assert score_answer("vg", image, {"track": exact}).reason.startswith("a track for")
