"""The HOI labels results page: its three tables are views of `CellTableModel`s filled
from the `hoi` metrics dict (app.jobs.metrics.project_hoi_metrics)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableView

from widgets.results.hoi import HoiResultsView
from widgets.results.table import CellTableModel

RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def difficulty(n, quadratic, linear, pct, diff):
    return {
        "n": n,
        "kappa_quadratic": quadratic,
        "kappa_linear": linear,
        "percent_agreement": pct,
        "mean_abs_difference": diff,
    }


METRICS = {
    "labels": 3,
    "status_counts": {"accepted": 1, "unreviewed": 2},
    "verdicts": {
        "reviews": 4,
        "accept_rate_pct": 75.0,
        "n": 2,
        "kappa": None,
        "kappa_reason": None,
        "percent_agreement": 50.0,
        "disagreements": 1,
    },
    "qc": {"checked": 1, "sampled": 2, "rate": 0.1, "seed": 7},
    "difficulty": {
        "author_vs_reviewer": difficulty(6, 0.5, 0.4, 66.7, 0.5),
        "reviewer_vs_reviewer": difficulty(2, None, None, None, None),
    },
    "settings": {"weights": "quadratic"},
    "by_category": {"pose": {"labels": 2, "accepted": 1, "accepted_pct": 50.0}},
    "sequences": [
        {
            "name": "cafe",
            "labelled_person_frames": 3,
            "person_frames": 12,
            "labelled_pct": 25.0,
            "labels": 3,
            "reviewed_twice": 1,
            "accepted": 1,
        }
    ],
}


def cells(table: QTableView) -> list[list[str]]:
    model = table.model()
    return [
        [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def test_the_tables_are_models_of_the_metrics(qtbot):
    view = HoiResultsView()
    qtbot.addWidget(view)
    view.set_metrics(METRICS)
    agreement = view.agreement.model()
    assert isinstance(agreement, CellTableModel) and view.agreement.objectName() == (
        "hoi_agreement_table"
    )
    heads = [agreement.headerData(c, Qt.Orientation.Horizontal) for c in range(5)]
    assert heads == ["", "Pairs", "Kappa", "Agreement", "Notes"]
    assert cells(view.agreement) == [
        [
            "Difficulty: author vs each reviewer",
            "6",
            "0.50 (moderate)",
            "67 %",
            "linear 0.40, mean |Δ| 0.50",
        ],
        ["Difficulty: reviewer vs reviewer", "2", "n/a (no pairs)", "n/a", "linear n/a (no pairs)"],
        [
            "Verdict (accept / reject): reviewer vs reviewer",
            "2",
            "n/a (no pairs)",
            "50 %",
            "1 disagreements",
        ],
    ]
    align = Qt.ItemDataRole.TextAlignmentRole
    assert agreement.index(0, 0).data(align) is None  # the row's name, left
    assert [agreement.index(0, c).data(align) for c in range(1, 5)] == [RIGHT] * 4
    assert agreement.index(0, 1).data(Qt.ItemDataRole.ToolTipRole) is None
    assert cells(view.categories) == [["pose", "2", "1", "50 %"]]
    assert cells(view.sequences) == [["cafe", "3 / 12 (25 %)", "3", "1", "1"]]
    assert "3 HOI labels: 1 accepted, 2 unreviewed." in view.summary.text()
    assert view.settings.text() == "Computed with: weights: quadratic."
    view.set_metrics(None)
    assert view.summary.text() == "No project open."
    for table in (view.agreement, view.categories, view.sequences):
        assert table.model().rowCount() == 0
