"""The spatial grounding Results table shows the summary it is given, one row per model."""

from __future__ import annotations

from PySide6.QtCore import Qt

from widgets.results.spatial import COLUMNS, SpatialResultsTable

SUMMARY = {
    "sigma": 0.1,
    "by_model": {
        "qwen": {
            "sparse": {"score": 83.333, "items": 10},
            "dense": {"score": 61.26, "items": 12},
            "average": None,
            "missing": ["cluttered"],
        },
        "GPT-4o": {
            "sparse": {"score": 100.0, "items": 10},
            "dense": {"score": 90.04, "items": 12},
            "cluttered": {"score": 77.77, "items": 8},
            "average": 89.27,
            "missing": [],
        },
    },
}


def _tip(view, row, column):
    return view.table.model().index(row, column).data(Qt.ItemDataRole.ToolTipRole)


def test_one_row_per_model_with_scores_and_counts(qtbot):
    view = SpatialResultsTable()
    qtbot.addWidget(view)
    view.show()
    view.set_summary(SUMMARY)
    model = view.table.model()
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(6)] == list(COLUMNS)
    assert view.rows() == [
        ["GPT-4o", "100.0", "90.0", "77.8", "89.3", "30"],
        ["qwen", "83.3", "61.3", "–", "incomplete", "22"],
    ]
    assert _tip(view, 1, 3) == "no cluttered items scored"
    assert _tip(view, 0, 3) == "mean of 8 items"
    assert _tip(view, 1, 5) == "10 sparse, 12 dense"
    assert _tip(view, 1, 4) == "no average: no cluttered items"
    assert "σ = 0.1 m" in view.note.text()
    assert view.table.isVisible() and not view.message.isVisible()


def test_empty_state_says_how_to_get_results(qtbot):
    view = SpatialResultsTable()
    qtbot.addWidget(view)
    view.show()
    assert "reasonscope spatial generate" in view.message.text()
    assert view.message.isVisible() and not view.table.isVisible()
    view.set_summary(SUMMARY)
    view.set_summary({"sigma": 0.1, "by_model": {}})
    assert view.table.model().rowCount() == 0 and view.message.isVisible()
    assert "reasonscope import spatial-predictions" in view.message.text()
