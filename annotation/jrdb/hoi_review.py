"""HOI label review: records, the rules, a label's status, the QC sample, progress, agreement.

Pure functions over plain records; `store.hoi` enforces the rules with them
and `app.jobs.metrics` reports the agreement. The protocol (docs/hoi-labels.md):

- every label is reviewed by two annotators other than its author, each once
  per review round: accept, or reject with a comment (`fix`, a reject that
  proposes a correction, counts as a reject);
- any reject sends the label back to its author ("returned");
- when the author changes a label that already has reviews in its current
  round, a new round begins: the label needs two fresh reviews, and the old
  ones are kept as history (agreement counts every round);
- a seeded random sample of labels (about `QC_RATE`) gets a quality check by
  a third person, once both reviews accepted it; a QC reject returns it too.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from annotation.agreement import kappa_undefined, label_agreement
from annotation.models import HOI_DIFFICULTIES, HoiLabel

REVIEWS_NEEDED = 2
QC_RATE = 0.10
REVIEW, QC = "review", "qc"
REVIEW_KINDS = (REVIEW, QC)
# A label's status in its current round.
UNREVIEWED, HALF, ACCEPTED, RETURNED = "unreviewed", "reviewed once", "accepted", "returned"
STATUSES = (UNREVIEWED, HALF, ACCEPTED, RETURNED)
DIFFICULTY_LEVELS = tuple(HOI_DIFFICULTIES)


@dataclass(frozen=True)
class ReviewRecord:
    """One review (or QC check) of one round of a label, with what the reviewer saw."""

    id: int
    label_id: int
    reviewer_id: int
    round: int
    kind: str  # REVIEW or QC
    verdict: str  # accept, reject or fix
    difficulty: int | None  # the reviewer's own difficulty
    comment: str
    created_at: str
    label_difficulty: int | None = None  # the author's difficulty when it was reviewed
    reviewer_name: str = ""

    @property
    def accepts(self) -> bool:
        return self.verdict == "accept"

    def content(self) -> tuple:
        """Everything but the row id (restored reviews may get a new one)."""
        return (
            self.label_id,
            self.reviewer_id,
            self.round,
            self.kind,
            self.verdict,
            self.difficulty,
            self.comment,
            self.created_at,
            self.label_difficulty,
        )


@dataclass(frozen=True)
class LabelRecord:
    """A stored label with its review round, every review it ever had and where it is."""

    label: HoiLabel
    round: int = 1
    reviews: tuple[ReviewRecord, ...] = ()
    sequence_id: int | None = None
    frame_index: int | None = None
    author_name: str = ""

    @property
    def id(self) -> int:
        return self.label.id

    def current(self, kind: str = REVIEW) -> list[ReviewRecord]:
        """This round's reviews of one kind, oldest first."""
        return [r for r in self.reviews if r.round == self.round and r.kind == kind]

    @property
    def status(self) -> str:
        return label_status(self)

    def label_key(self) -> tuple[str, int | None]:
        """What makes two labels of a person in a frame the same: predicate and target."""
        return (self.label.predicate, self.label.object_entity_id)

    def content(self) -> tuple:
        """What undo compares: the label, its round and its reviews, review ids aside."""
        return (self.label, self.round, tuple(sorted(r.content() for r in self.reviews)))


def label_status(record: LabelRecord) -> str:
    """unreviewed, reviewed once, accepted (two accepts), or returned (any reject, QC too)."""
    reviews = record.current(REVIEW)
    if any(not r.accepts for r in reviews + record.current(QC)):
        return RETURNED
    if len(reviews) >= REVIEWS_NEEDED:
        return ACCEPTED
    return HALF if reviews else UNREVIEWED


