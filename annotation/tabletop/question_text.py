"""Wording for MG-VQA-style questions: several paraphrases per task, filled from catalog names.

Every template is filled completely or not at all (`fill` raises on a missing
slot), so no question leaves here with a `{placeholder}` in it.
"""

from __future__ import annotations

import random
import string

NONE_OF_THE_ABOVE = "None of the above"

TEMPLATES: dict[str, tuple[str, ...]] = {
    "count": (
        "How many {plural} are on the table?",
        "Count the {plural} in this scene. How many are there?",
        "What is the total number of {plural} on the table, including any that may be hidden?",
        "How many {plural} can be found in the clutter on the table?",
    ),
    "find": (
        "Is there {a_name} on the table? If so, point to it.",
        "Is {a_name} present anywhere in the scene? If yes, give its location in the image.",
        "Can you find {a_name} on the table? Answer yes or no, and point to it if it is there.",
        "Does the table hold {a_name}? If it does, mark where it is.",
    ),
    "beneath": (
        "What is beneath the {cover}?",
        "Which object is hidden under the {cover}?",
        "What lies underneath the {cover}?",
        "Something is covered by the {cover}. What is it?",
    ),
    "compare": (
        "Three objects are labelled A, B and C. Which label marks the {extreme} object?",
        "Of the objects labelled A, B and C, which one is the {extreme}?",
        "Look at the objects marked A, B and C. Which is the {extreme} of the three?",
    ),
}


def plural(name: str) -> str:
    """English plural of a catalog name's last word ("red mug" -> "red mugs")."""
    head, _, last = name.rpartition(" ")
    if last.endswith("s") and not last.endswith(("ss", "us", "is")):
        return name  # already plural ("sticky notes")
    if last.endswith(("s", "x", "z", "ch", "sh")):
        last += "es"
    elif last.endswith("y") and len(last) > 1 and last[-2] not in "aeiou":
        last = last[:-1] + "ies"
    else:
        last += "s"
    return f"{head} {last}" if head else last


def with_article(name: str) -> str:
    """'orange' -> 'an orange', 'red mug' -> 'a red mug'."""
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def fill(template: str, **values: str) -> str:
    """Fill every slot of `template`; a missing or unused value is an error."""
    slots = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    missing, unused = slots - set(values), set(values) - slots
    if missing or unused:
        raise ValueError(
            f"template {template!r}: missing {sorted(missing)}, unused {sorted(unused)}"
        )
    text = template.format(**values)
    return text[0].upper() + text[1:]


def phrase(task: str, rng: random.Random, **values: str) -> str:
    """One of the task's paraphrases, chosen by `rng`, filled with `values`."""
    return fill(rng.choice(TEMPLATES[task]), **values)


def beneath_steps(cover: str, cover_name: str, hidden: str, hidden_name: str) -> list[dict]:
    """A Beneath question's step-by-step annotation: find the cover, move it aside, see
    what it covered, match it against the options (entity ids are body keys)."""
    return [
        {"description": f"find the {cover_name}", "entity_ids": [cover]},
        {"description": f"move the {cover_name} aside", "entity_ids": [cover]},
        {"description": f"see what it covered: a {hidden_name}", "entity_ids": [hidden]},
        {"description": "match it against the options", "entity_ids": [hidden]},
    ]
