"""The pure HOI review rules: status, who may review, the QC sample, propagation plans,
progress and agreement (weighted kappa checked against hand-worked values)."""

from __future__ import annotations

import pytest

from annotation.jrdb.hoi_review import (
    ACCEPTED,
    HALF,
    QC,
    RETURNED,
    REVIEW,
    UNREVIEWED,
    LabelRecord,
    ReviewRecord,
    difficulty_agreement,
    hoi_agreement,
    hoi_counts,
    in_qc_sample,
    needs_qc_by,
    needs_review_by,
    plan_propagation,
    returned_to,
    review_refusal,
    sequence_progress,
    weighted_kappa,
)
from annotation.models import HoiLabel

AUTHOR = 1


def _label(label_id=1, difficulty=2, frame=10, subject=100, category="physical") -> HoiLabel:
    return HoiLabel(
        label_id, frame, subject, 200, category, "holding", difficulty, AUTHOR, "t", "t"
    )


def _review(reviewer, verdict="accept", difficulty=2, round_=1, kind=REVIEW, seen=2, at="t1"):
    return ReviewRecord(0, 1, reviewer, round_, kind, verdict, difficulty, "", at, seen)


def _record(*reviews, round_=1, **label) -> LabelRecord:
    return LabelRecord(_label(**label), round_, tuple(reviews))


def test_status():
    assert _record().status == UNREVIEWED
    assert _record(_review(2)).status == HALF
    assert _record(_review(2), _review(3)).status == ACCEPTED
    assert _record(_review(2), _review(3, "fix")).status == RETURNED
    assert _record(_review(2), _review(3), _review(4, "reject", kind=QC)).status == RETURNED
    # Only the current round counts.
    assert _record(_review(2, "reject"), round_=2).status == UNREVIEWED


def test_who_may_review():
    assert review_refusal(_record(), AUTHOR) == "annotators cannot review their own label"
    assert review_refusal(_record(_review(2)), 2) is None  # changing one's own review
    assert "two reviews" in review_refusal(_record(_review(2), _review(3)), 4)
    assert "before a quality check" in review_refusal(_record(_review(2)), 4, QC)
    assert "cannot also" in review_refusal(_record(_review(2), _review(3)), 2, QC)
    assert review_refusal(_record(_review(2), _review(3)), 4, QC) is None
    assert "kind" in review_refusal(_record(), 2, "peer")


def test_qc_sample_is_seeded_stable_and_near_its_rate():
    sample = [i for i in range(1, 5001) if in_qc_sample(i, seed=3)]
    assert sample == [i for i in range(1, 5001) if in_qc_sample(i, seed=3)]
    assert 400 < len(sample) < 600
    assert sample != [i for i in range(1, 5001) if in_qc_sample(i, seed=4)]
    assert not any(in_qc_sample(i, rate=0.0) for i in range(100))
    assert all(in_qc_sample(i, rate=1.0) for i in range(100))


def test_plan_propagation():
    frames = [11, 12, 13, 14, 15, 16]
    plan = plan_propagation(frames, 1, 10, 1, {11, 12, 13, 15, 16}, {12, 13, 14, 15}, {15})
    assert plan.frame_ids == (13,)
    assert plan.skipped == {
        "person not in frame": 1,
        "already labelled": 1,
        "target not in frame": 1,
    }
    back = plan_propagation(frames, 3, 2, -1, set(frames), None, set())
    assert back.frame_ids == (13, 12)
    with pytest.raises(ValueError):
        plan_propagation(frames, 0, 1, 0, set(frames), None, set())


def test_progress():
    records = [
        _record(_review(2), _review(3)),
        _record(_review(2, "reject"), label_id=2, frame=11),
        _record(label_id=3, frame=11, subject=101),
    ]
    present = {(10, 100), (11, 100), (11, 101), (12, 100)}
    p = sequence_progress(present, records)
    assert (p.person_frames, p.labelled_person_frames) == (4, 3)
    assert (p.labels, p.reviewed_twice, p.accepted, p.returned) == (3, 1, 1, 1)
    assert p.as_dict()["labelled_pct"] == 75.0


