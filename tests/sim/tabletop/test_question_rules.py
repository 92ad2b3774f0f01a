"""The MG-VQA question criteria, each at and beside its boundary, on scenes laid out by
hand (still bodies at small images: no physics, a few milliseconds a render), so that
`make mutants` can run them against every change of `sim/tabletop/questions.py`.

A threshold's boundary is met exactly by measuring the value first and passing it as
the threshold (Count and Find take it as a parameter), or by setting the module's
constant to it (MIN_REVEAL, LABEL_OCCLUDED, LETTER_MIN_PIXELS, SIZE_RATIO): the rule
must accept the measured value and refuse the next one. Generation from a seed (the
draws before a scene is built) is pinned on a few fast seeds at the end.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import replace

import numpy as np
import pytest

from annotation.tabletop.question_text import (
    NONE_OF_THE_ABOVE,
    TEMPLATES,
    beneath_steps,
    fill,
    phrase,
)
from sim.camera import pixel_ray, project_points
from sim.tabletop import questions
from sim.tabletop.catalog import catalog_by_name, load_catalog
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
from sim.tabletop.scenes import GeneratedScene, SettleReport, SpawnSpec, spawn
from sim.tabletop.world import (
    TABLE_HALF,
    TABLE_TOP_Z,
    TOP_DOWN,
    WORKSPACE_CENTRE,
    TabletopWorld,
)
from tests.criteria_checks import visible

CAM = TOP_DOWN.with_size(64, 64)
X, Y = WORKSPACE_CENTRE[0], WORKSPACE_CENTRE[1]
CATALOG = load_catalog()
BY_NAME = catalog_by_name(CATALOG)


def laid(objects, *, seed: int = 7, with_robot: bool = False) -> GeneratedScene:
    """A scene as generation leaves it (undressed), its objects laid by hand and still:
    (catalog name, x, y off the workspace centre, height of what it lies on, yaw, scale)."""
    world = TabletopWorld(with_robot=False)
    spawned = []
    for i, (name, x, y, under, yaw, scale) in enumerate(objects):
        entry = BY_NAME[name]
        z = TABLE_TOP_Z + under + entry.extent(scale)[2] / 2
        spec = SpawnSpec(entry, scale, (X + x, Y + y, z), yaw, f"obj_{i:02d}")
        spawn(world, spec)
        spawned.append(spec)
    scene = GeneratedScene(seed, 0, world, SettleReport(0, 0.0, True), None, spawned)
    scene.attempt_steps = [0]
    scene.with_robot, scene.dressed = with_robot, False
    return scene


# Two red cubes, one under a plate with two of its 25 pixels in view (0.08), one in the open.
COUNT_SCENE = [
    ("red cube", 0.0, 0.0, 0.0, 0.0, 1.0),
    ("red cube", 0.15, 0.05, 0.0, 0.0, 1.0),
    ("white plate", -0.058, 0.0, 0.05, 0.0, 1.0),
    ("green book", -0.12, -0.12, 0.0, 0.3, 1.0),
]


START = 5.0  # seconds an attempt's clock shows when its question is asked


def asked(scene, ask, grows=("visibility_s",)):
    """(result, timing) of `ask(timing)` about `scene`: the time it took is added to the
    attempt's clock, to the parts that `grow` (rendering to visibility_s, dressing and
    settling to scene_s, settling to settle_s) and no other; a rejection closes the
    scene's world."""
    timing = Timing(scene_s=START, visibility_s=START, settle_s=START)
    t0 = time.perf_counter()
    result = ask(timing)
    took = time.perf_counter() - t0
    for name in ("visibility_s", "scene_s", "settle_s"):
        spent = getattr(timing, name)
        assert (START < spent <= START + took) if name in grows else spent == START, name
    if isinstance(result, Rejection):
        assert result.timing is timing and not scene.world.client.isConnected()
    else:
        assert scene.world.client.isConnected()
    return result, timing


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
        "find", "Is there a lime?", ["yes", "no"], {"answer": "no", "point": None}, [], [{}],
        questions._difficulty(1, 0), questions._criteria(0.2, {"k": 0.123456}, present=False),
        9, True, None,
    )  # fmt: skip
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
            1.0, (0.0, 0.0, 0.0), 0.0, f"obj_{i:02d}",
        )
        for i, v in enumerate(volumes)
    ]  # fmt: skip


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


