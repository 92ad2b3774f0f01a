"""Scene graphs for the query-engine tests: a small hand-built one and seeded random ones,
plus an independent brute-force evaluator of a question's bound pattern."""

from __future__ import annotations

import itertools
import random

from annotation.jrdb.geometry import DISTANCE_BINS, SECTORS
from annotation.scene_graph import Entity, Relation, SceneGraph

GENDERS = ("female", "male")
AGES = (
    "childhood",
    "adolescence",
    "young_adulthood",
    "adulthood",
    "middle_adulthood",
    "late_adulthood",
)
ACTIONS = (
    "walking",
    "standing",
    "sitting",
    "talking on the phone",
    "holding sth",
    "looking at sth",
    "going upstairs",
)
#: JRDB-Social's race labels as the graph holds them ("others" is not a usable filter).
RACES = ("caucasian/white", "mongoloid/asian", "negroid/black", "others")
#: JRDB-Social H-interaction labels.
HHI = ("conversation", "sitting together", "walking together", "walking toward each other")
HOI = ("holding", "sitting_on", "looking_at", "carrying", "pushing", "using")
CATEGORIES = ("chair", "table", "bag", "laptop", "bicycle", "umbrella", "trolley")


def person(key, gender=None, age=None, actions=(), slots=(0,), race=None):
    attrs = {
        "entity_id": hash(key) % 10_000,
        "slots": list(slots),
        "actions": {},
        "actions_by_slot": {},
        "pose": [],
        "pose_by_slot": {},
    }
    if gender:
        attrs["gender"] = gender
    if age:
        attrs["age"] = age
    if race:
        attrs["race"] = race
    for slot in slots:
        attrs["actions_by_slot"][str(slot)] = {a: 1 for a in actions}
    attrs["actions"] = {a: 1 for a in actions}
    return Entity(key, "human", key.replace(":", " "), attrs)


def thing(key, category, slots=(0,)):
    return Entity(
        key,
        "object",
        key.replace(":", " "),
        {"entity_id": hash(key) % 10_000, "category": category, "slots": list(slots)},
    )


def geometry(subject, reference, direction, distance, slot=0):
    return Relation(
        subject,
        f"{direction}/{distance}",
        reference,
        "geometry",
        slot,
        {"direction": direction, "distance_bin": distance, "vertical": "up"},
    )


def hoi(subject, predicate, target, slot=0):
    return Relation(
        subject, predicate, target, "hoi", slot, {"category": "physical", "difficulty": 1}
    )


def hhi(a, label, b, slot=0, difficulty=1):
    """A JRDB-Social interaction, both ways, as `annotation.jrdb.graph` makes it."""
    attrs = {"label": label, "difficulty": difficulty}
    return [Relation(a, label, b, "hhi", slot, attrs), Relation(b, label, a, "hhi", slot, attrs)]


def social_graph() -> SceneGraph:
    """The JRDB-Reasoning paper's step-by-step examples as a frame.

    Dee (female, young adult, standing) is chatting with Eli (male, white), who stands to
    her right; Fay (female, young adult, standing) is chatting with Gus (male, Asian), to
    her left; Hal (male, white) and Ivy (female, Black) walk together.
    """
    entities = [
        Entity("robot", "robot", "the robot"),
        person("pedestrian:1", "female", "young_adulthood", ["standing"]),
        person("pedestrian:2", "male", "adulthood", ["standing"], race="caucasian/white"),
        person("pedestrian:3", "female", "young_adulthood", ["standing"], race="others"),
        person("pedestrian:4", "male", "adulthood", ["standing"], race="mongoloid/asian"),
        person("pedestrian:5", "male", "middle_adulthood", ["walking"], race="caucasian/white"),
        person("pedestrian:6", "female", "adolescence", ["walking"], race="negroid/black"),
    ]
    relations = [
        *hhi("pedestrian:1", "conversation", "pedestrian:2"),
        *hhi("pedestrian:3", "conversation", "pedestrian:4"),
        *hhi("pedestrian:5", "walking together", "pedestrian:6"),
        geometry("pedestrian:2", "pedestrian:1", "right", "close"),
        geometry("pedestrian:4", "pedestrian:3", "left", "close"),
        geometry("pedestrian:6", "pedestrian:5", "left", "very-close"),
    ]
    return SceneGraph({e.id: e for e in entities}, tuple(relations))


def small_graph() -> SceneGraph:
    """Three people, a chair, a bag and the robot, with answers easy to work out by hand.

    Ann (female, young adult) walks and holds the bag, left of the robot, close.
    Bob (male, adult) stands in front of the robot, far.
    Cat (female, adult) sits on the chair, right of the robot, close; Bob is behind her.
    """
    entities = [
        Entity("robot", "robot", "the robot"),
        person("pedestrian:1", "female", "young_adulthood", ["walking"]),
        person("pedestrian:2", "male", "adulthood", ["standing"]),
        person("pedestrian:3", "female", "adulthood", ["sitting"]),
        thing("chair:1", "chair"),
        thing("bag:1", "bag"),
    ]
    relations = [
        geometry("pedestrian:1", "robot", "left", "close"),
        geometry("pedestrian:2", "robot", "front", "far"),
        geometry("pedestrian:3", "robot", "right", "close"),
        geometry("pedestrian:2", "pedestrian:3", "back", "close"),
        hoi("pedestrian:1", "holding", "bag:1"),
        hoi("pedestrian:3", "sitting_on", "chair:1"),
    ]
    return SceneGraph({e.id: e for e in entities}, tuple(relations))


