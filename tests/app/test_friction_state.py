"""State bugs a day's work ran into (issue 17), each driven as the person hit it."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from app.main_window import MainWindow
from widgets.signin import SignInDialog


@pytest.fixture
def make_window(qtbot):
    made = []

    def make() -> MainWindow:
        w = MainWindow()
        qtbot.addWidget(w)
        w.show()
        qtbot.waitExposed(w)
        made.append(w)
        return w

    yield make
    for w in made:
        w.close()


def _open_dialogs() -> list[SignInDialog]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, SignInDialog) and
            w.isVisible()]  # fmt: skip


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
