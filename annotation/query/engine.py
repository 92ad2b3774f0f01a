"""The adaptive query engine: questions of controlled difficulty from a scene graph.

JRDB-Reasoning's engine (paper 000, "Generative Adaptive Query Engine"), in our
own design. Given `Preferences` (task, modality, subject, spatial and temporal
scope) and a `SceneGraph`, it

1. enumerates the *combinations* the graph supports: a pattern of S nodes
   (target plus references) joined by R relation edges, each node with a set of
   attribute filters (gender, age, action, category, colour), each dynamic
   filter in one of T time slots; only relation families that occur in the
   graph between the right kinds of entity are offered;
2. shuffles them with the seed and instantiates one by binding it to real
   entities of the graph (so it has at least one answer);
3. searches the graph with the bound pattern, recording every intermediate
   entity set as a `Step` (all people -> women -> walking -> ...), and
4. words the question (several templates per task) and its answer.

A VG or Wh question must single out exactly one entity; a Count question
counts the final set. S, R and T are properties of the pattern: S nodes, R
edges, T distinct time slots; D = S + R + T. Semantics are set-based: a node's
set is filtered by "has an edge of this kind to some member of the child's
set" (references are existential, worded with "a"). docs/jrdb-questions.md
documents the vocabulary and the step rules.
"""

from __future__ import annotations

import itertools
import random

from annotation.query.keys import combination_keys, pattern_keys
from annotation.query.model import (
    ASKABLE,
    NODE_ATTRIBUTES,
    SCOPE_SIZE,
    SYMMETRIC_FAMILIES,
    Combination,
    EdgeShape,
    GeneratedQuestion,
    GraphIndex,
    NoQuestion,
    Preferences,
)
from annotation.query.search import instantiate, search
from annotation.query.text import word_question
from annotation.query.words import check_sentence
from annotation.scene_graph import SceneGraph

MAX_ATTEMPTS = 400


def _subsets(names: tuple[str, ...], largest: int) -> list[tuple[str, ...]]:
    out = []
    for k in range(0, min(largest, len(names)) + 1):
        out += list(itertools.combinations(names, k))
    return out


def _shapes(size: int) -> list[tuple[tuple[int, int], ...]]:
    if size == 1:
        return [()]
    if size == 2:
        return [((0, 1),)]
    return [((0, 1), (0, 2)), ((0, 1), (1, 2))]  # star and chain


def enumerate_combinations(index: GraphIndex, prefs: Preferences) -> list[Combination]:
    """Every combination whose relation families the graph offers, in a stable order.

    Cached on the index: a batch of questions on one graph enumerates once.
    """
    cached = index.combinations.get(prefs)
    if cached is not None:
        return cached
    size = SCOPE_SIZE[prefs.spatial]
    kinds_present = {e.kind for e in index.graph.entities.values()}
    families = sorted(index.signature)
    target_kinds = {"human": ["human"], "object": ["object"], "both": ["human", "object"]}
    out: list[Combination] = []
    for shape in _shapes(size):
        for target in target_kinds[prefs.subject]:
            if target not in kinds_present:
                continue
            # each edge: a family joining the parent's kind to the child's, either way
            for choice in itertools.product(families, [True, False], repeat=len(shape)):
                pairs = list(zip(choice[0::2], choice[1::2], strict=True))
                kinds: list[str | None] = [target] + [None] * (size - 1)
                edges = []
                ok = True
                for (parent, child), ((family, sk, ok_kind), subj) in zip(
                    shape, pairs, strict=True
                ):
                    if family in SYMMETRIC_FAMILIES and not subj:
                        ok = False  # the other direction gives the same question
                        break
                    mine, other = (sk, ok_kind) if subj else (ok_kind, sk)
                    if kinds[parent] != mine or (kinds[child] not in (None, other)):
                        ok = False
                        break
                    kinds[child] = other
                    edges.append(EdgeShape(parent, child, family, subj))
                if not ok or not _focus_ok(prefs.subject, kinds):
                    continue
                out += _with_attributes(tuple(kinds), tuple(edges), prefs)
    if prefs.require:
        wanted = set(prefs.require)
        out = [c for c in out if wanted <= combination_keys(c)]
    index.combinations[prefs] = result = sorted(set(out), key=_order_key)
    return result


def _order_key(c: Combination) -> tuple:
    return (c.kinds, c.attributes, c.edges, c.asked or "")


def _focus_ok(subject: str, kinds: list[str | None]) -> bool:
    if subject == "human":
        return all(k in ("human", "robot") for k in kinds)
    if subject == "both":
        return "human" in kinds and "object" in kinds
    return True


