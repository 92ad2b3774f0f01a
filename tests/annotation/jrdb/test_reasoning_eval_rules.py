"""JRDB-Reasoning scoring, rule by rule: each boundary, branch and reason a user reads.

Written against the survivors of `make mutants` (docs/development.md, "Mutation testing
of the rules"): every assertion here is on a value, a verdict or the exact reason.
"""

from __future__ import annotations

import pytest

from annotation.jrdb.reasoning_eval import (
    ImportReport,
    Score,
    box_outside_image,
    difficulty_level,
    impossible_boxes,
    iou_xywh,
    match_boxes,
    normalise_text,
    parse_box,
    parse_boxes,
    parse_count,
    score_answer,
    score_step,
    score_track,
    track_boxes,
)

W, H = 3760, 480  # the stitched panorama
BOX = [0, 0, 10, 10]
GOLD = {"boxes": [BOX]}
TRACK_GOLD = {"track": [{"image_id": "1", "boxes": [BOX]}]}
FORMAT_HINT = "boxes are [x, y, w, h], not [x1, y1, x2, y2]"


# -- levels -----------------------------------------------------------------------------------
def test_a_level_needs_all_three_counts():
    assert difficulty_level(2, None, 1) == "other"
    assert difficulty_level(3, None, 1) == "other"
    assert difficulty_level(None, 1, 1) == "other"
    assert difficulty_level(2, 1, None) == "other"


# -- IoU --------------------------------------------------------------------------------------
def test_iou_of_boxes_smaller_than_a_pixel():
    # an overlap one pixel high (or less), and a union of one pixel or less, still count
    assert iou_xywh([0, 0, 10, 1], [0, 0, 10, 1]) == 1.0
    assert iou_xywh([0, 0, 10, 0.5], [0, 0, 5, 0.5]) == 0.5
    assert iou_xywh([0, 0, 1, 1], [0, 0, 1, 1]) == 1.0
    assert iou_xywh([0, 0, 0.5, 0.5], [0, 0, 0.5, 0.25]) == 0.5


# -- boxes outside the image ------------------------------------------------------------------
def test_rows_refusal_names_the_box_and_its_bottom():
    assert box_outside_image([0, 0, 10, 5000], W, H) == (
        f"box [0, 0, 10, 5000] runs past the image's rows (0 to 480): y + h = 5000; {FORMAT_HINT}"
    )
    assert box_outside_image([1.5, 300, 10, 200], W, H) == (
        f"box [1.5, 300, 10, 200] runs past the image's rows (0 to 480): y + h = 500; {FORMAT_HINT}"
    )


def test_rows_tolerance_is_inclusive():
    assert box_outside_image([0, -8, 10, 10], W, H) is None
    assert box_outside_image([0, -8.5, 10, 10], W, H) is not None
    assert box_outside_image([0, 470, 10, 18], W, H) is None  # y + h = 488 = 480 + 8
    assert box_outside_image([0, 470, 10, 18.5], W, H) is not None


def test_a_panorama_box_may_span_half_the_panorama_and_no_more():
    assert box_outside_image([0, 0, W / 2, 10], W, H) is None
    assert box_outside_image([0, 0, 1500, 10], W, H) is None  # more than a third
    assert box_outside_image([0, 0, W / 2 + 1, 10], W, H) == (
        f"box [0, 0, 1881, 10] is 1881 px wide, more than half the panorama (3760 px); "
        f"{FORMAT_HINT}"
    )


def test_a_panorama_box_must_reach_within_half_a_turn_of_the_panorama():
    off = "box [{}] is off the panorama (x from 0 to 3760)"
    # left: its right edge must be right of -W/2 = -1880
    assert box_outside_image([-1980, 0, 100, 10], W, H) == off.format("-1980, 0, 100, 10")
    assert box_outside_image([-2000, 0, 10, 10], W, H) == off.format("-2000, 0, 10, 10")
    assert box_outside_image([-1979, 0, 100, 10], W, H) is None
    assert box_outside_image([-1500, 0, 10, 10], W, H) is None
    assert box_outside_image([-1000, 0, 1000, 10], W, H) is None
    # right: its left edge must be left of W + W/2 = 5640
    assert box_outside_image([5640, 0, 10, 10], W, H) == off.format("5640, 0, 10, 10")
    assert box_outside_image([5639, 0, 10, 10], W, H) is None
    assert box_outside_image([5300, 0, 10, 10], W, H) is None


