"""The live scene-graph dock of each mode, and what keeps it up to date.

`install_graph_dock` adds a `SceneGraphView` as the "Scene graph" dock of a
mode, tabbed behind one of its right-hand docks (the window keeps its size;
the dock that was in front stays in front). `GraphDock` is the base of the
small controller each mode keeps in its own `graph.py` (`app.modes.explore.graph`,
...), which keeps the view current and ties its selection to the mode's; what each shows and when it
updates: docs/scene-graphs.md, "Live scene-graph view".

The graphs come from `app.graph.sources`: `WorldGraphs` (simulator graphs, off the
GUI thread on a private copy of the scene's world) and `JrdbGraphs` (a JRDB question's
frames, off the GUI thread too). A dock not on screen does no work; it catches up when
shown.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Slot

from widgets.graph.view import SceneGraphView
from widgets.mode import ModeWindow

LIVE_REFRESH_MS = 400  # while live physics runs: at most this often
DEBOUNCE_MS = 80  # a burst of changes (keys held down) becomes one refresh
RIGHT = Qt.DockWidgetArea.RightDockWidgetArea


def install_graph_dock(mode: ModeWindow, beside: str, title: str = "Scene graph") -> SceneGraphView:
    """Add the scene-graph dock to `mode`, tabbed behind its dock `beside` (kept in front)."""
    view = SceneGraphView()
    dock = mode.add_dock("graph", title, view, RIGHT)
    if beside in mode.docks:
        mode.tabifyDockWidget(mode.docks[beside], dock)
        mode.docks[beside].raise_()
    return view


class GraphDock(QObject):
    """A mode's graph dock: refreshes when asked, but only while the view is on screen
    (a dock tabbed behind another stays "visible" in Qt's sense, moved out of sight)."""

    def __init__(self, mode: ModeWindow, beside: str) -> None:
        super().__init__(mode)
        self.view = install_graph_dock(mode, beside)
        self.stale = True
        self.timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self.timer.timeout.connect(self.refresh)
        self.view.installEventFilter(self)
        mode.docks["graph"].visibilityChanged.connect(self._dock_shown)

    @property
    def on_screen(self) -> bool:
        return self.view.isVisible() and not self.view.visibleRegion().isEmpty()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.view and event.type() == QEvent.Type.Show and self.stale:
            self.timer.start()  # the mode was shown: look again once it is laid out
        return False

    @Slot(bool)
    def _dock_shown(self, visible: bool) -> None:
        if visible and self.stale:
            self.timer.start()

    @Slot()
    def schedule(self) -> None:
        """Something the graph shows changed: refresh soon (or once the view is shown)."""
        self.stale = True
        if self.view.isVisible():
            self.timer.start()

    @Slot()
    def refresh(self) -> None:
        if self.on_screen:
            self.stale = False
            self.show_current()

    def show_current(self) -> None:  # each mode's own
        raise NotImplementedError

    def shutdown(self) -> None:
        self.timer.stop()