def test_weighted_kappa_by_hand():
    # Perfect agreement, and the degenerate one-category case.
    assert weighted_kappa([(1, 1), (2, 2), (3, 3)]) == 1.0
    assert weighted_kappa([(2, 2), (2, 2)]) is None  # one category: 0/0, undefined
    assert difficulty_agreement([(2, 2), (2, 2)])["kappa_reason"] == "undefined (one category)"
    assert weighted_kappa([]) is None
    # Two raters, four items: (1,1) (2,3) (3,3) (1,2). Marginals: A 1:2 2:1 3:1, B 1:1 2:1 3:2.
    pairs = [(1, 1), (2, 3), (3, 3), (1, 2)]
    # Linear weights 0, .5, 1: observed = (0 + .5 + 0 + .5) / 4 = .25;
    # expected = sum w_ij a_i b_j / 16 = (2*(.5*1 + 1*2) + 1*(.5*1 + .5*2) + 1*(1*1 + .5*1)) / 16
    #          = (5 + 1.5 + 1.5) / 16 = .5  ->  kappa = 1 - .25 / .5 = .5
    assert weighted_kappa(pairs, weights="linear") == pytest.approx(0.5)
    # Quadratic weights 0, .25, 1: observed = .5 / 4 = .125;
    # expected = (2*(.25 + 2) + (.25 + .5) + (1 + .25)) / 16 = 6.5 / 16  ->  1 - .125 * 16 / 6.5
    assert weighted_kappa(pairs) == pytest.approx(1 - 2 / 6.5)
    with pytest.raises(ValueError, match="outside the scale"):
        weighted_kappa([(1, 4)])


def test_agreement_pairs_authors_and_reviewers():
    records = [
        _record(
            _review(2, difficulty=2, seen=2, at="t1"), _review(3, difficulty=3, seen=2, at="t2")
        ),
        _record(
            _review(2, "reject", difficulty=None, seen=1, at="t1"),
            _review(3, difficulty=1, seen=1, at="t2"),
            _review(4, difficulty=1, round_=2, seen=1, at="t3"),
            label_id=2,
            round_=2,
        ),
        _record(_review(2), _review(3), _review(4, kind=QC), label_id=3),
    ]
    a = hoi_agreement(records)
    d = a["difficulty"]
    assert d["weights"] == "quadratic"
    assert d["author_vs_reviewer"]["n"] == 6  # every review with a difficulty
    assert d["reviewer_vs_reviewer"]["n"] == 2  # rounds with two difficulties
    assert d["reviewer_vs_reviewer"]["confusion"][1][2] == 1
    v = a["verdicts"]
    assert (v["n"], v["reviews"], v["disagreements"]) == (3, 7, 1)
    assert v["accept_rate_pct"] == pytest.approx(85.7)
    assert a["qc"] == {"checked": 1, "accept_rate_pct": 100.0}
    counts = hoi_counts(records, ["pose", "physical"])
    assert counts["status_counts"] == {UNREVIEWED: 0, HALF: 1, ACCEPTED: 2, RETURNED: 0}
    assert counts["by_category"]["pose"] == {"labels": 0, "accepted": 0, "accepted_pct": None}
    assert counts["by_category"]["physical"]["accepted"] == 2
    assert counts["rounds_after_return"] == 1


# -- the queues: what each person is asked to do next -----------------------------------------
def test_review_queue():
    fresh = _record()
    assert needs_review_by(fresh, 2)
    assert not needs_review_by(fresh, AUTHOR)  # nobody reviews their own label
    once = _record(_review(2))
    assert not needs_review_by(once, 2)  # already reviewed this round
    assert needs_review_by(once, 3)
    assert not needs_review_by(_record(_review(2), _review(3)), 4)  # the round is full
    # a new round after a change asks everyone again
    assert needs_review_by(_record(_review(2), _review(3, "reject"), round_=2), 2)


def test_returned_labels_go_back_to_their_author_only():
    returned = _record(_review(2), _review(3, "reject"))
    assert returned_to(returned, AUTHOR)
    assert not returned_to(returned, 2)
    assert not returned_to(_record(_review(2), _review(3)), AUTHOR)  # accepted
    assert not returned_to(_record(_review(2)), AUTHOR)


def test_qc_queue():
    accepted = _record(_review(2), _review(3))
    assert needs_qc_by(accepted, 4, seed=0, rate=1.0)
    assert not needs_qc_by(accepted, 4, seed=0, rate=0.0)  # not in the sample
    assert not needs_qc_by(accepted, 2, seed=0, rate=1.0)  # a reviewer of the round
    assert not needs_qc_by(accepted, AUTHOR, seed=0, rate=1.0)
    assert not needs_qc_by(_record(_review(2)), 4, seed=0, rate=1.0)  # not accepted yet
    checked = _record(_review(2), _review(3), _review(4, kind=QC))
    assert not needs_qc_by(checked, 4, seed=0, rate=1.0)  # checked once this round
    assert needs_qc_by(checked, 5, seed=0, rate=1.0)
    # the sample follows the seed: some label is in it for one seed and not another
    label = next(i for i in range(1, 200) if in_qc_sample(i, 0, 0.5) != in_qc_sample(i, 1, 0.5))
    sampled = _record(_review(2), _review(3), label_id=label)
    assert needs_qc_by(sampled, 4, 0, 0.5) == in_qc_sample(label, 0, 0.5)
    assert needs_qc_by(sampled, 4, 1, 0.5) == in_qc_sample(label, 1, 0.5)


