"""Annotate HOI's scene-graph dock: the current frame's graph, as labels change."""

from __future__ import annotations

from PySide6.QtCore import SignalInstance

from app.graph.docks import GraphDock
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
        s = state
        for signal in (s.sequence_changed, s.boxes_changed, session.data_changed):
            signal.connect(self.schedule)
        s.frame_changed.connect(lambda _i: self.schedule())
        labels_changed.connect(self.schedule)  # an HOI label saved or undone
        s.selection_changed.connect(self._select)
        self.view.entity_clicked.connect(self._clicked)

    def show_current(self) -> None:
        project, s = self.session.project, self.state
        if project is None or s.sequence is None or s.frame is None:
            self.view.clear("No frame.")
            return
        self.view.set_graph(graph_for_window(project, s.sequence.id, [s.frame.id]))
        self._select(s.selected)

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
