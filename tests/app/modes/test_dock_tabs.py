"""Dock tabs at 1280 x 860, as a person sees them: every tab shows its whole label (docks
stacked as tabs take short names), hovering a tab shows the dock's full title, and a dock
that stands alone, or the View menu, names it in full."""

from __future__ import annotations

import pytest
from gestures import shown_window
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QCursor, QHelpEvent
from PySide6.QtWidgets import QApplication, QStyle, QTabBar, QToolTip

from app.modes import MODES

ANNOTATE_TITLES = {
    "Relations",
    "Scene graph",
    "Question generator",
    "Activity",
    "HOI labels",
    "HOI review",
    "Box",
}


@pytest.fixture
def window(qtbot):
    w = shown_window(qtbot)
    yield w
    w.close()


def dock_tab_bars(mode) -> list[QTabBar]:
    """The tab bars of the mode's docks that are on screen (Qt keeps spare ones about)."""
    return [
        bar
        for bar in mode.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
        if bar.isVisible() and mode.childAt(bar.geometry().center()) is bar
    ]


def whole_width(bar: QTabBar, index: int) -> int:
    """How wide the tab must be to show its text unelided (Qt's own size hint)."""
    space = bar.style().pixelMetric(QStyle.PixelMetric.PM_TabBarTabHSpace, None, bar)
    return bar.fontMetrics().horizontalAdvance(bar.tabText(index)) + space


def shown_tabs(qtbot, window, key: str) -> dict[str, tuple[QTabBar, int]]:
    window.set_mode(key)
    qtbot.wait(50)  # the labels follow the layout a moment later
    return {
        bar.tabText(i): (bar, i)
        for bar in dock_tab_bars(window.mode_window(key))
        for i in range(bar.count())
    }


def test_every_dock_tab_shows_its_whole_label_with_the_full_title_as_tooltip(qtbot, window):
    for spec in MODES:
        tabs = shown_tabs(qtbot, window, spec.key)
        titles = {
            dock.toggleViewAction().text() for dock in window.mode_window(spec.key).docks.values()
        }
        for text, (bar, i) in tabs.items():
            assert bar.tabRect(i).width() >= whole_width(bar, i), f"{spec.key}: {text} is cut"
            assert bar.tabToolTip(i) in titles, f"{spec.key}: {text}"
    tabs = shown_tabs(qtbot, window, "annotate")
    assert {bar.tabToolTip(i) for bar, i in tabs.values()} == ANNOTATE_TITLES  # seven, told apart
    bar, i = tabs["HOI"]
    assert bar.tabToolTip(i) == "HOI labels"
    assert tabs["Graph"][0].tabToolTip(tabs["Graph"][1]) == "Scene graph"


def test_hovering_a_tab_shows_the_full_title(qtbot, window):
    bar, i = shown_tabs(qtbot, window, "annotate")["Review"]
    window.activateWindow()  # tooltips show in the active window (no window manager here)
    with qtbot.waitActive(window):
        pass
    bar.setTabToolTip(i, "Review")  # what Qt gives a tab it makes anew, e.g. after a drag
    centre = bar.tabRect(i).center()
    QCursor.setPos(bar.mapToGlobal(centre))
    QApplication.sendEvent(bar, QHelpEvent(QEvent.Type.ToolTip, centre, bar.mapToGlobal(centre)))
    assert bar.tabToolTip(i) == "HOI review"
    qtbot.waitUntil(QToolTip.isVisible)
    assert QToolTip.text() == "HOI review"
    QToolTip.hideText()


def test_a_dock_on_its_own_and_the_view_menu_use_the_full_title(qtbot, window):
    shown_tabs(qtbot, window, "annotate")
    dock = window.mode_window("annotate").docks["graph"]
    assert dock.windowTitle() == "Graph"
    window.view_menu.aboutToShow.emit()
    entries = {a.text() for a in window.view_menu.actions()}
    assert {"Scene graph", "HOI labels", "Question generator"} <= entries
    dock.setFloating(True)
    qtbot.waitUntil(lambda: dock.windowTitle() == "Scene graph")
    dock.setFloating(False)  # back into its tab stack
    qtbot.waitUntil(lambda: dock.windowTitle() == "Graph")
    assert dock.toggleViewAction().text() == "Scene graph"


def test_a_title_the_mode_changes_is_kept(qtbot, window):
    shown_tabs(qtbot, window, "verify")
    dock = window.mode_window("verify").docks["image"]
    assert dock.windowTitle() == "Model view"  # tabbed with Project
    dock.setWindowTitle("Model view (oblique)")  # as Replay retitles its image dock
    qtbot.wait(50)
    assert dock.windowTitle() == "Model view"
    window.mode_window("verify").docks["project"].hide()  # alone now: the new full title
    qtbot.waitUntil(lambda: dock.windowTitle() == "Model view (oblique)")