def test_a_flat_image_box_must_lie_within_its_columns_give_or_take_the_tolerance():
    assert box_outside_image([-8, 0, 10, 10], 640, H, wrap=False) is None
    assert box_outside_image([0, 0, 10, 10], 640, H, wrap=False) is None
    assert box_outside_image([630, 0, 18, 10], 640, H, wrap=False) is None  # x + w = 648
    assert box_outside_image([600, 0, 40, 10], 640, H, wrap=False) is None  # x + w = 640
    assert box_outside_image([-8.5, 0, 10, 10], 640, H, wrap=False) == (
        f"box [-8.5, 0, 10, 10] runs past the image's columns (0 to 640): x + w = 1.5; "
        f"{FORMAT_HINT}"
    )
    assert box_outside_image([630, 0, 19, 10], 640, H, wrap=False) == (
        f"box [630, 0, 19, 10] runs past the image's columns (0 to 640): x + w = 649; {FORMAT_HINT}"
    )


# -- reading boxes ----------------------------------------------------------------------------
def test_parse_box_refusals_name_the_value():
    long_text = "not a box " * 5  # 50 characters, not JSON: the first 40 are shown
    with pytest.raises(ValueError) as err:
        parse_box(long_text)
    assert str(err.value) == f"box is not [x, y, w, h]: {long_text[:40]!r}"
    with pytest.raises(ValueError, match=r"^box object has no 'box'$"):
        parse_box({"rect": BOX})
    with pytest.raises(ValueError, match=r"^box is not \[x, y, w, h\]: \[1, 2, 3\]$"):
        parse_box([1, 2, 3])
    with pytest.raises(ValueError, match=r"^box is not \[x, y, w, h\]: 'hello'$"):
        parse_box('"hello"')  # JSON for a string: shown as the string it is
    with pytest.raises(ValueError, match=r"^box has a non-number: \[true, 1, 2, 3\]$"):
        parse_box([True, 1, 2, 3])
    with pytest.raises(ValueError, match=r"^box has a non-number: \[1, 2, 3, Infinity\]$"):
        parse_box([1, 2, 3, float("inf")])
    with pytest.raises(ValueError, match=r"^box has a negative width or height: \[0, 0, -1, 5\]$"):
        parse_box([0, 0, -1, 5])
    with pytest.raises(ValueError, match=r"^box has a negative width or height: \[0, 0, 5, -1\]$"):
        parse_box([0, 0, 5, -1])


def test_a_box_may_be_empty_or_thinner_than_a_pixel():
    assert parse_box([0, 0, 0, 5]) == [0.0, 0.0, 0.0, 5.0]
    assert parse_box([0, 0, 5, 0]) == [0.0, 0.0, 5.0, 0.0]
    assert parse_box([0, 0, 0.5, 0.5]) == [0.0, 0.0, 0.5, 0.5]


def test_long_values_are_cut_to_forty_characters_in_a_refusal():
    forty = [1, 2, 3, "a" * 27]  # json.dumps: 40 characters exactly
    assert len('[1, 2, 3, "' + "a" * 27 + '"]') == 40
    with pytest.raises(ValueError) as err:
        parse_box(forty)
    assert str(err.value) == 'box has a non-number: [1, 2, 3, "' + "a" * 27 + '"]'
    forty_one = [1, 2, 3, "a" * 28]
    with pytest.raises(ValueError) as err:
        parse_box(forty_one)
    assert str(err.value) == 'box has a non-number: [1, 2, 3, "' + "a" * 26 + "..."


def test_boxes_that_are_not_a_list():
    with pytest.raises(ValueError, match=r"^boxes is not a list: 5$"):
        parse_boxes({"boxes": 5})


# -- matching several boxes -------------------------------------------------------------------
def test_matching_with_no_gold_box_or_no_prediction():
    assert match_boxes([], []) == (True, 1.0)
    assert match_boxes([], [BOX]) == (False, 1.0)
    assert match_boxes([BOX], []) == (False, 0.0)


def test_an_extra_predicted_box_makes_the_match_wrong():
    far = [100, 0, 10, 10]
    assert match_boxes([BOX], [BOX, far]) == (False, 1.0)


def test_two_gold_boxes_cannot_share_one_predicted_box():
    near = [1, 0, 10, 10]  # IoU 9/11 with BOX
    far = [100, 0, 10, 10]
    assert match_boxes([BOX, near], [BOX, far]) == (False, 0.5)


