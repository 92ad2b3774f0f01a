"""Replay episodes on dual-arm episodes, as a researcher uses it: step through an imported
log (plan, feedback, arms, the model's text, the views it saw), label a step, look at an
episode recorded in our world in 3D, and replay a log in our simulator.

The project holds the test corpus imported with the real importer (BiManiBench: a
handover that succeeded, one that failed with a format error; EmbodiedBench: 16-number
plans), one MG-VQA episode, and the reference plan of stack_blocks_two recorded in our
dual-arm world.
"""

from __future__ import annotations

import numpy as np
import pytest
from bimanual_corpus import imported_project
from gestures import open_as_ada, press_shortcut
from PySide6.QtCore import QModelIndex, Qt, QUrl

from store import open_project

FAILED = "bimanibench:handover_block:gpt-5:2025-06-01_120000:round0:episode1"
WON = "bimanibench:handover_block:gpt-5:2025-06-01_120000:round0:episode0"
ROWS = "embodiedbench:stack_blocks_two:gpt-5_base:episode1"


@pytest.fixture(scope="module")
def dual_arm_project(tmp_path_factory):
    from app.jobs.bimanual import record_reference_episode

    tmp = tmp_path_factory.mktemp("bimanual")
    path = imported_project(tmp, "dual.reasonscope")
    with open_project(path) as project:
        project.episodes.add(
            {
                "uid": "mgvqa-1",
                "benchmark": "mgvqa",
                "model": "vlm",
                "mode": "perception",
                "task": "count",
            },
            [
                {
                    "kind": "answer",
                    "name": "answer_question",
                    "arguments": {"answer": "2"},
                    "ok": True,
                }
            ],
        )
        record_reference_episode(project, "stack_blocks_two", 0)
    return path


@pytest.fixture
def window(qtbot, dual_arm_project, tmp_path):
    w = open_as_ada(qtbot, dual_arm_project, "replay", copy_to=tmp_path)
    yield w
    w.close()


def _open(qtbot, replay, uid=None, agent=None):
    row = next(
        i
        for i, e in enumerate(replay.state.episodes)
        if (uid is None or e.uid == uid) and (agent is None or e.agent == agent)
    )
    replay.episodes.select_row(row)
    qtbot.waitUntil(lambda: replay.view.loaded is not None, timeout=60000)
    return replay.state.episode


def test_an_imported_step_shows_its_plan_feedback_arms_text_and_views(qtbot, window):
    replay = window.mode("replay")
    episode = _open(qtbot, replay, FAILED)
    b = replay.bimanual
    assert b.active and replay.step_stack.currentIndex() == 1
    assert replay.mode.docks["image"].windowTitle().startswith("Observation")
    assert replay.centre.currentWidget() is b.big_observation  # no states: the views, large
    assert "gpt-5 · handover_block · ✗ failure" in replay.banner.text()
    # the failed step and the format error are bookmarks; a plan is a manipulation tick
    assert replay.state.bookmarks == [1, 2] == replay.timeline.bookmarks
    assert [t.kind for t in replay.timeline.ticks][:3] == ["manipulation"] * 2 + ["format_error"]
    press_shortcut(qtbot, window, Qt.Key.Key_BracketRight)
    assert replay.state.index == 1
    panel = b.step_panel
    assert panel.title.text() == "Step 1 of 4 · plan of 1 action · ✗ failed"
    text = panel.text
    assert "Action failed: grasp_actor: the right arm cannot reach block" in text
    assert "grasp_actor(actor=block, arm_tag=right, pre_grasp_dis=0.09, grasp_dis=0.03)" in text
    assert "Reasoning and reflection: The last plan did not finish." in text
    assert "one outcome for the whole plan" in text
    assert b.observation.current_view == "head" and not b.observation.canvas.image.isNull()
    assert b.observation.caption.text().startswith("What the model saw before reply 1")
    press_shortcut(qtbot, window, Qt.Key.Key_Right)
    assert replay.state.steps[2].kind == "format_error"
    assert panel.title.text() == "Step 2 of 4 · format error · ✗ failed"
    # what the harness did with it: json.loads failed, nothing ran, its own feedback
    assert "Unreadable: json.loads failed" in panel.text
    assert "Nothing ran: the harness could not read the reply." in panel.text
    assert "Action is empty, no action taken." in panel.text
    assert "I am unable to decide which arm to use." in panel.text  # the raw reply
    # the successful episode stored two views of its first step: the tabs switch them
    _open(qtbot, replay, WON)
    tabs = b.observation.tabs
    assert b.observation.views == ["head", "third"] and tabs.isVisible()
    qtbot.mouseClick(tabs, Qt.MouseButton.LeftButton, pos=tabs.tabRect(1).center())
    assert b.observation.current_view == "third" == b.big_observation.current_view
    press_shortcut(qtbot, window, Qt.Key.Key_Right)  # the chosen view stays chosen
    assert replay.state.index == 1 and b.observation.current_view == "third"
    _open(qtbot, replay, FAILED)  # a log with head views only: no tabs
    assert b.observation.views == ["head"] and not tabs.isVisible()
    assert b.observation.current_view == "head" and episode.id == replay.state.episode.id