def review_refusal(record: LabelRecord, reviewer_id: int, kind: str = REVIEW) -> str | None:
    """Why `reviewer_id` may not review this round of the label, or None when they may.

    Nobody reviews their own label; a round takes two reviews by two different
    people (a reviewer may change their own review); a QC check comes from a
    third person, after two reviews.
    """
    if kind not in REVIEW_KINDS:
        return f"review kind must be one of {REVIEW_KINDS}, not {kind!r}"
    if record.label.annotator_id == reviewer_id:
        return "annotators cannot review their own label"
    reviews = record.current(REVIEW)
    mine = [r for r in reviews if r.reviewer_id == reviewer_id]
    if kind == REVIEW:
        if not mine and len(reviews) >= REVIEWS_NEEDED:
            return f"label #{record.id} already has its two reviews in round {record.round}"
        return None
    if mine:
        return "a reviewer of this round cannot also quality-check it"
    if len(reviews) < REVIEWS_NEEDED:
        return f"label #{record.id} needs its two reviews before a quality check"
    return None


def in_qc_sample(label_id: int, seed: int = 0, rate: float = QC_RATE) -> bool:
    """Whether a label belongs to the quality-check sample.

    Each label is in it with probability `rate`, decided by a hash of the seed
    and its id: the sample is the same on every machine and does not change
    as labels are added.
    """
    digest = hashlib.sha256(f"hoi-qc:{seed}:{label_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < rate


# -- queues --------------------------------------------------------------------------
def needs_review_by(record: LabelRecord, reviewer_id: int) -> bool:
    """In the reviewer's queue: this round still lacks a review and they may give one."""
    reviews = record.current(REVIEW)
    return (
        len(reviews) < REVIEWS_NEEDED
        and all(r.reviewer_id != reviewer_id for r in reviews)
        and review_refusal(record, reviewer_id) is None
    )


def returned_to(record: LabelRecord, author_id: int) -> bool:
    return record.label.annotator_id == author_id and record.status == RETURNED


def needs_qc_by(record: LabelRecord, reviewer_id: int, seed: int, rate: float) -> bool:
    """A sampled, accepted label this person may check and has not checked this round."""
    return (
        record.status == ACCEPTED
        and in_qc_sample(record.id, seed, rate)
        and review_refusal(record, reviewer_id, QC) is None
        and all(r.reviewer_id != reviewer_id for r in record.current(QC))
    )


# -- propagation ------------------------------------------------------------------------
@dataclass(frozen=True)
class PropagationPlan:
    """Frames (ids) a label is copied to, and how many were skipped for which reason."""

    frame_ids: tuple[int, ...]
    skipped: dict[str, int] = field(default_factory=dict)


def plan_propagation(
    frame_ids: list[int],
    start: int,
    count: int,
    direction: int,
    subject_frames: set[int],
    target_frames: set[int] | None,
    labelled: set[int],
) -> PropagationPlan:
    """Which of the `count` frames after (direction +1) or before (-1) position `start` of
    the ordered `frame_ids` get a copy: the subject must be there (same track), the target
    too when there is one, and the frame must not have the label already."""
    if direction not in (1, -1):
        raise ValueError(f"direction must be +1 or -1, not {direction!r}")
    chosen: list[int] = []
    skipped: Counter[str] = Counter()
    for step in range(1, max(count, 0) + 1):
        pos = start + direction * step
        if not 0 <= pos < len(frame_ids):
            break
        frame = frame_ids[pos]
        if frame not in subject_frames:
            skipped["person not in frame"] += 1
        elif target_frames is not None and frame not in target_frames:
            skipped["target not in frame"] += 1
        elif frame in labelled:
            skipped["already labelled"] += 1
        else:
            chosen.append(frame)
    return PropagationPlan(tuple(chosen), dict(skipped))


# -- progress ----------------------------------------------------------------------------
@dataclass(frozen=True)
class SequenceProgress:
    """How far a sequence's HOI labelling and review have come."""

    person_frames: int  # (person, frame) pairs where the person has a box
    labelled_person_frames: int  # ... with at least one label
    labels: int
    reviewed_twice: int  # labels whose current round has both reviews
    accepted: int
    returned: int

    @property
    def labelled_pct(self) -> float:
        return 100.0 * self.labelled_person_frames / self.person_frames if self.person_frames else 0

    @property
    def reviewed_pct(self) -> float:
        return 100.0 * self.reviewed_twice / self.labels if self.labels else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.__dict__,
            "labelled_pct": round(self.labelled_pct, 1),
            "reviewed_pct": round(self.reviewed_pct, 1),
        }