def _with_attributes(
    kinds: tuple[str, ...], edges: tuple[EdgeShape, ...], prefs: Preferences
) -> list[Combination]:
    per_node = []
    for i, kind in enumerate(kinds):
        names = NODE_ATTRIBUTES.get(kind, ())
        subsets = _subsets(names, len(names) if i == 0 else 1)
        if kind == "object":  # an object is named by its category unless asked for it
            subsets = [s for s in subsets if "category" in s or (i == 0 and prefs.task == "vqa-wh")]
        if i == 0 and not edges and prefs.task != "vqa-count":
            subsets = [s for s in subsets if s] or subsets
        per_node.append(subsets)
    out = []
    for attrs in itertools.product(*per_node):
        if prefs.task == "vqa-wh":
            for asked in ASKABLE.get(kinds[0], ()):
                if asked not in attrs[0]:
                    out.append(Combination(kinds, attrs, edges, asked))
        else:
            out.append(Combination(kinds, attrs, edges))
    return out


# -- generation -----------------------------------------------------------------------


def question_slots(graph: SceneGraph, prefs: Preferences, slot: int | None = None) -> list[int]:
    """The slots a question may use: one for an image, first/middle/last for a video."""
    if prefs.modality == "image":
        chosen = graph.slots[-1] if slot is None else slot
        if chosen not in graph.slots:
            raise NoQuestion(f"slot {chosen} is not one of the graph's slots {graph.slots}")
        return [chosen]
    need = SCOPE_SIZE[prefs.temporal]
    slots = list(graph.slots)
    if len(slots) < need:
        raise NoQuestion(
            f"a {prefs.temporal} temporal scope needs {need} time slots; the graph has {len(slots)}"
        )
    picks = {
        1: [slots[-1]],
        2: [slots[0], slots[-1]],
        3: [slots[0], slots[len(slots) // 2], slots[-1]],
    }
    return picks[need]


def generate(
    graph: SceneGraph,
    prefs: Preferences,
    seed: int,
    *,
    slot: int | None = None,
    index: GraphIndex | None = None,
) -> GeneratedQuestion:
    """One question for the preferences, deterministic for a seed (see module docstring)."""

    index = index or GraphIndex(graph)
    slots = question_slots(graph, prefs, slot)
    combos = enumerate_combinations(index, prefs)
    missing = {"human": "people", "object": "objects"}
    wanted = {"human": ["human"], "object": ["object"], "both": ["human", "object"]}
    kinds = {e.kind for e in graph.entities.values()}
    absent = [missing[k] for k in wanted[prefs.subject] if k not in kinds]
    if absent:
        raise NoQuestion(f"this scene has no {' and no '.join(absent)} to ask about")
    using = f" using {', '.join(prefs.require)}" if prefs.require else ""
    if not combos:
        raise NoQuestion(
            f"the graph offers no {prefs.spatial} pattern with subject {prefs.subject!r}{using} "
            f"(relation families present: {sorted({f for f, _, _ in index.signature}) or 'none'})"
        )
    rng = random.Random(seed)
    for _ in range(MAX_ATTEMPTS):
        combo = combos[rng.randrange(len(combos))]  # uniform over combinations
        binding = instantiate(index, combo, prefs, slots, rng)
        if binding is None:
            continue
        if prefs.require and not set(prefs.require) <= pattern_keys(binding.pattern()):
            continue  # a spatial edge bound to something other than the required group
        result = search(index, binding)
        if result is None:
            continue
        final, steps = result
        if prefs.task != "vqa-count" and len(final) != 1:
            continue
        worded = word_question(index, binding, prefs, final, steps, rng)
        if worded is None or check_sentence(worded.text):
            continue
        used_slots = sorted(
            {s for _, _, s in itertools.chain(*binding.values) if s is not None}
            | {s for _, s in binding.edge_values}
            | {binding.answer_slot}
        )
        return GeneratedQuestion(
            preferences=prefs,
            text=worded.text,
            answer=worded.answer,
            target_ids=tuple(sorted(final)),
            evidence_ids=tuple(dict.fromkeys(binding.entities)),
            steps=tuple(worded.steps),
            S=len(combo.kinds),
            R=len(combo.edges),
            T=1 if prefs.modality == "image" else len(used_slots),
            combination=combo.describe(),
            slots=tuple(used_slots),
            answer_slot=binding.answer_slot,
            seed=seed,
            asked=combo.asked,
            template=worded.template,
            pattern=binding.pattern(),
        )
    raise NoQuestion(
        f"no {prefs.task} question with subject {prefs.subject!r}, spatial {prefs.spatial!r}, "
        f"temporal {prefs.temporal!r}{using} found in this graph after {MAX_ATTEMPTS} attempts"
        + (
            " (a VG or Wh question needs a pattern that singles out one entity)"
            if prefs.task != "vqa-count"
            else ""
        )
    )


def generate_many(
    graph: SceneGraph, prefs: Preferences, n: int, seed: int, *, slot: int | None = None
) -> list[GeneratedQuestion]:
    """Up to `n` questions with distinct texts, seeds `seed`, `seed + 1`, ..."""
    index = GraphIndex(graph)
    out: list[GeneratedQuestion] = []
    seen: set[str] = set()
    for s in range(seed, seed + 4 * n + 8):
        if len(out) == n:
            break
        try:
            q = generate(graph, prefs, s, slot=slot, index=index)
        except NoQuestion:
            if not out and s == seed:
                raise
            continue
        if q.text not in seen:
            seen.add(q.text)
            out.append(q)
    return out
