"""The scene-graph value: validation, queries, diff, JSON round trip, digest."""

from __future__ import annotations

import json

import numpy as np
import pytest

from annotation.scene_graph import Entity, Relation, SceneGraph


def _graph(extra_relations=(), slots=(0, 1)) -> SceneGraph:
    entities = [
        Entity("robot", "robot", "the robot"),
        Entity("pedestrian:1", "human", "pedestrian 1", {"gender": "female", "age": "adult"}),
        Entity("chair:1", "object", "chair 1", {"category": "chair"}),
        Entity("table", "surface"),
    ]
    relations = (
        Relation("pedestrian:1", "sitting_on", "chair:1", "hoi", 0, {"difficulty": 1}),
        Relation("pedestrian:1", "front/close", "robot", "geometry", 1, {"distance_m": 1.2}),
        Relation("chair:1", "on", "table", "support", 0),
        *extra_relations,
    )
    return SceneGraph({e.id: e for e in entities}, relations, slots)


def test_entity_and_relation_validation():
    with pytest.raises(ValueError, match="kind must be one of"):
        Entity("x", "animal")
    with pytest.raises(ValueError, match="non-empty string"):
        Entity("", "object")
    with pytest.raises(ValueError, match="kind must be one of"):
        Relation("a", "on", "b", "magic")
    with pytest.raises(ValueError, match="no predicate"):
        Relation("a", "", "b", "support")
    with pytest.raises(ValueError, match="not JSON-safe"):
        Entity("x", "object", attributes={"bad": object()})
    with pytest.raises(ValueError, match="not JSON-safe"):
        Relation("a", "near", "b", "spatial", attributes={"m": float("nan")})
    assert Entity("x", "object").label == "x"  # the label defaults to the id


def test_graph_validation_refuses_unknown_entities_and_slots():
    with pytest.raises(ValueError, match="unknown entity 'ghost'"):
        _graph([Relation("chair:1", "near", "ghost", "spatial", 0)])
    with pytest.raises(ValueError, match="slot 5"):
        _graph([Relation("chair:1", "on", "table", "support", 5)])
    with pytest.raises(ValueError, match="distinct"):
        _graph(slots=(0, 0))
    with pytest.raises(ValueError, match="has id"):
        SceneGraph({"a": Entity("b", "object")})


def test_attributes_are_normalised_to_json():
    e = Entity("x", "object", attributes={"size": (0.1, 0.2), "n": np.float64(0.5), 3: "three"})
    assert e.attributes == {"size": [0.1, 0.2], "n": 0.5, "3": "three"}


def test_queries_and_filter():
    g = _graph()
    assert g.neighbours("pedestrian:1") == ["chair:1", "robot"]
    assert g.neighbours("pedestrian:1", "hoi") == ["chair:1"]
    assert g.neighbours("chair:1", slot=0) == ["pedestrian:1", "table"]
    assert [r.predicate for r in g.relations_of("chair:1", "support")] == ["on"]
    assert len(g.relations_of("pedestrian:1", slot=1)) == 1
    with pytest.raises(KeyError):
        g.relations_of("nobody")
    only_hoi = g.filter(kinds=["hoi"])
    assert [r.kind for r in only_hoi.relations] == ["hoi"] and len(only_hoi.entities) == 4
    slot1 = g.filter(slots=[1])
    assert slot1.slots == (1,) and [r.slot for r in slot1.relations] == [1]
    people = g.filter(entity_ids=["pedestrian:1", "chair:1"])
    assert set(people.entities) == {"pedestrian:1", "chair:1"}
    assert [r.predicate for r in people.relations] == ["sitting_on"]
    with pytest.raises(ValueError, match="unknown relation kinds"):
        g.filter(kinds=["magic"])


def test_diff():
    old = _graph()
    entities = dict(old.entities)
    entities["chair:1"] = Entity("chair:1", "object", "chair 1", {"category": "stool"})
    entities["cup:1"] = Entity("cup:1", "object", "cup 1")
    new = SceneGraph(
        entities,
        (
            Relation("pedestrian:1", "sitting_on", "chair:1", "hoi", 0, {"difficulty": 1}),
            Relation("cup:1", "on", "table", "support", 0),
        ),
        old.slots,
    )
    added_e, removed_e, added_r, removed_r = old.diff(new)
    assert [e.id for e in added_e] == ["chair:1", "cup:1"]
    assert [e.id for e in removed_e] == ["chair:1"]
    assert old.diff(new).changed_ids == ("chair:1",)
    assert [(r.subject, r.predicate) for r in added_r] == [("cup:1", "on")]
    assert {(r.subject, r.predicate) for r in removed_r} == {
        ("chair:1", "on"),
        ("pedestrian:1", "front/close"),
    }
    assert old.diff(old).empty and not old.diff(new).empty


def test_json_round_trip():
    g = _graph()
    back = SceneGraph.from_dict(json.loads(json.dumps(g.to_dict())))
    assert back == g and back.digest() == g.digest()
    assert SceneGraph.from_json(g.to_json()) == g
    with pytest.raises(ValueError, match="format"):
        SceneGraph.from_dict({"entities": []})
    with pytest.raises(ValueError, match="unknown entity"):
        data = g.to_dict()
        data["entities"] = [e for e in data["entities"] if e["id"] != "table"]
        SceneGraph.from_dict(data)


def test_digest_is_stable_and_order_free():
    g = _graph()
    shuffled = SceneGraph(
        dict(reversed(list(g.entities.items()))), tuple(reversed(g.relations)), (1, 0)
    )
    assert shuffled == g and shuffled.digest() == g.digest()
    assert len(g.digest()) == 64
    # duplicates collapse; a different attribute value changes the digest
    assert _graph([g.relations[0]]).digest() == g.digest()
    changed = _graph([Relation("chair:1", "on", "table", "support", 1)])
    assert changed.digest() != g.digest()
    # the digest is a content hash, fixed across runs
    assert g.digest() == _graph().digest()