def sequence_progress(
    person_frames: set[tuple[int, int]], records: Iterable[LabelRecord]
) -> SequenceProgress:
    """Progress from the (frame id, person id) pairs present and the sequence's labels."""
    records = list(records)
    labelled = {(r.label.frame_id, r.label.subject_entity_id) for r in records}
    statuses = Counter(r.status for r in records)
    return SequenceProgress(
        person_frames=len(person_frames),
        labelled_person_frames=len(labelled & person_frames) if person_frames else len(labelled),
        labels=len(records),
        reviewed_twice=sum(1 for r in records if len(r.current(REVIEW)) >= REVIEWS_NEEDED),
        accepted=statuses[ACCEPTED],
        returned=statuses[RETURNED],
    )


# -- agreement ------------------------------------------------------------------------------
def weighted_kappa(
    pairs: Iterable[tuple[Hashable, Hashable]],
    categories: tuple[Hashable, ...] = DIFFICULTY_LEVELS,
    weights: str = "quadratic",
) -> float | None:
    """Cohen's weighted kappa of two raters on an ordered scale; None when it is undefined
    (no pairs, or both raters used one and the same category: the expected
    disagreement is then zero, as `annotation.agreement.kappa_undefined` says).

    Disagreement weight between the i-th and j-th category of k: |i - j| / (k - 1)
    (linear) or its square (quadratic); kappa_w = 1 - sum(w * observed) / sum(w *
    expected), expected from the two raters' marginals (sklearn's cohen_kappa_score
    with weights="linear" / "quadratic").
    """
    if weights not in ("linear", "quadratic"):
        raise ValueError(f"weights must be 'linear' or 'quadratic', not {weights!r}")
    pairs = list(pairs)
    if not pairs:
        return None
    index = {c: i for i, c in enumerate(categories)}
    unknown = {v for pair in pairs for v in pair if v not in index}
    if unknown:
        raise ValueError(f"values outside the scale {categories}: {sorted(map(str, unknown))}")
    k, n = len(categories), len(pairs)
    power = 2 if weights == "quadratic" else 1

    def w(i: int, j: int) -> float:
        return (abs(i - j) / (k - 1)) ** power if k > 1 else 0.0

    first = Counter(index[a] for a, _ in pairs)
    second = Counter(index[b] for _, b in pairs)
    observed = sum(w(index[a], index[b]) for a, b in pairs) / n
    expected = sum(w(i, j) * first[i] * second[j] for i in first for j in second) / (n * n)
    if expected == 0:
        return None
    return 1.0 - observed / expected


def difficulty_agreement(pairs: Iterable[tuple[int, int]]) -> dict[str, Any]:
    """Agreement on difficulty: quadratic (headline) and linear weighted kappa, exact
    agreement in percent, mean absolute difference and the 3 x 3 confusion counts."""
    pairs = list(pairs)
    confusion = [[0] * 3 for _ in range(3)]
    for a, b in pairs:
        confusion[a - 1][b - 1] += 1
    plain = label_agreement(pairs)
    return {
        "n": len(pairs),
        "kappa_quadratic": weighted_kappa(pairs, weights="quadratic"),
        "kappa_linear": weighted_kappa(pairs, weights="linear"),
        "kappa_reason": kappa_undefined(pairs),
        "percent_agreement": plain["percent_agreement"],
        "mean_abs_difference": (sum(abs(a - b) for a, b in pairs) / len(pairs)) if pairs else None,
        "confusion": confusion,
    }


