"""Cohen's kappa and percent agreement, against tables computed by hand."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.agreement import (
    NO_PAIRS,
    ONE_CATEGORY,
    cohens_kappa,
    kappa_text,
    kappa_undefined,
    label_agreement,
    percent_agreement,
    verification_agreement,
)
from annotation.verification import Verdict


def _pairs(table: dict[tuple[str, str], int]) -> list[tuple[str, str]]:
    return [cell for cell, count in table.items() for _ in range(count)]


def test_kappa_of_a_two_by_two_table():
    # rater 1 \ rater 2   yes  no | total
    #   yes                6    1 |   7
    #   no                 1    2 |   3
    #   total              7    3 |  10
    # p_o = (6 + 2) / 10 = 0.8
    # p_e = (7*7 + 3*3) / 10^2 = 58 / 100 = 0.58
    # kappa = (0.8 - 0.58) / (1 - 0.58) = 0.22 / 0.42 = 11/21 = 0.5238...
    pairs = _pairs({("yes", "yes"): 6, ("yes", "no"): 1, ("no", "yes"): 1, ("no", "no"): 2})
    assert cohens_kappa(pairs) == pytest.approx(11 / 21)
    assert percent_agreement(pairs) == pytest.approx(80.0)


def test_kappa_of_a_three_category_table():
    # rater 1 \ rater 2   approve correct reject | total
    #   approve              8       1      1    |  10
    #   correct              1       3      1    |   5
    #   reject               0       1      4    |   5
    #   total                9       5      6    |  20
    # p_o = (8 + 3 + 4) / 20 = 15 / 20 = 0.75
    # p_e = (10*9 + 5*5 + 5*6) / 20^2 = (90 + 25 + 30) / 400 = 145 / 400 = 0.3625
    # kappa = (0.75 - 0.3625) / (1 - 0.3625) = 0.3875 / 0.6375 = 31/51 = 0.6078...
    table = {
        ("approve", "approve"): 8,
        ("approve", "correct"): 1,
        ("approve", "reject"): 1,
        ("correct", "approve"): 1,
        ("correct", "correct"): 3,
        ("correct", "reject"): 1,
        ("reject", "correct"): 1,
        ("reject", "reject"): 4,
    }
    pairs = _pairs(table)
    assert len(pairs) == 20
    assert cohens_kappa(pairs) == pytest.approx(31 / 51)
    assert percent_agreement(pairs) == pytest.approx(75.0)
    summary = label_agreement(pairs)
    assert summary["disagreements"] == 5
    assert summary["disagreements_by_pair"] == {
        "approve|correct": 2,
        "approve|reject": 1,
        "correct|reject": 2,
    }


def test_degenerate_and_edge_cases():
    # No pairs: nothing to say.
    assert cohens_kappa([]) is None and percent_agreement([]) is None
    # Both raters always say "yes": p_e = 1, kappa is 0/0 (sklearn gives NaN): undefined,
    # with the reason, not 1.0.
    assert cohens_kappa([("yes", "yes")] * 5) is None
    assert kappa_undefined([("yes", "yes")] * 5) == ONE_CATEGORY
    assert cohens_kappa([("approve", "approve")]) is None
    assert kappa_undefined([]) == NO_PAIRS
    assert kappa_undefined([("yes", "no")]) is None
    one = label_agreement([("no", "no")] * 3)
    assert one["kappa"] is None and one["kappa_reason"] == "undefined (one category)"
    assert one["percent_agreement"] == 100.0
    assert kappa_text(None, one["kappa_reason"]) == "undefined (one category)"
    assert kappa_text(None, NO_PAIRS) == "n/a (no pairs)"
    assert kappa_text(0.5, None) == "0.50"
    # Systematic disagreement: p_o = 0, p_e = (1*1 + 1*1) / 4 = 0.5, kappa = -0.5 / 0.5 = -1.
    assert cohens_kappa([("yes", "no"), ("no", "yes")]) == -1.0
    # Agreement no better than chance: p_o = 0.5, p_e = (2*2 + 2*2) / 16 = 0.5, kappa = 0.
    pairs = [("yes", "yes"), ("yes", "no"), ("no", "yes"), ("no", "no")]
    assert cohens_kappa(pairs) == 0.0 and percent_agreement(pairs) == 50.0


labels = st.sampled_from(["approve", "correct", "reject"])


@given(st.lists(labels, min_size=1))
def test_identical_label_lists_have_kappa_one(values):
    pairs = list(zip(values, values, strict=True))
    assert cohens_kappa(pairs) == (1.0 if len(set(values)) > 1 else None)
    assert percent_agreement(pairs) == 100.0


@given(st.lists(st.tuples(labels, labels), min_size=1))
def test_kappa_is_symmetric_and_at_most_one(pairs):
    kappa = cohens_kappa(pairs)
    if kappa is None:
        assert len({v for pair in pairs for v in pair}) == 1
        return
    assert -1.0 <= kappa <= 1.0
    assert kappa == pytest.approx(cohens_kappa([(b, a) for a, b in pairs]))
    assert 0.0 <= percent_agreement(pairs) <= 100.0


def test_verification_agreement_per_criterion_and_decision():
    ok = Verdict(True, True, True, "approve")
    fix = Verdict(False, True, True, "correct", corrections={"text": "Clearer?"})
    no = Verdict(True, False, True, "reject", reason="evidence visible")
    result = verification_agreement([(ok, ok), (ok, fix), (no, no), (fix, fix)])
    assert result["n"] == 4
    unambiguous = result["criteria"]["unambiguous"]
    # yes/yes, yes/no, yes/yes, no/no: p_o = 3/4; rater 1 yes 3 no 1, rater 2 yes 2 no 2;
    # p_e = (3*2 + 1*2) / 16 = 0.5; kappa = (0.75 - 0.5) / 0.5 = 0.5.
    assert unambiguous["kappa"] == pytest.approx(0.5)
    assert unambiguous["percent_agreement"] == 75.0
    assert unambiguous["disagreements"] == 1
    # Everyone said yes to "evidence recoverable": no choice was made, kappa is undefined.
    recoverable = result["criteria"]["evidence_recoverable"]
    assert recoverable["kappa"] is None and recoverable["kappa_reason"] == ONE_CATEGORY
    assert result["decision"]["disagreements_by_pair"] == {"approve|correct": 1}
    assert result["decision_labels"] == ["approve", "correct", "reject"]
    empty = verification_agreement([])
    assert empty["n"] == 0 and empty["decision"]["kappa"] is None


def test_criterion_4_is_computed_over_compare_pairs_only():
    """Volumes distinct (Compare only) gets its own n: pairs of other tasks, and pairs with a
    verdict from before the criterion existed, do not count for it."""
    count_ok = Verdict(True, True, True, "approve")
    yes = Verdict(True, True, True, "approve", volumes_distinct=True)
    no = Verdict(True, True, True, "reject", reason="two of one size", volumes_distinct=False)
    old = Verdict.from_storage(
        unambiguous=True, evidence_withheld=True, evidence_recoverable=True, decision="approve"
    )
    pairs = [(count_ok, count_ok), (count_ok, count_ok), (yes, yes), (yes, no), (no, no)]
    result = verification_agreement([*pairs, (old, yes)])
    assert result["n"] == 6
    assert result["criteria"]["unambiguous"]["n"] == 6
    volumes = result["criteria"]["volumes_distinct"]
    assert volumes["n"] == 3
    # yes/yes, yes/no, no/no: p_o = 2/3; rater 1 yes 2 no 1, rater 2 yes 1 no 2;
    # p_e = (2*1 + 1*2) / 9 = 4/9; kappa = (2/3 - 4/9) / (5/9) = 0.4.
    assert volumes["kappa"] == pytest.approx(0.4)
    assert volumes["disagreements_by_pair"] == {"no|yes": 1}
    none = verification_agreement([(count_ok, count_ok)])["criteria"]["volumes_distinct"]
    assert none["n"] == 0 and none["kappa"] is None and none["kappa_reason"] == "no pairs"


def test_verification_agreement_reports_its_settings():
    """The choices behind the numbers travel with them (`metrics --json`, the Results mode)."""
    approve = Verdict(True, True, True, "approve")
    got = verification_agreement([(approve, approve)])
    assert got["settings"]["statistic"].startswith("Cohen's kappa of two rater slots")
    assert set(got["settings"]) >= {"pairs", "criteria", "undefined", "volumes_distinct"}
