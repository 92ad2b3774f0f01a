"""Modes are built on first use: the window opens with its opening mode only, builds each
other one the first time a person chooses it (behind a busy page), keeps it, and a mode
built late shows the project that is already open."""

from __future__ import annotations

import pytest
from gestures import open_mode, press_shortcut, shown_window, switch_mode, wait_for_mode
from PySide6.QtCore import Qt

from annotation.progress import Progress
from app import settings as app_settings
from app.main_window import MainWindow
from app.modes import MODES
from widgets.busy import OpeningPage

KEYS = [spec.key for spec in MODES]


@pytest.fixture
def window(qtbot):
    w = shown_window(qtbot)
    yield w
    w.close()


def test_a_new_window_builds_no_mode_until_it_is_shown(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    assert window.mode_windows == {} and window.controllers == {}
    assert window.current_mode == "explore"
    assert isinstance(window.stack.currentWidget(), OpeningPage)
    assert window.stack.currentWidget().text() == "Opening Explore scenes…"
    window.show()
    wait_for_mode(qtbot, window, "explore")
    assert list(window.mode_windows) == ["explore"]  # the others wait to be chosen
    window.close()


def test_a_mode_opens_behind_its_busy_page_once_and_later_switches_reuse_it(qtbot, window):
    wait_for_mode(qtbot, window, "explore")
    switch_mode(qtbot, window, 3)  # Ctrl+3: Verify questions, never built
    assert window.current_mode == "verify" and window.mode_actions["verify"].isChecked()
    page = window.stack.currentWidget()
    if not window.is_built("verify"):  # a fast machine may be done before we look
        assert isinstance(page, OpeningPage) and page.text() == "Opening Verify questions…"
    wait_for_mode(qtbot, window, "verify")
    assert window.opening_pages == {}  # its place went to the mode itself
    verify, verify_window = window.mode("verify"), window.mode_windows["verify"]
    assert set(window.mode_windows) == {"explore", "verify"}
    switch_mode(qtbot, window, 1)
    assert window.stack.currentWidget() is window.mode_windows["explore"]  # at once
    switch_mode(qtbot, window, 3)
    assert window.stack.currentWidget() is verify_window  # at once, the same one
    assert window.mode("verify") is verify and set(window.mode_windows) == {"explore", "verify"}
    assert window.stack.count() == 2


def test_choosing_another_mode_while_one_opens_builds_only_the_chosen_one(qtbot, window):
    wait_for_mode(qtbot, window, "explore")
    switch_mode(qtbot, window, 5)  # Results ...
    switch_mode(qtbot, window, 6)  # ... then at once Human study
    wait_for_mode(qtbot, window, "study")
    qtbot.wait(200)
    assert window.current_mode == "study"
    assert window.stack.currentWidget() is window.mode_windows["study"]
    if not window.is_built("results"):  # unless it was built before the second key
        open_mode(qtbot, window, "results")  # chosen again: built now
    assert window.stack.currentWidget() is window.mode_windows["results"]


def test_asking_for_a_mode_builds_it_and_it_keeps_its_saved_layout(qtbot, make_window):
    first = make_window()
    open_mode(qtbot, first, "replay")
    first.mode_window("replay").docks["activity"].show()
    qtbot.wait(100)
    first.close()  # saves the mode and the layouts of the modes built
    again = make_window()
    wait_for_mode(qtbot, again, "replay")  # reopens in the mode it closed in
    assert again.mode_window("replay").docks["activity"].isVisible()
    assert not again.is_built("verify")
    verify = again.mode("verify")  # a script asks: built now, without a busy page
    assert again.is_built("verify") and again.mode_window("verify") is verify.mode
    assert again.current_mode == "replay"


def test_every_mode_built_late_shows_the_open_project_and_answers_its_keys(qtbot, window, tmp_path):
    """The demo project opens in Explore; each other mode is then chosen with its
    shortcut for the first time, comes up with the project's data and takes its keys."""
    from app.demo import build_demo
    from store import open_project

    path = tmp_path / "demo.reasonscope"
    build_demo(path, Progress())
    app_settings.remember_annotator("Ada (annotator)")
    assert window.open_path(path)
    wait_for_mode(qtbot, window, "explore")
    project = window.session.project
    assert [k for k in KEYS if window.is_built(k)] == ["explore"]

    explore = window.mode("explore")
    assert [s.id for s in explore.state.scenes] == [s.id for s in project.scenes.list()]
    press_shortcut(qtbot, window, Qt.Key.Key_O)  # the oblique camera
    assert explore.viewport.camera_preset == "oblique"

    open_mode(qtbot, window, "annotate")
    annotate = window.mode("annotate")
    assert annotate.sequence_box.count() == len(project.sequences.list()) >= 1
    assert annotate.state.frame is not None and annotate.state.frame_index == 0
    press_shortcut(qtbot, window, Qt.Key.Key_PageDown)
    assert annotate.state.frame_index == 1

    open_mode(qtbot, window, "verify")
    verify, ada = window.mode("verify"), window.session.annotator
    queue = project.verifications.queue(ada)
    assert [q.id for q in verify.state.questions] == [q.id for q in queue] and queue
    assert verify.state.current is not None
    assert not verify.actions["c1"].isChecked()
    press_shortcut(qtbot, window, Qt.Key.Key_1)
    assert verify.actions["c1"].isChecked() and verify.state.draft.unambiguous

    open_mode(qtbot, window, "replay")
    replay = window.mode("replay")
    assert replay.episodes.model.rowCount() == len(project.episodes.ids()) >= 1

    open_mode(qtbot, window, "results")
    results = window.mode("results")
    assert results.metrics is not None
    assert results.metrics["episodes"]["n"] == len(project.episodes.ids())

    open_mode(qtbot, window, "study")
    study = window.mode("study")
    question = study.state.current
    assert question is not None and question.text in study.panel.text.text()
    press_shortcut(qtbot, window, Qt.Key.Key_3)  # rate it 3
    with open_project(path) as reader:  # stored, as a second program reads it
        ratings = reader.reasoning.ratings(annotator=ada)
    assert [(r.question_id, r.rating) for r in ratings] == [(question.id, 3)]

    assert set(window.mode_windows) == set(KEYS)
    built = {key: window.mode(key) for key in KEYS}
    for i, key in enumerate(KEYS, start=1):  # every later switch: the same mode, at once
        switch_mode(qtbot, window, i)
        assert window.stack.currentWidget() is window.mode_windows[key]
        assert window.mode(key) is built[key]
