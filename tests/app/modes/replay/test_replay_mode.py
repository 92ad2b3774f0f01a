"""Replay episodes as a researcher uses it: pick an episode, step with the keys, look at a
grasp, label the error, re-simulate from a step.

The project holds two episodes recorded with `ToolEnv` on a three-box scene
(256 px images, recorded in the header): one manipulation episode (find and
push the red box, grasp the blue box into the basket, then a grasp on the
wide box that cannot work) and one short perception episode of another model.
"""

from __future__ import annotations

import numpy as np
import pytest
from gestures import open_as_ada, press_shortcut, seek_to_step
from PySide6.QtCore import QPoint, Qt

MANIPULATION = [
    "observe",
    "find_object",
    "push",
    "find_object",
    "grasp",
    "find_object",
    "grasp",
    "answer_question",
]
FAILED_GRASP = 6


@pytest.fixture
def window(qtbot, episode_project, tmp_path):
    w = open_as_ada(qtbot, episode_project, "replay", copy_to=tmp_path)
    yield w
    w.close()


def _open(qtbot, replay, row=0):
    replay.episodes.select_row(row)
    qtbot.waitUntil(lambda: replay.view.loaded is not None, timeout=30000)


def _rendered(qtbot, replay, index):
    qtbot.waitUntil(
        lambda: (
            replay.image.caption.text().endswith(("saw", "mask outlined", f"After step {index}"))
            and replay.state.index == index
        ),
        timeout=20000,
    )


def test_keys_step_through_the_episode_and_seek_restores_the_record(qtbot, window):
    replay = window.mode("replay")
    state = replay.state
    assert replay.pages.currentWidget() is replay.page
    assert replay.episodes.model.rowCount() == 2
    _open(qtbot, replay)
    assert [s.name for s in state.steps] == MANIPULATION
    assert "Episode #1 · alpha · count" in replay.banner.text() and "How many boxes?" in (
        replay.banner.text()
    )
    assert replay.timeline.bookmarks == [FAILED_GRASP] == state.bookmarks
    world = replay.view.loaded.view.world
    for key, expected, title in (
        (Qt.Key.Key_Right, 1, "Step 1 of 7 · find_object · ✓ ok"),
        (Qt.Key.Key_Right, 2, "Step 2 of 7 · push · ✓ ok"),
        (Qt.Key.Key_Left, 1, "Step 1 of 7 · find_object"),
        (Qt.Key.Key_End, 7, "Step 7 of 7 · answer_question"),
        (Qt.Key.Key_Home, 0, "Step 0 of 7 · initial observation"),
        (Qt.Key.Key_Left, 0, "Step 0 of 7"),  # nothing before the first step
        (Qt.Key.Key_BracketRight, FAILED_GRASP, "Step 6 of 7 · grasp · ✗ failed"),
    ):
        press_shortcut(qtbot, window, key)
        assert state.index == expected and replay.timeline.current == expected
        assert replay.step_panel.title.text().startswith(title)
        # the viewport's world is exactly the recorded state after this step
        now = world.capture_state()["bodies"]
        for body, pose in state.steps[expected].state["bodies"].items():
            assert np.allclose(now[body]["com_position"], pose["com_position"], atol=1e-9)
            assert np.allclose(now[body]["com_orientation"], pose["com_orientation"], atol=1e-9)
    assert "no feasible grasp" in replay.step_panel.text
    timeline = replay.timeline  # a click on a tick seeks there
    qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(int(timeline.x_of(3)), 30))
    assert state.index == 3 and replay.step_panel.title.text().startswith("Step 3 of 7")
    press_shortcut(qtbot, window, Qt.Key.Key_Home)
    press_shortcut(qtbot, window, Qt.Key.Key_Right)
    press_shortcut(qtbot, window, Qt.Key.Key_Right)  # the push: the red box moved left
    text = replay.step_panel.text
    assert "red_box (acted on): moved" in text and "Tool call" in text and "reasoning:" in text
    assert replay.viewport.selected_key == "red_box"
    assert "moved:red_box" in replay.view.lines.names
    state.timer.setInterval(30)
    press_shortcut(qtbot, window, Qt.Key.Key_Space)
    assert state.playing and replay.actions["play"].text() == "Pause"
    qtbot.waitUntil(lambda: not state.playing, timeout=5000)  # played to the end
    assert state.index == 7 and replay.actions["play"].text() == "Play"
    press_shortcut(qtbot, window, Qt.Key.Key_Space)  # at the end: plays again from the start
    assert state.playing
    press_shortcut(qtbot, window, Qt.Key.Key_Space)
    assert not state.playing and state.index < 7
    rows = {(g, a.text()) for g, a in window.shortcut_groups() if not a.shortcut().isEmpty()}
    for text in ("Play", "Next", "Previous", "First", "Last", "Failure ▶", "Re-simulate from here"):
        assert ("Replay episodes", text) in rows


