"""Replay on the demo's failed grasps: where the fingers closed next to the plan, and the
plan alone, said so, where they never closed."""

from __future__ import annotations

import pytest
from demo_failed_grasps import closed_grasps, pending_demo  # noqa: F401 (a fixture)
from gestures import open_as_ada

from store import open_project


@pytest.fixture
def window(qtbot, pending_demo, tmp_path):  # noqa: F811
    w = open_as_ada(qtbot, pending_demo, "replay", copy_to=tmp_path)
    yield w
    w.close()


def _show(qtbot, replay, episode_id: int, index: int) -> None:
    state = replay.state
    replay.episodes.select_row([e.id for e in state.episodes].index(episode_id))
    qtbot.waitUntil(lambda: replay.view.loaded is not None, timeout=30000)
    state.seek(index)
    qtbot.waitUntil(
        lambda: replay.view.inspection is not None and replay.view.inspection.index == index,
        timeout=30000,
    )


def test_a_slipped_grasp_shows_the_planned_and_the_actual_gripper(qtbot, window):
    replay = window.mode("replay")
    with open_project(window.session.path, readonly=True) as project:
        failed = closed_grasps(project)
    assert failed, "the demo has no failed grasp whose fingers closed"
    for episode_id, step in failed:
        _show(qtbot, replay, episode_id, step.index)
        assert replay.step_panel.title.text().endswith("grasp · ✗ failed")
        assert {"planned", "actual", "miss"} <= set(replay.view.lines.names)
        # the planner's other candidates in grey, then planned and actual, in the grasp's points
        candidates = len(replay.view.inspection.candidate_glyphs())
        assert candidates >= 1
        assert len(replay.cloud.lines) == candidates + 2
        assert sum(n.startswith("candidate:") for n in replay.view.lines.names) == candidates
        assert "fingers at close in magenta" in replay.cloud.caption.text()
        text = replay.step_panel.text
        assert "Fingers at close" in text and "outcome: slipped" in text
        assert "Tried in simulation, best first" in text and "The planner considered" in text
        legend = replay.grasp_legend
        assert legend.isVisible() and "actual, where the fingers closed" in legend.text()
        assert "grasp failed (slipped)" in legend.text() and "planned only" not in legend.text()


def test_a_grasp_that_never_closed_says_planned_only(qtbot, window):
    replay = window.mode("replay")
    with open_project(window.session.path, readonly=True) as project:
        never = [
            (e, s.index)
            for e in project.episodes.ids()
            for s in project.episodes.steps(e)
            if s.name == "grasp"
            and not s.ok
            and not ((s.result or {}).get("replay") or {}).get("tool_at_close")
        ]
    assert never, "the demo has no grasp that failed before the fingers closed"
    episode_id, index = never[0]
    _show(qtbot, replay, episode_id, index)
    assert "planned" in replay.view.lines.names and "actual" not in replay.view.lines.names
    assert len(replay.cloud.lines) == 1 + len(replay.view.inspection.candidate_glyphs())
    assert "planned only" in replay.cloud.caption.text()
    assert "Planned only" in replay.step_panel.text
    assert replay.grasp_legend.isVisible() and "planned only" in replay.grasp_legend.text()
    replay.state.seek(0)  # no grasp: no legend
    qtbot.waitUntil(lambda: not replay.grasp_legend.isVisible())
