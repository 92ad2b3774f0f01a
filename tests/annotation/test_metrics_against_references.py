"""Agreement and rank statistics checked against independent implementations.

sklearn's `cohen_kappa_score` (plain, linear and quadratic weights) and scipy's
`spearmanr` are the references: hypothesis draws random rater pairs and rating
lists, and our value must equal theirs; where theirs is NaN (kappa with one
category, rho of a constant list) ours is None with the reason.
"""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score

from annotation.agreement import ONE_CATEGORY, cohens_kappa, kappa_undefined, label_agreement
from annotation.jrdb.hoi_review import difficulty_agreement, weighted_kappa
from annotation.jrdb.reasoning_tables import (
    spearman,
    spearman_p,
)


def _sklearn(a, b, **kwargs) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns on 0/0 and returns NaN
        return float(cohen_kappa_score(a, b, **kwargs))


labels = st.sampled_from(["approve", "correct", "reject"])
pairs_of_labels = st.lists(st.tuples(labels, labels), min_size=1, max_size=60)
difficulties = st.lists(
    st.tuples(st.sampled_from([1, 2, 3]), st.sampled_from([1, 2, 3])), min_size=1, max_size=60
)


@settings(max_examples=300, deadline=None)
@given(pairs_of_labels)
def test_cohens_kappa_equals_sklearn(pairs):
    a, b = zip(*pairs, strict=True)
    reference = _sklearn(list(a), list(b))
    ours = cohens_kappa(pairs)
    if math.isnan(reference):
        assert ours is None and kappa_undefined(pairs) == ONE_CATEGORY
        assert label_agreement(pairs)["kappa_reason"] == ONE_CATEGORY
    else:
        assert ours == pytest.approx(reference, abs=1e-12)
        assert kappa_undefined(pairs) is None


@settings(max_examples=300, deadline=None)
@given(difficulties, st.sampled_from(["linear", "quadratic"]))
def test_weighted_kappa_equals_sklearn(pairs, weights):
    a, b = zip(*pairs, strict=True)
    reference = _sklearn(list(a), list(b), labels=[1, 2, 3], weights=weights)
    ours = weighted_kappa(pairs, weights=weights)
    if math.isnan(reference):
        assert ours is None
        assert difficulty_agreement(pairs)["kappa_reason"] == ONE_CATEGORY
    else:
        assert ours == pytest.approx(reference, abs=1e-12)


def test_the_documented_weighted_kappa_example():
    # docs/hoi-labels.md: the confusion table [[2,0,0],[0,1,1],[0,0,2]] (rows: first rater)
    table = [[2, 0, 0], [0, 1, 1], [0, 0, 2]]
    pairs = [
        (i + 1, j + 1) for i, row in enumerate(table) for j, n in enumerate(row) for _ in range(n)
    ]
    a, b = zip(*pairs, strict=True)
    got = difficulty_agreement(pairs)
    assert got["kappa_quadratic"] == pytest.approx(_sklearn(a, b, weights="quadratic"))
    assert got["kappa_linear"] == pytest.approx(_sklearn(a, b, weights="linear"))
    assert round(got["kappa_quadratic"], 3) == 0.889 and round(got["kappa_linear"], 3) == 0.824


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 5), st.integers(1, 3)), min_size=2, max_size=40))
def test_spearman_equals_scipy(points):
    xs, ys = (list(v) for v in zip(*points, strict=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on a constant input
        reference = spearmanr(xs, ys)
    ours = spearman(xs, ys)
    if math.isnan(reference.statistic):
        assert ours is None
        return
    assert ours == pytest.approx(reference.statistic, abs=1e-9)
    if len(xs) >= 3 and abs(ours) < 1:
        assert spearman_p(ours, len(xs)) == pytest.approx(reference.pvalue, rel=1e-6, abs=1e-12)
