"""Words for the query engine: nouns, plurals, articles, relation phrases, templates.

Everything the engine says goes through here, so the grammar rules live in one
place and the 1,000-question check (tests/annotation/query/test_query_engine.py)
tests them all. Nothing here knows about graphs beyond an entity's kind and
attributes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

#: JRDB age labels -> (adjective used with a gender noun, noun without gender).
AGE_WORDS: dict[str, tuple[str, str]] = {
    "childhood": ("young", "child"),
    "adolescence": ("teenage", "teenager"),
    "young_adulthood": ("young", "young adult"),
    "adulthood": ("adult", "adult"),
    "middle_adulthood": ("middle-aged", "middle-aged adult"),
    "late_adulthood": ("elderly", "elderly person"),
}
#: (gender, age label) -> the noun when both are known and a single word reads better.
_GENDER_AGE_NOUNS = {
    ("female", "childhood"): "girl",
    ("male", "childhood"): "boy",
}
GENDER_NOUNS = {"female": "woman", "male": "man"}
#: JRDB-Social race labels (lower case, as the graph holds them) -> the adjective, the
#: label's own word after the slash ("Caucasian/White": "white man"). "Others" and
#: "impossible" are not judgements a question can use.
RACE_WORDS = {
    "caucasian/white": "white",
    "mongoloid/asian": "Asian",
    "negroid/black": "Black",
}
#: Age labels split for a race adjective between them: (adjective before it, noun after it).
_AGE_AROUND_RACE = {
    "childhood": ("", "child"),
    "adolescence": ("", "teenager"),
    "young_adulthood": ("young", "adult"),
    "adulthood": ("", "adult"),
    "middle_adulthood": ("middle-aged", "adult"),
    "late_adulthood": ("elderly", "person"),
}

_IRREGULAR_PLURALS = {
    "person": "people",
    "man": "men",
    "woman": "women",
    "child": "children",
    "elderly person": "elderly people",
}
_AN_EXCEPTIONS = ("one", "user", "uni", "euro", "use")
_AN_SOUNDS = ("hour", "honest")

#: Geometry directions (annotation.jrdb.geometry) as seen from the reference.
DIRECTION_PHRASES = {
    "front": ("in front of", "in front of {them}"),
    "back": ("behind", "behind {them}"),
    "left": ("to the left of", "to {their} left"),
    "right": ("to the right of", "to {their} right"),
    "front-left": ("to the front-left of", "to {their} front-left"),
    "front-right": ("to the front-right of", "to {their} front-right"),
    "back-left": ("to the back-left of", "to {their} back-left"),
    "back-right": ("to the back-right of", "to {their} back-right"),
}
DISTANCE_PHRASES = {
    "very-close": "very close to",
    "close": "close to",
    "moderate": "at a moderate distance from",
    "far": "far from",
    "very-far": "very far from",
}
#: Simulator predicates (sim.tabletop.graph) as a subject-side phrase.
SIM_PHRASES = {
    "on": "on",
    "under": "under",
    "left of": "to the left of",
    "right of": "to the right of",
    "behind": "behind",
    "in front of": "in front of",
    "near": "near",
    "in basket": "in",
    "held by": "held by",
}
#: JRDB-Social human-human interaction labels that read badly as "<label> with <person>"
#: (the rest: "sitting together with a man", "walking together with a woman").
INTERACTION_PHRASES = {
    "conversation": "chatting with",
    "hugging": "hugging",
    "shaking hands": "shaking hands with",
    "walking toward each other": "walking toward",
    "looking at robot together": "looking at the robot together with",
    "interaction with door together": "opening a door together with",
    "waving hand together": "waving a hand together with",
}
SLOT_PHRASES = {"first": "at the start", "middle": "midway through", "last": "at the end"}


#: Colour words a catalog name may start with ("ochre toy fish"); stripped to get the kind.
COLOUR_WORDS = frozenset(
    "red green blue yellow orange purple pink brown black white grey gray ochre teal cyan "
    "magenta beige navy olive maroon gold golden silver tan cream lime violet turquoise "
    "dark light pale bright".split()
)
#: JRDB action labels that read badly as they are.
LABEL_WORDS = {
    "working on computer": "working on a computer",
    "talking on the phone": "talking on the phone",
    "interaction with door": "opening a door",
    "going upstairs": "going upstairs",
    "going downstairs": "going downstairs",
    "looking at robot": "looking at the robot",
    "pushing trolley": "pushing a trolley",
    "waving hand": "waving a hand",
    "shaking hand": "shaking hands",
    "greeting gestures": "making a greeting gesture",
}
#: Values that say a label could not be given; never used as a filter or an answer.
UNKNOWN_VALUES = frozenset({"", "impossible", "unknown", "none", "n/a", "other", "null"})


def usable(attribute: str, value: str) -> bool:
    """Whether an attribute value can be put into words (demographics use a closed list)."""
    if str(value).strip().lower() in UNKNOWN_VALUES:
        return False
    if attribute == "gender":
        return value in GENDER_NOUNS
    if attribute == "age":
        return value in AGE_WORDS
    if attribute == "race":
        return value in RACE_WORDS
    return True


def clean_label(label: str) -> str:
    """A dataset label as words: underscores become spaces, "sth" becomes "something"."""
    words = str(label).replace("_", " ").replace("/", " ").split()
    words = ["something" if w in ("sth", "sth.") else "someone" if w == "sb" else w for w in words]
    text = " ".join(words)
    return LABEL_WORDS.get(text, text)


def plural(noun: str) -> str:
    if noun in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[noun]
    head, _, last = noun.rpartition(" ")
    if last in _IRREGULAR_PLURALS:
        out = _IRREGULAR_PLURALS[last]
    elif re.search(r"(s|x|z|ch|sh)$", last):
        out = last + "es"
    elif re.search(r"[^aeiou]y$", last):
        out = last[:-1] + "ies"
    else:
        out = last + "s"
    return f"{head} {out}" if head else out


def article(phrase: str) -> str:
    """ "a" or "an" for the phrase that follows."""
    word = phrase.split(" ", 1)[0].lower()
    if word.startswith(_AN_SOUNDS):
        return "an"
    if word.startswith(_AN_EXCEPTIONS):
        return "a"
    return "an" if word[:1] in "aeiou" else "a"


def with_article(phrase: str, definite: bool = False) -> str:
    return f"the {phrase}" if definite else f"{article(phrase)} {phrase}"


def person_noun(gender: str | None, age: str | None, race: str | None = None) -> str:
    """The noun phrase for a person with the known demographics: "young woman", "child",
    "young white woman", "Asian child"."""
    if race in RACE_WORDS:
        colour = RACE_WORDS[race]
        if age in _AGE_AROUND_RACE and (gender, age) in _GENDER_AGE_NOUNS:
            return f"{colour} {_GENDER_AGE_NOUNS[(gender, age)]}"
        if age in _AGE_AROUND_RACE:
            before, noun = _AGE_AROUND_RACE[age]
            noun = GENDER_NOUNS.get(gender, noun)
            before = AGE_WORDS[age][0] if gender in GENDER_NOUNS else before
            return " ".join(w for w in (before, colour, noun) if w)
        return f"{colour} {GENDER_NOUNS.get(gender, 'person')}"
    if gender and age and (gender, age) in _GENDER_AGE_NOUNS:
        return _GENDER_AGE_NOUNS[(gender, age)]
    if gender in GENDER_NOUNS:
        if age in AGE_WORDS:
            return f"{AGE_WORDS[age][0]} {GENDER_NOUNS[gender]}"
        return GENDER_NOUNS[gender]
    if age in AGE_WORDS:
        return AGE_WORDS[age][1]
    return "person"


def object_noun(attributes: Mapping[str, Any], label: str = "") -> str:
    """An object's kind as a noun: ``kind``, else its name without the colour, else category."""
    if attributes.get("kind"):
        return clean_label(attributes["kind"])
    name = attributes.get("name")
    if name:
        words = clean_label(name).split()
        while len(words) > 1 and words[0].lower() in COLOUR_WORDS:
            words = words[1:]
        return " ".join(words)
    if attributes.get("category"):
        return clean_label(attributes["category"])
    return clean_label(label.split(":")[0]) if label else "object"