def _verdict(review: ReviewRecord) -> str:
    return "accept" if review.accepts else "reject"


def _pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


#: The choices behind the HOI agreement numbers, reported with them (`settings`).
HOI_SETTINGS = {
    "difficulty": "Cohen's weighted kappa on the 1-3 scale, quadratic weights (headline) "
    "and linear; sklearn's cohen_kappa_score gives the same values",
    "author_vs_reviewer": "one pair per review: the author's difficulty as the reviewer "
    "saw it against the reviewer's own",
    "reviewer_vs_reviewer": "one pair per round reviewed twice, the earlier review first",
    "verdicts": "Cohen's kappa of accept / reject (fix counts as reject)",
    "undefined": "kappa is null with kappa_reason 'undefined (one category)' when both "
    "raters used one and the same value throughout",
}


def hoi_agreement(records: Iterable[LabelRecord]) -> dict[str, Any]:
    """The `hoi` agreement metrics of a set of labels (every round of every label).

    - `difficulty.author_vs_reviewer`: the author's difficulty (as the reviewer
      saw it) against each reviewer's own, one pair per review;
    - `difficulty.reviewer_vs_reviewer`: the two reviewers of a round, one pair
      per round reviewed twice;
    - `verdicts`: accept/reject between the two reviewers of a round (Cohen's
      kappa, percent agreement) and the accept rate of all reviews;
    - `qc`: the quality checks given and their accept rate.
    """
    records = list(records)
    author_pairs: list[tuple[int, int]] = []
    reviewer_pairs: list[tuple[int, int]] = []
    verdict_pairs: list[tuple[str, str]] = []
    reviews = accepts = qc_n = qc_accepts = 0
    for record in records:
        rounds: dict[int, list[ReviewRecord]] = {}
        for r in record.reviews:
            if r.kind == QC:
                qc_n += 1
                qc_accepts += r.accepts
                continue
            reviews += 1
            accepts += r.accepts
            rounds.setdefault(r.round, []).append(r)
            if r.difficulty is not None and r.label_difficulty is not None:
                author_pairs.append((r.label_difficulty, r.difficulty))
        for pair in rounds.values():
            if len(pair) < REVIEWS_NEEDED:
                continue
            a, b = sorted(pair, key=lambda r: (r.created_at, r.id))[:2]
            verdict_pairs.append((_verdict(a), _verdict(b)))
            if a.difficulty is not None and b.difficulty is not None:
                reviewer_pairs.append((a.difficulty, b.difficulty))
    return {
        "settings": HOI_SETTINGS,
        "difficulty": {
            "weights": "quadratic",
            "author_vs_reviewer": difficulty_agreement(author_pairs),
            "reviewer_vs_reviewer": difficulty_agreement(reviewer_pairs),
        },
        "verdicts": {
            "n": len(verdict_pairs),
            **label_agreement(verdict_pairs),
            "reviews": reviews,
            "accept_rate_pct": _pct(accepts, reviews),
        },
        "qc": {"checked": qc_n, "accept_rate_pct": _pct(qc_accepts, qc_n)},
    }


def hoi_counts(records: Iterable[LabelRecord], category_order: Iterable[str] = ()) -> dict:
    """Labels by status and, per category, labels, accepted labels and their accept rate."""
    records = list(records)
    statuses = Counter(r.status for r in records)
    by_category: dict[str, dict[str, Any]] = {
        c: {"labels": 0, "accepted": 0} for c in category_order
    }
    for r in records:
        row = by_category.setdefault(r.label.category, {"labels": 0, "accepted": 0})
        row["labels"] += 1
        row["accepted"] += r.status == ACCEPTED
    for row in by_category.values():
        row["accepted_pct"] = _pct(row["accepted"], row["labels"])
    return {
        "labels": len(records),
        "status_counts": {s: statuses[s] for s in STATUSES},
        "rounds_after_return": sum(r.round - 1 for r in records),
        "by_category": by_category,
    }