def test_refusals_name_the_label_and_round():
    full = _record(_review(2), _review(3), label_id=7, round_=1)
    assert review_refusal(full, 4) == "label #7 already has its two reviews in round 1"
    assert review_refusal(full, 3) is None  # a reviewer may change their own review
    assert review_refusal(_record(_review(2)), 3) is None  # the second review
    assert review_refusal(full, 2, QC) == "a reviewer of this round cannot also quality-check it"
    assert (
        review_refusal(_record(_review(2), label_id=7), 4, QC)
        == "label #7 needs its two reviews before a quality check"
    )
    assert review_refusal(_record(), 2, "peer") == (
        "review kind must be one of ('review', 'qc'), not 'peer'"
    )


def test_propagation_counts_every_skip_and_stays_inside_the_sequence():
    frames = [11, 12, 13, 14, 15, 16]
    plan = plan_propagation(frames, 0, 5, 1, {11, 15}, {15, 16}, set())
    assert plan.frame_ids == (15,)
    assert plan.skipped == {"person not in frame": 4}
    plan = plan_propagation(frames, 0, 5, 1, set(frames), {11}, set())
    assert plan.skipped == {"target not in frame": 5}
    plan = plan_propagation(frames, 0, 5, 1, set(frames), None, {12, 13})
    assert plan == plan_propagation(frames, 0, 5, 1, set(frames), None, {12, 13})
    assert (plan.frame_ids, plan.skipped) == ((14, 15, 16), {"already labelled": 2})
    # backwards down to the first frame, and no further
    assert plan_propagation(frames, 2, 9, -1, set(frames), None, set()).frame_ids == (12, 11)
    assert plan_propagation(frames, 1, 1, -1, set(frames), None, set()).frame_ids == (11,)
    assert plan_propagation(frames, 0, 0, 1, set(frames), None, set()).frame_ids == ()
    assert plan_propagation(frames, 0, -3, 1, set(frames), None, set()).frame_ids == ()
    with pytest.raises(ValueError) as refused:
        plan_propagation(frames, 0, 1, 2, set(frames), None, set())
    assert str(refused.value) == "direction must be +1 or -1, not 2"


def test_progress_percentages_are_rounded_to_a_tenth():
    records = [
        _record(_review(2), _review(3)),
        _record(label_id=2, frame=11),
        _record(label_id=3, frame=12),
    ]
    present = {(frame, 100) for frame in range(10, 17)}  # 3 of 7 labelled
    shown = sequence_progress(present, records).as_dict()
    assert (shown["labelled_pct"], shown["reviewed_pct"]) == (42.9, 33.3)
    assert shown["labels"] == 3 and shown["reviewed_twice"] == 1
    # a label on a frame where the person has no box is not a labelled person-frame
    outside = sequence_progress(present, [*records, _record(label_id=4, frame=30)])
    assert (outside.labelled_person_frames, outside.labels) == (3, 4)
    # labels of frames whose boxes are unknown still count as labelled
    assert sequence_progress(set(), records).labelled_person_frames == 3
    empty = sequence_progress(set(), [])
    assert (empty.labelled_pct, empty.reviewed_pct) == (0, 0.0)


def test_verdict_agreement_counts_fix_as_reject():
    rounds = [
        _record(_review(2, at="t1"), _review(3, "fix", at="t2"), label_id=1),
        _record(_review(2, "reject", at="t1"), _review(3, "fix", at="t2"), label_id=2),
        _record(_review(2, at="t1"), _review(3, at="t2"), label_id=3),
    ]
    verdicts = hoi_agreement(rounds)["verdicts"]
    assert (verdicts["n"], verdicts["disagreements"]) == (3, 1)
    assert verdicts["percent_agreement"] == pytest.approx(200 / 3)
    assert verdicts["accept_rate_pct"] == 50.0


def test_counts_add_categories_outside_the_given_order():
    counts = hoi_counts([_record(_review(2), _review(3), category="pose")])
    assert counts["by_category"] == {"pose": {"labels": 1, "accepted": 1, "accepted_pct": 100.0}}


