"""The shortcut sheet: the current mode's keys first under a heading naming it, then the
menus, then the other modes; typing in the filter box keeps the rows whose action or keys
match."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QBrush, QColor, QKeySequence

from widgets.shortcuts import (
    HEADING,
    ShortcutSheet,
    ShortcutTableModel,
    sections,
    sheet_lines,
    shortcut_rows,
)


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


def _text(sheet, row, column):
    return sheet.table.model().index(row, column).data()


def headings_and_actions(sheet):
    shown = []
    for r, row in enumerate(sheet.rows):
        if sheet.table.isRowHidden(r):
            continue
        shown.append(_text(sheet, r, 0) if row is None else row.action)
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
    assert _text(sheet, first, 0) == "" and _text(sheet, first, 2)
    menu_row = sheet.rows.index(rows[0])
    assert _text(sheet, menu_row, 0) == "File"
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


def test_the_sheet_model_shows_headings_and_rows(qtmodeltester, rows):
    shade = QBrush(QColor(240, 240, 240))
    model = ShortcutTableModel(sheet_lines(rows, "Annotate HOI"), shade)
    qtmodeltester.check(model)
    heads = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(3)]
    assert heads == ["Where", "Action", "Keys"] and model.rowCount() == 10
    texts = [[model.index(r, c).data() for c in range(3)] for r in range(4)]
    assert texts == [
        ["Annotate HOI (this mode)", "", ""],
        ["", "Next frame", rows[3].keys],
        ["", "Undo label", rows[4].keys],
        ["Menus, in every mode", "", ""],
    ]
    assert [model.index(4, c).data() for c in range(3)] == ["File", "Open project…", "Ctrl+O"]
    role = Qt.ItemDataRole
    heading, row = model.index(0, 0), model.index(1, 0)
    assert heading.data(role.UserRole) == HEADING and row.data(role.UserRole) is None
    assert all(model.index(0, c).data(role.BackgroundRole) == shade for c in range(3))
    assert row.data(role.BackgroundRole) is None
    assert heading.data(role.FontRole).bold() and model.index(0, 1).data(role.FontRole) is None
    assert row.data(role.FontRole) is None
    assert [line.size for line in model.lines if line.row is None] == [2, 3, 2]
