"""Every question authored on a hand-built scene (MG-VQA-Hard) that the checks accept meets
every criterion of its task, measured again from the simulator (tests/criteria_checks.py).
Every task is tried on every object (Count, Find), every ordered pair (Beneath) and a
labelled triple (Compare); those refused name their criterion."""

from __future__ import annotations

import itertools

import pytest

from sim.tabletop.authoring.questions import CriterionFailed, author_question
from sim.tabletop.authoring.scenes import build_scene, read_scene_spec
from sim.tabletop.world import TOP_DOWN
from tests.criteria_checks import check_question

SIZE = 256
CAM = TOP_DOWN.with_size(SIZE, SIZE)
SPEC = {
    "format": "reasonscope-scene-spec/1",
    "name": "a matchbox under a book, a cube beside it",
    "objects": [
        {"catalog": "red matchbox", "position": [0.0, 0.0]},
        {"catalog": "navy book", "position": [0.0, 0.0]},
        {"catalog": "red cube", "position": [0.12, -0.08]},
        {"catalog": "white tissue box", "position": [-0.1, 0.1], "yaw_deg": 20},
        {"catalog": "yellow sponge", "position": [0.1, 0.1]},
    ],
}


def _scene():
    return build_scene(read_scene_spec(SPEC))


@pytest.fixture(scope="module")
def scene():
    built = _scene()
    yield built
    built.world.close()


def _try(world, task, targets, **kw):
    try:
        return author_question(world, task, list(targets), image_size=SIZE, **kw).record
    except CriterionFailed as exc:
        assert exc.criterion and str(exc).startswith(exc.criterion)
        return None


def test_every_accepted_count_find_and_beneath_question(scene):
    world = scene.world
    names = sorted({b.name for b in world.objects()})
    accepted = []
    for name in [*names, "blue mug"]:  # a name no object has: Count 0, Find no
        for task in ("count", "find"):
            record = _try(world, task, [name])
            if record:
                check_question(world, CAM, record, where=(task, name))
                accepted.append((task, name))
    keys = [b.key for b in world.objects()]
    for cover, hidden in itertools.permutations(keys, 2):
        record = _try(world, "beneath", [cover, hidden])
        if record:
            check_question(world, CAM, record, where=("beneath", cover, hidden))
            accepted.append(("beneath", hidden))
    tasks = {task for task, _ in accepted}
    assert tasks == {"count", "find", "beneath"}, accepted


def test_an_accepted_compare_question_meets_every_criterion():
    built = _scene()  # Compare puts labels on its objects: a scene of its own
    try:
        world = built.world
        by_name = {b.name: b.key for b in world.objects()}
        trio = [by_name[n] for n in ("red matchbox", "navy book", "white tissue box")]
        for extreme in ("largest", "smallest"):
            record = _try(world, "compare", trio, extreme=extreme)
            assert record, extreme
            check_question(world, CAM, record, where=("compare", extreme))
    finally:
        built.world.close()
