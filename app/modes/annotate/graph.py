"""Annotate HOI's scene-graph dock: the current frame's graph, as labels change.

While the dock is on screen, the graphs of the frames prepared ahead are read ahead too
(`prepare`, on a worker thread with a read-only connection of its own:
`app.graph.sources.JrdbGraphs`), so that a step to a prepared frame shows its graph at
once instead of reading it on the GUI thread after the debounce. Any change to the
project's data, boxes or labels forgets the graphs read ahead.
"""

from __future__ import annotations

from PySide6.QtCore import SignalInstance

from app.graph.docks import GraphDock
from app.graph.sources import JrdbGraphs, window_key
from app.jobs.scene_graphs import graph_for_window
from app.session import ProjectSession
from widgets.jrdb.state import JrdbViewState
from widgets.mode import ModeWindow


class AnnotateGraph(GraphDock):
    """Annotate HOI: the current frame's JRDB graph; clicks pick entities."""

    def __init__(
        self,
        mode: ModeWindow,
        state: JrdbViewState,
        session: ProjectSession,
        labels_changed: SignalInstance,
    ) -> None:
        super().__init__(mode, "relations")
        self.state, self.session = state, session
        self.ahead = JrdbGraphs(self)  # graphs of the frames prepared ahead
        s = state
        for signal in (s.sequence_changed, s.boxes_changed, session.data_changed):
            signal.connect(self.forget_and_schedule)
        s.frame_changed.connect(lambda _i: self.schedule())
        labels_changed.connect(self.forget_and_schedule)  # an HOI label saved or undone
        s.selection_changed.connect(self._select)
        self.view.entity_clicked.connect(self._clicked)

    def key_of(self, frame_id: int) -> tuple | None:
        project, s = self.session.project, self.state
        if project is None or s.sequence is None:
            return None
        return window_key(project.path, s.sequence.id, [frame_id])

    def prepare(self, frame_id: int) -> None:
        """Read the graph of a frame prepared ahead (its relations stored), if the dock is
        on screen."""
        key = self.key_of(frame_id)
        if key is not None and self.on_screen and key not in self.ahead.cache:
            self.ahead.request(key)

    def forget_and_schedule(self) -> None:
        self.ahead.forget()
        self.schedule()

    def schedule(self) -> None:
        """As the base's, but a graph read ahead is shown at once (no debounce)."""
        frame = self.state.frame
        key = self.key_of(frame.id) if frame is not None else None
        if key is not None and key in self.ahead.cache and self.on_screen:
            self.stale = True
            self.timer.stop()
            self.refresh()
            return
        super().schedule()

    def show_current(self) -> None:
        project, s = self.session.project, self.state
        if project is None or s.sequence is None or s.frame is None:
            self.view.clear("No frame.")
            return
        key = self.key_of(s.frame.id)
        graph = self.ahead.cache.get(key) if key is not None else None
        if graph is None:
            graph = graph_for_window(project, s.sequence.id, [s.frame.id])
        self.view.set_graph(graph)
        self._select(s.selected)

    def shutdown(self) -> None:
        super().shutdown()
        self.ahead.shutdown()

    def graph_id(self, entity_id: int | None) -> str:
        """The graph node of a project entity ("" if it is not in the frame's graph)."""
        for key, e in self.view.graph.entities.items():
            if entity_id is not None and e.attributes.get("entity_id") == entity_id:
                return key
        return ""

    def _select(self, entity_id: int | None) -> None:
        self.view.select(self.graph_id(entity_id))

    def _clicked(self, key: str) -> None:
        entity = self.view.graph.entities.get(key)
        entity_id = entity.attributes.get("entity_id") if entity is not None else None
        if isinstance(entity_id, int):
            self.state.pick(entity_id)
