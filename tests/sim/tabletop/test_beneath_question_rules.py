"""Beneath's criteria on scenes laid out by hand (tests/question_scenes.py), each at and
beside its boundary: what is hidden (at most the threshold visible), what is a cover (in
view above it, revealing at least MIN_REVEAL of what it hides, not its twin), the options
a question offers, and the cover laid on a small object when a scene hides nothing (which
objects, which cover, in what order, where it is put and when laying it fails)."""

from __future__ import annotations

import math
import random
import time
from dataclasses import replace

import numpy as np
import pytest

from annotation.tabletop.question_text import NONE_OF_THE_ABOVE, TEMPLATES, beneath_steps, fill
from sim.tabletop import questions
from sim.tabletop.questions import GENERATOR, MAX_VISIBILITY, Candidate, Rejection, Timing
from sim.tabletop.scenes import SettleReport
from tests.criteria_checks import visible
from tests.question_scenes import BY_NAME, CAM, COUNT_SCENE, START, asked, laid

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


def test_a_cover_is_an_object_in_view_above_the_threshold():
    """A white plate over a red cube, a green book over 43 % of the plate, and a lime
    beyond the image (no pixels, no window). At a threshold of the plate's own visibility
    the plate counts as hidden (under the book) and is no cover; just under it, it is."""
    rows = [
        ("red cube", -0.02, 0.0, 0.0, 0.0, 1.0),
        ("white plate", 0.0, 0.0, 0.05, 0.0, 1.0),
        ("green book", 0.1, 0.0, 0.062, 0.0, 1.0),
        ("lime", 0.0, 0.6, 0.0, 0.0, 1.0),
    ]
    scene = laid(rows)
    with scene.world:
        plate = visible(scene.world, CAM, "obj_01")
        assert plate == 110 / 193
        assert [p[1:3] for p in pairs_of(scene, plate)] == [("obj_02", "obj_01")]
        under = pairs_of(scene, math.nextafter(plate, 0))
        assert [p[1:3] for p in under] == [("obj_01", "obj_00")]
        keys = [b.key for b in scene.world.objects()]
        vis, _, windows = questions._beneath_pairs(scene.world, CAM, keys, MAX_VISIBILITY)
        assert windows["obj_03"] is None and vis["obj_03"] == 0.0  # nothing of it to see


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


# A red matchbox off the centre, a green tea box within a blue dvd case's reach of it (5
# cm off in y, half the case's diagonal being 11.65 cm), and three taller objects beyond
# that reach, each placed where a slip in the reach's arithmetic would bring it near.
REACH_SCENE = [
    ("red matchbox", 0.1, 0.17, 0.0, 0.0, 1.0),
    ("blue dvd case", 0.0, 0.07, 0.0, 0.2, 1.0),
    ("green tea box", 0.15, 0.26, 0.0, 0.0, 1.0),
    ("paper cup", 0.01, -0.05, 0.0, 0.0, 1.0),
    ("red soda can", -0.24, 0.21, 0.0, 0.0, 1.0),
    ("white candle", -0.11, -0.12, 0.0, 0.0, 1.0),
]


def lay(scene, monkeypatch, target="obj_00", cover="obj_01"):
    """Lay `cover` on `target` with the attempt's clock and steps already running: (what
    `_lay_cover` said, the cover's pose and speed when the settle began, the settle's
    arguments and report, the clock, the time it took)."""
    world, seen = scene.world, {}
    real_settle = questions.settle

    def settle(w, **kwargs):  # the cover as it was put, then the real settle
        uid = w.bodies[cover].uid
        seen["pose"] = w.client.getBasePositionAndOrientation(uid)
        seen["speed"] = w.client.getBaseVelocity(uid)
        seen["args"] = (w, kwargs["max_s"], kwargs["doomed"]())
        seen["report"] = real_settle(w, **kwargs)
        return seen["report"]

    monkeypatch.setattr(questions, "settle", settle)
    world.client.resetBaseVelocity(world.bodies[cover].uid, (0.3, 0, 0), (0, 0, 1))
    scene.attempt_steps, scene.settle = [40, 7], SettleReport(7, 0.5, True)
    timing = Timing(scene_s=START, visibility_s=START, settle_s=START)
    t0 = time.perf_counter()
    laid_ok = questions._lay_cover(scene, target, cover, timing)
    return laid_ok, seen, timing, time.perf_counter() - t0