def random_graph(seed: int, people: int = 12, objects: int = 6, slots: int = 1) -> SceneGraph:
    """A crowded frame (or window) with random demographics, actions, HOI and geometry."""
    rng = random.Random(seed)
    slot_ids = tuple(range(slots))
    entities = [Entity("robot", "robot", "the robot")]
    relations = []
    persons = []
    for i in range(1, people + 1):
        key = f"pedestrian:{i}"
        attrs = {
            "entity_id": i,
            "slots": list(slot_ids),
            "actions": {},
            "actions_by_slot": {},
            "pose": [],
            "pose_by_slot": {},
        }
        if rng.random() < 0.9:
            attrs["gender"] = rng.choice(GENDERS)
        if rng.random() < 0.9:
            attrs["age"] = rng.choice(AGES)
        for s in slot_ids:
            acts = rng.sample(ACTIONS, rng.choice((1, 1, 2)))
            attrs["actions_by_slot"][str(s)] = {a: 1 for a in acts}
            for a in acts:
                attrs["actions"][a] = 1
        entities.append(Entity(key, "human", f"pedestrian {i}", attrs))
        persons.append(key)
    things = []
    for j in range(1, objects + 1):
        category = rng.choice(CATEGORIES)
        key = f"{category}:{j}"
        entities.append(
            Entity(
                key,
                "object",
                key.replace(":", " "),
                {"entity_id": 100 + j, "category": category, "slots": list(slot_ids)},
            )
        )
        things.append(key)
    for s in slot_ids:
        for p in persons:
            relations.append(
                geometry(p, "robot", rng.choice(SECTORS), rng.choice(DISTANCE_BINS), s)
            )
            for q in persons:
                if p != q and rng.random() < 0.5:
                    relations.append(
                        geometry(p, q, rng.choice(SECTORS), rng.choice(DISTANCE_BINS), s)
                    )
            if rng.random() < 0.4:
                relations.append(hoi(p, rng.choice(HOI), rng.choice(things), s))
        for t in things:
            for p in rng.sample(persons, 3):
                relations.append(geometry(t, p, rng.choice(SECTORS), rng.choice(DISTANCE_BINS), s))
    # JRDB-Social race and interactions, from a generator of their own so that the rest of
    # the graph is what it was before they were added
    social = random.Random(seed + 7919)
    for e in entities:
        if e.kind == "human" and social.random() < 0.7:
            e.attributes["race"] = social.choice(RACES)
    for s in slot_ids:
        for _ in range(people // 3):
            a, b = social.sample(persons, 2)
            relations += hhi(a, social.choice(HHI), b, s)
    for t in things:  # objects relative to the robot
        for s in slot_ids:
            relations.append(
                geometry(t, "robot", social.choice(SECTORS), social.choice(DISTANCE_BINS), s)
            )
    return SceneGraph({e.id: e for e in entities}, tuple(relations), slot_ids)


# -- an independent evaluator -----------------------------------------------------------


def _values(entity: Entity, name: str, slot) -> set[str]:
    a = entity.attributes
    if name == "action":
        return set(a.get("actions_by_slot", {}).get(str(slot), {}))
    if name == "category":
        return {a.get("category")}
    return {a[name]} if name in a else set()


def _family_values(r: Relation) -> set[tuple[str, str]]:
    if r.kind == "geometry":
        return {
            ("direction", r.attributes["direction"]),
            ("distance", r.attributes["distance_bin"]),
        }
    return {(r.kind, r.predicate)}


def brute_force(graph: SceneGraph, pattern: dict) -> set[str]:
    """The targets of a bound pattern, by trying every assignment of entities to nodes."""
    nodes, edges = pattern["nodes"], pattern["edges"]
    rel = {(r.subject, r.object, r.slot, fv) for r in graph.relations for fv in _family_values(r)}

    def slot_of(i):
        for e in edges:
            if e["child"] == i:
                return e["slot"]
        return pattern["answer_slot"]

    def candidates(i):
        node = nodes[i]
        if node["kind"] in ("robot", "surface"):
            return [node["bound"]]
        out = []
        for key, e in graph.entities.items():
            if e.kind != node["kind"] or slot_of(i) not in e.attributes.get("slots", [slot_of(i)]):
                continue
            if all(value in _values(e, name, slot) for name, value, slot in node["filters"]):
                out.append(key)
        return out

    found = set()
    for combo in itertools.product(*(candidates(i) for i in range(len(nodes)))):
        ok = True
        for e in edges:
            a, b = combo[e["parent"]], combo[e["child"]]
            s, o = (a, b) if e["parent_is_subject"] else (b, a)
            if (s, o, e["slot"], (e["family"], e["value"])) not in rel:
                ok = False
                break
        if ok:
            found.add(combo[0])
    return found