def test_content_ignores_review_ids_and_their_order():
    """What undo compares: a restored label whose reviews got new ids is the same."""
    first, second = _review(2, at="t1"), _review(3, at="t2")
    renumbered = ReviewRecord(
        9, *[getattr(second, f) for f in list(second.__dataclass_fields__)[1:]]
    )
    assert _record(first, second).content() == _record(renumbered, first).content()
    assert _record(first, second).content() != _record(first).content()
    assert _record(first).content() != _record(first, round_=2).content()


def test_qc_sample_is_the_same_on_every_machine():
    """The documented promise: a hash of seed and id, not a random generator."""
    assert [i for i in range(1, 61) if in_qc_sample(i)] == [6, 23, 56, 57]
    assert [i for i in range(1, 31) if in_qc_sample(i, seed=5, rate=0.25)] == [
        1, 2, 9, 10, 12, 14, 16, 20, 21, 26, 28, 29, 30,
    ]  # fmt: skip


def test_weighted_kappa_on_short_scales_and_its_refusal():
    # two categories: every disagreement weighs 1, as in Cohen's kappa (0.5 here)
    pairs = [("lo", "lo"), ("hi", "hi"), ("lo", "hi"), ("hi", "hi")]
    assert weighted_kappa(pairs, categories=("lo", "hi")) == pytest.approx(0.5)
    # one category: nothing to disagree on, undefined
    assert weighted_kappa([("x", "x")], categories=("x",)) is None
    with pytest.raises(ValueError) as refused:
        weighted_kappa([(1, 1)], weights="cubic")
    assert str(refused.value) == "weights must be 'linear' or 'quadratic', not 'cubic'"


def test_difficulty_agreement_by_hand():
    # the four pairs of test_weighted_kappa_by_hand, and (3, 1)
    pairs = [(1, 1), (2, 3), (3, 3), (1, 2), (3, 1)]
    got = difficulty_agreement(pairs)
    assert got == {
        "n": 5,
        "kappa_quadratic": pytest.approx(weighted_kappa(pairs)),
        "kappa_linear": pytest.approx(weighted_kappa(pairs, weights="linear")),
        "kappa_reason": None,
        "percent_agreement": 40.0,
        "mean_abs_difference": pytest.approx(4 / 5),
        "confusion": [[1, 1, 0], [0, 0, 1], [1, 0, 1]],
    }
    assert got["kappa_quadratic"] != got["kappa_linear"]
    twice = difficulty_agreement([(1, 2), (1, 2)])
    assert (twice["confusion"][0][1], twice["mean_abs_difference"]) == (2, 1.0)
    assert difficulty_agreement([])["mean_abs_difference"] is None


def test_hoi_agreement_counts_every_review_round_and_check():
    records = [
        # round 1: two reviews and a third, later one (only the first two are paired);
        # round 2: two more; and two QC checks, one a reject
        _record(
            _review(2, "accept", 1, at="t1", seen=1),
            _review(3, "reject", 3, at="t2", seen=1),
            _review(4, "accept", 2, at="t3", seen=1),
            _review(5, "accept", kind=QC, at="t4"),
            _review(6, "reject", 2, round_=2, at="t5", seen=2),
            _review(7, "reject", 3, round_=2, at="t6", seen=2),
            _review(8, "reject", kind=QC, round_=2, at="t7"),
            round_=2,
        ),
    ]
    got = hoi_agreement(records)
    assert got["settings"]["difficulty"].startswith("Cohen's weighted kappa")
    assert got["qc"] == {"checked": 2, "accept_rate_pct": 50.0}
    verdicts = got["verdicts"]
    assert (verdicts["n"], verdicts["reviews"], verdicts["accept_rate_pct"]) == (2, 5, 40.0)
    assert verdicts["disagreements_by_pair"] == {"accept|reject": 1}
    reviewers = got["difficulty"]["reviewer_vs_reviewer"]
    assert reviewers["confusion"] == [[0, 0, 1], [0, 0, 1], [0, 0, 0]]
    assert got["difficulty"]["author_vs_reviewer"]["n"] == 5
    counts = hoi_counts([*records, _record(label_id=2), _record(label_id=3)])
    assert (counts["labels"], counts["by_category"]["physical"]["labels"]) == (3, 3)
    assert counts["status_counts"][RETURNED] == 1


def test_a_round_reviewed_once_is_skipped_not_the_end():
    """Reviewed once, returned, changed: the next round's pair still counts."""
    record = _record(
        _review(2, "reject", at="t1"),
        _review(3, "accept", 1, round_=2, at="t2"),
        _review(4, "accept", 1, round_=2, at="t3"),
        round_=2,
    )
    verdicts = hoi_agreement([record])["verdicts"]
    assert (verdicts["n"], verdicts["reviews"], verdicts["disagreements"]) == (1, 3, 0)
