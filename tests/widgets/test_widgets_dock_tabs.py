"""Short tab labels for docks that share a tab stack, on a small mode window of its own
(tests/app/modes/test_dock_tabs.py checks every real mode in the whole window): the full
title comes back when a dock stands alone or floats, and stays the tooltip and the View
menu's entry."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTabBar

from widgets.dock_tabs import TAB_LABELS, DockTabLabels, short_tabs
from widgets.mode import ModeWindow

RIGHT = Qt.DockWidgetArea.RightDockWidgetArea
TITLES = {"graph": "Scene graph", "activity": "Activity", "relations": "Relations"}


def make_mode(qtbot) -> ModeWindow:
    mode = ModeWindow("annotate", "Annotate HOI", QLabel("the panorama"))
    qtbot.addWidget(mode)
    for name, title in TITLES.items():
        mode.add_dock(name, title, QLabel(title), RIGHT)
    mode.resize(900, 600)
    mode.show()
    qtbot.waitExposed(mode)
    return mode


def tab_texts(mode: ModeWindow) -> dict[str, str]:
    """Each shown dock tab's text and tooltip."""
    return {
        bar.tabText(i): bar.tabToolTip(i)
        for bar in mode.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
        if bar.isVisible()
        for i in range(bar.count())
    }


@pytest.fixture
def mode(qtbot):
    m = make_mode(qtbot)
    m.tabifyDockWidget(m.docks["relations"], m.docks["graph"])
    m.tabifyDockWidget(m.docks["relations"], m.docks["activity"])
    DockTabLabels(m, {"graph": "Graph", "activity": "Log", "missing": "Nope"})
    qtbot.wait(20)
    return m


def test_tabbed_docks_take_their_short_labels_with_full_tooltips(mode):
    assert mode.findChild(DockTabLabels).labels == {
        "graph": "Graph",
        "activity": "Log",
    }  # only its own docks
    assert mode.docks["graph"].windowTitle() == "Graph"
    assert mode.docks["activity"].windowTitle() == "Log"
    assert mode.docks["relations"].windowTitle() == "Relations"  # it has no short label
    assert tab_texts(mode) == {"Relations": "Relations", "Graph": "Scene graph", "Log": "Activity"}
    assert mode.docks["graph"].toggleViewAction().text() == "Scene graph"  # the View menu


def test_a_dock_that_floats_or_stands_alone_has_its_full_title(qtbot, mode):
    graph, activity = mode.docks["graph"], mode.docks["activity"]
    graph.setFloating(True)
    qtbot.waitUntil(lambda: graph.windowTitle() == "Scene graph")
    graph.setFloating(False)
    qtbot.waitUntil(lambda: graph.windowTitle() == "Graph")
    mode.removeDockWidget(activity)
    mode.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, activity)
    activity.show()
    qtbot.waitUntil(lambda: activity.windowTitle() == "Activity")
    graph.hide()  # closed: its View menu entry and a later show use the full title
    qtbot.waitUntil(lambda: graph.windowTitle() == "Scene graph")


def test_a_title_the_mode_gives_a_tabbed_dock_is_kept_for_later(qtbot, mode):
    graph = mode.docks["graph"]
    graph.setWindowTitle("Scene graph (step 4)")
    qtbot.wait(20)
    assert graph.windowTitle() == "Graph"  # still tabbed: the short label
    assert tab_texts(mode)["Graph"] == "Scene graph (step 4)"
    assert graph.toggleViewAction().text() == "Scene graph (step 4)"
    graph.setFloating(True)
    qtbot.waitUntil(lambda: graph.windowTitle() == "Scene graph (step 4)")


def test_short_tabs_arranges_first_then_labels_the_tabs(qtbot):
    mode = make_mode(qtbot)
    arranged = []

    def arrange(m: ModeWindow) -> None:
        arranged.append(m)
        m.tabifyDockWidget(m.docks["relations"], m.docks["graph"])

    short_tabs(arrange)(mode)
    qtbot.wait(20)
    assert arranged == [mode]
    assert mode.docks["graph"].windowTitle() == TAB_LABELS["graph"] == "Graph"
    assert mode.docks["activity"].windowTitle() == "Activity"  # not tabbed: its full title
    labels = mode.findChild(DockTabLabels)
    assert labels is not None and set(labels.labels) == {"graph", "activity"}
