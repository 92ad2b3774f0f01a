"""Wording a bound pattern: noun phrases, the question, its answer and its steps."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from annotation.query.model import IDENTITY_KINDS, Binding, GraphIndex, Preferences, Step
from annotation.query.search import RawStep
from annotation.query.words import (
    DIRECTION_PHRASES,
    DISTANCE_PHRASES,
    SIM_PHRASES,
    SLOT_PHRASES,
    capitalise,
    clean_label,
    interaction_words,
    person_noun,
    plural,
    value_words,
    with_article,
)

VG_TEMPLATES = (
    "Find the {np}.",
    "Locate the {np}.",
    "Point out the {np}.",
    "Draw a box around the {np}.",
)
COUNT_TEMPLATES = ("How many {nps} are there?", "Count the {nps}.", "What is the number of {nps}?")
WH_TEMPLATES = {
    "gender": ("What is the gender of the {np}?", "Is the {np} male or female?"),
    "age": ("How old is the {np}?", "Which age group does the {np} belong to?"),
    "action": ("What is the {np} doing{when}?", "What activity is the {np} engaged in{when}?"),
    "category": ("What is the {np}?", "What kind of item is the {np}?"),
}


@dataclass(frozen=True)
class Worded:
    text: str
    answer: Any
    steps: list[Step]
    template: int


class _Phrases:
    """Noun phrases of the pattern's nodes with any prefix of their filters applied."""

    def __init__(self, index: GraphIndex, binding: Binding, prefs: Preferences) -> None:
        self.index, self.b, self.prefs = index, binding, prefs
        ordered = sorted(binding.slots or (binding.answer_slot,))
        self.position = {
            s: ("first" if s == ordered[0] else "last" if s == ordered[-1] else "middle")
            for s in ordered
        }
        self.single = len(ordered) == 1

    def when(self, slot: int | None) -> str:
        """A time phrase for a video question that spans several slots."""
        if self.prefs.modality != "video" or slot is None or self.single:
            return ""
        return " " + SLOT_PHRASES[self.position.get(slot, "last")]

    def _gender(self, node: int, n_attrs: int) -> str | None:
        for name, value, _ in self.b.values[node][:n_attrs]:
            if name == "gender":
                return value
        return None

    def pronouns(self, node: int, is_plural: bool) -> dict[str, str]:
        if is_plural:
            return {"them": "them", "their": "their"}
        kind = self.b.combo.kinds[node]
        if kind != "human":
            return {"them": "it", "their": "its"}
        gender = self._gender(node, len(self.b.values[node]))
        return {
            "female": {"them": "her", "their": "her"},
            "male": {"them": "him", "their": "his"},
        }.get(gender, {"them": "them", "their": "their"})

    def head(self, node: int, n_attrs: int, is_plural: bool) -> str:
        """The noun with its adjectives: "young woman", "red mug", "people"."""
        kind = self.b.combo.kinds[node]
        entity = self.index.graph.entities[self.b.entities[node]]
        if kind in IDENTITY_KINDS:
            label = clean_label(entity.label)
            return label[4:] if label.startswith("the ") else label
        applied = dict((n, v) for n, v, _ in self.b.values[node][:n_attrs])
        if kind == "human":
            noun = person_noun(applied.get("gender"), applied.get("age"), applied.get("race"))
        else:
            category = [v for n, v, _ in self.b.values[node] if n == "category"]
            noun = category[0] if category else "object"
            if "colour" in applied:
                noun = f"{applied['colour']} {noun}"
        return plural(noun) if is_plural else noun

    def clauses(self, node: int, n_attrs: int, n_edges: int, is_plural: bool) -> str:
        subject_side: list[str] = []
        object_side: list[str] = []
        be, have = ("are", "have") if is_plural else ("is", "has")
        for name, value, slot in self.b.values[node][:n_attrs]:
            if name == "action":
                subject_side.append(f"{be} {clean_label(value)}{self.when(slot)}")
        mine = [k for k, e in enumerate(self.b.combo.edges) if e.parent == node][:n_edges]
        for k in mine:
            kind, text = self.edge_clause(node, k, is_plural, be, have)
            (subject_side if kind == "subject" else object_side).append(text)
        parts = []
        if subject_side:
            pronoun = "who" if self.b.combo.kinds[node] == "human" else "that"
            parts.append(f"{pronoun} " + " and ".join(subject_side))
        parts += [f"that {t}" for t in object_side]
        return " and ".join(parts)

    def edge_clause(
        self, node: int, k: int, is_plural: bool, be: str, have: str
    ) -> tuple[str, str]:
        edge = self.b.combo.edges[k]
        value, slot = self.b.edge_values[k]
        other = self.reference(edge.child)
        when = self.when(slot)
        p = self.pronouns(node, is_plural)
        if edge.family == "hoi":
            if edge.parent_is_subject:
                return "subject", f"{be} {clean_label(value)} {other}{when}"
            return "object", f"{other} is {clean_label(value)}{when}"
        if edge.family == "hhi":  # mutual: worded from the parent whichever way it was walked
            return "subject", f"{be} {interaction_words(value)} {other}{when}"
        if edge.family == "direction":
            near, far = DIRECTION_PHRASES.get(value, (clean_label(value), clean_label(value)))
            if edge.parent_is_subject:
                return "subject", f"{be} {near} {other}{when}"
            return "subject", _has(have, other, far.format(**p), when)
        if edge.family == "distance":
            words = DISTANCE_PHRASES.get(value, clean_label(value))
            if edge.parent_is_subject:
                return "subject", f"{be} {words} {other}{when}"
            return "subject", _has(have, other, f"{words} {p['them']}", when)
        words = SIM_PHRASES.get(value, clean_label(value))
        if edge.parent_is_subject:
            return "subject", f"{be} {words} {other}{when}"
        return "object", f"{other} is {words}{when}"

    def reference(self, node: int) -> str:
        """A reference node in full, singular: "a man who is holding a bag", "the robot"."""
        kind = self.b.combo.kinds[node]
        head = self.head(node, len(self.b.values[node]), False)
        if kind in IDENTITY_KINDS:
            return f"the {head}"
        n_edges = sum(1 for e in self.b.combo.edges if e.parent == node)
        clause = self.clauses(node, len(self.b.values[node]), n_edges, False)
        return with_article(head) + (f" {clause}" if clause else "")

    def phrase(self, node: int, n_attrs: int, n_edges: int, is_plural: bool) -> str:
        head = self.head(node, n_attrs, is_plural)
        clause = self.clauses(node, n_attrs, n_edges, is_plural)
        return head + (f" {clause}" if clause else "")


