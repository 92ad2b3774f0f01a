"""The query engine's vocabulary: preferences, patterns, bindings, steps, questions.

Plain types and the graph index they are bound against; `engine` enumerates and
orchestrates, `search` binds and searches, `text` words the result. All three
import these types from here, so none of them imports another's internals.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from annotation.query.words import object_noun, usable
from annotation.scene_graph import SceneGraph

IDENTITY_KINDS = ("robot", "surface")  # nodes that stand for one named entity
GENERATOR = "jrdb-query-engine/1"
TASKS = ("vg", "vqa-wh", "vqa-count")
MODALITIES = ("image", "video")
SUBJECTS = ("human", "object", "both")
SCOPES = ("single", "pair", "clique")
SCOPE_SIZE = {"single": 1, "pair": 2, "clique": 3}
#: Attribute filters each node kind can carry, in the order steps apply them.
NODE_ATTRIBUTES = {
    "human": ("gender", "age", "race", "action"),
    "object": ("category", "colour"),
}
DYNAMIC_ATTRIBUTES = ("action",)
#: Relation families that hold both ways (a JRDB-Social interaction is the pair's): one
#: direction of them is enumerated, as the other gives the same question.
SYMMETRIC_FAMILIES = ("hhi",)
#: Attributes a Wh question can ask about, by target kind.
ASKABLE = {"human": ("gender", "age", "action"), "object": ("category",)}


#: Sub-question key names a question can be required to use (JRDB-Reasoning's names for
#: filters and relations, annotation.query.keys), as ``Preferences.require`` takes them.
REQUIRABLE_KEYS = (
    "gender",
    "age",
    "race",
    "action",
    "category",
    "colour",
    "hoi",
    "hhi",
    "hhg",
    "hoG",
    "ooG",
    "SR_Robot_Ref",
    "distance",
    "social_group",
    "support",
    "spatial",
    "state",
)


def parse_keys(text: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Required keys from "race,hhi" (or a list): JRDB-Reasoning's spelling whatever the
    case ("hog" is ``hoG``), each once; an unknown name raises ValueError naming the known."""
    names = text.split(",") if isinstance(text, str) else list(text)
    spelled = {k.lower(): k for k in REQUIRABLE_KEYS}
    out: list[str] = []
    for name in (n.strip() for n in names):
        if not name:
            continue
        if name.lower() not in spelled:
            raise ValueError(f"unknown key {name!r}; keys: {', '.join(REQUIRABLE_KEYS)}")
        if spelled[name.lower()] not in out:
            out.append(spelled[name.lower()])
    return tuple(out)


class NoQuestion(ValueError):
    """The graph supports no question with these preferences."""


@dataclass(frozen=True)
class Preferences:
    task: str
    modality: str = "image"
    subject: str = "human"
    spatial: str = "single"
    temporal: str = "single"
    #: Keys every question must use (``("race", "hhi")``): only combinations with them.
    require: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "require", parse_keys(self.require))
        for name, allowed in (
            ("task", TASKS),
            ("modality", MODALITIES),
            ("subject", SUBJECTS),
            ("spatial", SCOPES),
            ("temporal", SCOPES),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, not {getattr(self, name)!r}")
        if self.modality == "image" and self.temporal != "single":
            raise ValueError("an image question has a single time slot: temporal must be single")
        if self.subject == "both" and self.spatial == "single":
            raise ValueError("subject 'both' needs two entities at least: spatial pair or clique")

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "modality": self.modality,
            "subject": self.subject,
            "spatial": self.spatial,
            "temporal": self.temporal,
            **({"require": list(self.require)} if self.require else {}),
        }


@dataclass(frozen=True)
class Step:
    """One intermediate annotation: what was done and the entity set after it."""

    description: str
    entity_ids: tuple[str, ...]
    slot: int
    question: str  # the step as a sub-question ("Find the women who are walking.")
    node: int = 0  # which pattern node the step narrows (0 = the target)

    def as_dict(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "entity_ids": list(self.entity_ids),
            "slot": self.slot,
            "question": self.question,
            "node": self.node,
        }


@dataclass(frozen=True)
class GeneratedQuestion:
    preferences: Preferences
    text: str
    answer: Any  # VG: tuple of entity ids; Count: int; Wh: str
    target_ids: tuple[str, ...]
    evidence_ids: tuple[str, ...]
    steps: tuple[Step, ...]
    S: int  # noqa: N815 - the paper's names
    R: int  # noqa: N815
    T: int  # noqa: N815
    combination: tuple[str, ...]
    slots: tuple[int, ...]  # the graph slots the question uses, in time order
    answer_slot: int
    seed: int
    asked: str | None = None
    template: int = 0
    pattern: dict[str, Any] = field(default_factory=dict)  # see `Binding.pattern`

    @property
    def D(self) -> int:  # noqa: N802
        return self.S + self.R + self.T

    @property
    def difficulty(self) -> dict[str, int]:
        return {"S": self.S, "R": self.R, "T": self.T, "D": self.D}