def test_a_grasp_step_shows_its_mask_points_and_plan(qtbot, window):
    replay = window.mode("replay")
    _open(qtbot, replay)
    seek_to_step(qtbot, window, 4)  # the successful grasp of the blue box
    _rendered(qtbot, replay, 4)
    assert replay.image.caption.text() == "Before step 4: what the grasp saw, mask outlined"
    assert replay.image.mask is not None and replay.image.mask.sum() > 50
    qtbot.waitUntil(lambda: replay.cloud.point_count > 50)
    assert replay.cloud.point_count == replay.image.mask.sum()
    # the planner's other candidates (grey), then the planned and the actual gripper
    others = len(replay.view.inspection.candidate_glyphs())
    assert others >= 1 and len(replay.cloud.lines) == others + 2
    assert {"planned", "actual", "miss", "moved:blue_box"} <= set(replay.view.lines.names)
    assert "candidate:0" in replay.view.lines.names
    assert "Fingers at close" in replay.step_panel.text and "into the basket" in (
        replay.step_panel.text
    )
    press_shortcut(qtbot, window, Qt.Key.Key_B)  # the image after the step instead
    _rendered(qtbot, replay, 4)
    assert replay.image.caption.text().startswith("After step 4")
    replay.state.seek(FAILED_GRASP)  # no fingers ever closed: the plan alone
    qtbot.waitUntil(
        lambda: (
            "planned" in replay.view.lines.names
            and "actual" not in (replay.view.lines.names)
            and replay.state.index == FAILED_GRASP
        )
    )
    assert "The fingers never closed: no feasible grasp" in replay.step_panel.text


def test_an_error_label_is_saved_with_the_annotator(qtbot, window):
    replay, session = window.mode("replay"), window.session
    _open(qtbot, replay)
    replay.state.seek(FAILED_GRASP)
    labels = replay.labels
    qtbot.keyClicks(labels.note, "tried the wide box anyway")
    labels.choose("evidence_gathering", "failed_grasp_recovery")
    episode = replay.state.episode.id
    (saved,) = session.project.episodes.labels(episode)
    assert saved.annotator_id == session.annotator.id and session.annotator.name == "Ada"
    assert (saved.step_index, saved.category, saved.subcategory, saved.note) == (
        FAILED_GRASP,
        "evidence_gathering",
        "failed_grasp_recovery",
        "tried the wide box anyway",
    )
    assert "Saved: Evidence gathering failure" in replay.mode.statusBar().currentMessage()
    assert labels.note.text() == ""
    assert (
        "step 6 · Evidence gathering failure (MG-VQA) › No recovery after a failed grasp "
        "— Ada: tried the wide box anyway" == labels.existing.model().index(0, 0).data()
    )
    replay.state.seek(1)  # another step: its own ticks
    item = labels.model.index_of(("evidence_gathering", "failed_grasp_recovery"))
    assert item.data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Unchecked
    replay.state.seek(FAILED_GRASP)
    assert item.data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    labels.choose("evidence_gathering", "failed_grasp_recovery", on=False)
    assert session.project.episodes.labels(episode) == []
    assert session.project.audit.recent(1)[0].action == "delete"


def test_filters_narrow_the_list(qtbot, window):
    replay = window.mode("replay")
    panel, model = replay.episodes, replay.episodes.model
    assert model.rowCount() == 2 and panel.count_label.text() == "2 episodes"
    panel.set_filter_value("model", "beta")
    assert model.rowCount() == 1 and replay.state.episodes[0].model == "beta"
    panel.set_filter_value("model", None)
    panel.failed_grasp.setChecked(True)
    assert [e.model for e in replay.state.episodes] == ["alpha"]
    assert model.data(model.index(0, 5)) == "1"
    panel.failed_grasp.setChecked(False)
    panel.set_filter_value("mode", "perception")
    assert [e.model for e in replay.state.episodes] == ["beta"]
    panel.set_filter_value("mode", None)
    panel.set_filter_value("task", "count")
    assert [e.model for e in replay.state.episodes] == ["alpha"]
    panel.set_filter_value("outcome", "correct")  # the count answer was right
    assert [e.model for e in replay.state.episodes] == ["alpha"]
    panel.set_filter_value("outcome", "incorrect")  # both agents answered right
    assert model.rowCount() == 0 and panel.count_label.text() == "0 episodes"


def test_resimulate_from_the_push_matches_the_record(qtbot, window):
    replay = window.mode("replay")
    _open(qtbot, replay)
    replay.state.seek(2)
    press_shortcut(qtbot, window, Qt.Key.Key_R)
    qtbot.waitUntil(
        lambda: replay.resim_task is None and replay.view.report is not None, timeout=60000
    )
    report = replay.view.report
    assert report.from_index == 2 and len(report.steps) == 6
    assert report.matches, [s.diff() for s in report.steps]
    assert "all match" in replay.mode.statusBar().currentMessage()
    assert "Matches the recording" in replay.step_panel.text
    assert "all match" in replay.resim_view.toPlainText()
