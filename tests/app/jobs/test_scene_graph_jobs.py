"""Scene graphs of a frame window read from an imported synthetic JRDB project."""

from __future__ import annotations

import pytest
from hoi_fixtures import build_hoi_project

from app.jobs.relations import compute_sequence_relations
from app.jobs.scene_graphs import facts_from_project, graph_for_window
from store import open_project


@pytest.fixture(scope="module")
def hp(tmp_path_factory):
    hp = build_hoi_project(tmp_path_factory.mktemp("graph"))
    with open_project(hp.db) as project:
        compute_sequence_relations(project, hp.sequence_id)
        who = project.annotators.sign_in("Alice")
        project.hoi.add_label(
            frame_id=hp.frame_ids[1],
            subject_entity_id=hp.persons["pedestrian:2"],
            object_entity_id=hp.objects["bag:1"],
            category="physical",
            predicate="holding",
            difficulty=2,
            annotator=who,
        )
    return hp


def test_window_graph_has_persons_objects_geometry_and_slots(hp):
    window = hp.frame_ids[1:4]
    with open_project(hp.db) as project:
        facts = facts_from_project(project, hp.sequence_id, window)
        g = graph_for_window(project, hp.sequence_id, window)
    assert [f.frame_id for f in facts] == window and [f.slot for f in facts] == [0, 1, 2]
    assert g.slots == (0, 1, 2)
    persons = g.of_kind("human")
    assert {p.id for p in persons} <= set(hp.persons) and persons
    assert any(p.attributes["actions"] for p in persons)
    assert all("gender" in p.attributes and "age" in p.attributes for p in persons)
    assert {o.id for o in g.of_kind("object")} <= set(hp.objects) and g.of_kind("object")
    geometry = g.filter(kinds=["geometry"]).relations
    assert {r.slot for r in geometry} == {0, 1, 2}
    assert any(r.object == "robot" for r in geometry)
    assert any(r.subject in hp.objects for r in geometry)  # person-object relations
    for r in geometry:
        assert r.predicate == f"{r.attributes['direction']}/{r.attributes['distance_bin']}"
        assert r.attributes["frame_id"] == window[r.slot]
    hoi = [(r.subject, r.predicate, r.object, r.slot) for r in g.relations if r.kind == "hoi"]
    assert hoi == [("pedestrian:2", "holding", "bag:1", 0)]


def test_unknown_frame_is_refused(hp):
    with open_project(hp.db) as project, pytest.raises(ValueError, match="not in sequence"):
        facts_from_project(project, hp.sequence_id, [10**9])


def test_jrdb_social_interactions_are_edges_between_the_pair(hp):
    """The synthetic sequence's H-interactions: pedestrians 1 and 2 walk together (each lists
    the other) and talk; objects are placed relative to the robot as well."""
    window = hp.frame_ids[:2]
    with open_project(hp.db) as project:
        g = graph_for_window(project, hp.sequence_id, window)
    hhi = {(r.subject, r.predicate, r.object, r.slot) for r in g.relations if r.kind == "hhi"}
    assert {("pedestrian:1", "walking together", "pedestrian:2", s) for s in (0, 1)} <= hhi
    assert {("pedestrian:2", "walking together", "pedestrian:1", s) for s in (0, 1)} <= hhi
    # pedestrian 1's entry alone lists their conversation (difficulty 2.0): both ways still
    assert {("pedestrian:2", "conversation", "pedestrian:1", s) for s in (0, 1)} <= hhi
    difficulty = {r.predicate: r.attributes for r in g.relations if r.kind == "hhi"}
    assert difficulty["walking together"] == {"label": "walking together", "difficulty": 1}
    assert difficulty["conversation"] == {"label": "conversation", "difficulty": 2}
    geometry = g.filter(kinds=["geometry"]).relations
    assert {r.subject for r in geometry if r.object == "robot"} & set(hp.objects)
