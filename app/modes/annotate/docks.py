"""Where the Annotate HOI docks go: labelling panels beside the entity list, and the
window's shared docks once it has added them."""

from __future__ import annotations

from PySide6.QtCore import Qt

from widgets.dock_tabs import short_tabs
from widgets.mode import DockLayout, ModeWindow

RIGHT = Qt.DockWidgetArea.RightDockWidgetArea


def arrange_docks(mode: ModeWindow) -> None:
    """Once the main window has added Project and Activity: Activity waits behind Relations,
    Project starts hidden (View ▸ Project shows it); the image gets the window's width."""
    docks = mode.docks
    # a dock under the cloud (the cuboid views) takes the cloud's width only: the side
    # columns keep their height, and the window never grows to fit both
    mode.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
    mode.setCorner(Qt.Corner.BottomRightCorner, RIGHT)
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


LAYOUT = DockLayout(activity_hidden=False, arrange=short_tabs(arrange_docks))
