"""Replay's scene-graph dock: the graph of the state at the step shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from annotation.scene_graph import SceneGraph
from app.graph.docks import GraphDock
from app.graph.sources import WorldGraphs, graph_camera
from app.session import ProjectSession
from sim.tabletop.replay import acted_body, state_at
from store import ProjectError
from widgets.mode import ModeWindow
from widgets.replay.state import ReplayState
from widgets.viewport.view import SceneViewport


class ReplayGraph(GraphDock):
    """Replay: the state after the step shown, on every seek; the acted-on body selected."""

    def __init__(
        self,
        mode: ModeWindow,
        state: ReplayState,
        session: ProjectSession,
        viewport: SceneViewport,
        world_bodies: Callable[[], Any],
    ) -> None:
        super().__init__(mode, "labels")
        self.state, self.session, self.viewport = state, session, viewport
        self.world_bodies = world_bodies  # the bodies of the loaded episode's world (or ())
        self.episode_id: int | None = None
        self.initial: dict | None = None
        self.cache: dict[int, SceneGraph] = {}  # the open episode's graphs by step
        self.graphs = WorldGraphs(self)
        self.graphs.ready.connect(self._ready)
        self.graphs.failed.connect(lambda text: self.view.clear(f"No scene graph: {text}"))
        state.episode_opened.connect(self._episode_opened)
        state.step_changed.connect(lambda _i: self.schedule())
        self.view.entity_clicked.connect(self._clicked)
        self.view.clear("Pick an episode on the left.")

    def _episode_opened(self) -> None:
        episode, project = self.state.episode, self.session.project
        scene = None
        if episode is not None and episode.scene_id is not None and project is not None:
            try:
                scene = project.scenes.get(episode.scene_id)
            except ProjectError:
                scene = None
        self.cache, self.episode_id = {}, episode.id if episode else None
        self.graphs.clear()
        self.view.set_graph(None)
        if episode is None or scene is None:
            self.view.clear(
                "This episode has no stored scene." if episode else "Pick an episode on the left."
            )
            return
        self.initial = scene.state
        camera = graph_camera(scene.camera, episode.header)
        self.graphs.set_scene([b.as_record() for b in scene.bodies], scene.state, camera)
        self.schedule()

    def show_current(self) -> None:
        s = self.state
        if self.graphs.scene is None or not s.step_dicts:
            return
        index = s.index
        if index in self.cache:
            self._show(index)
        else:
            self.graphs.request(
                (self.episode_id, index), state_at(s.step_dicts, index, self.initial)
            )

    def _ready(self, tag, graph: SceneGraph) -> None:
        episode_id, index = tag
        if episode_id != self.episode_id:
            return
        self.cache[index] = graph
        if index == self.state.index:
            self._show(index)

    def _show(self, index: int) -> None:
        self.view.set_graph(self.cache[index])
        try:
            self.view.select(acted_body(self.state.step_dicts, index) or "")
        except (KeyError, IndexError):
            self.view.select("")

    def _clicked(self, key: str) -> None:
        if key in self.world_bodies():
            self.viewport.select(key)

    def shutdown(self) -> None:
        super().shutdown()
        self.graphs.shutdown()