# ---------------------------------------------------------------- Count


def test_count_counts_every_target_and_names_the_hidden_and_the_shown():
    scene = laid(COUNT_SCENE)
    with scene.world:
        c, timing = count(scene)
        assert isinstance(c, Candidate) and (c.task, c.seed, c.scene) == ("count", 7, scene)
        assert (c.answer, c.evidence_ids, c.options) == (2, ["obj_00", "obj_01"], None)
        assert c.text == phrase("count", random.Random(3), plural="red cubes")
        assert c.steps == [
            {"description": "find the red cubes visible in the first view", "entity_ids": ["obj_01"]},
            {"description": "uncover the clutter where more red cubes may hide", "entity_ids": ["obj_00"]},
            {"description": "count all red cubes: 2", "entity_ids": ["obj_00", "obj_01"]},
        ]  # fmt: skip
        assert c.difficulty == {"S": 2, "R": 0, "T": 1, "D": 3}
        assert c.criteria == {
            "max_evidence_visibility": MAX_VISIBILITY,
            "generator": GENERATOR,
            "measured": {"visibility": {"obj_00": 0.08, "obj_01": 1.0}, "k": 2, "target": "red cube"},
        }  # fmt: skip
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
            {"description": "move the clutter covering it to reveal the red cube", "entity_ids": ["obj_00"]},
            {"description": "point to it", "entity_ids": ["obj_00"]},
        ]  # fmt: skip
        assert c.difficulty == {"S": 1, "R": 0, "T": 1, "D": 2}
        assert c.criteria["measured"] == {
            "visibility": {"obj_00": 0.08}, "present": True, "target": "red cube"
        }  # fmt: skip
        assert c.confounding is False and timing.visibility_s > 0
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


# ---------------------------------------------------------------- Beneath

# A red cube and a red matchbox under a white plate (both wholly hidden, both revealed
# whole without it), a green book in the open.
BENEATH_SCENE = [
    ("red cube", -0.03, 0.0, 0.0, 0.0, 1.0),
    ("red matchbox", 0.035, 0.0, 0.0, 0.0, 1.0),
    ("white plate", 0.0, 0.0, 0.05, 0.0, 1.0),
    ("green book", -0.12, -0.13, 0.0, 0.3, 1.0),
]
NOT_NOTA, NOTA = 0, 4  # seeds of the question's draws: a "None of the above" answer or not
BENEATH_ENTRIES = ["red matchbox", "red cube", "white plate", "green book", "lime", "plum"]


def beneath(
    rows,
    *,
    rng_seed=0,
    confounding=False,
    names=BENEATH_ENTRIES,
    grows=("visibility_s", "scene_s"),
    with_robot=False,
):
    scene = laid(rows, with_robot=with_robot)
    entries = [BY_NAME[n] for n in names]
    result, timing = asked(
        scene,
        lambda timing: questions._beneath_question(
            random.Random(rng_seed), scene, entries, confounding, CAM, MAX_VISIBILITY, timing
        ),
        grows,
    )
    return scene, result, timing


def beneath_texts(cover: str) -> set[str]:
    return {fill(t, cover=cover) for t in TEMPLATES["beneath"]}


