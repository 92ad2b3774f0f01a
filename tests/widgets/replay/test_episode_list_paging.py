"""The Replay episode list reads a page at a time: 300 stored episodes, pages of 40; Qt's
fetchMore brings the next page, the filters run in SQL and count every match, and an
episode opened pages down is read into the list to be selected."""

from __future__ import annotations

import pytest

from store import open_project
from widgets.replay.episode_list import (
    EpisodeListPanel,
    EpisodeTableModel,
    PagedEpisodes,
    PagedEpisodeSource,
)
from widgets.replay.state import ReplayState

N, PAGE = 300, 40
MODELS, TASKS = ("alpha", "beta", "gamma"), ("count", "find")


def _episode(i):
    failed = i % 5 == 0
    steps = [
        {"kind": "tool", "name": "find_object", "ok": True},
        {"kind": "tool", "name": "grasp", "ok": not failed},
        {"kind": "answer", "name": "answer_question", "arguments": {"answer": "1"}},
    ]
    header = {
        "benchmark": "mgvqa",
        "model": MODELS[i % 3],
        "agent": "openai",
        "mode": "manipulation" if i % 2 else "direct",
        "task": TASKS[i % 2],
        "outcome": "answered",
        "success": i % 4 == 0,
    }
    return header, steps


@pytest.fixture
def source(tmp_path):
    with open_project(tmp_path / "paging.reasonscope", create=True) as project:
        with project.write():
            for i in range(N):
                project.episodes.add(*_episode(i))
        yield PagedEpisodeSource(project.episodes, project.episode_queries, page_size=PAGE)


def _expected(**where):
    return [i + 1 for i in range(N) if all(_value(i, k) == v for k, v in where.items())]


def _value(i, key):
    header, steps = _episode(i)
    if key == "failed_grasp":
        return any(s["name"] == "grasp" and not s["ok"] for s in steps)
    return header[key]


def test_fetch_more_brings_the_next_page(qtbot, source):
    state = ReplayState(source)
    model = EpisodeTableModel(state)
    assert isinstance(state.episodes, PagedEpisodes) and state.episodes.total == N
    assert model.rowCount() == PAGE and model.canFetchMore()
    assert [e.id for e in state.episodes] == list(range(1, PAGE + 1))
    assert model.data(model.index(0, 5)) == "1" and model.data(model.index(1, 5)) == ""
    with qtbot.waitSignal(model.rowsInserted):
        model.fetchMore()
    assert model.rowCount() == 2 * PAGE
    assert [e.id for e in state.episodes][PAGE - 1 : PAGE + 1] == [PAGE, PAGE + 1]
    while model.canFetchMore():
        model.fetchMore()
    assert [e.id for e in state.episodes] == list(range(1, N + 1))
    assert state.failed_grasps == {i: 1 for i in _expected(failed_grasp=True)}


def test_filters_run_in_sql_and_count_every_match(qtbot, source):
    state = ReplayState(source)
    panel = EpisodeListPanel(state)
    qtbot.addWidget(panel)
    assert panel.count_label.text() == f"{N} episodes"
    assert panel.combos["model"].count() == 4  # Any and the three models
    panel.set_filter_value("model", "beta")
    beta = _expected(model="beta")
    assert state.episodes.total == len(beta) == 100
    assert panel.count_label.text() == "100 episodes" and panel.model.rowCount() == PAGE
    panel.set_filter_value("task", "find")
    panel.failed_grasp.setChecked(True)
    both = _expected(model="beta", task="find", failed_grasp=True)
    assert panel.count_label.text() == f"{len(both)} episodes"
    assert [e.id for e in state.episodes] == both  # fewer than a page: all read
    assert not panel.model.canFetchMore()
    panel.failed_grasp.setChecked(False)
    panel.set_filter_value("outcome", "correct")
    correct = _expected(model="beta", task="find", success=True)
    assert [e.id for e in state.episodes] == correct and state.episodes.total == len(correct)
    panel.clear_filters()
    assert panel.count_label.text() == f"{N} episodes"


def test_an_episode_opened_pages_down_is_read_and_selected(qtbot, source):
    state = ReplayState(source)
    panel = EpisodeListPanel(state)
    qtbot.addWidget(panel)
    state.open(257)
    panel.show_open()
    rows = panel.view.selectionModel().selectedRows()
    assert [panel.model.episode_id(r.row()) for r in rows] == [257]
    assert panel.model.rowCount() >= 257
    assert [e.id for e in state.episodes][:300] == list(range(1, len(state.episodes) + 1))