def test_a_pair_at_exactly_the_threshold_earns_no_precedence():
    # (flat intervals) gold 1 overlaps predicted 2 by 4/7 (> 0.5), gold 2 overlaps
    # predicted 2 by exactly 0.5: the pairing keeps the one pair above the threshold.
    gold = [[4, 0, 7, 1], [5, 0, 8, 1]]
    predicted = [[2, 0, 6, 1], [7, 0, 4, 1]]
    ok, iou = match_boxes(gold, predicted, None)
    assert not ok
    assert iou == pytest.approx((4 / 7 + 3 / 11) / 2)


# -- answers ----------------------------------------------------------------------------------
def test_normalise_text_of_values_that_are_not_text():
    assert normalise_text(3) == "3"
    assert normalise_text(["Red_Car"]) == '["red car"]'
    assert normalise_text("The Red-Car.") == "the red car"


def test_parse_count_reads_an_answer_object_and_refuses_with_the_value():
    assert parse_count({"answer": "3"}) == 3
    assert parse_count({"answer": 4}) == 4
    assert parse_count({"count": 2, "answer": 9}) == 2
    assert parse_count("3.0") == 3
    with pytest.raises(ValueError, match=r"^count is not a whole number: 2\.5$"):
        parse_count(2.5)
    with pytest.raises(ValueError, match=r'^count is not a number: \{"n": 3\}$'):
        parse_count({"n": 3})
    with pytest.raises(ValueError, match=r"^count is not a number: null$"):
        parse_count(None)
    with pytest.raises(ValueError, match=r"^count is not a number: \[1\]$"):
        parse_count([1])
    with pytest.raises(ValueError) as err:
        parse_count("count them all " * 4)
    assert str(err.value) == f"count is not a number: {('count them all ' * 4)[:40]!r}"


def test_vg_is_known_by_its_task_or_by_a_gold_answer_with_boxes():
    assert score_answer("vg", [BOX], BOX) == Score(True, 1.0, "IoU 1.00 > 0.5")
    assert score_answer("", GOLD, BOX) == Score(True, 1.0, "IoU 1.00 > 0.5")
    assert score_answer("vg", [BOX], [0, 0, 5, 10]) == Score(False, 0.5, "IoU 0.50 <= 0.5")


def test_vg_answers_score_with_their_reasons():
    assert score_answer("vg", GOLD, None) == Score(False, 0.0, "no answer")
    assert score_answer("vqa-wh", "red", None) == Score(False, None, "no answer")
    assert score_answer("vg", GOLD, {"track": {"1": BOX}}) == Score(
        False, 0.0, "a track for a question grounded in one frame"
    )
    assert score_answer("vg", {"boxes": [[0, 0, -1, 1]]}, BOX) == Score(
        False,
        None,
        "question's gold box is unusable: box has a negative width or height: [0, 0, -1, 1]",
    )
    assert score_answer("vg", {"boxes": None}, BOX) == Score(
        False, None, "question has no gold box"
    )
    assert score_answer("vg", {"boxes": []}, BOX) == Score(False, None, "question has no gold box")
    assert score_answer("vg", GOLD, "nope") == Score(
        False, 0.0, "malformed: box is not [x, y, w, h]: 'nope'"
    )
    assert score_answer("vg", GOLD, [BOX, [50, 0, 10, 10]]) == Score(
        False, 1.0, "2 box(es) for 1 target(s)"
    )
    assert score_answer("vg", GOLD, [0, 0, 5, 10]) == Score(False, 0.5, "IoU 0.50 <= 0.5")


def test_a_count_is_known_by_its_task_or_by_an_integer_gold_answer():
    assert score_answer("vqa-count", "3", "three") == Score(True, None, "counted 3, answer 3")
    assert score_answer("", 3, "three") == Score(True, None, "counted 3, answer 3")
    assert score_answer("", 3, "4") == Score(False, None, "counted 4, answer 3")
    assert score_answer("vqa-count", 3, "many") == Score(
        False, None, "malformed: count is not a number: 'many'"
    )
    # a boolean gold answer is not a count: it compares as text
    assert score_answer("", True, "true") == Score(True, None, "same answer")


def test_wh_answers_score_with_their_reasons():
    assert score_answer("vqa-wh", "Red car", "red_car") == Score(True, None, "same answer")
    assert score_answer("vqa-wh", ["Red car", "crimson"], "Crimson") == Score(
        True, None, "same answer"
    )
    assert score_answer("vqa-wh", ["Red car", "crimson"], "blue") == Score(
        False, None, "'blue' is not 'red car'"
    )
    assert score_answer("vqa-wh", "red", 5) == Score(False, None, "'5' is not 'red'")