def test_a_16_number_plan_shows_where_its_last_row_sends_the_arms(qtbot, window):
    replay = window.mode("replay")
    _open(qtbot, replay, ROWS)
    text = replay.bimanual.step_panel.text
    assert replay.bimanual.step_panel.title.text().startswith("Step 0 of 1 · plan of 14 rows")
    assert "where the plan's last row sends them (not measured)" in text
    last = replay.state.steps[0].arguments["plan"][-1]
    x, y, z = last["left"]["position"]
    assert f"left\t{x:.3f}\t{y:.3f}\t{z:.3f}\topen" in text.replace("\n", "\t")


def _hidden(labels, category: str) -> bool:
    """Whether the error-label tree hides a category (and its kinds)."""
    return labels.tree.isRowHidden(labels.model.index_of((category, "")).row(), QModelIndex())


def _bold(index) -> bool:
    font = index.data(Qt.ItemDataRole.FontRole)
    return font is not None and font.bold()


def test_labels_offer_the_dual_arm_kinds_suggest_format_errors_and_save_at_once(
    qtbot, window, tmp_path
):
    replay = window.mode("replay")
    labels = replay.labels
    _open(qtbot, replay, uid="mgvqa-1")
    assert not _hidden(labels, "evidence_gathering")  # MG-VQA keeps its own kinds
    episode = _open(qtbot, replay, FAILED)
    assert _hidden(labels, "evidence_gathering")
    assert not _hidden(labels, "perceptual_reasoning")
    item = labels.model.index_of(("format", ""))
    assert not _bold(item)
    replay.state.seek(2)  # the unreadable reply
    assert _bold(item) and "suggested" in item.data()
    assert "Suggested: Format Error." in labels.heading.text()
    tick = item.data(Qt.ItemDataRole.CheckStateRole)
    assert tick == Qt.CheckState.Unchecked  # suggested, not chosen
    labels.choose("format")
    replay.state.seek(1)
    assert not _bold(item)
    labels.note.setText("the right arm cannot reach the block on the left")
    labels.choose("perceptual_reasoning", "end_effector_allocation")
    with open_project(tmp_path / "copy.reasonscope") as project:  # another connection
        saved = [
            (lab.step_index, lab.category, lab.subcategory, lab.note)
            for lab in project.episodes.labels(episode.id)
        ]
        assert (
            project.annotators.get(project.episodes.labels(episode.id)[0].annotator_id).name
            == "Ada"
        )
    assert saved == [
        (
            1,
            "perceptual_reasoning",
            "end_effector_allocation",
            "the right arm cannot reach the block on the left",
        ),
        (2, "format", "", ""),
    ]


def test_a_recorded_episode_restores_the_world_and_a_log_replays_in_sim(qtbot, window, tmp_path):
    replay = window.mode("replay")
    b = replay.bimanual
    episode = _open(qtbot, replay, agent="reference")
    world = replay.view.loaded.view.world
    assert replay.viewport.world is world and replay.centre.currentWidget() is replay.viewport
    assert "seed 0" in replay.banner.text() and "stack the blocks" in replay.banner.text()
    press_shortcut(qtbot, window, Qt.Key.Key_End)
    step = replay.state.steps[-1]
    now = world.capture_state()["bodies"]
    for key, pose in step.state["bodies"].items():
        assert np.allclose(now[key]["com_position"], pose["com_position"], atol=1e-9)
    text = b.step_panel.text
    assert "task done" in b.step_panel.title.text()
    assert "End effectors after the step, in our simulator" in text
    assert text.count("Action succeeded.") >= 5  # each action's own feedback
    assert "green_block" in text and "Moved in this step: green_block" in text
    assert b.observation.caption.text().startswith("After step 2")
    # replay the failed log in our world: R, progress, then the comparison per step
    failed = _open(qtbot, replay, FAILED)
    assert replay.actions["resim"].text() == "Replay in sim"
    press_shortcut(qtbot, window, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: b.task is None, timeout=120000)
    assert b.sim_run is not None and len(b.comparisons) == 5
    with open_project(tmp_path / "copy.reasonscope") as project:
        run = project.episodes.get(b.sim_run)
    assert run.agent == "replay-in-sim" and run.header["bimanual"]["source_episode"] == failed.id
    assert f"episode #{run.id}" in replay.resim_view.toPlainText()
    replay.state.seek(1)
    text = b.step_panel.text
    assert "Replayed in our world" in text and "Recorded\t✗ failed" in text.replace("\n", "\t")
    assert b.comparisons[1]["recorded_feedback"].startswith("Action failed: grasp_actor")
    replay.resim_view.anchorClicked.emit(QUrl(f"episode:{run.id}"))  # the report's link
    qtbot.waitUntil(lambda: replay.view.loaded is not None, timeout=60000)
    assert replay.state.episode.id == run.id and f"replay in sim of #{failed.id}" in (
        replay.banner.text()
    )
    assert replay.centre.currentWidget() is replay.viewport
    assert replay.state.steps[0].kind == "observation" and 1 in b.comparisons
    assert episode.id != run.id
