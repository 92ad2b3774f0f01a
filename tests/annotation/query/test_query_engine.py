"""The adaptive query engine on hand-built and random graphs with known answers."""

from __future__ import annotations

import itertools
import random

import pytest

from annotation.query.engine import enumerate_combinations, generate, generate_many
from annotation.query.model import (
    SCOPES,
    SUBJECTS,
    TASKS,
    Binding,
    Combination,
    EdgeShape,
    GraphIndex,
    NoQuestion,
    Preferences,
)
from annotation.query.search import search
from annotation.query.words import article, check_sentence, person_noun, plural
from tests.annotation.query.query_graphs import brute_force, random_graph, small_graph


def _bind(graph, kinds, attributes, edges=(), entities=None, edge_values=()):
    combo = Combination(
        tuple(kinds), tuple(tuple(n for n, _, _ in a) for a in attributes), tuple(edges)
    )
    return Binding(
        combo,
        list(entities or [""] * len(kinds)),
        [list(a) for a in attributes],
        list(edge_values),
        0,
        (0,),
    )


def test_attribute_filters_narrow_step_by_step():
    g = small_graph()
    b = _bind(
        g,
        ["human"],
        [[("gender", "female", None), ("action", "walking", 0)]],
        entities=["pedestrian:1"],
    )
    final, steps = search(GraphIndex(g), b)
    assert final == {"pedestrian:1"}
    assert [set(s.entities) for s in steps] == [
        {"pedestrian:1", "pedestrian:2", "pedestrian:3"},
        {"pedestrian:1", "pedestrian:3"},
        {"pedestrian:1"},
    ]


def test_relation_to_the_robot_and_hoi_object_target():
    g = small_graph()
    # women close to the robot: Ann and Cat
    b = _bind(
        g,
        ["human", "robot"],
        [[("gender", "female", None)], []],
        [EdgeShape(0, 1, "distance", True)],
        ["pedestrian:1", "robot"],
        [("close", 0)],
    )
    final, _ = search(GraphIndex(g), b)
    assert final == {"pedestrian:1", "pedestrian:3"}
    # the chair a woman sits on
    b = _bind(
        g,
        ["object", "human"],
        [[("category", "chair", None)], [("gender", "female", None)]],
        [EdgeShape(0, 1, "hoi", False)],
        ["chair:1", "pedestrian:3"],
        [("sitting_on", 0)],
    )
    final, steps = search(GraphIndex(g), b)
    assert final == {"chair:1"}
    assert [s.node for s in steps] == [0, 1, 1, 0]  # the reference is found before the edge


def test_clique_chain_counts_three_nodes_and_two_edges():
    g = small_graph()
    q = None
    for seed in range(40):
        q = generate(g, Preferences("vqa-count", "image", "both", "clique"), seed)
        assert (q.S, q.R, q.T, q.D) == (3, 2, 1, 6)
        assert brute_force(g, q.pattern) == set(q.target_ids)
        assert q.answer == len(q.target_ids)


@pytest.mark.parametrize("scope,s,r", [("single", 1, 0), ("pair", 2, 1), ("clique", 3, 2)])
def test_difficulty_follows_the_spatial_scope(scope, s, r):
    g = random_graph(3)
    for seed in range(10):
        q = generate(g, Preferences("vg", "image", "human", scope), seed)
        assert q.difficulty == {"S": s, "R": r, "T": 1, "D": s + r + 1}
        assert len(q.steps) >= s + r + 1


@pytest.mark.parametrize("temporal,t", [("single", 1), ("pair", 2), ("clique", 3)])
def test_video_temporal_scope_sets_t(temporal, t):
    g = random_graph(5, people=10, slots=5)
    q = generate(g, Preferences("vqa-count", "video", "human", "clique", temporal), 2)
    assert q.T == t and len(q.slots) == t
    assert q.D == 3 + 2 + t
    assert brute_force(g, q.pattern) == set(q.target_ids)


def test_vg_and_wh_single_out_exactly_their_target():
    for graph_seed, seed in itertools.product(range(3), range(15)):
        g = random_graph(graph_seed)
        prefs = Preferences(
            "vg", "image", random.Random(seed).choice(SUBJECTS[:2]), SCOPES[seed % 3]
        )
        q = generate(g, prefs, seed)
        assert len(q.answer) == 1
        assert brute_force(g, q.pattern) == set(q.answer)  # nothing else fits the words
        wh = generate(g, Preferences("vqa-wh", "image", "human", SCOPES[seed % 3]), seed)
        assert brute_force(g, wh.pattern) == set(wh.target_ids) and len(wh.target_ids) == 1


def test_wh_answer_is_the_targets_value():
    g = small_graph()
    for seed in range(20):
        q = generate(g, Preferences("vqa-wh", "image", "human", "pair"), seed)
        target = g.entities[q.target_ids[0]].attributes
        expected = {
            "gender": target.get("gender"),
            "age": {"young_adulthood": "young adult", "adulthood": "adult"}.get(target.get("age")),
            "action": next(iter(target["actions"]), None),
        }[q.asked]
        assert q.answer == expected
        assert q.asked not in [f[0] for f in q.pattern["nodes"][0]["filters"]]