def test_beneath_asks_what_lies_under_the_cover_and_offers_nothing_else_under_it():
    scene, c, timing = beneath(BENEATH_SCENE, rng_seed=NOT_NOTA)
    with scene.world:
        assert isinstance(c, Candidate) and (c.task, c.seed, c.confounding) == ("beneath", 7, False)
        # the largest gain wins; at a tie, the last hidden key
        assert c.evidence_ids == ["obj_02", "obj_01"] and c.answer == "red matchbox"
        assert c.text in beneath_texts("white plate")
        assert c.options[-1] == NONE_OF_THE_ABOVE and len(c.options) == 4
        # the red cube lies under the plate too: no option may name it, nor the plate
        assert set(c.options[:-1]) < {"red matchbox", "green book", "lime", "plum"}
        assert (
            len(set(c.options)) == 4
            and "red matchbox" in c.options
            and not {"red cube", "white plate"} & set(c.options)
        )
        assert c.steps == beneath_steps("obj_02", "white plate", "obj_01", "red matchbox")
        assert c.difficulty == {"S": 2, "R": 1, "T": 1, "D": 4}
        assert c.criteria == {
            "max_evidence_visibility": MAX_VISIBILITY,
            "generator": GENERATOR,
            "measured": {
                "visibility": {"obj_01": 0.0, "obj_02": 1.0},
                "reveal": 1.0,
                "cover": "white plate",
                "none_of_the_above": False,
            },
        }
        assert scene.dressed and timing.visibility_s > 0 and timing.scene_s > 0


def test_beneath_none_of_the_above_leaves_the_hidden_object_out():
    scene, c, _ = beneath(BENEATH_SCENE, rng_seed=NOTA)
    with scene.world:
        assert c.answer == NONE_OF_THE_ABOVE and c.criteria["measured"]["none_of_the_above"]
        assert sorted(c.options[:-1]) == ["green book", "lime", "plum"]
        assert c.options[-1] == NONE_OF_THE_ABOVE


def test_beneath_with_confounding_offers_the_look_alikes_of_the_hidden_object_first():
    names = [*BENEATH_ENTRIES, "blue cube", "red mug", "blue mug", "red apple"]
    scene, c, _ = beneath(BENEATH_SCENE, rng_seed=NOT_NOTA, confounding=True, names=names)
    with scene.world:
        assert c.confounding is True
        # the red matchbox's look-alikes: the red cube (under the plate too, left out),
        # then the red mug and the red apple, in catalog order (the blue cube is not one)
        assert sorted(c.options[:-1]) == ["red apple", "red matchbox", "red mug"]
    scene, c, _ = beneath(BENEATH_SCENE, rng_seed=1, confounding=True, names=names)  # NOTA of ten
    with scene.world:
        assert c.answer == NONE_OF_THE_ABOVE and len(set(c.options)) == 4
        assert {"red apple", "red mug"} < set(c.options[:-1])


def test_beneath_records_the_reveal_and_the_visibility_to_four_places():
    """A plum two of whose 21 pixels show beside a plate, which reveals 19 of them."""
    rows = [
        ("plum", 0.0, 0.0, 0.0, 0.0, 1.0),
        ("white plate", -0.06, 0.0, 0.05, 0.0, 1.0),
        ("green book", -0.12, -0.12, 0.0, 0.3, 1.0),
    ]
    scene, c, _ = beneath(rows, names=["plum", "white plate", "green book", "lime", "orange"])
    with scene.world:
        assert c.evidence_ids == ["obj_01", "obj_00"]
        assert c.criteria["measured"]["reveal"] == 0.9048  # 19 / 21
        assert c.criteria["measured"]["visibility"]["obj_00"] == 0.0952  # 2 / 21


def test_beneath_measures_again_when_the_robot_reaches_into_an_objects_window():
    """The folded arm's box touches the image's last row, as does a lime's there: the pairs
    are measured again with the robot in the world (it shows no pixel: the same question)."""
    rows = [*BENEATH_SCENE, ("lime", 0.0, -0.33, 0.0, 0.0, 1.0)]
    scene, c, _ = beneath(rows, rng_seed=NOT_NOTA, with_robot=True)
    with scene.world:
        assert "robot_arm" in scene.world.bodies
        assert (c.answer, c.evidence_ids) == ("red matchbox", ["obj_02", "obj_01"])