def test_laying_a_cover_puts_it_squarely_above_what_lies_under_its_reach(monkeypatch):
    scene = laid(REACH_SCENE)
    world = scene.world
    with world:
        lo, hi = world.aabb("obj_00")
        tea_top = world.aabb("obj_02")[1][2]
        laid_ok, seen, timing, took = lay(scene, monkeypatch)
        assert laid_ok is True
        (x, y, z), orientation = seen["pose"]
        assert (x, y) == pytest.approx(((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2), abs=1e-6)
        assert z == pytest.approx(tea_top + 0.014 / 2 + 0.005, abs=1e-6)
        turned = world.client.getQuaternionFromEuler((0, 0, 0.2))
        assert orientation == pytest.approx(turned, abs=1e-6)
        assert seen["speed"] == ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
        assert seen["args"] == (world, questions.REST_WITHIN_S, False)
        report = seen["report"]
        assert scene.settle == SettleReport(7 + report.steps, 0.5 + report.simulated_s, True)
        assert scene.attempt_steps == [40, 7 + report.steps] and report.steps > 0
        assert START < timing.settle_s == timing.scene_s <= START + took
        assert timing.visibility_s == START


@pytest.mark.parametrize("axis", [0, 1])
def test_an_object_exactly_the_covers_reach_away_is_not_under_it(monkeypatch, axis):
    """The cover's reach made exactly a tea box's distance from the matchbox in x (or a
    cup's in y): the cover is laid above the matchbox, not above them."""
    other = ("green tea box", -0.02, 0.17, 0.0, 0.0, 1.0)  # 5 cm off in x only
    if axis:
        other = ("paper cup", 0.1, 0.05, 0.0, 0.0, 1.0)  # 8 cm off in y only
    scene = laid([REACH_SCENE[0], REACH_SCENE[1], other])
    world = scene.world
    with world:
        lo, hi = world.aabb("obj_00")
        centre = (lo[axis] + hi[axis]) / 2
        o_lo, o_hi = world.aabb("obj_02")
        away = abs(np.clip(centre, o_lo[axis], o_hi[axis]) - centre)
        cover = scene.spawned[1]
        extent = (2 * away, 0.0, cover.entry.extent_m[2])  # half its diagonal: `away`
        scene.spawned[1] = replace(cover, entry=replace(cover.entry, extent_m=extent))
        _, seen, _, _ = lay(scene, monkeypatch)
        assert seen["pose"][0][2] == pytest.approx(hi[2] + 0.014 / 2 + 0.005, abs=1e-6)


# Where the red matchbox lies (off the workspace's centre), and what stands about it: the
# dvd case (half its diagonal, 11.65 cm, its reach) is laid above that when its box comes
# within reach of the matchbox's middle in both x and y, else above the matchbox.
CAN, TEA = "red soda can", "green tea box"  # 12.2 cm and 7 cm tall
REACH_CASES = {
    "9 cm beyond it in y: within reach": ((0.0, 0.0), (CAN, 0.0, 0.123), True),
    "13 cm to its right": ((0.0, 0.0), (CAN, 0.163, 0.0), False),
    "13 cm to its left": ((0.0, 0.0), (CAN, -0.163, 0.0), False),
    "13 cm beyond it in y": ((0.0, 0.0), (CAN, 0.0, 0.163), False),
    "13 cm before it in y": ((0.0, 0.0), (CAN, 0.0, -0.163), False),
    "5 cm beyond, 10 cm right of the centre": ((0.1, 0.0), (CAN, 0.1, 0.083), True),
    "5 cm right, 10 cm beyond the centre": ((0.0, 0.1), (CAN, 0.083, 0.1), True),
    "a box 14 cm wide 2.4 cm before it": ((0.1, 0.25), (TEA, 0.16, 0.186), True),
}


@pytest.mark.parametrize("case", REACH_CASES)
def test_what_lies_within_the_covers_reach_in_both_directions(monkeypatch, case):
    (tx, ty), (other, ox, oy), within = REACH_CASES[case]
    rows = [
        ("red matchbox", tx, ty, 0.0, 0.0, 1.0),
        ("blue dvd case", -0.2, -0.25, 0.0, 0.0, 1.0),
        (other, ox, oy, 0.0, 0.0, 1.0),
    ]
    scene = laid(rows)
    with scene.world:
        under = scene.world.aabb("obj_02" if within else "obj_00")[1][2]
        _, seen, _, _ = lay(scene, monkeypatch)
        assert seen["pose"][0][2] == pytest.approx(under + 0.014 / 2 + 0.005, abs=1e-6)


def test_laying_a_cover_fails_when_it_ends_out_of_view_or_still_moving(monkeypatch):
    scene = laid([("red matchbox", 0.3, 0.0, 0.0, 0.0, 1.0), LAY_SCENE[1]])
    with scene.world:
        laid_ok, seen, _, _ = lay(scene, monkeypatch)
        assert laid_ok is False and seen["args"][2] is True  # doomed from the start
        assert scene.settle.at_rest is False and seen["report"].steps <= 120
    monkeypatch.setattr(questions, "REST_WITHIN_S", 0.05)  # still falling when time is up
    scene = laid(LAY_SCENE)
    with scene.world:
        laid_ok, seen, _, _ = lay(scene, monkeypatch)
        assert laid_ok is False and not questions.problems(scene.world)
        assert seen["report"].at_rest is False


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
            ("obj_01", "obj_02"),
            ("obj_00", "obj_02"),
            ("obj_05", "obj_02"),
        ]
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
