"""Explore's scene-graph dock: the open scene's graph, live while physics steps."""

from __future__ import annotations

from PySide6.QtCore import QTimer

from annotation.scene_graph import SceneGraph
from app.graph.docks import LIVE_REFRESH_MS, GraphDock
from app.graph.sources import WorldGraphs, graph_camera
from widgets.explore.state import ExploreState
from widgets.mode import ModeWindow
from widgets.viewport.view import SceneViewport


class ExploreGraph(GraphDock):
    """Explore: the open scene's graph, live while physics steps; clicks select bodies."""

    def __init__(self, mode: ModeWindow, state: ExploreState, viewport: SceneViewport) -> None:
        super().__init__(mode, "image")
        self.state = state
        self.graphs = WorldGraphs(self)
        self.live = QTimer(self, interval=LIVE_REFRESH_MS)
        self.live.timeout.connect(self.schedule)
        self.graphs.ready.connect(self._ready)
        self.graphs.failed.connect(lambda text: self.view.clear(f"No scene graph: {text}"))
        state.scene_opened.connect(self._scene_opened)
        state.selection_changed.connect(self.view.select)
        viewport.live_changed.connect(self._live_changed)
        self.view.entity_clicked.connect(self._clicked)
        self.view.clear("No scene open.")

    def _scene_opened(self) -> None:
        loaded = self.state.loaded
        if loaded is None:
            self.graphs.clear()
            self.view.clear("No scene open.")
            return
        scene = loaded.scene
        records = [b.as_record() for b in scene.bodies]
        self.graphs.set_scene(records, scene.state, graph_camera(scene.camera))
        self.schedule()

    def show_current(self) -> None:
        loaded = self.state.loaded
        if loaded is None:
            return
        with loaded.world.lock:  # as it is now: live physics may have moved things
            state = loaded.world.capture_state()
        self.graphs.request("explore", state)

    def _live_changed(self, live: bool) -> None:
        if live:
            self.live.start()
        else:
            self.live.stop()
            self.schedule()  # where it came to rest

    def _ready(self, _tag, graph: SceneGraph) -> None:
        self.view.set_graph(graph)
        self.view.select(self.state.selected)

    def _clicked(self, key: str) -> None:
        loaded = self.state.loaded
        if loaded is not None and key in loaded.world.bodies:
            self.state.select(key)

    def shutdown(self) -> None:
        super().shutdown()
        self.live.stop()
        self.graphs.shutdown()