def test_steps_end_with_the_answer_set():
    g = random_graph(9)
    for task, scope in itertools.product(("vg", "vqa-count"), SCOPES):
        q = generate(g, Preferences(task, "image", "human", scope), 4)
        assert set(q.steps[-1].entity_ids) == set(q.target_ids)
        assert q.steps[0].description == "all people"
        assert all(s.question.startswith("Find ") for s in q.steps)


def test_same_seed_same_question_and_seeds_differ():
    g = random_graph(1)
    prefs = Preferences("vg", "image", "both", "clique")
    a, b = generate(g, prefs, 7), generate(g, prefs, 7)
    assert a == b
    texts = {q.text for q in generate_many(g, prefs, 10, 0)}
    assert len(texts) == 10


def test_preferences_are_checked():
    with pytest.raises(ValueError, match="task must be one of"):
        Preferences("vqa-yesno")
    with pytest.raises(ValueError, match="temporal must be single"):
        Preferences("vg", "image", temporal="pair")
    with pytest.raises(ValueError, match="needs two entities"):
        Preferences("vg", subject="both", spatial="single")


def test_impossible_requests_say_why():
    g = small_graph()
    with pytest.raises(NoQuestion, match="needs 2 time slots"):
        generate(g, Preferences("vg", "video", "human", "pair", "pair"), 0)
    only_people = g.filter(entity_ids=["robot", "pedestrian:1", "pedestrian:2"])
    with pytest.raises(NoQuestion, match="this scene has no objects"):
        generate(only_people, Preferences("vg", "image", "object", "single"), 0)
    no_hoi = g.filter(kinds=["geometry"])  # people and objects, but nothing joins them
    with pytest.raises(NoQuestion, match="offers no pair pattern with subject 'both'"):
        generate(no_hoi, Preferences("vg", "image", "both", "pair"), 0)


def test_combinations_only_use_relation_families_the_graph_has():
    g = small_graph()
    combos = enumerate_combinations(GraphIndex(g), Preferences("vg", "image", "both", "pair"))
    families = {e.family for c in combos for e in c.edges}
    assert families == {"hoi"}  # no geometry joins a person and an object here
    assert all("human" in c.kinds and "object" in c.kinds for c in combos)
    combos = enumerate_combinations(GraphIndex(g), Preferences("vg", "image", "human", "pair"))
    assert {e.family for c in combos for e in c.edges} == {"direction", "distance"}
    assert all(set(c.kinds) <= {"human", "robot"} for c in combos)


def test_a_thousand_questions_read_cleanly():
    """Every preference on several crowded graphs: no unfilled slot, no grammar slip."""
    graphs = [random_graph(s) for s in range(4)] + [random_graph(9, slots=5)]
    indexes = [GraphIndex(g) for g in graphs]
    prefs = [
        Preferences(t, m, s, sp, tp if m == "video" else "single")
        for t, m, s, sp, tp in itertools.product(
            TASKS, ("image", "video"), SUBJECTS, SCOPES, SCOPES
        )
        if not (s == "both" and sp == "single") and (m == "video" or tp == "single")
    ]
    made, problems = 0, []
    seed = 0
    while made < 1000:
        seed += 1
        p = prefs[seed % len(prefs)]
        i = 4 if p.modality == "video" else seed % 4
        try:
            q = generate(graphs[i], p, seed, index=indexes[i])
        except NoQuestion:
            continue
        made += 1
        bad = check_sentence(q.text)
        if bad or " is are " in q.text or "who are is" in q.text:
            problems.append((q.text, bad))
        for step in q.steps:
            if check_sentence(step.question):
                problems.append((step.question, check_sentence(step.question)))
    assert made == 1000
    assert problems == []


def test_words():
    assert [plural(w) for w in ("person", "woman", "bus", "baby", "bench", "young man")] == [
        "people",
        "women",
        "buses",
        "babies",
        "benches",
        "young men",
    ]
    assert [article(w) for w in ("adult", "elderly man", "chair", "umbrella", "user")] == [
        "an",
        "an",
        "a",
        "an",
        "a",
    ]
    assert person_noun("female", "childhood") == "girl"
    assert person_noun(None, "middle_adulthood") == "middle-aged adult"
    assert person_noun("male", None) == "man"
    assert check_sentence("Find the {np}.") and check_sentence("find a adult")
    assert check_sentence("Find the woman who is walking.") == []


