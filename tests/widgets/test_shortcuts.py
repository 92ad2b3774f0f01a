"""The shortcut sheet: the current mode's keys first under a heading naming it, then the
menus, then the other modes; typing in the filter box keeps the rows whose action or keys
match."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QAction, QKeySequence

from widgets.shortcuts import ShortcutSheet, sections, shortcut_rows


@pytest.fixture
def rows(qapp):
    def action(text, *keys):
        a = QAction(text)
        a.setShortcuts([QKeySequence(k) for k in keys])
        return a

    actions = [
        ("File", action("&Open project…", "Ctrl+O")),
        ("Help", action("&Keyboard shortcuts", "F1")),
        ("Mode", action("Annotate HOI", "Ctrl+2")),
        ("Annotate HOI", action("Next frame", "PgDown")),
        ("Annotate HOI", action("Undo label", "Ctrl+Z")),
        ("Annotate HOI", action("No key here")),
        ("Replay episodes", action("Play", "Space")),
        ("Replay episodes", action("Next step", "Right")),
    ]
    return shortcut_rows(actions)


def headings_and_actions(sheet):
    shown = []
    for r, row in enumerate(sheet.rows):
        if sheet.table.isRowHidden(r):
            continue
        shown.append(sheet.table.item(r, 0).text() if row is None else row.action)
    return shown


def test_the_current_mode_comes_first_under_its_name(qtbot, rows):
    sheet = ShortcutSheet(rows, current="Annotate HOI")
    qtbot.addWidget(sheet)
    assert headings_and_actions(sheet) == [
        "Annotate HOI (this mode)",
        "Next frame",
        "Undo label",
        "Menus, in every mode",
        "Open project…",
        "Annotate HOI",
        "Keyboard shortcuts",
        "Replay episodes",
        "Play",
        "Next step",
    ]
    # a mode's rows need not repeat its name; a menu's say which menu
    first = sheet.rows.index(rows[3])
    assert sheet.table.item(first, 0).text() == "" and sheet.table.item(first, 2).text()
    menu_row = sheet.rows.index(rows[0])
    assert sheet.table.item(menu_row, 0).text() == "File"
    assert sheet.table.rowSpan(0, 0) == 1 and sheet.table.columnSpan(0, 0) == 3


def test_another_mode_first_and_a_mode_without_keys(qtbot, rows):
    order = [heading for heading, _group, _rows in sections(rows, "Replay episodes")]
    assert order == ["Replay episodes (this mode)", "Menus, in every mode", "Annotate HOI"]
    sheet = ShortcutSheet(rows, current="Results")
    qtbot.addWidget(sheet)
    assert sheet.visible_headings()[0] == "Results: no keys of its own"
    qtbot.keyClicks(sheet.filter, "play")
    assert sheet.visible_headings() == ["Replay episodes"]


def test_typing_filters_by_action_or_key(qtbot, rows):
    sheet = ShortcutSheet(rows, current="Annotate HOI")
    qtbot.addWidget(sheet)
    sheet.show()
    assert sheet.filter.hasFocus() or sheet.focusWidget() is sheet.filter
    qtbot.keyClicks(sheet.filter, "ctrl+z")
    assert headings_and_actions(sheet) == ["Annotate HOI (this mode)", "Undo label"]
    sheet.filter.clear()
    qtbot.keyClicks(sheet.filter, "NEXT")  # any case; two modes match
    assert headings_and_actions(sheet) == [
        "Annotate HOI (this mode)",
        "Next frame",
        "Replay episodes",
        "Next step",
    ]
    assert not sheet.no_match.isVisible()
    sheet.filter.clear()
    qtbot.keyClicks(sheet.filter, "xyz")
    assert headings_and_actions(sheet) == []
    assert sheet.no_match.isVisible() and "xyz" in sheet.no_match.text()
    sheet.filter.clear()
    assert len(sheet.visible_rows()) == len(rows) and not sheet.no_match.isVisible()
