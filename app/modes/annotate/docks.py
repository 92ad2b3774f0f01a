"""Where the Annotate HOI docks go: labelling panels beside the entity list, and the
window's shared docks once it has added them."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QWidget

from widgets.mode import ModeWindow

RIGHT = Qt.DockWidgetArea.RightDockWidgetArea


def arrange_docks(mode: ModeWindow) -> None:
    """Once the main window has added Project and Activity: Activity waits behind Relations,
    Project starts hidden (View ▸ Project shows it); the image gets the window's width."""
    docks = mode.docks
    if "activity" in docks:
        mode.removeDockWidget(docks["activity"])
        mode.addDockWidget(RIGHT, docks["activity"])
        docks["activity"].show()
        mode.tabifyDockWidget(docks["relations"], docks["activity"])
    for name in ("hoi_labels", "hoi_review", "box"):  # one tab group: two draw a stray bar
        if name in docks:
            mode.tabifyDockWidget(docks["relations"], docks[name])
    docks.get("hoi_labels", docks["relations"]).raise_()
    if "project" in docks:
        docks["project"].hide()
    right = [docks["entities"], docks["relations"]]
    mode.resizeDocks(right, [400, 400], Qt.Orientation.Horizontal)
    mode.resizeDocks(right, [250, 330], Qt.Orientation.Vertical)
    mode.resizeDocks([docks["frame"]], [200], Qt.Orientation.Vertical)


def add_label_panels(
    mode: ModeWindow, panels: Iterable[tuple[str, str, QWidget]], area: Qt.DockWidgetArea = RIGHT
) -> list[QDockWidget]:
    """Dock labelling panels, given as (name, title, widget), beside the entity list.

    They share the mode's `JrdbViewState` (the frame, the selection, `picking`);
    the first one is raised in front of the relations. Returns the docks.
    """
    docks = [mode.add_dock(name, title, widget, area) for name, title, widget in panels]
    if docks and area == RIGHT:
        mode.tabifyDockWidget(mode.docks["relations"], docks[0])
        for dock in docks[1:]:
            mode.tabifyDockWidget(docks[0], dock)
        docks[0].raise_()
    return docks
