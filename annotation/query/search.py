"""Binding a combination to a graph, and searching the graph with the bound pattern.

`instantiate` picks a target entity with the seed's generator and walks the
pattern's edges through real relations, so every bound pattern has at least
one answer. `search` then evaluates the pattern over *all* entities, node by
node in post-order (a node's references before the node), recording each
intermediate entity set. Those sets are the question's step annotations and
its answer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from annotation.query.model import (
    DYNAMIC_ATTRIBUTES,
    IDENTITY_KINDS,
    Binding,
    Combination,
    GraphIndex,
    Preferences,
)


@dataclass(frozen=True)
class RawStep:
    node: int
    op: str  # "type", "attr" or "edge"
    detail: object  # attr: (name, value); edge: edge index; type: None
    entities: frozenset[str]
    slot: int


def _assign_slots(
    combo: Combination, slots: list[int], rng: random.Random
) -> tuple[dict[tuple[int, str], int], list[int]] | None:
    """A slot for every dynamic filter (actions, edges), using each slot at least once."""
    features: list[tuple[str, int, str]] = [
        ("attr", i, name)
        for i, names in enumerate(combo.attributes)
        for name in names
        if name in DYNAMIC_ATTRIBUTES
    ] + [("edge", k, "") for k in range(len(combo.edges))]
    if len(slots) == 1:
        chosen = [slots[0]] * len(features)
    else:
        if len(features) < len(slots):
            return None
        order = list(range(len(features)))
        rng.shuffle(order)
        chosen = [0] * len(features)
        for n, f in enumerate(order):
            chosen[f] = slots[n] if n < len(slots) else rng.choice(slots)
    attr_slots = {(f[1], f[2]): s for f, s in zip(features, chosen, strict=True) if f[0] == "attr"}
    edge_slots = [s for f, s in zip(features, chosen, strict=True) if f[0] == "edge"]
    return attr_slots, edge_slots


def instantiate(
    index: GraphIndex,
    combo: Combination,
    prefs: Preferences,
    slots: list[int],
    rng: random.Random,
) -> Binding | None:
    """Bind `combo` to entities and values of the graph, or None when this try fails."""
    assigned = _assign_slots(combo, slots, rng)
    if assigned is None:
        return None
    attr_slots, edge_slots = assigned
    answer_slot = slots[-1]
    graph = index.graph
    candidates = sorted(
        k
        for k, e in graph.entities.items()
        if e.kind == combo.kinds[0] and index.present(k, answer_slot)
    )
    if not candidates:
        return None
    bound = [rng.choice(candidates)] + [""] * (len(combo.kinds) - 1)
    edge_values: list[tuple[str, int]] = []
    for k, edge in enumerate(combo.edges):
        slot = edge_slots[k]
        parent = bound[edge.parent]
        table = index.out if edge.parent_is_subject else index.inc
        options = sorted(
            (value, other)
            for value, other in table.get((slot, edge.family, parent), ())
            if graph.entities[other].kind == combo.kinds[edge.child] and other not in bound
        )
        if not options:
            return None
        value, other = rng.choice(options)
        bound[edge.child] = other
        edge_values.append((value, slot))
    values: list[list[tuple[str, str, int | None]]] = []
    for i, names in enumerate(combo.attributes):
        node_values = []
        for name in names:
            slot = attr_slots.get((i, name))
            found = sorted(index.value(bound[i], name, slot))
            if not found:
                return None
            node_values.append((name, rng.choice(found), slot))
        values.append(node_values)
    binding = Binding(combo, bound, values, edge_values, answer_slot, tuple(slots))
    if combo.asked:
        asked = sorted(index.value(bound[0], combo.asked, answer_slot))
        if len(asked) != 1:
            return None  # no single answer to ask for
        binding.extra["asked_value"] = asked[0]
    return binding


def node_slot(binding: Binding, node: int) -> int:
    """The slot a node's candidates are drawn from: the answer slot for the target, else
    the slot of the edge that links the node to its parent."""
    for k, edge in enumerate(binding.combo.edges):
        if edge.child == node:
            return binding.edge_values[k][1]
    return binding.answer_slot


def search(index: GraphIndex, binding: Binding) -> tuple[set[str], list[RawStep]] | None:
    """Evaluate the bound pattern over the whole graph: (final target set, steps)."""
    combo, graph = binding.combo, index.graph
    steps: list[RawStep] = []

    def evaluate(node: int) -> set[str]:
        kind = combo.kinds[node]
        slot = node_slot(binding, node)
        if kind in IDENTITY_KINDS:
            current = {binding.entities[node]}
        else:
            current = {
                k for k, e in graph.entities.items() if e.kind == kind and index.present(k, slot)
            }
        category = [v for name, v, _ in binding.values[node] if name == "category"]
        if category:
            current = {e for e in current if category[0] in index.value(e, "category", None)}
        steps.append(RawStep(node, "type", None, frozenset(current), slot))
        for name, value, vslot in binding.values[node]:
            if name == "category":
                continue
            current = {e for e in current if value in index.value(e, name, vslot)}
            steps.append(
                RawStep(
                    node,
                    "attr",
                    (name, value),
                    frozenset(current),
                    slot if vslot is None else vslot,
                )
            )
        for k, edge in enumerate(combo.edges):
            if edge.parent != node:
                continue
            others = evaluate(edge.child)
            value, eslot = binding.edge_values[k]
            pairs = index.pairs.get((eslot, edge.family, value), set())
            if edge.parent_is_subject:
                current = {e for e in current if any((e, o) in pairs for o in others)}
            else:
                current = {e for e in current if any((o, e) in pairs for o in others)}
            steps.append(RawStep(node, "edge", k, frozenset(current), eslot))
        return current

    final = evaluate(0)
    if binding.entities[0] not in final:
        return None
    return final, steps
