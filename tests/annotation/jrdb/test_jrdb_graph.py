"""Scene graphs of JRDB frame windows from hand-built frame facts."""

from __future__ import annotations

import pytest

from annotation.jrdb.geometry import GeometricRelation
from annotation.jrdb.graph import (
    ROBOT_ID,
    FrameFacts,
    HoiFacts,
    InteractionFacts,
    ObjectFacts,
    PersonFacts,
    graph_from_jrdb,
)

ANN = PersonFacts(1, "pedestrian:1", gender="female", age="adult", actions={"walking": 1})
BOB = PersonFacts(2, "pedestrian:2", gender="male", age="young_adult", attributes={"race": "x"})
CHAIR = ObjectFacts(10, "chair:1", "chair")
BAG = ObjectFacts(11, "bag:1", "bag")


def _rel(frame_id, subject, reference, direction="front", distance_bin="close", m=1.0):
    return GeometricRelation(frame_id, subject, reference, direction, "up", distance_bin, m, "x")


def _window() -> list[FrameFacts]:
    first = FrameFacts(
        slot=0,
        persons=(ANN, BOB),
        objects=(CHAIR,),
        hoi=(
            HoiFacts(2, "sitting_on", 10, "physical", 1),
            HoiFacts(1, "standing", None, "pose", 2),
        ),
        geometry=(_rel(100, 1, None, "front-left", "close", 1.2), _rel(100, 10, 1, "left")),
        frame_id=100,
        frame_index=0,
    )
    second = FrameFacts(
        slot=1,
        persons=(PersonFacts(1, "pedestrian:1", actions={"walking": 2, "talking": 3}),),
        objects=(CHAIR, BAG),
        hoi=(HoiFacts(1, "holding", 11, "physical", 3),),
        geometry=(_rel(101, 1, None, "back", "moderate", 2.0),),
        frame_id=101,
        frame_index=1,
    )
    return [first, second]


def test_nodes_carry_kinds_and_attributes():
    g = graph_from_jrdb(_window())
    assert g.slots == (0, 1)
    assert set(g.entities) == {ROBOT_ID, "pedestrian:1", "pedestrian:2", "chair:1", "bag:1"}
    ann = g.entity("pedestrian:1")
    assert ann.kind == "human" and ann.label == "pedestrian 1"
    assert ann.attributes["gender"] == "female" and ann.attributes["age"] == "adult"
    assert ann.attributes["actions"] == {"walking": 1, "talking": 3}  # the easiest kept
    assert ann.attributes["actions_by_slot"] == {
        "0": {"walking": 1},
        "1": {"walking": 2, "talking": 3},
    }
    assert ann.attributes["pose"] == ["standing"]
    assert ann.attributes["pose_by_slot"] == {"0": ["standing"]}
    assert ann.attributes["slots"] == [0, 1] and ann.attributes["entity_id"] == 1
    bob = g.entity("pedestrian:2")
    assert bob.attributes["race"] == "x" and bob.attributes["slots"] == [0]
    assert g.entity("bag:1").kind == "object"
    assert g.entity("bag:1").attributes == {"category": "bag", "entity_id": 11, "slots": [1]}
    assert g.entity(ROBOT_ID).kind == "robot"


def test_hoi_and_geometry_edges_per_slot():
    g = graph_from_jrdb(_window())
    hoi = [(r.subject, r.predicate, r.object, r.slot) for r in g.relations if r.kind == "hoi"]
    assert hoi == [
        ("pedestrian:2", "sitting_on", "chair:1", 0),
        ("pedestrian:1", "holding", "bag:1", 1),
    ]
    assert g.relations_of("pedestrian:2", "hoi")[0].attributes == {
        "category": "physical",
        "difficulty": 1,
    }
    geo = [(r.subject, r.predicate, r.object, r.slot) for r in g.relations if r.kind == "geometry"]
    assert geo == [
        ("chair:1", "left/close", "pedestrian:1", 0),
        ("pedestrian:1", "front-left/close", ROBOT_ID, 0),
        ("pedestrian:1", "back/moderate", ROBOT_ID, 1),
    ]
    first = g.filter(kinds=["geometry"], slots=[0]).relations_of("pedestrian:1")[1]
    assert first.attributes == {
        "direction": "front-left",
        "vertical": "up",
        "distance_bin": "close",
        "distance_m": 1.2,
        "method": "x",
        "frame_id": 100,
    }
    # pose labels are attributes, not edges
    assert not any(r.predicate == "standing" for r in g.relations)
    assert g.neighbours("pedestrian:1") == ["bag:1", "chair:1", ROBOT_ID]


def test_bad_windows_are_refused():
    frame = _window()[0]
    with pytest.raises(ValueError, match="own slot"):
        graph_from_jrdb([frame, frame])
    with pytest.raises(ValueError, match="entity 99, not in the window"):
        graph_from_jrdb([FrameFacts(0, (ANN,), hoi=(HoiFacts(1, "holding", 99, "physical", 1),))])
    with pytest.raises(ValueError, match="both"):
        graph_from_jrdb([FrameFacts(0, (ANN,), (ObjectFacts(1, "chair:1", "chair"),))])
    assert graph_from_jrdb([]).slots == (0,)


def test_jrdb_social_interactions_are_mutual_edges():
    """Each H-interaction label joins the pair both ways, once, with the easier difficulty of
    the two sides that list it; race is kept in the dataset's label, lower case."""
    cat = PersonFacts(3, "pedestrian:3", attributes={"race": "Caucasian/White"})
    frame = FrameFacts(
        slot=0,
        persons=(ANN, BOB, cat),
        interactions=(
            InteractionFacts(1, "conversation", 2, 2),
            InteractionFacts(2, "conversation", 1, 1),
            InteractionFacts(3, "walking together", 1, None),
            InteractionFacts(3, "hugging", 3, 1),  # not a pair: dropped
        ),
    )
    g = graph_from_jrdb([frame])
    hhi = sorted(
        (r.subject, r.predicate, r.object, r.attributes["difficulty"]) for r in g.relations
    )
    assert hhi == [
        ("pedestrian:1", "conversation", "pedestrian:2", 1),
        ("pedestrian:1", "walking together", "pedestrian:3", None),
        ("pedestrian:2", "conversation", "pedestrian:1", 1),
        ("pedestrian:3", "walking together", "pedestrian:1", None),
    ]
    assert all(r.kind == "hhi" and r.attributes["label"] == r.predicate for r in g.relations)
    assert g.entity("pedestrian:3").attributes["race"] == "caucasian/white"
    with pytest.raises(ValueError, match="interaction 'conversation'"):
        graph_from_jrdb(
            [FrameFacts(0, (ANN,), interactions=(InteractionFacts(1, "conversation", 9),))]
        )
