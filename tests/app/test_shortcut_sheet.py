"""F1 in the main window: the sheet opens on the keys of the mode on screen, lists every
key of the window (View ▸ Reload project's F5 too) and filters as one types."""

from __future__ import annotations

import pytest
from gestures import press_shortcut, shown_window, switch_mode
from PySide6.QtCore import Qt


@pytest.fixture
def window(qtbot):
    w = shown_window(qtbot)
    yield w
    w.close()


def open_sheet(qtbot, window):
    window.shortcut_sheet = None
    press_shortcut(qtbot, window, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: window.shortcut_sheet is not None and window.shortcut_sheet.isVisible())
    return window.shortcut_sheet


def test_f1_opens_on_the_current_modes_keys_then_the_rest(qtbot, window):
    switch_mode(qtbot, window, 4)  # Replay episodes
    sheet = open_sheet(qtbot, window)
    headings = sheet.visible_headings()
    assert headings[:2] == ["Replay episodes (this mode)", "Menus, in every mode"]
    assert set(headings[2:]) >= {"Explore scenes", "Annotate HOI", "Verify questions"}
    first = sheet.visible_rows()[0]
    assert first.group == "Replay episodes"
    keys = {row.keys for row in sheet.visible_rows()}
    assert {"F1", "F5", "Ctrl+1", "Ctrl+Shift+U"} <= keys
    sheet.close()
    switch_mode(qtbot, window, 5)  # Results has no keys of its own: it still says so first
    sheet = open_sheet(qtbot, window)
    assert sheet.visible_headings()[:2] == ["Results: no keys of its own", "Menus, in every mode"]
    sheet.close()


def test_typing_in_the_sheet_filters_its_rows(qtbot, window):
    switch_mode(qtbot, window, 2)  # Annotate HOI
    sheet = open_sheet(qtbot, window)
    assert sheet.focusWidget() is sheet.filter  # type at once
    qtbot.keyClicks(sheet.filter, "reload")
    assert [(r.action, r.keys) for r in sheet.visible_rows()] == [("Reload project", "F5")]
    assert sheet.visible_headings() == ["Menus, in every mode"]
    sheet.filter.clear()
    qtbot.keyClicks(sheet.filter, "ctrl+1")
    assert {r.action for r in sheet.visible_rows()} == {"Explore scenes"}
    sheet.close()