def value_words(attribute: str, value: Any) -> str:
    """An attribute value as the words of an answer or a step: "young adult", "walking"."""
    if attribute == "age" and value in AGE_WORDS:
        return AGE_WORDS[value][1]
    if attribute == "race" and value in RACE_WORDS:
        return RACE_WORDS[value]
    return clean_label(value)


def interaction_words(label: str) -> str:
    """A JRDB-Social interaction label as a verb phrase before the partner: "sitting together
    with", "chatting with" (the JRDB-Reasoning paper's wording of "conversation")."""
    text = clean_label(label)
    if text in INTERACTION_PHRASES:
        return INTERACTION_PHRASES[text]
    if text.endswith(" each other"):
        return text[: -len(" each other")]
    return f"{text} with"


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def check_sentence(text: str) -> list[str]:
    """Grammar problems of a generated question (empty when it reads cleanly)."""
    problems = []
    if not text or not text[0].isupper():
        problems.append("does not start with a capital letter")
    if not text.endswith((".", "?")):
        problems.append("does not end with . or ?")
    for pattern, what in (
        (r"[{}_<>]|\bNone\b|\bnull\b", "unfilled slot or raw label"),
        (r"\s{2,}|\s[.,?]", "stray whitespace"),
        (r"\b(\w+) \1\b", "repeated word"),
        (r"\bsth\b", "abbreviation"),
        (r"\ba (?!uni|use|one|euro)[aeiouAEIOU]", "'a' before a vowel"),
        (r"\ban (?!hour|honest)[^aeiouAEIOU\s]", "'an' before a consonant"),
    ):
        if re.search(pattern, text):
            problems.append(what)
    return problems
