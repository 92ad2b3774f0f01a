"""Scene graphs of JRDB frame windows: persons, objects, HOI labels and geometry.

Plain data in (`FrameFacts`, one per frame of the window, gathered from a
project by ``app.jobs.scene_graphs``), a `SceneGraph` out; nothing here reads a
database. One time slot per frame of the window (JRDB-Reasoning's T).

* Entities: the robot (``"robot"``, kind robot), every person (kind human, id
  the entity key such as ``"pedestrian:3"``) and every object (kind object,
  ``"chair:1"``) seen in any frame of the window. Attributes: ``entity_id``
  (the project's row id), ``slots`` (the slots it appears in); persons also
  ``gender``, ``age``, ``race`` (lower case, JRDB-Social's own label such as
  ``caucasian/white``), ``actions`` ({label: difficulty} over the window, the
  easiest difficulty kept), ``actions_by_slot`` ({slot: {label: difficulty}}),
  ``pose`` (pose-based HOI labels over the window, sorted) and
  ``pose_by_slot``; objects ``category``.
* social groups: ``spatial`` relations person --"in the same group as"--> person, both
  ways, per slot, between persons whose ``social_group`` attribute (JRDB-Social's
  ``cluster_ID``, people who are together) is the same; attribute ``group``.
* ``hhi`` relations: person --label--> person per slot, one for each JRDB-Social
  ``H-interaction`` label ("sitting together", "conversation"), both ways (an
  interaction is the pair's, whichever of the two the file lists it under),
  attributes ``label`` and ``difficulty`` (the annotator's confidence, 1 the
  surest; the easier of the two sides' when both list it).
* ``hoi`` relations: person --predicate--> object per slot, attributes
  ``category`` and ``difficulty``. Pose-based labels (no target) are not edges:
  they become the person's ``pose`` attributes.
* ``geometry`` relations: subject --"<direction>/<distance bin>"--> reference
  (a person, or the robot), attributes ``direction``, ``vertical``,
  ``distance_bin``, ``distance_m``, ``method``, ``frame_id``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from annotation.jrdb.geometry import GeometricRelation
from annotation.scene_graph import Entity, Relation, SceneGraph

ROBOT_ID = "robot"
#: The predicate joining two persons of one JRDB-Social group (``social_group`` relations).
SAME_GROUP = "in the same group as"


@dataclass(frozen=True)
class PersonFacts:
    entity_id: int
    key: str  # e.g. "pedestrian:3"
    gender: str | None = None
    age: str | None = None
    actions: Mapping[str, int | None] = field(default_factory=dict)  # label -> difficulty
    attributes: Mapping[str, Any] = field(default_factory=dict)  # anything else (race, ...)


@dataclass(frozen=True)
class ObjectFacts:
    entity_id: int
    key: str  # e.g. "chair:1"
    category: str


@dataclass(frozen=True)
class HoiFacts:
    subject: int  # a person's entity id
    predicate: str
    target: int | None  # an object's entity id; None for a pose-based label
    category: str
    difficulty: int


@dataclass(frozen=True)
class InteractionFacts:
    """One JRDB-Social ``H-interaction`` label between two persons (entity ids)."""

    subject: int
    label: str  # e.g. "sitting together"
    partner: int
    difficulty: int | None = None


@dataclass(frozen=True)
class FrameFacts:
    """What one frame of a window contributes to the graph."""

    slot: int
    persons: tuple[PersonFacts, ...] = ()
    objects: tuple[ObjectFacts, ...] = ()
    hoi: tuple[HoiFacts, ...] = ()
    geometry: tuple[GeometricRelation, ...] = ()
    frame_id: int | None = None
    frame_index: int | None = None
    interactions: tuple[InteractionFacts, ...] = ()


def _label(key: str) -> str:
    return key.replace(":", " ")


def _easier(a: int | None, b: int | None) -> int | None:
    known = [d for d in (a, b) if d is not None]
    return min(known) if known else None


def _add_person(persons: dict[str, dict[str, Any]], p: PersonFacts, slot: int) -> None:
    """Fold one frame's facts of a person into their node's attributes."""
    a = persons.setdefault(
        p.key,
        {
            "entity_id": p.entity_id,
            "slots": [],
            "actions": {},
            "actions_by_slot": {},
            "pose": [],
            "pose_by_slot": {},
        },
    )
    a["slots"].append(slot)
    for name in ("gender", "age"):
        value = getattr(p, name)
        if value is not None:  # JRDB-Social writes "Female", "Young_Adulthood"
            a.setdefault(name, str(value).lower())
    for name, value in p.attributes.items():
        if name == "race" and value is not None:  # "Caucasian/White" as written
            value = str(value).lower()
        a.setdefault(name, value)
    if p.actions:
        a["actions_by_slot"][str(slot)] = dict(p.actions)
    for label, difficulty in p.actions.items():
        a["actions"][label] = _easier(a["actions"].get(label), difficulty)


def _interaction_relations(frame: FrameFacts, key_of) -> list[Relation]:
    """The frame's ``hhi`` relations: each label of a pair once, both ways, easiest difficulty."""
    pairs: dict[tuple[str, str, str], int | None] = {}
    for i in frame.interactions:
        what = f"interaction {i.label!r}"
        a, b = key_of(i.subject, what, frame.slot), key_of(i.partner, what, frame.slot)
        if a == b or ROBOT_ID in (a, b):
            continue  # not a pair of persons
        key = (min(a, b), i.label, max(a, b))
        pairs[key] = _easier(pairs[key], i.difficulty) if key in pairs else i.difficulty
    out = []
    for (a, label, b), difficulty in sorted(pairs.items()):
        attributes = {"label": label, "difficulty": difficulty}
        out += [
            Relation(a, label, b, "hhi", frame.slot, attributes),
            Relation(b, label, a, "hhi", frame.slot, attributes),
        ]
    return out