# -- patterns -------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class EdgeShape:
    """Pattern edge between node `parent` (nearer the target) and `child`."""

    parent: int
    child: int
    family: str  # hoi, direction, distance, or a simulator relation kind
    parent_is_subject: bool


@dataclass(frozen=True, order=True)
class Combination:
    kinds: tuple[str, ...]  # node kinds, node 0 the target
    attributes: tuple[tuple[str, ...], ...]  # attribute filters per node
    edges: tuple[EdgeShape, ...]
    asked: str | None = None

    def describe(self) -> tuple[str, ...]:
        out = [f"n{i}:{k}" for i, k in enumerate(self.kinds)]
        for i, names in enumerate(self.attributes):
            out += [f"n{i}.{a}" for a in names]
        for e in self.edges:
            a, b = (e.parent, e.child) if e.parent_is_subject else (e.child, e.parent)
            out.append(f"{e.family}(n{a},n{b})")
        if self.asked:
            out.append(f"ask:{self.asked}")
        return tuple(out)


@dataclass
class Binding:
    """A combination bound to entities, values and slots."""

    combo: Combination
    entities: list[str]
    values: list[list[tuple[str, str, int | None]]]  # per node: (attribute, value, slot)
    edge_values: list[tuple[str, int]]  # per edge: (value, slot)
    answer_slot: int
    slots: tuple[int, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def pattern(self) -> dict[str, Any]:
        """The bound pattern as plain data: enough to re-evaluate the question independently.

        ``nodes[i]``: kind, the entity it was bound to, and its filters
        ``[attribute, value, slot or None]``; ``edges[k]``: parent and child node,
        relation family and value, slot, and whether the parent is the relation's subject.
        """
        return {
            "nodes": [
                {
                    "kind": kind,
                    "bound": self.entities[i],
                    "filters": [list(v) for v in self.values[i]],
                }
                for i, kind in enumerate(self.combo.kinds)
            ],
            "edges": [
                {
                    "parent": e.parent,
                    "child": e.child,
                    "family": e.family,
                    "value": self.edge_values[k][0],
                    "slot": self.edge_values[k][1],
                    "parent_is_subject": e.parent_is_subject,
                }
                for k, e in enumerate(self.combo.edges)
            ],
            "answer_slot": self.answer_slot,
        }


def relation_family(kind: str, predicate: str, attributes: dict[str, Any]) -> list[tuple[str, str]]:
    """(family, value) pairs one relation offers: geometry gives a direction and a distance."""
    if kind == "geometry":
        return [
            ("direction", str(attributes.get("direction", predicate.split("/")[0]))),
            ("distance", str(attributes.get("distance_bin", predicate.split("/")[-1]))),
        ]
    if kind == "hoi":
        return [("hoi", predicate)]
    return [(kind, predicate)]


class GraphIndex:
    """Fast lookups over one graph: relation pairs by (slot, family, value), presence."""

    def __init__(self, graph: SceneGraph) -> None:
        self.graph = graph
        self.pairs: dict[tuple[int, str, str], set[tuple[str, str]]] = defaultdict(set)
        self.out: dict[tuple[int, str, str], list[tuple[str, str]]] = defaultdict(list)
        self.inc: dict[tuple[int, str, str], list[tuple[str, str]]] = defaultdict(list)
        self.signature: set[tuple[str, str, str]] = set()
        self.combinations: dict[Preferences, list[Combination]] = {}
        kinds = {k: e.kind for k, e in graph.entities.items()}
        for r in graph.relations:
            for family, value in relation_family(r.kind, r.predicate, r.attributes):
                self.pairs[(r.slot, family, value)].add((r.subject, r.object))
                self.out[(r.slot, family, r.subject)].append((value, r.object))
                self.inc[(r.slot, family, r.object)].append((value, r.subject))
                self.signature.add((family, kinds[r.subject], kinds[r.object]))

    def present(self, entity_id: str, slot: int) -> bool:
        slots = self.graph.entities[entity_id].attributes.get("slots")
        return slots is None or slot in slots

    def value(self, entity_id: str, attribute: str, slot: int | None) -> set[str]:
        """The entity's values of an attribute (a set: a person may do two things at once)."""
        entity = self.graph.entities[entity_id]
        a = entity.attributes
        if attribute == "action":
            by_slot = a.get("actions_by_slot"), a.get("pose_by_slot")
            if any(isinstance(b, dict) for b in by_slot) and slot is not None:
                found = set((by_slot[0] or {}).get(str(slot), {}))
                found |= set((by_slot[1] or {}).get(str(slot), []))
            else:
                found = set(a.get("actions") or {}) | set(a.get("pose") or [])
            return {v for v in found if usable("action", v)}
        if attribute == "category" and entity.kind == "object":
            return {object_noun(a, entity.label)}
        value = a.get(attribute)
        if value in (None, "", []) or not usable(attribute, str(value)):
            return set()
        return {str(value)}


# -- enumeration ----------------------------------------------------------------------
