"""Sub-question keys in JRDB-Reasoning's vocabulary: which attribute combination each step applies.

The real engine (github:sjahangard/JRDB-Reasoning, `global_functions.py`,
`build_ordered_attribute_descriptions` and `update_final_structures_by_results`)
keys a question's sub-questions by the attributes applied so far, joined with
", " ("age", "age, race", "age, race, hhi"), plus "human" for "Find all
persons". Our steps (annotation.query.search) narrow one pattern node at a
time: its type, then its filters, then its edges. `step_keys` names every step
in that vocabulary:

* the target's type step: ``"human"`` / ``"object"`` (all of that kind, not part
  of any combination) or ``"category"`` (an object named by its category, which
  starts the combination, as the real object attributes do);
* a filter: its name (``gender``, ``age``, ``action``, ``colour``);
* an edge: ``hoi``; a JRDB-Social human-human interaction ``hhi``; a geometric relation to the robot ``SR_Robot_Ref``
  (direction) or ``distance``; between two entities ``hhg`` (person-person),
  ``hoG`` (person-object), ``ooG`` (object-object), as the real engine names
  them; a JRDB-Social group (``spatial`` "in the same group as") ``social_group``;
  simulator relations by their family (``support``, ``spatial``, ``state``);
* a reference node's steps get the same keys behind ``"<edge>_pair: "``
  (``"hoi_pair: category"``), the real format's name for a relation's partner;
* the robot (and a surface) is one named entity without a box in the image:
  its step has no key (None), as the real engine has no sub-question for the
  robot of ``SR_Robot_Ref``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from annotation.jrdb.graph import SAME_GROUP
from annotation.query.model import (
    IDENTITY_KINDS,
    NODE_ATTRIBUTES,
    Combination,
    GraphIndex,
    relation_family,
)

GEOMETRY = {
    frozenset({"human"}): "hhg",
    frozenset({"human", "object"}): "hoG",
    frozenset({"object"}): "ooG",
}


def edge_name(family: str, parent_kind: str, child_kind: str, value: object = None) -> str:
    """The real engine's attribute name for one relation edge."""
    if value == SAME_GROUP:
        return "social_group"  # JRDB-Social group membership: the real engine has no key
    if family == "hoi":
        return "hoi"
    if family in ("direction", "distance"):
        if "robot" in (parent_kind, child_kind):
            return "SR_Robot_Ref" if family == "direction" else "distance"
        return GEOMETRY.get(frozenset({parent_kind, child_kind}), f"{family}")
    return family


def combination_keys(combo: Combination) -> set[str]:
    """Every key a combination may use once bound: its filters and its edges' names. A
    ``spatial`` edge may also be a JRDB-Social group (``social_group``): that depends on the
    value it is bound to (`pattern_keys` tells exactly)."""
    out = {name for names in combo.attributes for name in names}
    for e in combo.edges:
        kinds = (combo.kinds[e.parent], combo.kinds[e.child])
        out.add(edge_name(e.family, *kinds))
        if e.family == "spatial":
            out.add("social_group")
    return out


def graph_keys(index: GraphIndex) -> set[str]:
    """The keys a graph can offer a question: the filters some entity has a usable value of
    (a person's race when JRDB-Social judged it) and the names of the relations it has."""
    graph = index.graph
    out: set[str] = set()
    for key, entity in graph.entities.items():
        for name in NODE_ATTRIBUTES.get(entity.kind, ()):
            if name not in out and index.value(key, name, None):
                out.add(name)
    kinds = {k: e.kind for k, e in graph.entities.items()}
    for r in graph.relations:
        for family, value in relation_family(r.kind, r.predicate, r.attributes):
            out.add(edge_name(family, kinds[r.subject], kinds[r.object], value))
    return out


def pattern_keys(pattern: Mapping[str, Any]) -> set[str]:
    """The keys a bound pattern uses (`Binding.pattern()`, or a stored ``criteria.pattern``):
    every node's filters and every edge's name, on any node, target or reference."""
    nodes = pattern.get("nodes") or []
    kinds = [n.get("kind", "") for n in nodes]
    out = {str(f[0]) for n in nodes for f in n.get("filters") or []}
    for e in pattern.get("edges") or []:
        out.add(edge_name(e["family"], kinds[e["parent"]], kinds[e["child"]], e.get("value")))
    return out


def step_keys(pattern: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """One key per step (None for the robot's own step), unique within the question."""
    nodes = pattern.get("nodes") or []
    edges = pattern.get("edges") or []
    kinds = [n.get("kind", "") for n in nodes]
    prefix: dict[int, str] = {0: ""}
    used_prefixes: set[str] = set()
    for e in edges:
        name = edge_name(e["family"], kinds[e["parent"]], kinds[e["child"]], e.get("value"))
        base = f"{name}_pair"
        p, n = base, 2
        while p in used_prefixes:
            p, n = f"{base}{n}", n + 1
        used_prefixes.add(p)
        prefix[e["child"]] = f"{p}: "
    progress: dict[int, int] = {}  # steps seen per node
    items: dict[int, list[str]] = {}
    out: list[str | None] = []
    seen: set[str] = set()
    for step in steps:
        node = int(step.get("node", 0))
        k = progress.get(node, 0)
        progress[node] = k + 1
        spec = nodes[node] if 0 <= node < len(nodes) else {}  # a record without a pattern
        kind = spec.get("kind", "")
        filters = [f for f in (spec.get("filters") or []) if f[0] != "category"]
        own_edges = [e for e in edges if e["parent"] == node]
        if kind in IDENTITY_KINDS:
            out.append(None)
            continue
        mine = items.setdefault(node, [])
        if k == 0:
            has_category = any(f[0] == "category" for f in spec.get("filters") or [])
            if kind == "object" and has_category:
                mine.append("category")
                key = "category"
            else:
                key = kind or "entity"
        else:
            if k - 1 < len(filters):
                mine.append(str(filters[k - 1][0]))
            elif own_edges:
                e = own_edges[min(k - 1 - len(filters), len(own_edges) - 1)]
                mine.append(
                    edge_name(e["family"], kinds[e["parent"]], kinds[e["child"]], e.get("value"))
                )
            else:
                mine.append("step")
            key = ", ".join(mine)
        key = prefix.get(node, "") + key
        unique, n = key, 2
        while unique in seen:
            unique, n = f"{key} ({n})", n + 1
        seen.add(unique)
        out.append(unique)
    return out
