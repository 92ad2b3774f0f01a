"""The MG-VQA question criteria of Count, Find and Compare, each at and beside its
boundary, on scenes laid out by hand (tests/question_scenes.py: still bodies at small
images, no physics, a few milliseconds a render), so that `make mutants` can run them
against every change of `sim/tabletop/questions.py`. Beneath's are in
test_beneath_question_rules.py, the draws from a seed in test_question_draws.py.

A threshold's boundary is met exactly by measuring the value first and passing it as
the threshold (Count and Find take it as a parameter), or by setting the module's
constant to it (LABEL_OCCLUDED, LETTER_MIN_PIXELS, LABEL_MIN_SIDE) or by values exact
to the last bit (SIZE_RATIO): the rule must accept the boundary and refuse the next value.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

import numpy as np
import pytest

from annotation.tabletop.question_text import phrase
from sim.camera import pixel_ray, project_points
from sim.tabletop import questions
from sim.tabletop.labels import largest_label
from sim.tabletop.questions import (
    COUNT_VISIBLE,
    FIND_VISIBLE,
    GENERATOR,
    MAX_VISIBILITY,
    SIZE_RATIO,
    Candidate,
    Rejection,
    Timing,
)
from sim.tabletop.scenes import SpawnSpec
from sim.tabletop.world import TABLE_HALF, TABLE_TOP_Z, TOP_DOWN, TabletopWorld
from tests.criteria_checks import visible
from tests.question_scenes import BY_NAME, CAM, CATALOG, COUNT_SCENE, asked, laid


def count(scene, *, threshold=MAX_VISIBILITY, confounding=False, rng_seed=3):
    target = BY_NAME["red cube"]
    return asked(
        scene,
        lambda timing: questions._count_question(
            random.Random(rng_seed), scene, target, confounding, CAM, threshold, timing
        ),
    )


# ---------------------------------------------------------------- small pure rules


def test_windows_overlap_only_when_they_share_a_pixel():
    a = (10, 20, 30, 40)
    assert questions._overlap(a, a) and questions._overlap(a, (29, 39, 50, 50))
    assert questions._overlap(a, (0, 0, 11, 21))
    for b in [(30, 20, 40, 40), (0, 20, 10, 40), (10, 40, 30, 50), (10, 0, 30, 20)]:
        assert not questions._overlap(a, b), b  # edge to edge: no pixel in common
    assert not questions._overlap(None, a) and not questions._overlap(a, None)
    assert questions._window_area((10, 20, 30, 50)) == 600


def test_confounders_share_the_kind_or_the_colour_and_are_weighted_up():
    red_cube = BY_NAME["red cube"]
    alike = questions._confounders(red_cube, CATALOG)
    names = {e.name for e in alike}
    assert "red cube" not in names and {"blue cube", "red mug", "red book"} <= names
    assert all(e.kind == "cube" or e.colour == "red" for e in alike)
    assert "green book" not in names
    plain = questions._distractor_pool(random.Random(0), red_cube, CATALOG, False)
    assert plain == [e for e in CATALOG if e.name != "red cube"]
    weighted = questions._distractor_pool(random.Random(0), red_cube, CATALOG, True)
    assert weighted == plain + alike * 4
    lonely = [red_cube, BY_NAME["green book"]]  # no look-alike to weight up
    assert questions._distractor_pool(random.Random(0), red_cube, lonely, True) == lonely[1:]


def test_candidates_record_what_a_question_export_needs():
    c = Candidate(
        "find",
        "Is there a lime?",
        ["yes", "no"],
        {"answer": "no", "point": None},
        [],
        [{}],
        questions._difficulty(1, 0),
        questions._criteria(0.2, {"k": 0.123456}, present=False),
        9,
        True,
        None,
    )
    assert c.question_record(scene_id=4) == {
        "benchmark": "mgvqa",
        "task": "find",
        "text": "Is there a lime?",
        "options": ["yes", "no"],
        "answer": {"answer": "no", "point": None},
        "evidence_ids": [],
        "steps": [{}],
        "difficulty": {"S": 1, "R": 0, "T": 1, "D": 2},
        "criteria": {
            "max_evidence_visibility": 0.2,
            "generator": GENERATOR,
            "measured": {"visibility": {"k": 0.1235}, "present": False},
            "confounding": True,
        },
        "seed": 9,
        "scene_id": 4,
    }
    assert c.question_record()["scene_id"] is None
    assert questions._difficulty(3, 2, 4) == {"S": 3, "R": 2, "T": 4, "D": 9}


def _spawns(volumes, scale_range=(1.0, 1.0)):
    """Spawn specs of boxes whose volumes at scale 1 are `volumes` (half extents 0.5 x 0.5 x v/2)."""
    base = BY_NAME["red cube"]
    return [
        SpawnSpec(
            replace(base, size=(0.5, 0.5, v / 2), volume_m3=v, scale_range=scale_range),
            1.0,
            (0.0, 0.0, 0.0),
            0.0,
            f"obj_{i:02d}",
        )
        for i, v in enumerate(volumes)
    ]


def test_sampled_sizes_are_too_close_below_0_85_of_the_size_ratio():
    least = SIZE_RATIO * 0.85
    at = _spawns([1.0, least, least * least])
    assert questions._sizes_too_close(at) is None
    assert questions._sizes_too_close(list(reversed(at))) is None  # sorted by volume first
    below = math.nextafter(least, 0)
    why = "compare: sampled sizes too close"
    assert questions._sizes_too_close(_spawns([1.0, below, least * least * 2])) == why
    assert questions._sizes_too_close(_spawns([1.0, 2.0, 2.0 * below])) == why
    # only the first three spawns (the labelled ones) are asked
    assert questions._sizes_too_close(at + _spawns([1.0])) is None


def test_labellable_objects_are_texturable_flat_faced_primitives_with_room_for_a_label(
    monkeypatch,
):
    box = BY_NAME["red cube"]
    assert questions._labellable(box) and questions._labellable(BY_NAME["tuna tin"])
    assert not questions._labellable(replace(box, texturable=False))
    assert not questions._labellable(replace(BY_NAME["white cube"], texturable=True))  # a URDF
    sphere = replace(BY_NAME["orange"], texturable=True)
    assert not questions._labellable(sphere)
    side = largest_label("box", box.size, box.scale_range[0])
    monkeypatch.setattr(questions, "LABEL_MIN_SIDE", side)
    assert questions._labellable(box)  # a label exactly the least side fits
    monkeypatch.setattr(questions, "LABEL_MIN_SIDE", math.nextafter(side, 1))
    assert not questions._labellable(box)
    small = replace(box, scale_range=(0.5, 2.0))  # the smallest scale decides
    monkeypatch.setattr(questions, "LABEL_MIN_SIDE", side)
    assert not questions._labellable(small)


def test_compare_draws_three_sizes_each_at_least_the_size_ratio_apart():
    def shapes(volumes, ranges):
        return [
            replace(BY_NAME["red cube"], name=f"box {i}", volume_m3=v, scale_range=r)
            for i, (v, r) in enumerate(zip(volumes, ranges, strict=True))
        ]

    same = [(1.0, 1.0)] * 3
    # 2 / 1.25 and 3.2 / 2 are SIZE_RATIO to the last bit: a ratio at it is enough
    trio = questions._compare_trio(random.Random(1), shapes([3.2, 1.25, 2.0], same))
    assert [e.name for e in trio] == ["box 1", "box 2", "box 0"]
    assert (2.0 / 1.25, 3.2 / 2.0) == (SIZE_RATIO, SIZE_RATIO)
    close = shapes([1.25, 2.0, math.nextafter(3.2, 0)], same)
    assert questions._compare_trio(random.Random(1), close) is None
    close = shapes([1.25, math.nextafter(2.0, 0), 3.2], same)
    assert questions._compare_trio(random.Random(1), close) is None
    # sizes are compared at the middle of each scale range: 8 at 1.0 is 1 at 0.5
    ranges = [(1.0, 1.0), (0.5, 0.5), (1.0, 1.0)]
    assert questions._compare_trio(random.Random(1), shapes([1.0, 8.0, 1.0], ranges)) is None
    ranges = [(0.5, 1.5), (1.0, 1.0), (2.0, 2.0)]
    volumes = [1.0, SIZE_RATIO, SIZE_RATIO**2 / 8]
    assert len(questions._compare_trio(random.Random(1), shapes(volumes, ranges))) == 3
    huge = replace(BY_NAME["orange"], volume_m3=100.0)  # no flat face: never drawn
    close = shapes([1.0, SIZE_RATIO, SIZE_RATIO], same)
    assert questions._compare_trio(random.Random(1), close + [huge] * 9) is None


def test_compare_gives_up_on_sizes_after_thirty_draws():
    """Of ten boxes only one three (volumes 1, 2 and 4) are far enough apart: seed 211
    draws them on its 30th try, seed 8 on its 31st, one too late."""
    volumes = [1.0, 2.0, 4.0] + [3.0] * 7
    boxes = [
        replace(BY_NAME["red cube"], name=f"box {i}", volume_m3=v) for i, v in enumerate(volumes)
    ]
    trio = questions._compare_trio(random.Random(211), boxes)
    assert [e.name for e in trio] == ["box 0", "box 1", "box 2"]
    assert questions._compare_trio(random.Random(8), boxes) is None


# ---------------------------------------------------------------- Count


def test_count_counts_every_target_and_names_the_hidden_and_the_shown():
    scene = laid(COUNT_SCENE)
    with scene.world:
        c, timing = count(scene)
        assert isinstance(c, Candidate) and (c.task, c.seed, c.scene) == ("count", 7, scene)
        assert (c.answer, c.evidence_ids, c.options) == (2, ["obj_00", "obj_01"], None)
        assert c.text == phrase("count", random.Random(3), plural="red cubes")
        assert c.steps == [
            {
                "description": "find the red cubes visible in the first view",
                "entity_ids": ["obj_01"],
            },
            {
                "description": "uncover the clutter where more red cubes may hide",
                "entity_ids": ["obj_00"],
            },
            {"description": "count all red cubes: 2", "entity_ids": ["obj_00", "obj_01"]},
        ]
        assert c.difficulty == {"S": 2, "R": 0, "T": 1, "D": 3}
        assert c.criteria == {
            "max_evidence_visibility": MAX_VISIBILITY,
            "generator": GENERATOR,
            "measured": {
                "visibility": {"obj_00": 0.08, "obj_01": 1.0},
                "k": 2,
                "target": "red cube",
            },
        }
        assert c.confounding is False and timing.visibility_s > 0
        assert c.timing is None  # generate sets it


def test_count_holds_a_target_at_the_threshold_hidden_and_one_above_it_shown():
    scene = laid(COUNT_SCENE)
    with scene.world:
        least = visible(scene.world, CAM, "obj_00")
        assert least == 2 / 25
        c, _ = count(scene, threshold=least)
        assert c.steps[1]["entity_ids"] == ["obj_00"] and c.steps[0]["entity_ids"] == ["obj_01"]
        assert c.criteria["max_evidence_visibility"] == least
        every, _ = count(scene, threshold=1.0)  # all hidden: none shown
        assert every.steps[0]["entity_ids"] == []
        assert every.steps[1]["entity_ids"] == ["obj_00", "obj_01"]
    below, _ = count(laid(COUNT_SCENE), threshold=math.nextafter(least, 0))  # closes its world
    assert isinstance(below, Rejection) and below.reason == COUNT_VISIBLE
    assert COUNT_VISIBLE == "count: every target visible above the threshold"


def test_count_of_no_target_is_zero_and_the_confounding_flag_needs_a_look_alike_in_view():
    scene = laid([row for row in COUNT_SCENE if row[0] != "red cube"])
    with scene.world:
        c, _ = count(scene, confounding=True)
        assert (c.answer, c.evidence_ids, c.difficulty["S"]) == (0, [], 1)
        assert c.steps[2]["description"] == "count all red cubes: 0"
        assert c.confounding is False  # no cube and nothing red in the scene
    scene = laid([*COUNT_SCENE, ("blue cube", 0.1, -0.1, 0.0, 0.0, 1.0)])
    with scene.world:
        assert count(scene, confounding=True)[0].confounding is True
        assert count(scene, confounding=False)[0].confounding is False
        assert questions._present_confounders(scene, BY_NAME["red cube"]) == ["obj_04"]
        assert questions._present_confounders(scene, BY_NAME["green tea box"]) == ["obj_03"]


# ---------------------------------------------------------------- Find


def find(
    scene,
    *,
    present=True,
    threshold=MAX_VISIBILITY,
    target="red cube",
    confounding=False,
    grows=("visibility_s",),
):
    entry = BY_NAME[target]
    return asked(
        scene,
        lambda timing: questions._find_question(
            random.Random(5), scene, entry, present, confounding, CAM, threshold, timing
        ),
        grows,
    )


FIND_SCENE = [row for i, row in enumerate(COUNT_SCENE) if i != 1]  # the one red cube hidden


def test_find_points_to_a_present_target_hidden_at_the_threshold():
    scene = laid(FIND_SCENE)
    with scene.world:
        c, timing = find(scene)
        assert isinstance(c, Candidate) and (c.task, c.seed) == ("find", 7)
        uv, _ = project_points(CAM, [scene.spawned[0].position])
        u, v = uv[0]
        assert c.answer == {"answer": "yes", "point": [round(float(u), 1), round(float(v), 1)]}
        assert c.options == ["yes", "no"] and c.evidence_ids == ["obj_00"]
        assert c.text == phrase("find", random.Random(5), a_name="a red cube")
        assert c.steps == [
            {"description": "look for a red cube in the first view: none shows", "entity_ids": []},
            {
                "description": "move the clutter covering it to reveal the red cube",
                "entity_ids": ["obj_00"],
            },
            {"description": "point to it", "entity_ids": ["obj_00"]},
        ]
        assert c.difficulty == {"S": 1, "R": 0, "T": 1, "D": 2}
        assert c.criteria["measured"] == {
            "visibility": {"obj_00": 0.08},
            "present": True,
            "target": "red cube",
        }
        assert c.criteria["max_evidence_visibility"] == MAX_VISIBILITY
        assert c.criteria["generator"] == GENERATOR and c.confounding is False
        at, _ = find(scene, threshold=0.08)
        assert isinstance(at, Candidate)
    above, _ = find(laid(FIND_SCENE), threshold=math.nextafter(0.08, 0))  # closes its world
    assert isinstance(above, Rejection) and above.reason == FIND_VISIBLE
    assert FIND_VISIBLE == "find: target visible above the threshold"


def test_find_of_an_absent_target_searches_the_clutter_and_refuses_one_present():
    present, _ = find(laid(FIND_SCENE), present=False, grows=())  # nothing measured
    assert isinstance(present, Rejection) and present.reason == "find: absent target present"
    scene = laid(FIND_SCENE)
    with scene.world:
        c, _ = find(scene, present=False, target="lime", confounding=True)
        assert (c.answer, c.evidence_ids) == ({"answer": "no", "point": None}, [])
        assert c.steps == [
            {"description": "look for a lime in the first view: none shows", "entity_ids": []},
            {"description": "search under the clutter: none is there either", "entity_ids": []},
        ]
        assert c.criteria["measured"] == {"visibility": {}, "present": False, "target": "lime"}
        assert c.confounding is True  # the green book is as green as a lime
        assert find(scene, present=False, target="lime")[0].confounding is False


# ---------------------------------------------------------------- Compare

LABEL_CAM = TOP_DOWN.with_size(
    256, 256
)  # the least size at which a 4 cm label's letter shows 20 pixels
# Three labellable boxes, the largest first (keys and sizes in different orders), and a white
# plate over a quarter of the tea box's letter (8 of its 32 pixels in view: LABEL_OCCLUDED).
COMPARE_SCENE = [
    ("white tissue box", 0.12, -0.05, 0.0, 0.0, 1.0),
    ("yellow sticky notes", -0.12, 0.08, 0.0, 0.0, 1.0),
    ("green tea box", 0.0, 0.0, 0.0, 0.0, 1.0),
    ("white plate", 0.076, 0.0, 0.07, 0.0, 1.0),
]
ALL_THREE = ["obj_00", "obj_01", "obj_02"]


def compare(rows=COMPARE_SCENE, extreme="largest", grows=("visibility_s",), scene=None):
    scene = scene or laid(rows)
    result, timing = asked(
        scene,
        lambda timing: questions._compare_question(
            random.Random(2), scene, extreme, ["B", "C", "A"], LABEL_CAM, 0.2, timing
        ),
        grows,
    )
    return scene, result, timing


def test_compare_asks_for_the_extreme_size_with_a_label_hidden_at_label_occluded():
    scene, c, _ = compare()
    with scene.world:
        assert isinstance(c, Candidate) and (c.task, c.seed, c.confounding) == ("compare", 7, False)
        assert (c.answer, c.options, c.evidence_ids) == ("B", ["A", "B", "C"], ALL_THREE)
        assert c.text == phrase("compare", random.Random(2), extreme="largest")
        assert c.steps == [
            {"description": "read the labels in view: B, C", "entity_ids": ["obj_00", "obj_01"]},
            {"description": "uncover the hidden labels", "entity_ids": ["obj_02"]},
            {"description": "compare the three objects' sizes", "entity_ids": ALL_THREE},
            {"description": "the largest is B", "entity_ids": ["obj_00"]},
        ]
        assert c.difficulty == {"S": 3, "R": 2, "T": 1, "D": 6}
        volumes = {
            letter: round(s.entry.volume(s.scale), 7)
            for letter, s in zip("BCA", scene.spawned, strict=False)
        }
        assert c.criteria == {
            "max_evidence_visibility": 0.2,
            "generator": GENERATOR,
            "measured": {
                "visibility": {},
                "label_visibility": {"B": 1.0, "C": 1.0, "A": 0.25},
                "label_occluded_below": 0.25,
                "volumes_m3": volumes,
                "labels": {
                    "B": "white tissue box",
                    "C": "yellow sticky notes",
                    "A": "green tea box",
                },
                "label_sides_m": {"B": 0.04, "C": 0.04, "A": 0.04},
                "label_letter_px": {"B": 76, "C": 27, "A": 32},
            },
        }
    scene, c, _ = compare(extreme="smallest")
    with scene.world:
        assert c.answer == "C"
        assert c.steps[-1] == {"description": "the smallest is C", "entity_ids": ["obj_01"]}


def test_compare_records_label_visibility_and_sides_to_four_places():
    """A red cube drawn at 0.937 carries a 3.748 cm label; 3 of the tea box's 32 letter
    pixels show (0.09375)."""
    rows = [
        COMPARE_SCENE[0],
        ("red cube", -0.12, 0.08, 0.0, 0.0, 0.937),
        COMPARE_SCENE[2],
        ("white plate", 0.073, 0.0, 0.07, 0.0, 1.0),
    ]
    scene, c, _ = compare(rows)
    with scene.world:
        assert c.criteria["measured"]["label_visibility"] == {"B": 1.0, "C": 1.0, "A": 0.0938}
        assert c.criteria["measured"]["label_sides_m"] == {"B": 0.04, "C": 0.0375, "A": 0.04}


def test_compare_refuses_when_every_label_is_readable_or_one_cannot_be_read_even_alone(
    monkeypatch,
):
    readable = "compare: every label readable in the first view"
    monkeypatch.setattr(questions, "LABEL_OCCLUDED", math.nextafter(0.25, 0))
    assert compare()[1].reason == readable
    monkeypatch.setattr(questions, "LABEL_OCCLUDED", 1.0)  # every label hidden: none read
    scene, c, _ = compare()
    with scene.world:
        assert c.steps[:2] == [
            {"description": "read the labels in view: none", "entity_ids": []},
            {"description": "uncover the hidden labels", "entity_ids": ALL_THREE},
        ]
    monkeypatch.undo()
    assert compare([row for row in COMPARE_SCENE if row[0] != "white plate"])[1].reason == readable
    monkeypatch.setattr(questions, "LETTER_MIN_PIXELS", 27)  # the least letter, alone
    scene, c, _ = compare()
    with scene.world:
        assert isinstance(c, Candidate)
    monkeypatch.setattr(questions, "LETTER_MIN_PIXELS", 28)
    assert compare()[1].reason == "compare: a label not visible even alone"


def test_compare_refuses_sizes_too_close_and_an_object_with_no_face_up():
    close = [COMPARE_SCENE[0], ("green tea box", -0.12, 0.08, 0.0, 0.0, 1.0), COMPARE_SCENE[2]]
    _, r, _ = compare(close, grows=())
    assert isinstance(r, Rejection) and r.reason == "compare: sampled sizes too close"
    scene = laid([*COMPARE_SCENE[:2], ("red soda can", 0.0, 0.0, 0.0, 0.0, 1.0)])
    world = scene.world
    uid = world.bodies["obj_02"].uid
    position = world.client.getBasePositionAndOrientation(uid)[0]
    lying = world.client.getQuaternionFromEuler((math.pi / 2, 0, 0))
    world.client.resetBasePositionAndOrientation(uid, position, lying)
    _, r, _ = compare(scene=scene, grows=())
    assert r.reason == "compare: red soda can: no face turned up (tilted 90 deg)"
    two = laid(COMPARE_SCENE[:2])  # three letters need three objects
    with two.world, pytest.raises(ValueError):
        questions._compare_question(
            random.Random(2), two, "largest", list("BCA"), LABEL_CAM, 0.2, Timing()
        )


# ---------------------------------------------------------------- what the view can skip


def test_the_floor_and_legs_are_left_out_only_when_the_table_top_fills_every_corner():
    """Turned 30 degrees, each corner of the image is the one nearest an edge of the table
    in turn: a quarter of a pixel beyond it and the floor may show."""
    world = TabletopWorld(with_robot=False)
    hidden = ["floor", "table_leg_0", "table_leg_1", "table_leg_2", "table_leg_3"]
    with world:
        assert questions._under_table(world, CAM) == hidden
        turned = replace(CAM, fov_deg=35.0, up=(math.sin(math.pi / 6), math.cos(math.pi / 6), 0))
        pixel = 2 * (CAM.eye[2] - TABLE_TOP_Z) * math.tan(math.radians(35.0 / 2)) / 64
        centre = np.array(CAM.target[:2])
        edge = np.array(TABLE_HALF)
        for u, v in ((0, 0), (64, 0), (0, 64), (64, 64)):
            origin, direction = pixel_ray(turned, u, v)
            hit = (origin + direction * (TABLE_TOP_Z - origin[2]) / direction[2])[:2]
            axis = int(np.argmax(np.abs(hit) / edge))  # the edge this corner is nearest
            beyond = np.zeros(2)
            outward = np.sign(hit[axis])
            beyond[axis] = outward * (edge[axis] + 0.25 * pixel) - hit[axis]
            inside = beyond.copy()
            inside[axis] -= outward * pixel  # three quarters of a pixel inside
            for shift, expected in ((beyond, []), (inside, hidden)):
                moved = replace(
                    turned,
                    eye=(*(np.array(turned.eye[:2]) + shift), turned.eye[2]),
                    target=(*(centre + shift), turned.target[2]),
                )
                assert questions._under_table(world, moved) == expected, (u, v, expected)
        # looking up, though the rays met the table's plane behind the camera, inside it
        up = replace(CAM, target=(CAM.eye[0], CAM.eye[1] + 0.01, CAM.eye[2] + 1.0))
        assert questions._under_table(world, up) == []
        # tilted toward -y: the table top ahead fills the view (not the rays mirrored back)
        ahead = replace(
            CAM, fov_deg=30.0, eye=(0.0, 0.35, CAM.eye[2]), target=(0.0, 0.0, TABLE_TOP_Z)
        )
        assert questions._under_table(world, ahead) == hidden
