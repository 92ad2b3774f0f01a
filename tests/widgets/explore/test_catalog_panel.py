"""The scene editor's catalog panel: search, pick, add; pictures arriving later."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon

from sim.tabletop.catalog import catalog_by_name
from widgets.explore.catalog_panel import CatalogPanel

NAMES = ("red mug", "blue mug", "rubber duck", "soccer ball", "red toy brick", "tennis ball")


@pytest.fixture
def panel(qtbot):
    by_name = catalog_by_name()
    panel = CatalogPanel([by_name[n] for n in NAMES])
    qtbot.addWidget(panel)
    panel.resize(320, 500)
    panel.show()
    qtbot.waitExposed(panel)
    panel.activateWindow()
    panel.search.setFocus()
    return panel


def _type(qtbot, panel, text):
    panel.search.clear()
    qtbot.keyClicks(panel.search, text)


def test_typing_filters_by_name_and_category_in_any_case(qtbot, panel):
    assert panel.visible_names() == list(NAMES)
    assert panel.count_label.text() == "6 objects"
    _type(qtbot, panel, "MUG")
    assert panel.visible_names() == ["red mug", "blue mug"]
    assert panel.count_label.text() == "2 of 6"
    _type(qtbot, panel, "sports")  # the category
    assert panel.visible_names() == ["soccer ball", "tennis ball"]
    _type(qtbot, panel, "toy red")  # every word, in any order
    assert panel.visible_names() == ["red toy brick"]
    _type(qtbot, panel, "zebra")
    assert panel.visible_names() == [] and panel.count_label.text() == "No match"
    qtbot.keyClick(panel.search, Qt.Key.Key_Escape)
    assert panel.search.text() == "" and len(panel.visible_names()) == 6


def test_enter_in_the_search_box_adds_the_best_match(qtbot, panel):
    panel.set_editing(True)
    _type(qtbot, panel, "duck")
    assert panel.selected_name() == "rubber duck"
    with qtbot.waitSignal(panel.add_requested) as signal:
        qtbot.keyClick(panel.search, Qt.Key.Key_Return)
    assert signal.args == ["rubber duck"]


def test_down_moves_into_the_list_and_enter_there_adds(qtbot, panel):
    panel.set_editing(True)
    _type(qtbot, panel, "ball")
    qtbot.keyClick(panel.search, Qt.Key.Key_Down)
    qtbot.waitUntil(panel.view.hasFocus)
    assert panel.selected_name() == "soccer ball"
    qtbot.keyClick(panel.view, Qt.Key.Key_Down)
    assert panel.selected_name() == "tennis ball"
    with qtbot.waitSignal(panel.add_requested) as signal:
        qtbot.keyClick(panel.view, Qt.Key.Key_Enter)
    assert signal.args == ["tennis ball"]
    qtbot.keyClick(panel.view, Qt.Key.Key_Up)
    qtbot.keyClick(panel.view, Qt.Key.Key_Up)  # up from the first row: back to the box
    qtbot.waitUntil(panel.search.hasFocus)


def test_a_selection_survives_a_search_that_still_shows_it(qtbot, panel):
    assert panel.select_name("blue mug")
    _type(qtbot, panel, "mug")
    assert panel.selected_name() == "blue mug"
    _type(qtbot, panel, "ball")  # filtered out: the first match instead
    assert panel.selected_name() == "soccer ball"
    assert not panel.select_name("red mug")  # hidden by the search


def test_adding_needs_editing_and_a_selection(qtbot, panel):
    assert not panel.add_button.isEnabled()
    assert panel.select_name("red mug")
    assert not panel.add_button.isEnabled()  # not editing
    with qtbot.assertNotEmitted(panel.add_requested):
        qtbot.keyClick(panel.search, Qt.Key.Key_Return)
        qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    panel.set_editing(True)
    assert panel.add_button.isEnabled()
    with qtbot.waitSignal(panel.add_requested) as signal:
        qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    assert signal.args == ["red mug"]
    panel.view.selectionModel().clear()
    assert not panel.add_button.isEnabled()
    panel.set_editing(False)
    assert panel.select_name("red mug") and not panel.add_button.isEnabled()


def test_double_click_adds(qtbot, panel):
    panel.set_editing(True)
    index = panel.proxy.index(NAMES.index("soccer ball"), 0)
    rect = panel.view.visualRect(index)
    viewport, pos = panel.view.viewport(), rect.center()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=pos)  # a double click's first press
    assert panel.selected_name() == "soccer ball"
    with qtbot.waitSignal(panel.add_requested) as signal:
        qtbot.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=pos)
    assert signal.args == ["soccer ball"]


def test_pictures_arrive_later_and_stay_with_their_entry(qtbot, panel):
    row = NAMES.index("rubber duck")
    index = panel.model.index(row)
    assert index.data(Qt.ItemDataRole.DecorationRole) is None  # the list works without them
    picture = np.full((96, 96, 3), 200, np.uint8)
    picture[30:60, 30:60] = (250, 210, 0)
    with qtbot.waitSignal(panel.model.dataChanged):
        panel.set_thumbnail("rubber duck", picture)
    icon = index.data(Qt.ItemDataRole.DecorationRole)
    assert isinstance(icon, QIcon) and not icon.isNull()
    image = icon.pixmap(96, 96).toImage()
    assert image.pixelColor(45, 45).getRgb()[:3] == (250, 210, 0)
    panel.set_thumbnail("no such object", picture)  # ignored
    panel.grab()  # paints with and without pictures
    # a new entry list keeps the pictures of the entries still in it
    by_name = catalog_by_name()
    panel.set_entries([by_name["soccer ball"], by_name["rubber duck"]])
    assert panel.model.index(0).data(Qt.ItemDataRole.DecorationRole) is None
    assert isinstance(panel.model.index(1).data(Qt.ItemDataRole.DecorationRole), QIcon)
    assert panel.count_label.text() == "2 objects"
