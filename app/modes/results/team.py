"""Results > Team: per person, the work packages' items (assigned, done, outstanding, with
dates), the packages not yet returned, every kind of work they have done (in the project
or merged from a package), and how the person agrees with the others so far.

`team_rows(project)` reads the project's repositories and returns plain rows (dicts, as
the other Results pages take their metrics); `widgets.results.team` only shows them.
Agreement is per person: one pair per item the person and another rater both did, the
person's label first (docs/metrics.md#team-who-has-what-and-how-they-agree).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from annotation.agreement import ONE_CATEGORY, label_agreement
from annotation.jrdb.hoi_review import REVIEW, REVIEWS_NEEDED, LabelRecord, ReviewRecord
from annotation.verification import Verdict
from store.packages import WORK_KINDS

#: The choices behind the Team numbers: the page's "Computed with:" footnote.
TEAM_SETTINGS = {
    "items": "assigned counts every item handed out in a package, recalled ones too; done, "
    "those whose work was merged back; outstanding, those still out (neither done nor "
    "recalled)",
    "verification": "Cohen's kappa of the person's decision (approve / correct / reject) "
    "against the other verifier's, one pair per question both verified in the first round",
    "HOI_review": "Cohen's kappa of the person's accept / reject (a fix counts as a reject) "
    "against the other reviewer of the same label round, one pair per round reviewed twice",
    "undefined": f"'{ONE_CATEGORY}' when the person and the others used one and the same "
    "label throughout (kappa is 0/0 there)",
    "people": "everyone with a package or any work: a verdict, an HOI review, an HOI or "
    "error label, a difficulty rating, a human-baseline answer, a box set or an entity added "
    "or removed; work done in the project itself counts as merged work does",
    "work": "verdicts not retracted; reviews and QC checks; HOI labels and error labels "
    "signed by the person; difficulty ratings (one per question) and human-baseline answers "
    "(one per question version); 2D and 3D boxes whose current values the person set; "
    "entities the person added and removed from frames",
}

PersonPairs = dict[int, list[tuple[Hashable, Hashable]]]


def verification_pairs(
    verdicts: Iterable[tuple[int, int, str, Verdict]],
) -> tuple[PersonPairs, dict[int, str]]:
    """Per annotator id, (their decision, the other verifier's) for every question both
    verified in the first round; and the names. `verdicts` as
    `VerificationRepository.first_round_verdicts` gives them (question order, oldest
    first); a question's first two verdicts make its pair, as in the project's agreement."""
    by_question: dict[int, list[tuple[int, Verdict]]] = {}
    names: dict[int, str] = {}
    for question_id, annotator_id, name, verdict in verdicts:
        by_question.setdefault(question_id, []).append((annotator_id, verdict))
        names[annotator_id] = name
    pairs: PersonPairs = {}
    for given in by_question.values():
        if len(given) < 2:
            continue
        (a, va), (b, vb) = given[:2]
        if a == b:  # the project's rules forbid it; a pair with oneself says nothing
            continue
        pairs.setdefault(a, []).append((va.decision, vb.decision))
        pairs.setdefault(b, []).append((vb.decision, va.decision))
    return pairs, names


def review_pairs(records: Iterable[LabelRecord]) -> tuple[PersonPairs, dict[int, str]]:
    """Per reviewer id, (their accept / reject, the other reviewer's) for every label round
    reviewed twice (its two earliest reviews, as `hoi_agreement` pairs them); and the
    names of everyone with a review (QC checks included), paired or not."""
    pairs: PersonPairs = {}
    names: dict[int, str] = {}
    for record in records:
        rounds: dict[int, list[ReviewRecord]] = {}
        for r in record.reviews:
            names[r.reviewer_id] = r.reviewer_name or names.get(r.reviewer_id, "")
            if r.kind == REVIEW:
                rounds.setdefault(r.round, []).append(r)
        for reviews in rounds.values():
            if len(reviews) < REVIEWS_NEEDED:
                continue
            a, b = sorted(reviews, key=lambda r: (r.created_at, r.id))[:2]
            if a.reviewer_id == b.reviewer_id:
                continue
            pairs.setdefault(a.reviewer_id, []).append((_accept(a), _accept(b)))
            pairs.setdefault(b.reviewer_id, []).append((_accept(b), _accept(a)))
    return pairs, names


def _accept(review: ReviewRecord) -> str:
    return "accept" if review.accepts else "reject"


def _agreement(pairs: list[tuple[Hashable, Hashable]]) -> dict[str, Any]:
    m = label_agreement(pairs)
    return {
        "n": len(pairs),
        "kappa": m["kappa"],
        "kappa_reason": m["kappa_reason"],
        "percent_agreement": m["percent_agreement"],
    }


def packages_out(packages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The packages neither merged back nor recalled, oldest first: person, role,
    created, items, file, package id (rows of `PackageRepository.list`)."""
    return [
        {
            "package_id": p["package_id"],
            "annotator_id": p["annotator_id"],
            "person": p["person"],
            "role": p["role"],
            "created": p["created"],
            "items": len(p["manifest"].get("items", [])),
            "file": p["file"],
        }
        for p in packages
        if p["merged_at"] is None and p["recalled_at"] is None
    ]


def team_rows(project) -> dict[str, Any]:
    """What Results > Team shows of an open project.

    {"people": [row, ...] by name, "packages_out": [...] (`packages_out`), "packages": the
    number of packages ever sent, "settings": TEAM_SETTINGS}. A person's row: annotator_id,
    person, packages, assigned, done, outstanding, recalled, first_assigned, last_merged
    (ISO times; the package figures are None for someone without packages, whose work
    was done in the project itself), not_returned (their rows of packages_out), work
    (how many of each of `store.packages.WORK_KINDS`, done here or merged), and
    verification and review: {n, kappa, kappa_reason, percent_agreement} of their pairs
    with the other rater (`verification_pairs`, `review_pairs`)."""
    team = {t["annotator_id"]: t for t in project.packages.team()}
    work = project.packages.work()
    packages = project.packages.list()
    out = packages_out(packages)
    verified, names = verification_pairs(project.verifications.first_round_verdicts())
    reviewed, reviewers = review_pairs(project.hoi.records())
    workers = {a.id: a.name for a in project.annotators.list() if a.id in work}
    names = {**workers, **reviewers, **names, **{i: t["person"] for i, t in team.items()}}
    people = []
    for annotator_id, name in names.items():
        t = team.get(annotator_id)
        people.append(
            {
                "annotator_id": annotator_id,
                "person": name,
                "packages": t["packages"] if t else None,
                "assigned": t["assigned"] if t else None,
                "done": t["merged"] if t else None,
                "outstanding": t["outstanding"] if t else None,
                "recalled": t["recalled"] if t else None,
                "first_assigned": t["first_assigned"] if t else None,
                "last_merged": t["last_merged"] if t else None,
                "not_returned": [p for p in out if p["annotator_id"] == annotator_id],
                "work": work.get(annotator_id, dict.fromkeys(WORK_KINDS, 0)),
                "verification": _agreement(verified.get(annotator_id, [])),
                "review": _agreement(reviewed.get(annotator_id, [])),
            }
        )
    people.sort(key=lambda row: (row["person"].casefold(), row["annotator_id"]))
    return {
        "people": people,
        "packages_out": out,
        "packages": len(packages),
        "settings": TEAM_SETTINGS,
    }
