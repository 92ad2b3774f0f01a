"""Choosing an interaction's target from the keyboard (`TargetChooser`) on the real
`HoiState` of a small imported JRDB sequence: the frame's objects nearest the person first
(3D box centres; panorama columns round the seam where a 3D box is missing), Tab wrapping
round them, and Enter taking the highlighted one as the waiting label's target."""

from __future__ import annotations

import math

import pytest
from hoi_fixtures import build_hoi_project, copy_of

from annotation.jrdb.dataset import PANORAMA_WIDTH
from store import open_project
from widgets.hoi.state import HoiState
from widgets.hoi.targets import TargetChooser, nearest_objects
from widgets.jrdb.state import JrdbViewState


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("hoi_targets"))


@pytest.fixture
def hp(base, tmp_path):
    return copy_of(base, tmp_path)


@pytest.fixture
def project(hp):
    with open_project(hp.db) as p:
        yield p


@pytest.fixture
def labelling(project, hp):
    """The view, the HOI state signed in as Alice, its chooser, and what it refused."""
    view = JrdbViewState()
    state = HoiState(view)
    view.load(project, hp.sequence_id)
    state.set_source(project.hoi, project.annotators.sign_in("Alice"))
    refused: list[str] = []
    state.refused.connect(refused.append)
    return view, state, TargetChooser(state), refused


def stored_labels(project) -> list[tuple]:
    return [
        tuple(r)
        for r in project.db.execute(
            "SELECT subject_entity_id, object_entity_id, predicate FROM hoi_labels ORDER BY id"
        )
    ]


def test_objects_are_ranked_by_the_distance_of_their_3d_box_centres(labelling, hp):
    view, _state, _chooser, _refused = labelling
    person = hp.persons["pedestrian:1"]
    p = view.box_3d(person)
    ranked = nearest_objects(view, person)
    assert sorted(o for o, _ in ranked) == sorted(hp.objects.values())
    distances = [d for _, d in ranked]
    assert distances == sorted(distances)
    for entity, distance in ranked:
        b = view.box_3d(entity)
        assert distance == pytest.approx(math.dist((p.cx, p.cy, p.cz), (b.cx, b.cy, b.cz)))
    assert ranked[0][0] == hp.objects["bag:1"]  # the bag beside person 1, 1.4 m away
    assert ranked[0][1] == pytest.approx(1.378, abs=1e-3)
    # nobody selected: every object, in the frame's order, with no distance
    assert nearest_objects(view, None) == [(o, None) for o in view.objects_in_frame()]


def test_without_3d_boxes_the_panorama_columns_count_round_the_seam(labelling, project, hp):
    view, _state, _chooser, _refused = labelling
    sequences, frame = project.sequences, hp.frame_ids[0]
    alice = project.annotators.sign_in("Alice")
    person = sequences.add_entity(hp.sequence_id, "pedestrian:9", "human", "pedestrian")
    sequences.set_box_2d(person, frame, (10.0, 100.0, 20.0, 200.0), alice)  # centre x 20
    across = sequences.add_object(hp.sequence_id, "bag:9", "bag", alice)
    sequences.set_box_2d(across, frame, (PANORAMA_WIDTH - 30.0, 200.0, 20.0, 30.0), alice)
    near = sequences.add_object(hp.sequence_id, "cup:9", "cup", alice)
    sequences.set_box_2d(near, frame, (300.0, 200.0, 20.0, 20.0), alice)
    view.refresh()
    ranked = nearest_objects(view, person)
    # 40 px across the seam beats 290 px on the same side; nobody has a distance in metres
    assert [o for o, _ in ranked[:2]] == [across, near]
    assert all(d is None for _, d in ranked)
    # for a person with a 3D box, the objects with only a 2D box come after the measured ones
    measured = nearest_objects(view, hp.persons["pedestrian:1"])
    assert [o for o, _ in measured[-2:]] == [near, across]  # 1134 px, then 1464 px away
    assert [d is None for _, d in measured] == [False] * 4 + [True] * 2


def test_tab_wraps_round_the_candidates_and_enter_takes_the_highlighted_one(
    qtbot, labelling, project, hp
):
    view, state, chooser, _refused = labelling
    state.next_person()
    person = state.person
    assert chooser.candidates == [] and chooser.current is None
    with qtbot.waitSignal(chooser.changed, timeout=1000):
        state.press("holding")  # the label waits for its target
    assert chooser.candidates == nearest_objects(view, person)
    assert chooser.current == chooser.candidates[0][0]
    seen = []
    for delta in (1, 1, 1, 1, -1):
        chooser.cycle(delta)
        seen.append(chooser.current)
    ids = [o for o, _ in chooser.candidates]
    assert seen == [ids[1], ids[2], ids[3], ids[0], ids[3]]  # four objects: round again
    chooser.take()
    assert stored_labels(project) == [(person, ids[3], "holding")]
    assert chooser.candidates == [] and chooser.index == -1  # picking is over
    # a click in the list takes that object, whichever is highlighted
    state.press("touching")
    chooser.take(ids[1])
    assert stored_labels(project)[-1] == (person, ids[1], "touching")


def test_with_nothing_to_choose_tab_and_enter_say_why(labelling, project):
    _view, _state, chooser, refused = labelling
    chooser.cycle(1)
    chooser.take()
    assert refused == [
        "No object in this frame to take as the target",
        "No target highlighted: Tab moves through the objects",
    ]
    assert stored_labels(project) == []


def test_a_candidate_is_described_by_its_name_and_distance(labelling, hp):
    _view, _state, chooser, _refused = labelling
    assert chooser.describe(hp.objects["chair:1"], 5.133) == "chair 1 — 5.1 m"
    assert chooser.describe(hp.objects["table:1"], None) == "table 1"
