"""Replay ▸ Export to Rerun as a researcher uses it: open the episode with the failed
grasp, click Export to Rerun on the toolbar, pick a file; the recording is written off the
GUI thread, then Replay offers the Rerun viewer where it is installed (and starts it
without waiting) or says how to install it where it is not."""

from __future__ import annotations

import sys

import pytest
from gestures import open_as_ada
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

import app.modes.replay.rerun as rerun_part

pytest.importorskip("rerun")
from rerun.chunk import RrdReader  # noqa: E402


@pytest.fixture
def window(qtbot, episode_project, tmp_path):
    w = open_as_ada(qtbot, episode_project, "replay", copy_to=tmp_path)
    yield w
    w.close()


@pytest.fixture
def dialogs(monkeypatch, tmp_path):
    """The file dialog answers `out`; message boxes are recorded (and Yes is answered)."""
    seen: dict[str, list] = {"save": [], "info": [], "question": [], "opened": []}
    out = tmp_path / "alpha"  # the suffix is added

    def save(_parent, title, suggested, _filter):
        seen["save"].append((title, suggested))
        return str(out), "Rerun (*.rrd)"

    monkeypatch.setattr(rerun_part.QFileDialog, "getSaveFileName", save)
    monkeypatch.setattr(
        rerun_part.QMessageBox, "information", lambda _p, title, text: seen["info"].append(text)
    )

    def question(_p, title, text):
        seen["question"].append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(rerun_part.QMessageBox, "question", question)
    monkeypatch.setattr(
        rerun_part, "open_in_viewer", lambda viewer, path: seen["opened"].append((viewer, path))
    )
    seen["out"] = [out.with_suffix(".rrd")]
    return seen


def _open_failed_grasp_episode(qtbot, replay):
    replay.episodes.select_row(0)
    qtbot.waitUntil(lambda: replay.view.loaded is not None, timeout=30000)
    assert any(s.name == "grasp" and s.ok is False for s in replay.state.steps)


def _click_export(qtbot, replay):
    toolbar = replay.actions["play"].parent()
    widget = toolbar.widgetForAction(replay.rerun.action)
    assert widget is not None and widget.isVisible()
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def test_export_writes_the_recording_and_opens_the_viewer(qtbot, window, dialogs, monkeypatch):
    monkeypatch.setattr(rerun_part, "viewer_command", lambda: "/opt/rerun/bin/rerun")
    replay = window.mode("replay")
    _open_failed_grasp_episode(qtbot, replay)
    _click_export(qtbot, replay)
    out = dialogs["out"][0]
    qtbot.waitUntil(lambda: bool(dialogs["opened"]), timeout=60000)
    assert dialogs["opened"] == [("/opt/rerun/bin/rerun", out)]
    assert dialogs["save"][0][1].endswith(".rrd")
    assert str(out) in dialogs["question"][0]
    episode = replay.state.episode
    paths = {c.entity_path for c in RrdReader(out).stream()}
    assert f"/episodes/{episode.uid}/world/grasp/planned" in paths
    steps = [
        c for c in RrdReader(out).stream() if c.entity_path == f"/episodes/{episode.uid}/log/calls"
    ]
    assert sum(c.num_rows for c in steps) == len(replay.state.steps)
    assert "Rerun viewer" in window.mode("replay").mode.statusBar().currentMessage()


def test_without_the_viewer_it_says_how_to_install_it(qtbot, window, dialogs, monkeypatch):
    monkeypatch.setattr(rerun_part, "viewer_command", lambda: None)
    replay = window.mode("replay")
    _open_failed_grasp_episode(qtbot, replay)
    _click_export(qtbot, replay)
    qtbot.waitUntil(lambda: bool(dialogs["info"]), timeout=60000)
    assert dialogs["out"][0].exists() and not dialogs["opened"] and not dialogs["question"]
    assert "pip install 'reasonscope[rerun]'" in dialogs["info"][0]


def test_without_rerun_sdk_nothing_is_asked_and_the_pip_line_is_shown(
    qtbot, window, dialogs, monkeypatch
):
    monkeypatch.setitem(sys.modules, "rerun", None)
    replay = window.mode("replay")
    _open_failed_grasp_episode(qtbot, replay)
    _click_export(qtbot, replay)
    assert dialogs["info"] and "pip install 'reasonscope[rerun]'" in dialogs["info"][0]
    assert not dialogs["save"] and not dialogs["out"][0].exists()
