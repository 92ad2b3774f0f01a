"""The scene graph every consumer shares: entities, typed relations, time slots.

A `SceneGraph` is built from JRDB annotations (`annotation.jrdb.graph`) or from
a simulator state (`sim.tabletop.graph`); the live scene-graph view, the query
engine and the question generators read the same value. Definitions of the
node kinds, relation kinds and predicates of both worlds: docs/scene-graphs.md.

Values are immutable and JSON-safe: attributes are normalised through JSON on
construction (tuples become lists, dict keys strings, numpy scalars Python
numbers), so ``SceneGraph.from_dict(g.to_dict()) == g`` always holds, and
relations are kept in a canonical order without duplicates, so two graphs with
the same content are equal and share a `digest` whatever order they were
built in.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from annotation.models import ENTITY_KINDS  # one list for the store and the graph

FORMAT = "reasonscope-scene-graph/1"

#: ``hhi``: a JRDB-Social human-human interaction ("sitting together", "conversation").
RELATION_KINDS: tuple[str, ...] = ("hoi", "hhi", "geometry", "support", "spatial", "state")


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    if hasattr(value, "tolist"):  # numpy arrays
        return value.tolist()
    if isinstance(value, set | frozenset):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_json_default)


def _json_safe(attributes: Mapping[str, Any] | None, what: str) -> dict[str, Any]:
    if attributes is None:
        return {}
    if not isinstance(attributes, Mapping):
        raise ValueError(f"{what}: attributes must be a mapping, not {type(attributes).__name__}")
    try:
        return json.loads(json.dumps(dict(attributes), default=_json_default, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what}: attributes are not JSON-safe ({exc})") from exc


@dataclass(frozen=True)
class Entity:
    """A node: a person, an object, the robot (or its gripper), or a surface."""

    id: str
    kind: str
    label: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"an entity id must be a non-empty string, not {self.id!r}")
        if self.kind not in ENTITY_KINDS:
            raise ValueError(
                f"entity {self.id!r}: kind must be one of {ENTITY_KINDS}, not {self.kind!r}"
            )
        object.__setattr__(self, "label", self.label or self.id)
        object.__setattr__(self, "attributes", _json_safe(self.attributes, f"entity {self.id!r}"))

    def __hash__(self) -> int:
        return hash((self.id, self.kind, self.label, _canonical(self.attributes)))

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "label": self.label,
            "attributes": self.attributes,
        }


@dataclass(frozen=True)
class Relation:
    """A directed, typed edge in one time slot: ``subject --predicate--> object``."""

    subject: str
    predicate: str
    object: str
    kind: str
    slot: int = 0
    attributes: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in RELATION_KINDS:
            raise ValueError(
                f"relation {self.subject!r} {self.predicate!r} {self.object!r}: kind must be "
                f"one of {RELATION_KINDS}, not {self.kind!r}"
            )
        if not self.predicate:
            raise ValueError(f"relation {self.subject!r} -> {self.object!r} has no predicate")
        if type(self.slot) is not int:
            raise ValueError(f"a relation's slot must be an int, not {self.slot!r}")
        object.__setattr__(
            self,
            "attributes",
            _json_safe(self.attributes, f"relation {self.subject!r} {self.predicate!r}"),
        )
        # computed once: sorting, hashing and diffing graphs use it constantly
        object.__setattr__(
            self,
            "_key",
            (
                self.slot,
                self.kind,
                self.subject,
                self.predicate,
                self.object,
                _canonical(self.attributes),
            ),
        )

    @property
    def key(self) -> tuple[int, str, str, str, str, str]:
        """The canonical sort key (slot first), attributes included."""
        return self._key  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Relation):
            return NotImplemented
        return self._key == other._key  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._key)  # type: ignore[attr-defined]

    def as_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "kind": self.kind,
            "slot": self.slot,
            "attributes": self.attributes,
        }


class GraphDiff(NamedTuple):
    """What changed from one graph to another (``old.diff(new)``).

    An entity whose kind, label or attributes changed appears twice: its old
    value in `removed_entities` and its new one in `added_entities`
    (`changed_ids` lists those ids).
    """

    added_entities: tuple[Entity, ...]
    removed_entities: tuple[Entity, ...]
    added_relations: tuple[Relation, ...]
    removed_relations: tuple[Relation, ...]

    @property
    def changed_ids(self) -> tuple[str, ...]:
        removed = {e.id for e in self.removed_entities}
        return tuple(sorted(e.id for e in self.added_entities if e.id in removed))

    @property
    def empty(self) -> bool:
        return not any(self)


@dataclass(frozen=True)
class SceneGraph:
    """Entities (by id) and the relations among them over a tuple of time slots."""

    entities: dict[str, Entity]
    relations: tuple[Relation, ...] = ()
    slots: tuple[int, ...] = (0,)

    def __post_init__(self) -> None:
        entities = self.entities
        if not isinstance(entities, Mapping):  # an iterable of entities is accepted too
            entities = {e.id: e for e in entities}
        for key, entity in entities.items():
            if not isinstance(entity, Entity):
                raise ValueError(f"entity {key!r} is a {type(entity).__name__}, not an Entity")
            if key != entity.id:
                raise ValueError(f"entity stored under {key!r} has id {entity.id!r}")
        slots = tuple(self.slots)
        if any(type(s) is not int for s in slots):
            raise ValueError(f"slots must be ints, not {slots!r}")
        if len(set(slots)) != len(slots):
            raise ValueError(f"slots must be distinct, not {slots!r}")
        slots = tuple(sorted(slots))
        known_slots = set(slots)
        for r in self.relations:
            if not isinstance(r, Relation):
                raise ValueError(f"{r!r} is not a Relation")
            for end in (r.subject, r.object):
                if end not in entities:
                    raise ValueError(
                        f"relation {r.subject!r} {r.predicate!r} {r.object!r} refers to the "
                        f"unknown entity {end!r}"
                    )
            if r.slot not in known_slots:
                raise ValueError(
                    f"relation {r.subject!r} {r.predicate!r} {r.object!r} is in slot {r.slot}, "
                    f"not one of the graph's slots {slots}"
                )
        object.__setattr__(self, "entities", dict(sorted(entities.items())))
        object.__setattr__(
            self, "relations", tuple(sorted(set(self.relations), key=lambda r: r.key))
        )
        object.__setattr__(self, "slots", slots)

    def __hash__(self) -> int:
        return hash(self.digest())

    # -- queries -----------------------------------------------------------------
    def entity(self, entity_id: str) -> Entity:
        try:
            return self.entities[entity_id]
        except KeyError:
            raise KeyError(f"no entity {entity_id!r} in the scene graph") from None

    def of_kind(self, kind: str) -> list[Entity]:
        return [e for e in self.entities.values() if e.kind == kind]

    def relations_of(
        self, entity_id: str, kind: str | None = None, *, slot: int | None = None
    ) -> list[Relation]:
        """Relations with `entity_id` as subject or object (optionally one kind, one slot)."""
        self.entity(entity_id)
        return [
            r
            for r in self.relations
            if entity_id in (r.subject, r.object)
            and (kind is None or r.kind == kind)
            and (slot is None or r.slot == slot)
        ]

    def neighbours(
        self, entity_id: str, kind: str | None = None, *, slot: int | None = None
    ) -> list[str]:
        """Ids of the entities related to `entity_id` either way, sorted."""
        found = set()
        for r in self.relations_of(entity_id, kind, slot=slot):
            found.add(r.object if r.subject == entity_id else r.subject)
        found.discard(entity_id)
        return sorted(found)

    def filter(
        self,
        kinds: Iterable[str] | None = None,
        *,
        slots: Iterable[int] | None = None,
        entity_ids: Iterable[str] | None = None,
    ) -> SceneGraph:
        """A sub-graph: only relations of `kinds`, only `slots`, only `entity_ids`.

        Restricting entities drops every relation touching a dropped entity;
        restricting kinds or slots keeps every entity.
        """
        kind_set = None if kinds is None else set(kinds)
        if kind_set is not None and not kind_set <= set(RELATION_KINDS):
            unknown = sorted(kind_set - set(RELATION_KINDS))
            raise ValueError(f"unknown relation kinds {unknown}; known: {RELATION_KINDS}")
        slot_set = set(self.slots) if slots is None else set(slots) & set(self.slots)
        entities = self.entities
        if entity_ids is not None:
            wanted = set(entity_ids)
            entities = {k: e for k, e in self.entities.items() if k in wanted}
        relations = tuple(
            r
            for r in self.relations
            if (kind_set is None or r.kind in kind_set)
            and r.slot in slot_set
            and r.subject in entities
            and r.object in entities
        )
        return SceneGraph(entities, relations, tuple(sorted(slot_set)))

    def diff(self, other: SceneGraph) -> GraphDiff:
        """What `other` adds to and removes from this graph (for a live view's update)."""
        mine, theirs = set(self.entities.values()), set(other.entities.values())
        my_relations, their_relations = set(self.relations), set(other.relations)
        return GraphDiff(
            tuple(sorted(theirs - mine, key=lambda e: e.id)),
            tuple(sorted(mine - theirs, key=lambda e: e.id)),
            tuple(sorted(their_relations - my_relations, key=lambda r: r.key)),
            tuple(sorted(my_relations - their_relations, key=lambda r: r.key)),
        )

    # -- serialisation -------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "slots": list(self.slots),
            "entities": [e.as_dict() for e in self.entities.values()],
            "relations": [r.as_dict() for r in self.relations],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SceneGraph:
        if data.get("format") != FORMAT:
            raise ValueError(f"a scene graph needs format {FORMAT!r}, not {data.get('format')!r}")
        try:
            entities = [Entity(**e) for e in data.get("entities", [])]
            relations = tuple(Relation(**r) for r in data.get("relations", []))
        except TypeError as exc:
            raise ValueError(f"malformed scene graph: {exc}") from exc
        ids = [e.id for e in entities]
        if len(set(ids)) != len(ids):
            raise ValueError("malformed scene graph: an entity id is used twice")
        return cls({e.id: e for e in entities}, relations, tuple(data.get("slots", (0,))))

    def to_json(self) -> str:
        return _canonical(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> SceneGraph:
        return cls.from_dict(json.loads(text))

    def digest(self) -> str:
        """A stable hash of the content (SHA-256 of the canonical JSON), hex."""
        return hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()