def test_beneath_refuses_a_scene_with_nothing_hidden_and_nothing_to_cover():
    scene, r, timing = beneath(
        [("green book", -0.12, -0.13, 0.0, 0.3, 1.0), ("lime", 0.1, 0.1, 0.0, 0.0, 1.0)],
        grows=("visibility_s",),
    )
    assert isinstance(r, Rejection) and r.reason == "beneath: no cover reveals a hidden object"
    assert r.timing is timing


def pairs_of(scene, threshold=MAX_VISIBILITY):
    keys = [b.key for b in scene.world.objects()]
    return questions._beneath_pairs(scene.world, CAM, keys, threshold)[1]


# A red cube two of whose 25 pixels show beside a white plate: the plate reveals 23 of them.
PEEK_SCENE = [COUNT_SCENE[0], COUNT_SCENE[2], COUNT_SCENE[3]]


def test_beneath_holds_an_object_at_the_threshold_hidden_and_a_reveal_at_min_reveal_enough(
    monkeypatch,
):
    scene = laid(PEEK_SCENE)
    with scene.world:
        assert pairs_of(scene) == [(0.92, "obj_01", "obj_00", ["obj_00"])]
        assert pairs_of(scene, threshold=0.08) == [(0.92, "obj_01", "obj_00", ["obj_00"])]
        assert pairs_of(scene, threshold=math.nextafter(0.08, 0)) == []
        monkeypatch.setattr(questions, "MIN_REVEAL", 0.92)
        assert pairs_of(scene) == [(0.92, "obj_01", "obj_00", ["obj_00"])]
        monkeypatch.setattr(questions, "MIN_REVEAL", math.nextafter(0.92, 1))
        assert pairs_of(scene) == []


def test_an_object_under_its_own_twin_is_not_asked_about():
    """A blue dvd case wholly under another: making the upper one transparent reveals the
    lower, but "what is under the blue dvd case? a blue dvd case" is no question."""
    twin = [
        ("blue dvd case", 0.0, 0.0, 0.0, 0.0, 1.0),
        ("blue dvd case", 0.0, 0.0, 0.014, 0.0, 1.0),
    ]
    scene = laid(twin)
    with scene.world:
        assert pairs_of(scene) == []
    scene = laid([twin[0], ("black dvd case", *twin[1][1:])])
    with scene.world:
        assert [p[1:3] for p in pairs_of(scene)] == [("obj_01", "obj_00")]


# A red matchbox and a blue dvd case apart on the table, nothing hidden; a green book
# beside the matchbox, within the dvd case's reach, and two white candles just beyond it.
LAY_SCENE = [
    ("red matchbox", 0.0, 0.0, 0.0, 0.0, 1.0),
    ("blue dvd case", 0.15, 0.12, 0.0, 0.2, 1.0),
    ("green book", -0.12, -0.13, 0.0, 0.3, 1.0),
    ("white candle", 0.0, 0.2, 0.0, 0.0, 1.0),
    ("white candle", 0.2, 0.0, 0.0, 0.0, 1.0),
]


def test_a_scene_that_hides_nothing_gets_its_widest_flat_object_laid_on_a_small_one():
    names = ["red matchbox", "blue dvd case", "lime", "plum"]
    everything = ("visibility_s", "scene_s", "settle_s")
    scene, c, timing = beneath(LAY_SCENE, names=names, grows=everything)
    with scene.world:
        assert isinstance(c, Candidate) and c.evidence_ids == ["obj_01", "obj_00"]
        assert c.criteria["measured"]["cover"] == "blue dvd case"
        assert c.criteria["measured"]["visibility"]["obj_00"] <= MAX_VISIBILITY
        assert scene.settle.steps == scene.attempt_steps[-1] > 0 and scene.settle.at_rest
        assert timing.settle_s > 0 and timing.scene_s >= timing.settle_s


