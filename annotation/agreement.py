"""Inter-annotator agreement: Cohen's kappa, percent agreement, disagreement counts.

Pairs are (first rater's label, second rater's label) for one item each. In
verification the "first rater" is whoever gave a question's first verdict, so
the raters are slots rather than fixed people: the usual way to report Cohen's
kappa when many annotators share the work two per item.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from typing import Any

from annotation.verification import CRITERIA, DECISIONS, TASK_CRITERIA, Verdict

Pair = tuple[Hashable, Hashable]


#: Why a kappa is null: there is nothing to compare, or it is 0/0.
NO_PAIRS = "no pairs"
ONE_CATEGORY = "undefined (one category)"


def kappa_undefined(pairs: Iterable[Pair]) -> str | None:
    """Why Cohen's (or a weighted) kappa of these pairs is undefined, or None when it is not:
    `NO_PAIRS`, or `ONE_CATEGORY` when both raters gave one and the same label to every
    item (the chance agreement is then 1 and kappa is 0/0; sklearn's cohen_kappa_score
    returns NaN there)."""
    labels = {label for pair in pairs for label in pair}
    if not labels:
        return NO_PAIRS
    return ONE_CATEGORY if len(labels) == 1 else None


def cohens_kappa(pairs: Iterable[Pair]) -> float | None:
    """Cohen's kappa of two raters' categorical labels; None when it is undefined (no
    pairs, or one category only: `kappa_undefined` says which).

    kappa = (p_o - p_e) / (1 - p_e), with p_o the observed agreement and p_e
    the agreement expected from each rater's label frequencies. Computed on
    counts, exactly: kappa = (n * agreed - S) / (n^2 - S), S = sum over labels
    of count_1(label) * count_2(label).

    p_e is 1 exactly when both raters gave one and the same label to every item;
    kappa is then 0/0 and reported as undefined, not as 1.0: two raters who never
    had a choice to make show nothing about their agreement.
    """
    pairs = list(pairs)
    if kappa_undefined(pairs) is not None:
        return None
    n = len(pairs)
    agreed = sum(1 for a, b in pairs if a == b)
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    expected = sum(first[label] * second[label] for label in first)
    return (n * agreed - expected) / (n * n - expected)


def kappa_text(kappa: float | None, reason: str | None, digits: int = 2) -> str:
    """A kappa as a table or a report prints it: the value, or why there is none."""
    if kappa is not None:
        return f"{kappa:.{digits}f}"
    return ONE_CATEGORY if reason == ONE_CATEGORY else "n/a (no pairs)"


def percent_agreement(pairs: Iterable[Pair]) -> float | None:
    """Share of pairs with equal labels, in percent (0 to 100); None for no pairs."""
    pairs = list(pairs)
    if not pairs:
        return None
    return 100.0 * sum(1 for a, b in pairs if a == b) / len(pairs)


def label_agreement(pairs: Iterable[Pair]) -> dict[str, Any]:
    """Kappa, percent agreement and disagreement counts for one labelled property.

    `kappa` is null when it is undefined, with `kappa_reason` saying why ("no pairs",
    "undefined (one category)"); `kappa_reason` is null otherwise.
    `disagreements_by_pair` counts the unordered label pairs that disagreed, keyed
    "a|b" with the labels in sorted order, e.g. {"approve|reject": 2}.
    """
    pairs = list(pairs)
    by_pair = Counter("|".join(sorted((str(a), str(b)))) for a, b in pairs if a != b)
    return {
        "kappa": cohens_kappa(pairs),
        "kappa_reason": kappa_undefined(pairs),
        "percent_agreement": percent_agreement(pairs),
        "disagreements": sum(by_pair.values()),
        "disagreements_by_pair": dict(sorted(by_pair.items())),
    }


#: The choices behind the verification agreement numbers, reported with them.
VERIFICATION_SETTINGS = {
    "statistic": "Cohen's kappa of two rater slots (each question's first and second "
    "first-round verdict, whoever gave them), not Fleiss' kappa over named people",
    "pairs": "questions with two live first-round verdicts; adjudication is not counted",
    "criteria": "each criterion as yes / no; the decision as approve / correct / reject",
    "undefined": f"kappa is null with kappa_reason '{ONE_CATEGORY}' when both slots gave "
    "one and the same label to every question (kappa is 0/0 there)",
    "volumes_distinct": "criterion 4, asked of Compare questions only: its figures are over "
    "the Compare pairs in which both verdicts answer it (its own n)",
}


def verification_agreement(pairs: Iterable[tuple[Verdict, Verdict]]) -> dict[str, Any]:
    """Agreement of first-round verdict pairs, per criterion and on the decision.

    Returns {"n": pairs, "criteria": {criterion: {...}}, "decision": {...},
    "decision_labels": [...]}, each {...} as `label_agreement` makes it, with the
    criterion's own "n": the pairs it is computed over. That is every pair for the
    three criteria; for criterion 4 (`volumes_distinct`, asked of Compare questions
    only) the pairs in which both verdicts answer it, so a kappa over Compare
    questions is never diluted by the other tasks. Criteria labels are "yes" / "no".
    """
    pairs = list(pairs)

    def yes_no(value: bool) -> str:
        return "yes" if value else "no"

    def criterion(name: str, asked: list[tuple[Verdict, Verdict]]) -> dict[str, Any]:
        labels = [(yes_no(getattr(a, name)), yes_no(getattr(b, name))) for a, b in asked]
        return {"n": len(asked), **label_agreement(labels)}

    criteria = {name: criterion(name, pairs) for name in CRITERIA}
    for name in TASK_CRITERIA:
        answered = [
            (a, b)
            for a, b in pairs
            if getattr(a, name) is not None and getattr(b, name) is not None
        ]
        criteria[name] = criterion(name, answered)
    return {
        "n": len(pairs),
        "criteria": criteria,
        "decision": label_agreement((a.decision, b.decision) for a, b in pairs),
        "decision_labels": list(DECISIONS),
        "settings": VERIFICATION_SETTINGS,
    }
