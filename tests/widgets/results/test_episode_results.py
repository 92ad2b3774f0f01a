"""The episode results view fills its tables and plots from a metrics dict, and says when
there is nothing to show."""

from __future__ import annotations

from itertools import count

from PySide6.QtCore import Qt

from annotation.models import Episode, Step
from annotation.tabletop.episode_metrics import episode_metrics
from widgets.results.episodes import EpisodeResultsView

_ids = count(1)


def _text(table, row, column):
    return table.model().index(row, column).data()


def _tip(table, row, column):
    return table.model().index(row, column).data(Qt.ItemDataRole.ToolTipRole)


def _italic(table, row, column) -> bool:
    font = table.model().index(row, column).data(Qt.ItemDataRole.FontRole)
    return font is not None and font.italic()


def episode(
    task,
    success,
    names=(),
    *,
    model="vlm-a",
    agent="openai",
    mode="manipulation",
    truth=None,
    answer=None,
):
    eid = next(_ids)
    steps = [
        Step(eid, i, "tool", name, {}, {}, ok, "", {}, "", None)
        for i, (name, ok) in enumerate(names)
    ]
    if answer is not None:
        steps.append(
            Step(
                eid,
                len(steps),
                "answer",
                "answer_question",
                {"answer": answer},
                {},
                True,
                "",
                {},
                "",
                None,
            )
        )
    header = {} if truth is None else {"question": {"answer": truth}}
    ep = Episode(
        eid,
        f"e{eid}",
        "mgvqa",
        model,
        agent,
        mode,
        task,
        None,
        None,
        "answered",
        success,
        None,
        header,
        "now",
    )
    return ep, steps


def metrics():
    failed = [("grasp", False), ("perceive_scene", True), ("find_object", True), ("push", True)]
    return episode_metrics(
        [
            episode("count", True, [("grasp", True)], truth=2, answer="2"),
            episode("count", False, failed, truth=5, answer="3"),
            episode("find", True, truth={"answer": "yes"}, answer="yes"),
            episode("find", False, truth={"answer": "no"}, answer="yes"),
            episode("count", False, mode="direct", truth=2, answer="1"),
            episode(
                "count", False, model="chance", agent="chance", mode="direct", truth=2, answer="0"
            ),
            episode(
                "find",
                True,
                model="chance",
                agent="chance",
                mode="direct",
                truth={"answer": "no"},
                answer="no",
            ),
        ]
    )


def test_tables_show_every_row_with_the_baseline_marked(qtbot):
    view = EpisodeResultsView()
    qtbot.addWidget(view)
    view.set_metrics(metrics())
    table = view.success_table
    model = table.model()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers[:9] == [
        "Model / agent",
        "Mode",
        "Run",
        "n",
        "Count",
        "Find",
        "Beneath",
        "Compare",
        "Average",
    ]
    assert table.model().rowCount() == 3
    assert _text(table, 0, 0) == "chance (baseline)"
    assert view.baseline_rows() == [0]
    assert _italic(table, 0, 0) and not _italic(table, 1, 0)
    assert [_text(table, r, 1) for r in range(3)] == ["direct", "direct", "manipulation"]
    assert [_text(table, r, 2) for r in range(3)] == ["plain"] * 3  # the run's settings
    manip = 2
    assert _text(table, manip, 4) == "50.0 (2)"  # count: 1 of 2
    assert _tip(table, manip, 4) == "1 of 2 episodes succeeded"
    assert _text(table, manip, 5) == "50.0 (2)"  # find: 1 of 2
    assert _text(table, manip, 6) == "– (0)"  # no Beneath episodes ...
    assert _text(table, manip, 8) == "incomplete"  # ... so no average over all tasks
    assert "beneath, compare" in _tip(table, manip, 8)
    assert _text(table, manip, 9) == "0.75"  # (1 + 2 + 0 + 0) / 4 calls per question
    assert _text(table, manip, 10) == "2"  # acted episodes
    assert "lacks any column" in view.settings.text()
    assert _text(table, 1, 5) == "– (0)"  # no Find episodes in direct mode for vlm-a

    rec = view.recovery_table
    assert rec.model().rowCount() == 1
    assert [_text(rec, 0, c) for c in range(rec.model().columnCount())] == [
        "vlm-a / openai",
        "manipulation",
        "plain",
        "1",
        "1 (100 %)",
        "0 (0 %)",
        "0 (0 %)",
        "1 (100 %)",
        "0 (0 %)",
        "0 (0 %)",
    ]
    assert view.content.isVisibleTo(view)
    assert "7 episodes from 1 model in 2 modes" in view.summary.text()


def test_plots_get_one_bar_series_each(qtbot):
    view = EpisodeResultsView()
    qtbot.addWidget(view)
    view.set_metrics(metrics())
    # direct and manipulation model means, then the chance row
    assert len(view.task_plot.bars) == 3
    # rows with Find episodes: chance (absent only) and vlm-a manipulation (both)
    assert [len(b.opts["x"]) for b in view.find_plot.bars] == [1, 2]
    heights = [list(b.opts["height"]) for b in view.count_plot.bars]
    # count rows: chance (0 < 2), vlm-a direct (1 < 2), vlm-a manipulation (exact, 3 < 5)
    assert heights[0] == [100.0, 100.0, 50.0]  # under
    assert heights[1] == [0.0, 0.0, 50.0]  # exact
    assert list(view.calls_plot.bars[0].opts["height"]) == [0.75]


def test_empty_states(qtbot):
    view = EpisodeResultsView()
    qtbot.addWidget(view)
    view.set_metrics(metrics())
    view.set_metrics(episode_metrics([]))
    assert "No episodes yet" in view.summary.text()
    assert not view.content.isVisibleTo(view)
    assert (
        view.success_table.model().rowCount() == 0 and view.recovery_table.model().rowCount() == 0
    )
    view.set_metrics(None)
    assert view.summary.text() == "No project open."


def test_results_mode_opens_on_episodes_when_a_project_has_only_episodes(qtbot, tmp_path):
    from app.main_window import MainWindow
    from store import open_project

    path = tmp_path / "episodes.reasonscope"
    with open_project(path, create=True) as project:
        header = {"benchmark": "mgvqa", "model": "m", "agent": "a", "mode": "direct"}
        project.episodes.add({**header, "task": "count", "success": True}, [])
    window = MainWindow()
    qtbot.addWidget(window)
    window.session.open(path)
    window.set_mode("results")
    results = window.mode("results")
    assert results.pages.currentIndex() == 1
    assert results.tabs.currentWidget() is results.episode_results
    assert results.episode_results.success_table.model().rowCount() == 1
    window.session.open(tmp_path / "empty.reasonscope", create=True)
    assert results.pages.currentIndex() == 0
