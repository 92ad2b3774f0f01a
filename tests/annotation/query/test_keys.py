"""Sub-question keys in JRDB-Reasoning's vocabulary, one per engine step."""

from __future__ import annotations

from annotation.query.engine import generate
from annotation.query.keys import edge_name, pattern_keys, step_keys
from annotation.query.model import NoQuestion, Preferences
from tests.annotation.query.query_graphs import random_graph


def _pattern(nodes, edges=()):
    return {"nodes": nodes, "edges": list(edges), "answer_slot": 0}


def test_target_keys_are_the_attributes_applied_so_far():
    p = _pattern(
        [
            {
                "kind": "human",
                "bound": "p:1",
                "filters": [
                    ["gender", "female", None],
                    ["age", "adulthood", None],
                    ["action", "walking", 0],
                ],
            }
        ]
    )
    steps = [{"node": 0}] * 4
    assert step_keys(p, steps) == ["human", "gender", "gender, age", "gender, age, action"]


def test_references_get_a_pair_prefix_and_the_robot_no_key():
    p = _pattern(
        [
            {"kind": "human", "bound": "p:1", "filters": [["gender", "male", None]]},
            {"kind": "object", "bound": "chair:1", "filters": [["category", "chair", None]]},
            {"kind": "robot", "bound": "robot", "filters": []},
        ],
        [
            {
                "parent": 0,
                "child": 1,
                "family": "hoi",
                "value": "sitting on",
                "slot": 0,
                "parent_is_subject": True,
            },
            {
                "parent": 0,
                "child": 2,
                "family": "direction",
                "value": "left",
                "slot": 0,
                "parent_is_subject": True,
            },
        ],
    )
    # search order: target type, its filter, reference 1, edge 1, the robot, edge 2
    steps = [{"node": 0}, {"node": 0}, {"node": 1}, {"node": 0}, {"node": 2}, {"node": 0}]
    assert step_keys(p, steps) == [
        "human",
        "gender",
        "hoi_pair: category",
        "gender, hoi",
        None,
        "gender, hoi, SR_Robot_Ref",
    ]


def test_edge_names_follow_the_real_engine():
    assert edge_name("distance", "human", "robot") == "distance"
    assert edge_name("direction", "human", "human") == "hhg"
    assert edge_name("distance", "object", "human") == "hoG"
    assert edge_name("direction", "object", "object") == "ooG"
    assert edge_name("support", "object", "surface") == "support"
    assert edge_name("spatial", "human", "human", "in the same group as") == "social_group"


def test_every_engine_question_gets_distinct_keys():
    checked = 0
    for seed in range(60):
        graph = random_graph(seed)
        spatial = ("single", "pair", "clique")[seed % 3]
        subject = ("human", "both")[seed % 2] if spatial != "single" else "human"
        try:
            q = generate(graph, Preferences("vg", subject=subject, spatial=spatial), seed)
        except NoQuestion:
            continue
        steps = [s.as_dict() for s in q.steps]
        keys = step_keys(q.pattern, steps)
        named = [k for k in keys if k is not None]
        assert len(named) == len(set(named))
        assert keys[0] in ("human", "object", "category")
        checked += 1
    assert checked > 20


def test_race_and_interaction_keys_run_as_the_real_engines():
    """ "age", "age, race", "age, race, hhi" (the real engine's keys)."""
    p = _pattern(
        [
            {"kind": "human", "filters": [["age", "adulthood", None], ["race", "x", None]]},
            {"kind": "human", "filters": [["gender", "male", None]]},
        ],
        [{"parent": 0, "child": 1, "family": "hhi", "value": "conversation", "slot": 0}],
    )
    steps = [{"node": 0}, {"node": 0}, {"node": 0}, {"node": 1}, {"node": 1}, {"node": 0}]
    assert step_keys(p, steps) == [
        "human",
        "age",
        "age, race",
        "hhi_pair: human",
        "hhi_pair: gender",
        "age, race, hhi",
    ]
    assert edge_name("hhi", "human", "human", "sitting together") == "hhi"
    assert edge_name("direction", "object", "robot") == "SR_Robot_Ref"
    assert pattern_keys(p) == {"age", "race", "gender", "hhi"}
