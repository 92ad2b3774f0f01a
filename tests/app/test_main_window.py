"""The main window driven as a person would: shortcuts, dialogs, menus."""

from __future__ import annotations

from pathlib import Path

import pytest
from gestures import (
    dismiss_message,
    open_demo_and_wait,
    open_mode,
    press_shortcut,
    sign_in_with_dialog,
    switch_mode,
)
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app import settings as app_settings
from app.main_window import MainWindow
from app.modes import MODES
from app.paths import demo_project_path
from store import open_project
from widgets.signin import SignInDialog


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


def test_first_start_builds_demo_and_asks_who_is_working(qtbot, window):
    assert not demo_project_path().exists()
    open_demo_and_wait(qtbot, window)
    assert window.session.path == demo_project_path()
    sign_in_with_dialog(qtbot, window, "Dana")
    assert window.session.annotator.name == "Dana"
    assert "Dana" in window.annotator_button.text()
    assert app_settings.annotator_name() == "Dana"
    with open_project(demo_project_path()) as project:
        assert "Dana" in [a.name for a in project.annotators.list()]
        assert project.audit.recent(1)[0].annotator == "Dana"


def test_remembered_annotator_is_signed_in_and_can_switch(qtbot, window):
    app_settings.remember_annotator("Eve")
    open_demo_and_wait(qtbot, window)
    assert window.session.annotator.name == "Eve"
    press_shortcut(
        qtbot,
        window,
        Qt.Key.Key_U,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    sign_in_with_dialog(qtbot, window, "Frank")
    assert window.session.annotator.name == "Frank"
    assert app_settings.annotator_name() == "Frank"


def test_mode_shortcuts_switch_modes(qtbot, window):
    for i, spec in enumerate(MODES, start=1):
        switch_mode(qtbot, window, i)
        assert window.current_mode == spec.key
        assert window.mode_actions[spec.key].isChecked()


def test_empty_states_report_the_projects_real_contents(qtbot, window, tmp_path):
    path = tmp_path / "p.reasonscope"
    with open_project(path, create=True) as project:
        project.questions.add(
            {"benchmark": "mgvqa", "task": "count", "text": "How many mugs?", "answer": 2}
        )
    app_settings.remember_annotator("Gil")
    assert window.open_path(path)
    open_mode(qtbot, window, "verify")
    status = window.empty_states["verify"].status_label.text()
    assert "1 question (1 pending)" in status
    assert window.summary_views["verify"].value_labels["questions"].text().startswith("1")


def test_layout_and_mode_persist_across_restarts(qtbot, window):
    window.set_mode("verify")
    window.mode_window("verify").docks["activity"].hide()
    window.close()
    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    qtbot.waitExposed(again)
    assert again.current_mode == "verify"
    assert not again.mode_window("verify").docks["activity"].isVisible()
    assert (
        again.mode_window("annotate").docks["activity"].isVisibleTo(again.mode_window("annotate"))
    )
    again.reset_layout()
    assert again.mode_window("verify").docks["activity"].isVisible()
    again.close()


@pytest.mark.parametrize(
    "content", [b"not a database at all", b"SQLite format 3\x00" + b"\x07" * 200]
)
def test_opening_a_bad_file_says_why_and_changes_nothing(qtbot, window, tmp_path, content):
    good = tmp_path / "good.reasonscope"
    open_project(good, create=True).close()
    assert window.open_path(good)
    bad = tmp_path / "bad.reasonscope"
    bad.write_bytes(content)
    assert not window.open_path(bad)
    text = dismiss_message(qtbot, window)
    assert str(bad) in text and "\n" not in text
    assert bad.read_bytes() == content
    assert window.session.path == good


def test_new_project_and_recent_menu(qtbot, window, tmp_path, monkeypatch):
    target = tmp_path / "fresh.reasonscope"
    monkeypatch.setattr(
        "app.main_window.QFileDialog.getSaveFileName", lambda *a, **k: (str(target), "")
    )
    app_settings.remember_annotator("Hana")
    window.new_action.trigger()
    assert window.session.path == target
    assert target.exists()
    window.recent_menu.aboutToShow.emit()
    texts = [a.text() for a in window.recent_menu.actions()]
    assert str(target) in texts


def test_shortcut_sheet_lists_every_action_with_a_shortcut(qtbot, window):
    press_shortcut(qtbot, window, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: getattr(window, "shortcut_sheet", None) is not None)
    model = window.shortcut_sheet.table.model()
    listed = {model.index(r, 1).data() for r in range(model.rowCount())}
    expected = {a.text().replace("&", "") for a in window.actions() if not a.shortcut().isEmpty()}
    assert expected and expected <= listed
    keys = {model.index(r, 2).data() for r in range(model.rowCount())}
    assert {"Ctrl+1", "F1", "Ctrl+Shift+U"} <= keys
    window.shortcut_sheet.close()


def test_sign_in_dialog_refuses_an_empty_name(qtbot, window, tmp_path):
    window.open_path(Path(tmp_path / "x.reasonscope"), create=True)
    qtbot.waitUntil(lambda: window.sign_in_dialog is not None and window.sign_in_dialog.isVisible())
    from PySide6.QtWidgets import QDialogButtonBox

    dialog = window.sign_in_dialog
    dialog.combo.lineEdit().setText("   ")
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()
    dialog.combo.lineEdit().setText("Ivy")
    assert dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()
    dialog.reject()


def _open_dialogs() -> list[SignInDialog]:
    return [
        w for w in QApplication.topLevelWidgets() if isinstance(w, SignInDialog) and w.isVisible()
    ]


def test_one_who_is_working_dialog_after_a_cancelled_first_sign_in(qtbot, make_window, tmp_path):
    project = tmp_path / "fresh.reasonscope"
    first = make_window()
    first.open_path(project, create=True)
    qtbot.waitUntil(lambda: len(_open_dialogs()) == 1)
    _open_dialogs()[0].reject()  # cancel: nobody signed in
    first.close()
    # start again: the project opens, then opens again when the demo-style completion ends
    second = make_window()
    second.open_path(project)
    second.open_path(project)
    qtbot.wait(50)
    second.request_sign_in()  # and the person clicks "Sign in" meanwhile
    qtbot.wait(50)
    dialogs = _open_dialogs()
    assert len(dialogs) == 1
    dialogs[0].combo.lineEdit().setText("Ivy")
    dialogs[0].accept()
    assert second.session.annotator.name == "Ivy" and _open_dialogs() == []


def test_the_main_status_bar_has_room_for_messages(qtbot, make_window):
    window = make_window()
    window.resize(1280, 860)
    window.statusBar().showMessage("The project was changed by another program: updated.")
    qtbot.wait(50)
    # the path label no longer stretches over the message area (it took all of it)
    bar = window.statusBar()
    free = bar.width() - window.project_label.width() - window.annotator_button.width()
    assert free > bar.width() // 2


def test_a_mode_never_shown_keeps_a_usable_layout_after_a_restart(qtbot, make_window, tmp_path):
    first = make_window()
    first.resize(1280, 860)
    first.set_mode("explore")  # Verify is never on screen in this session
    qtbot.wait(100)
    first.close()  # saves the layouts
    second = make_window()
    second.resize(1280, 860)
    second.set_mode("verify")
    qtbot.wait(200)
    question = second.mode_window("verify").docks["question"]
    assert question.isVisible() and question.width() >= 300, question.width()
    second.set_mode("explore")
    assert second.mode_window("explore").was_shown and second.mode_window("verify").was_shown