def _has(have: str, other: str, where: str, when: str) -> str:
    """ "has a man to her left"; a reference with its own clause goes last, so that
    "to her left" cannot be read as part of it: "has to her left a man who is ..."."""
    if " who " in f" {other} " or " that " in f" {other} ":
        return f"{have} {where}{when} {other}"
    return f"{have} {other} {where}{when}"


def _describe(ph: _Phrases, raw: RawStep) -> str:
    kind = ph.b.combo.kinds[raw.node]
    if raw.op == "type":
        if kind in IDENTITY_KINDS:
            return f"the {ph.head(raw.node, 0, False)}"
        return f"all {ph.head(raw.node, 0, True)}"
    if raw.op == "attr":
        name, value = raw.detail
        return value_words(name, value) + (ph.when(raw.slot) if name == "action" else "")
    is_plural = True
    be, have = "are", "have"
    _, text = ph.edge_clause(raw.node, raw.detail, is_plural, be, have)
    for prefix, repl in (("are ", ""), ("have ", "with ")):
        if text.startswith(prefix):
            return repl + text[len(prefix) :]
    return "that " + text


def word_question(
    index: GraphIndex,
    binding: Binding,
    prefs: Preferences,
    final: set[str],
    raw_steps: list[RawStep],
    rng: random.Random,
) -> Worded | None:
    ph = _Phrases(index, binding, prefs)
    counts: dict[int, list[int]] = {}  # node -> [attrs applied, edges applied]
    steps = []
    for raw in raw_steps:
        c = counts.setdefault(raw.node, [0, 0])
        if raw.op == "attr":
            c[0] = 1 + next(
                i for i, (n, v, _) in enumerate(binding.values[raw.node]) if (n, v) == raw.detail
            )
        elif raw.op == "edge":
            c[1] += 1
        kind = binding.combo.kinds[raw.node]
        if raw.op == "type":
            sub = f"Find {_describe(ph, raw)}."
        elif kind in IDENTITY_KINDS:
            sub = f"Find {ph.reference(raw.node)}."
        else:
            sub = f"Find the {ph.phrase(raw.node, c[0], c[1], True)}."
        steps.append(
            Step(
                _describe(ph, raw), tuple(sorted(raw.entities)), raw.slot, capitalise(sub), raw.node
            )
        )
    for node in range(len(binding.combo.kinds)):
        mine = [k for k, e in enumerate(binding.combo.edges) if e.parent == node]
        said = [ph.edge_clause(node, k, False, "is", "has") for k in mine]
        if len(set(said)) != len(said):
            return None  # two references worded alike say the same thing twice
    n_attrs = len(binding.values[0])
    target_edges = sum(1 for e in binding.combo.edges if e.parent == 0)
    if prefs.task == "vqa-count":
        template = rng.randrange(len(COUNT_TEMPLATES))
        nps = ph.phrase(0, n_attrs, target_edges, True)
        return Worded(COUNT_TEMPLATES[template].format(nps=nps), len(final), steps, template)
    np_ = ph.phrase(0, n_attrs, target_edges, False)
    if prefs.task == "vg":
        template = rng.randrange(len(VG_TEMPLATES))
        return Worded(VG_TEMPLATES[template].format(np=np_), tuple(sorted(final)), steps, template)
    asked = binding.combo.asked
    options = WH_TEMPLATES[asked]
    template = rng.randrange(len(options))
    when = ph.when(binding.answer_slot) if asked == "action" else ""
    text = options[template].format(np=np_, when=when)
    return Worded(text, value_words(asked, binding.extra["asked_value"]), steps, template)
