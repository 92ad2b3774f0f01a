"""The Reasoning results view shows the `reasoning` metrics it is given, and says when
there are none."""

from __future__ import annotations

from PySide6.QtCore import Qt

from widgets.results.reasoning import HUMAN_ROW, ReasoningResultsView


def _text(table, row, column):
    return table.model().index(row, column).data()


def _tip(table, row, column):
    return table.model().index(row, column).data(Qt.ItemDataRole.ToolTipRole)


def cell(n, correct, iou=None, annotators=None):
    c = {
        "n": n,
        "correct": correct,
        "accuracy_pct": 100.0 * correct / n if n else None,
        "mean_iou": iou,
    }
    if annotators is not None:
        c["annotators"] = annotators
    return c


def row(model, task, levels, **extra):
    cells = {lv: levels.get(lv, cell(0, 0, **extra)) for lv in ("D1", "D2", "D3", "other")}
    n = sum(c["n"] for c in cells.values())
    right = sum(c["correct"] for c in cells.values())
    return {
        "model": model,
        "benchmark": "jrdb",
        "task": task,
        "levels": cells,
        "all": cell(n, right, **extra),
    }


def curve(*accuracies):
    return [
        {"step": k + 1, "n": 10, "correct": int(a / 10), "accuracy_pct": a}
        for k, a in enumerate(accuracies)
    ]


METRICS = {
    "counts": {
        "predictions": 12,
        "stale_predictions": 2,
        "human_answers": 3,
        "stale_human_answers": 0,
        "ratings": 4,
    },
    "models": ["InternVL", "Qwen"],
    "accuracy": [
        row("Qwen", "vqa-wh", {"D1": cell(4, 2), "other": cell(2, 1)}),
        row("InternVL", "vqa-wh", {"D1": cell(4, 3), "D2": cell(2, 1)}),
        row("Qwen", "vg", {"D1": cell(2, 1, 0.5)}),
    ],
    "human": [row("human", "vqa-wh", {"D1": cell(3, 3, annotators=3)}, annotators=3)],
    "steps": [
        {"model": "Qwen", "task": "vg", "level": "all", "curve": curve(90, 60, 30)},
        {"model": "Qwen", "task": "vg", "level": "D1", "curve": curve(90, 60)},
        {"model": "InternVL", "task": "vg", "level": "all", "curve": curve(95, 70, 50)},
    ],
    "spearman": [
        {
            "benchmark": "jrdb",
            "task": "vqa-wh",
            "n": 4,
            "ratings": 4,
            "annotators": 2,
            "rho": 0.8,
            "p": 0.2,
            "words": "very strong positive",
        }
    ],
}


def test_tables_per_task_with_models_then_human_eval(qtbot):
    view = ReasoningResultsView()
    qtbot.addWidget(view)
    view.set_metrics(METRICS)
    assert set(view.level_tables) == {("jrdb", "vg"), ("jrdb", "vqa-wh")}
    wh = view.level_tables[("jrdb", "vqa-wh")]
    assert [_text(wh, r, 0) for r in range(wh.model().rowCount())] == [
        "InternVL",
        "Qwen",
        HUMAN_ROW,
    ]
    assert _text(wh, 0, 2) == "75.0" and _text(wh, 1, 5) == "50.0"
    assert _text(wh, 0, 5) == "–" and not wh.isColumnHidden(5)  # Qwen has "other"
    assert "mean of 3 annotators" in _tip(wh, 2, 2)
    vg = view.level_tables[("jrdb", "vg")]
    assert _text(vg, 0, 2) == "50.0  (IoU 0.50)" and vg.isColumnHidden(5)
    assert "2 scores belong to questions corrected since" in view.summary.text()
    assert _text(view.spearman_table, 0, 5) == "0.80"
    assert _tip(view.spearman_table, 0, 5) == "p = 0.2 (two-sided)"


def test_step_curves_follow_the_pickers(qtbot):
    view = ReasoningResultsView()
    qtbot.addWidget(view)
    view.set_metrics(METRICS)
    assert set(view.step_plot.lines) == {"Qwen", "InternVL"}
    xs, ys = view.step_plot.lines["InternVL"].getData()
    assert list(xs) == [1, 2, 3] and list(ys) == [95, 70, 50]
    view.step_level.setCurrentIndex(view.step_level.findData("D1"))
    assert set(view.step_plot.lines) == {"Qwen"}
    view.set_metrics(METRICS)  # a refresh keeps the person's choice
    assert view.step_level.currentData() == "D1" and set(view.step_plot.lines) == {"Qwen"}


def test_empty_state_says_how_to_get_results(qtbot):
    view = ReasoningResultsView()
    qtbot.addWidget(view)
    assert view.summary.text() == "No project open."
    view.set_metrics({"counts": {"predictions": 0, "human_answers": 0, "ratings": 0}})
    assert "reasonscope import predictions" in view.summary.text()
    assert view.content.isHidden() and view.level_tables == {}
    view.set_metrics(METRICS)
    assert not view.content.isHidden()
    view.set_metrics(None)
    assert view.summary.text() == "No project open." and view.level_tables == {}