# -- tracks -----------------------------------------------------------------------------------
def test_track_boxes_reads_both_forms_and_refuses_with_the_reason():
    assert track_boxes([{"image_id": 1, "boxes": [BOX]}]) == {"1": [[0.0, 0.0, 10.0, 10.0]]}
    assert track_boxes([{"image_id": "2", "box": BOX}]) == {"2": [[0.0, 0.0, 10.0, 10.0]]}
    assert track_boxes({"3": BOX}) == {"3": [[0.0, 0.0, 10.0, 10.0]]}
    with pytest.raises(ValueError, match=r"^track entry 1 needs an image_id and its box$"):
        track_boxes([{"image_id": "1", "box": BOX}, {"box": BOX}])
    with pytest.raises(ValueError, match=r"^track entry 0 needs an image_id and its box$"):
        track_boxes([BOX])
    with pytest.raises(
        ValueError, match=r"^a track is \{image_id: box\} or a list of \{image_id, box\}$"
    ):
        track_boxes(5)
    with pytest.raises(ValueError, match=r"^track frame 7: box is not \[x, y, w, h\]: 'x'$"):
        track_boxes({"7": "x"})


def _frames(n):
    return [{"image_id": str(i), "boxes": [BOX]} for i in range(1, n + 1)]


def test_score_track_reasons_and_rounding():
    assert score_track(_frames(1), 5) == Score(
        False, 0.0, "malformed: a track is {image_id: box} or a list of {image_id, box}"
    )
    assert score_track([{"image_id": "1", "boxes": [None]}, {"image_id": "2"}], {"1": BOX}) == (
        Score(False, None, "question's track has no gold box")
    )
    assert score_track(_frames(3), {"1": BOX, "2": BOX}) == Score(
        True, 0.6667, "track: mean IoU 0.67 over 3 frames > 0.5"
    )
    assert score_track(_frames(2), {"1": BOX}) == Score(
        False, 0.5, "track: mean IoU 0.50 over 2 frames <= 0.5"
    )
    assert score_track(_frames(3), {"1": BOX}) == Score(
        False, 0.3333, "track: mean IoU 0.33 over 3 frames <= 0.5"
    )


# -- impossible boxes -------------------------------------------------------------------------
def test_impossible_boxes_for_vg_by_task_or_gold_and_in_tracks():
    tall = [0, 0, 10, 5000]
    why = box_outside_image(tall, W, H)
    assert why is not None
    assert impossible_boxes("vg", [BOX], tall) == why
    assert impossible_boxes("", GOLD, tall) == why
    assert impossible_boxes("vqa-wh", "red", tall) is None
    assert impossible_boxes("vg", GOLD, {"box": tall}) == why
    assert impossible_boxes("vg", TRACK_GOLD, {"track": {"1": BOX, "2": tall}}) == why
    assert impossible_boxes("vg", TRACK_GOLD, {"track": {"1": BOX}}) is None
    assert impossible_boxes("vg", TRACK_GOLD, {"track": 5}) is None  # unreadable: malformed


# -- steps ------------------------------------------------------------------------------------
def test_a_step_that_is_not_a_step_scores_wrong():
    assert score_step("pedestrian:1", 1) is False
    assert score_step(None, ["pedestrian:1"]) is False


def test_step_entity_ids_must_be_the_same_set():
    step = {"entity_ids": ["a", "b"]}
    assert score_step(step, ["b", "a"]) is True
    assert score_step(step, ["a", "c"]) is False
    assert score_step(step, ["a", "b", "b"]) is False


def test_a_step_without_boxes_is_not_matched_by_no_boxes():
    assert score_step({"entity_ids": ["a"]}, []) is False
    assert score_step({"entity_ids": ["a"], "boxes": {}}, {"boxes": []}) is False
    assert score_step({"entity_ids": [], "boxes": {}}, []) is True


# -- the import report ------------------------------------------------------------------------
def test_import_report_as_dict_carries_its_accuracy():
    report = ImportReport("preds.jsonl", imported=4, correct=1, replaced=0, by_model={"m": {}})
    assert report.as_dict() == {
        "source": "preds.jsonl",
        "imported": 4,
        "correct": 1,
        "replaced": 0,
        "by_model": {"m": {}},
        "accuracy_pct": 25.0,
    }
    assert ImportReport("x", 0, 0, 0).as_dict()["accuracy_pct"] is None
