"""The Models table on the Results pages shows, per model, the episodes, the successes and
what its model requests took, from stored episodes whose steps carry latency and tokens."""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.jobs.metrics import project_bimanual_metrics, project_episode_metrics
from store import open_project
from widgets.results.bimanual import BimanualResultsView
from widgets.results.episodes import EpisodeResultsView
from widgets.results.models import MODEL_COLUMNS


def _answer(latency, tokens_in, tokens_out):
    return {
        "kind": "answer",
        "name": "answer_question",
        "arguments": {"answer": "1"},
        "latency_s": latency,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
    }


def _metrics(tmp_path):
    with open_project(tmp_path / "models.reasonscope", create=True) as project:
        for model, ok, step in (
            ("vlm-a", True, _answer(1.0, 1200, 30)),
            ("vlm-a", False, _answer(2.0, 800, 10)),
            ("vlm-b", True, {"kind": "answer", "name": "answer_question"}),
        ):
            project.episodes.add(
                {
                    "benchmark": "mgvqa",
                    "model": model,
                    "agent": "openai",
                    "task": "count",
                    "mode": "direct",
                    "success": ok,
                },
                [step],
            )
        for ok in (True, False, False, True):
            project.episodes.add(
                {
                    "benchmark": "bimanual",
                    "model": "gpt-5",
                    "task": "handover_block",
                    "success": ok,
                },
                [{"kind": "action", "latency_s": 5.0, "tokens_in": 2500, "tokens_out": 60}],
            )
        return project_episode_metrics(project), project_bimanual_metrics(project)


def test_models_table_on_the_episodes_and_bimanual_pages(qtbot, tmp_path):
    episodes, bimanual = _metrics(tmp_path)
    view = EpisodeResultsView()
    qtbot.addWidget(view)
    view.set_metrics(episodes)
    model = view.models.table.model()
    heads = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert heads == list(MODEL_COLUMNS)
    assert view.models.cell_texts() == [
        ["vlm-a", "2", "50.0 % (1)", "1.50 s", "2,000 (1,000 / ep.)", "40 (20 / ep.)"],
        ["vlm-b", "1", "100.0 % (1)", "–", "–", "–"],
    ]
    assert model.index(0, 3).data(Qt.ItemDataRole.ToolTipRole) == "over 2 model requests"
    assert not view.models.isHidden()

    dual = BimanualResultsView()
    qtbot.addWidget(dual)
    dual.set_metrics(bimanual)
    assert dual.models.cell_texts() == [
        ["gpt-5", "4", "50.0 % (2)", "5.00 s", "10,000 (2,500 / ep.)", "240 (60 / ep.)"]
    ]
    view.set_metrics(None)
    assert view.models.table.model().rowCount() == 0 and view.models.isHidden()


def test_models_table_on_the_reasoning_page_counts_questions(qtbot):
    from widgets.results.models import QUESTION_COLUMNS
    from widgets.results.reasoning import ReasoningResultsView

    per_model = [
        {
            "model": "fake-vl",
            "episodes": 4,
            "succeeded": 3,
            "success_pct": 75.0,
            "requests": 4,
            "mean_latency_s": 1.25,
            "tokens_in": 480,
            "tokens_out": 48,
            "mean_tokens_in": 120.0,
            "mean_tokens_out": 12.0,
        },
        {
            "model": "imported",
            "episodes": 2,
            "succeeded": 1,
            "success_pct": 50.0,
            "requests": 0,
            "mean_latency_s": None,
            "tokens_in": None,
            "tokens_out": None,
            "mean_tokens_in": None,
            "mean_tokens_out": None,
        },
    ]
    metrics = {
        "counts": {
            "predictions": 6,
            "stale_predictions": 0,
            "human_answers": 0,
            "stale_human_answers": 0,
            "ratings": 0,
        },
        "models": ["fake-vl", "imported"],
        "accuracy": [],
        "human": [],
        "steps": [],
        "spearman": [],
        "per_model": per_model,
    }
    view = ReasoningResultsView()
    qtbot.addWidget(view)
    view.set_metrics(metrics)
    model = view.models.table.model()
    heads = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert heads == list(QUESTION_COLUMNS)
    assert view.models.cell_texts() == [
        ["fake-vl", "4", "75.0 % (3)", "1.25 s", "480 (120 / q.)", "48 (12 / q.)"],
        ["imported", "2", "50.0 % (1)", "–", "–", "–"],
    ]
    assert model.index(0, 2).data(Qt.ItemDataRole.ToolTipRole) == "3 of 4 questions answered right"
    assert not view.models.isHidden()
    view.set_metrics(None)
    assert view.models.table.model().rowCount() == 0 and view.models.isHidden()