def graph_from_jrdb(frames: Iterable[FrameFacts]) -> SceneGraph:
    """The scene graph of a window of frames (see the module docstring)."""
    frames = list(frames)
    slots = [f.slot for f in frames]
    if len(set(slots)) != len(slots):
        raise ValueError(f"each frame needs its own slot, got {slots}")
    keys: dict[int, str] = {}  # entity id -> graph id
    persons: dict[str, dict[str, Any]] = {}
    objects: dict[str, dict[str, Any]] = {}

    def claim(entity_id: int, key: str) -> None:
        if keys.setdefault(entity_id, key) != key:
            raise ValueError(f"entity {entity_id} is both {keys[entity_id]!r} and {key!r}")
        if key == ROBOT_ID:
            raise ValueError(f"{ROBOT_ID!r} is reserved for the robot")

    for frame in frames:
        for p in frame.persons:
            claim(p.entity_id, p.key)
            _add_person(persons, p, frame.slot)
        for o in frame.objects:
            claim(o.entity_id, o.key)
            a = objects.setdefault(
                o.key, {"entity_id": o.entity_id, "category": o.category, "slots": []}
            )
            a["slots"].append(frame.slot)

    def key_of(entity_id: int | None, what: str, slot: int) -> str:
        if entity_id is None:
            return ROBOT_ID
        if entity_id not in keys:
            raise ValueError(
                f"{what} in slot {slot} refers to entity {entity_id}, not in the window"
            )
        return keys[entity_id]

    relations: list[Relation] = []
    for frame in frames:
        groups: dict[str, list[str]] = {}
        for p in frame.persons:
            if p.attributes.get("social_group") not in (None, ""):
                groups.setdefault(str(p.attributes["social_group"]), []).append(p.key)
        for group, members in sorted(groups.items()):
            relations += [
                Relation(a, SAME_GROUP, b, "spatial", frame.slot, {"group": group})
                for a in members
                for b in members
                if a != b
            ]
        relations += _interaction_relations(frame, key_of)
        for h in frame.hoi:
            subject = key_of(h.subject, f"HOI label {h.predicate!r}", frame.slot)
            if h.target is None:
                if subject not in persons:
                    raise ValueError(f"pose label {h.predicate!r} is on {subject!r}, not a person")
                pose = persons[subject]
                if h.predicate not in pose["pose"]:
                    pose["pose"].append(h.predicate)
                pose["pose_by_slot"].setdefault(str(frame.slot), []).append(h.predicate)
                continue
            relations.append(
                Relation(
                    subject,
                    h.predicate,
                    key_of(h.target, f"HOI label {h.predicate!r}", frame.slot),
                    "hoi",
                    frame.slot,
                    {"category": h.category, "difficulty": h.difficulty},
                )
            )
        for g in frame.geometry:
            what = f"geometric relation of entity {g.subject_entity_id}"
            relations.append(
                Relation(
                    key_of(g.subject_entity_id, what, frame.slot),
                    f"{g.direction}/{g.distance_bin}",
                    key_of(g.reference_entity_id, what, frame.slot),
                    "geometry",
                    frame.slot,
                    {
                        "direction": g.direction,
                        "vertical": g.vertical,
                        "distance_bin": g.distance_bin,
                        "distance_m": g.distance_m,
                        "method": g.method,
                        "frame_id": g.frame_id,
                    },
                )
            )

    entities = [Entity(ROBOT_ID, "robot", "the robot")]
    for key, a in persons.items():
        a["pose"].sort()
        for labels in a["pose_by_slot"].values():
            labels.sort()
        entities.append(Entity(key, "human", _label(key), a))
    entities += [Entity(key, "object", _label(key), a) for key, a in objects.items()]
    return SceneGraph({e.id: e for e in entities}, tuple(relations), tuple(slots) or (0,))
