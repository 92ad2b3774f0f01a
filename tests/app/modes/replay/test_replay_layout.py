"""Replay's panels at the window's usual size and after a restart: the Episodes list shows
a useful number of rows, and a restored layout keeps the right column readable."""

from __future__ import annotations

import pytest
from gestures import open_as_ada
from PySide6.QtCore import QByteArray, Qt

from app import settings as app_settings
from app.main_window import MainWindow
from app.modes.replay.mode import RIGHT_COLUMN_MIN_WIDTH

RIGHT = ("step", "labels", "resim", "graph")


@pytest.fixture
def window(qtbot, episode_project, tmp_path):
    w = open_as_ada(qtbot, episode_project, "replay", copy_to=tmp_path)
    yield w
    if w.isVisible():
        w.close()


def _rows(window) -> float:
    table = window.mode("replay").episodes.view
    return table.viewport().height() / table.verticalHeader().defaultSectionSize()


def _restart(qtbot, window):
    path = window.session.path
    window.close()  # saves the geometry and every mode's layout
    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    qtbot.waitExposed(again)
    assert again.open_path(path)
    again.set_mode("replay")
    qtbot.wait(50)
    return again


def _check_usable(window) -> None:
    mode = window.mode_window("replay")
    assert _rows(window) >= 8
    for key in RIGHT:
        assert mode.docks[key].width() >= RIGHT_COLUMN_MIN_WIDTH, key
    assert mode.docks["cloud"] in mode.tabifiedDockWidgets(mode.docks["image"])


def test_the_episodes_list_shows_eight_rows_and_more(qtbot, window):
    assert (window.width(), window.height()) == (1280, 860)
    _check_usable(window)
    right = window.mode_window("replay").docks["step"].width()
    again = _restart(qtbot, window)
    _check_usable(again)
    # the restored right column is the one that was saved, not narrower
    assert again.mode_window("replay").docks["step"].width() >= right - 2
    again.close()


def test_a_layout_saved_by_an_older_build_is_not_restored(qtbot, window):
    """Layouts of version 1 put the Grasp points under the Model view and left the list
    three rows; such a layout (here: made so, squeezing the right column) is dropped."""
    mode = window.mode_window("replay")
    left = Qt.DockWidgetArea.LeftDockWidgetArea
    mode.addDockWidget(left, mode.docks["cloud"])  # below the Model view again
    for key in RIGHT:
        mode.docks[key].setMinimumWidth(0)
    mode.resizeDocks([mode.docks["step"]], [200], Qt.Orientation.Horizontal)
    old, path = mode.saveState(1), window.session.path
    window.close()
    app_settings.settings().setValue("modes/replay/state", QByteArray(old))
    again = MainWindow()
    qtbot.addWidget(again)
    again.resize(1280, 860)
    again.show()
    qtbot.waitExposed(again)
    assert again.open_path(path)
    again.set_mode("replay")
    qtbot.wait(50)
    _check_usable(again)
    again.close()


def test_a_layout_of_this_build_is_restored_as_it_was(qtbot, window):
    """A person's own arrangement comes back (the Grasp points beside the list)."""
    mode = window.mode_window("replay")
    mode.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, mode.docks["cloud"])
    again = _restart(qtbot, window)
    restored = again.mode_window("replay")
    assert restored.docks["cloud"] not in restored.tabifiedDockWidgets(restored.docks["image"])
    for key in RIGHT:
        assert restored.docks[key].width() >= RIGHT_COLUMN_MIN_WIDTH
    again.close()