def test_unknown_demographics_are_never_filters_or_answers():
    """JRDB marks labels it could not give ("impossible"); the engine must not word them."""
    from tests.annotation.query.query_graphs import person

    g = small_graph()
    odd = person("pedestrian:9", "impossible", "impossible", ["impossible"])
    entities = {**g.entities, odd.id: odd}
    g = type(g)(entities, g.relations)
    for seed in range(30):
        for task in ("vg", "vqa-wh", "vqa-count"):
            q = generate(g, Preferences(task, "image", "human", "single"), seed)
            assert "impossible" not in q.text and q.answer != "impossible"
            assert all(f[1] != "impossible" for n in q.pattern["nodes"] for f in n["filters"])


# -- JRDB-Social: human-human interaction (hhi) and race ------------------------------------


def test_an_interaction_is_a_relation_family_between_two_people():
    """The paper's D2 step: "... chatting with a man"."""
    from tests.annotation.query.query_graphs import social_graph

    g = social_graph()
    index = GraphIndex(g)
    combos = enumerate_combinations(index, Preferences("vg", "image", "human", "pair"))
    hhi = [c for c in combos if any(e.family == "hhi" for e in c.edges)]
    assert hhi and all(c.kinds == ("human", "human") for c in hhi)
    # mutual: one direction is offered, the other would ask the same question
    assert all(e.parent_is_subject for c in hhi for e in c.edges if e.family == "hhi")
    texts = set()
    for seed in range(40):
        q = generate(g, Preferences("vg", "image", "human", "pair", require=("hhi",)), seed)
        assert any(e["family"] == "hhi" for e in q.pattern["edges"])
        assert brute_force(g, q.pattern) == set(q.target_ids)
        assert check_sentence(q.text) == [] and (q.S, q.R, q.T) == (2, 1, 1)
        texts.add(q.text)
    assert any("chatting with a" in t for t in texts), texts
    assert any("walking together with" in t for t in texts), texts


def test_race_is_a_filter_in_the_datasets_own_words():
    """The paper's D3 step: "... with a white man located to her right"."""
    from tests.annotation.query.query_graphs import social_graph

    g = social_graph()
    prefs = Preferences("vg", "image", "human", "pair", require=("race", "hhg"))
    seen = set()
    for seed in range(60):
        q = generate(g, prefs, seed)
        filters = [f for n in q.pattern["nodes"] for f in n["filters"]]
        assert any(f[0] == "race" for f in filters)
        assert brute_force(g, q.pattern) == set(q.target_ids)
        assert "others" not in q.text  # "Others" is not a judgement to word
        seen.add(q.text)
    assert any("white man" in t for t in seen), seen
    assert any(" to her right" in t or "to the right of" in t for t in seen), seen
    # race filters but is never asked: no Wh question about it
    for seed in range(40):
        assert generate(g, Preferences("vqa-wh", "image", "human", "single"), seed).asked in (
            "gender",
            "age",
            "action",
        )


def test_race_words():
    assert person_noun("male", None, "caucasian/white") == "white man"
    assert person_noun("female", "young_adulthood", "caucasian/white") == "young white woman"
    assert person_noun("female", "childhood", "mongoloid/asian") == "Asian girl"
    assert person_noun(None, "late_adulthood", "negroid/black") == "elderly Black person"
    assert person_noun(None, None, "mongoloid/asian") == "Asian person"
    assert person_noun("male", "adulthood", "others") == "adult man"  # not a usable value
    assert article("Asian man") == "an"


def test_required_keys_keep_only_combinations_that_use_them():
    g = random_graph(4)
    index = GraphIndex(g)
    every = enumerate_combinations(index, Preferences("vg", "image", "both", "clique"))
    some = enumerate_combinations(
        index, Preferences("vg", "image", "both", "clique", require=("race", "hoi"))
    )
    assert 0 < len(some) < len(every)
    for seed in range(25):
        q = generate(
            g, Preferences("vqa-count", "image", "human", "clique", require="age,hhi"), seed
        )
        names = {f[0] for n in q.pattern["nodes"] for f in n["filters"]}
        assert "age" in names and any(e["family"] == "hhi" for e in q.pattern["edges"])
    # spelling as the real engine's, whatever the case; unknown names are refused
    assert Preferences("vg", require="HHI, sr_robot_ref").require == ("hhi", "SR_Robot_Ref")
    with pytest.raises(ValueError, match="unknown key 'colour_of'"):
        Preferences("vg", require="colour_of")
    # a single entity has no relation: no combination, and the engine says which keys
    with pytest.raises(NoQuestion, match="using hhi"):
        generate(g, Preferences("vg", "image", "human", "single", require=("hhi",)), 0)


def test_objects_relative_to_the_robot_are_asked_about():
    g = random_graph(2)
    found = set()
    for seed in range(30):
        prefs = Preferences("vg", "image", "object", "pair", require=("SR_Robot_Ref",))
        q = generate(g, prefs, seed)
        assert [n["kind"] for n in q.pattern["nodes"]] == ["object", "robot"]
        assert brute_force(g, q.pattern) == set(q.target_ids)
        found.add(q.text)
    assert any(" the robot." in t for t in found), found
