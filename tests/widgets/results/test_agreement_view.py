"""The agreement view shows the numbers it is given, and says when there are none."""

from __future__ import annotations

from widgets.results.agreement import AgreementView, kappa_words


def metrics(kappa):
    row = {"kappa": kappa, "percent_agreement": 75.0, "disagreements": 1}
    return {
        "n": 4,
        "decision": row,
        "criteria": {k: row for k in ("unambiguous", "evidence_withheld", "evidence_recoverable")},
        "status_counts": {"approved": 3, "pending": 1},
        "adjudication_pending": 1,
        "time_on_task": {"median_s": 39.25},
    }


def _text(view, row, column):
    return view.table.model().index(row, column).data()


def test_agreement_view_fills_every_row(qtbot):
    view = AgreementView()
    qtbot.addWidget(view)
    view.set_metrics(metrics(0.25))
    assert _text(view, 0, 1) == "0.25 (fair)"
    assert _text(view, 3, 2) == "75 %"
    assert "3 approved" in view.status.text() and "third annotator: 1" in view.status.text()
    view.set_metrics(metrics(None))
    assert _text(view, 0, 1) == "n/a (no pairs)"
    view.set_metrics(None)
    assert view.summary.text() == "No project open."


def test_kappa_words_follow_landis_and_koch():
    assert [kappa_words(k) for k in (-0.1, 0.1, 0.3, 0.5, 0.7, 0.9)] == [
        "poor",
        "slight",
        "fair",
        "moderate",
        "substantial",
        "almost perfect",
    ]


def test_an_undefined_kappa_says_so_with_the_settings(qtbot):
    view = AgreementView()
    qtbot.addWidget(view)
    m = metrics(0.5)
    m["criteria"] = {
        **m["criteria"],
        "evidence_recoverable": {
            "kappa": None,
            "kappa_reason": "undefined (one category)",
            "percent_agreement": 100.0,
            "disagreements": 0,
        },
    }
    m["settings"] = {"statistic": "Cohen's kappa of two rater slots"}
    view.set_metrics(m)
    assert _text(view, 3, 1) == "undefined (one category)"
    assert _text(view, 3, 2) == "100 %"
    assert view.settings.text() == "Computed with: statistic: Cohen's kappa of two rater slots."


def test_criterion_4_has_its_own_row_saying_its_compare_pairs(qtbot):
    view = AgreementView()
    qtbot.addWidget(view)
    m = metrics(0.5)
    volumes = {"n": 3, "kappa": 0.4, "percent_agreement": 66.7, "disagreements": 1}
    m["criteria"] = {**m["criteria"], "volumes_distinct": volumes}
    view.set_metrics(m)
    assert _text(view, 4, 0) == "Compare: the three volumes are visibly distinct (3 Compare pairs)"
    assert _text(view, 4, 1) == "0.40 (fair)"
    assert _text(view, 4, 2) == "67 %"
    assert _text(view, 4, 3) == "1"
    m["criteria"]["volumes_distinct"] = {"n": 0, "kappa": None, "kappa_reason": "no pairs"}
    view.set_metrics(m)
    assert _text(view, 4, 0).endswith("(0 Compare pairs)")
    assert _text(view, 4, 1) == "n/a (no pairs)"