def test_laying_a_cover_puts_it_squarely_above_what_lies_under_its_reach(monkeypatch):
    scene = laid(LAY_SCENE)
    world, seen = scene.world, {}
    real_settle = questions.settle

    def settle(w, **kwargs):  # what the cover was put at, then the real settle
        uid = w.bodies["obj_01"].uid
        seen["pose"] = w.client.getBasePositionAndOrientation(uid)
        seen["speed"] = w.client.getBaseVelocity(uid)
        seen["args"] = (w, kwargs["max_s"], kwargs["doomed"]())
        seen["report"] = real_settle(w, **kwargs)
        return seen["report"]

    monkeypatch.setattr(questions, "settle", settle)
    with world:
        world.client.resetBaseVelocity(world.bodies["obj_01"].uid, (0.3, 0, 0), (0, 0, 1))
        lo, hi = world.aabb("obj_00")
        book_top = world.aabb("obj_02")[1][2]
        timing = Timing()
        assert questions._lay_cover(scene, "obj_00", "obj_01", timing) is True
        (x, y, z), orientation = seen["pose"]
        assert (x, y) == pytest.approx(((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2), abs=1e-9)
        assert z == pytest.approx(book_top + 0.014 / 2 + 0.005, abs=1e-9)
        yaw = world.client.getEulerFromQuaternion(orientation)[2]
        assert yaw == pytest.approx(0.2, abs=1e-6)
        assert seen["speed"] == ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
        assert seen["args"] == (world, questions.REST_WITHIN_S, False)
        report = seen["report"]
        assert scene.settle == SettleReport(report.steps, report.simulated_s, True)
        assert scene.attempt_steps == [report.steps] and report.steps > 0
        assert timing.settle_s == timing.scene_s > 0 and timing.visibility_s == 0


def test_laying_a_cover_that_ends_out_of_view_fails():
    scene = laid([("red matchbox", 0.3, 0.0, 0.0, 0.0, 1.0), LAY_SCENE[1]])
    with scene.world:
        assert questions._lay_cover(scene, "obj_00", "obj_01", Timing()) is False


def test_covers_are_laid_on_small_low_objects_in_view_nearest_the_centre_first(monkeypatch):
    rows = [
        ("red matchbox", 0.1, 0.0, 0.0, 0.0, 1.0),  # small, low
        ("yellow sticky notes", 0.05, 0.0, 0.0, 0.0, 1.0),  # small, low, nearer the centre
        ("blue dvd case", 0.15, 0.12, 0.0, 0.0, 1.0),  # flat and widest: the cover
        ("black phone", -0.15, 0.12, 0.0, 0.0, 1.0),  # flat, narrower
        ("lime", 0.0, 0.1, 0.0, 0.0, 1.0),  # small but rolls away
        ("red cube", -0.1, -0.1, 0.0, 0.0, 1.0),  # small, low
        ("red matchbox", 0.0, -0.15, 0.05, 0.0, 1.0),  # small, but lying on something
    ]
    scene = laid(rows)
    with scene.world:
        shows = dict.fromkeys(scene.world.bodies, 1.0)
        assert questions._cover_pairs(scene, shows) == [
            ("obj_01", "obj_02"), ("obj_00", "obj_02"), ("obj_05", "obj_02")
        ]  # fmt: skip
        monkeypatch.setattr(questions, "COVER_TRIES", 2)
        assert questions._cover_pairs(scene, shows) == [("obj_01", "obj_02"), ("obj_00", "obj_02")]
        monkeypatch.setattr(questions, "COVER_TRIES", 3)
        # something on them: at COVER_SHOWS in view they are free, below it not
        at = {**shows, "obj_01": 0.9, "obj_02": 0.9}
        assert questions._cover_pairs(scene, at)[0] == ("obj_01", "obj_02")
        under = {**shows, "obj_01": math.nextafter(0.9, 0)}
        assert questions._cover_pairs(scene, under)[0] == ("obj_00", "obj_02")
        covered = {**shows, "obj_02": math.nextafter(0.9, 0)}
        # the phone is less than twice the sticky notes' size: no cover for them
        assert questions._cover_pairs(scene, covered) == [
            ("obj_00", "obj_03"),
            ("obj_05", "obj_03"),
        ]


def test_covers_are_tried_nearest_the_workspace_centre_first_by_the_objects_middles():
    """Four red cubes whose order by distance from the workspace's centre (0, 0.05) differs
    from their order by any other point or measure of them."""
    cubes = [(-0.2, 0.0), (0.15, -0.1), (-0.07, 0.15), (-0.12, 0.03)]
    rows = [("red cube", x, y, 0.0, 0.0, 1.0) for x, y in cubes]
    scene = laid([*rows, ("blue dvd case", 0.12, 0.14, 0.0, 0.0, 1.0)])
    with scene.world:
        shows = dict.fromkeys(scene.world.bodies, 1.0)
        assert questions._cover_pairs(scene, shows) == [
            ("obj_03", "obj_04"),
            ("obj_02", "obj_04"),
            ("obj_01", "obj_04"),
        ]


def test_an_object_lies_on_the_table_up_to_a_centimetre_above_its_top(monkeypatch):
    scene = laid([LAY_SCENE[0], LAY_SCENE[1]])
    shows = {"obj_00": 1.0, "obj_01": 1.0}
    with scene.world:
        bottom = scene.world.aabb("obj_00")[0][2]
        top = bottom - 0.01
        for _ in range(8):  # the table top a centimetre under it, to the last bit
            if top + 0.01 != bottom:
                top = math.nextafter(top, bottom if top + 0.01 < bottom else 0)
        assert top + 0.01 == bottom
        monkeypatch.setattr(questions, "TABLE_TOP_Z", top)
        assert questions._cover_pairs(scene, shows) == [("obj_00", "obj_01")]
        monkeypatch.setattr(questions, "TABLE_TOP_Z", math.nextafter(top, 0))
        assert questions._cover_pairs(scene, shows) == []


def test_cover_sizes_are_held_at_their_limits(monkeypatch):
    rows = [("red matchbox", 0.0, 0.0, 0.0, 0.0, 1.0), ("blue dvd case", 0.15, 0.12, 0.0, 0.0, 1.0)]
    scene = laid(rows)
    target, cover = (s.entry.extent(s.scale) for s in scene.spawned)
    shows = {"obj_00": 1.0, "obj_01": 1.0}
    limits = {
        "COVER_TARGET_HEIGHT": (target[2], [("obj_00", "obj_01")]),
        "COVER_TARGET_AREA": (target[0] * target[1], [("obj_00", "obj_01")]),
        "COVER_HEIGHT": (cover[2], [("obj_00", "obj_01")]),
    }
    with scene.world:
        for name, (limit, pairs) in limits.items():
            monkeypatch.setattr(questions, name, limit)
            assert questions._cover_pairs(scene, shows) == pairs, name
            monkeypatch.setattr(questions, name, math.nextafter(limit, 0))
            assert questions._cover_pairs(scene, shows) == [], name
            monkeypatch.undo()
        ratio = (cover[0] * cover[1]) / (target[0] * target[1])
        monkeypatch.setattr(questions, "COVER_AREA_RATIO", ratio)
        fits = questions._cover_pairs(scene, shows)
        monkeypatch.setattr(questions, "COVER_AREA_RATIO", math.nextafter(ratio, 2 * ratio))
        assert fits == [("obj_00", "obj_01")] and questions._cover_pairs(scene, shows) == []
        assert questions._footprint(scene.spawned[1]) == cover[0] * cover[1]


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
        up = replace(CAM, target=(CAM.eye[0], CAM.eye[1] + 0.3, CAM.eye[2] + 1.0))
        assert questions._under_table(world, up) == []  # looking up: the floor is no matter
