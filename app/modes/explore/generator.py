"""The question generator in Explore scenes: preview questions about the open simulator scene
and step through their reasoning in the 3D viewport and the Scene graph dock.

`ExploreGenerator` adds the same panel as Annotate HOI's
(`widgets.query.generator_panel.GeneratorPanel`) as a "Question generator" dock of
an `ExploreMode`. The engine runs on the scene's graph as it is now
(`sim.tabletop.graph.graph_from_world`, computed off the GUI thread on a private
copy of the world by `app.graph.sources.WorldGraphs`, so live physics is not
disturbed). A selected step makes its bodies glow in the viewport
(`SceneViewport.set_highlight`) and emphasises them in the Scene graph dock.
A scene is one moment, so video is not offered, and previews are not saved:
tabletop benchmark questions come from `reasonscope questions generate`.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication

from annotation.query.engine import generate
from annotation.query.model import NoQuestion, Preferences
from annotation.scene_graph import SceneGraph
from app.graph.sources import WorldGraphs, graph_camera
from widgets.explore.state import ExploreState
from widgets.graph.view import SceneGraphView
from widgets.mode import ModeWindow
from widgets.query.generator_panel import SIMULATOR_KEYS, GeneratorPanel
from widgets.viewport.view import SceneViewport

RIGHT = Qt.DockWidgetArea.RightDockWidgetArea
TAG = "generator"


class ExploreGenerator(QObject):
    """The generator panel of the Explore mode (see the module docstring)."""

    def __init__(
        self,
        mode: ModeWindow,
        state: ExploreState,
        viewport: SceneViewport,
        graph_view: SceneGraphView | None = None,
    ) -> None:
        super().__init__(mode)
        self.mode, self.state, self.viewport, self.graph_view = mode, state, viewport, graph_view
        self.panel = GeneratorPanel()
        self.panel.set_saving(False)
        self.panel.offer("modality", "video", False, "A simulator scene is one moment")
        self.panel.offer_keys(SIMULATOR_KEYS)
        self.panel.subject.setCurrentIndex(self.panel.subject.findData("object"))
        self.dock = self.mode.add_dock("generator", "Question generator", self.panel, RIGHT)
        beside = self.mode.docks.get("graph") or self.mode.docks.get("image")
        if beside is not None:
            self.mode.tabifyDockWidget(beside, self.dock)
        self.graphs = WorldGraphs(self)
        self.wanted: tuple[Preferences, int] | None = None
        self.graph: SceneGraph | None = None
        self.keys: list[str] = []  # the selected step's bodies
        self.in_view = False
        self.panel.generate_requested.connect(self.generate)
        self.panel.step_selected.connect(self.show_step)
        self.graphs.ready.connect(self._graph_ready)
        self.graphs.failed.connect(lambda text: self.panel.show_message(f"No scene graph: {text}"))
        self.dock.visibilityChanged.connect(self._in_view)
        state.scene_opened.connect(self._scene_opened)
        self._scene_opened()
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)

    def _scene_opened(self) -> None:
        loaded = self.state.loaded
        self.graph, self.wanted, self.keys = None, None, []
        self._apply()
        if loaded is None:
            self.graphs.clear()
            self.panel.show_message("Open a scene to generate questions about it.", warn=False)
            return
        scene = loaded.scene
        records = [b.as_record() for b in scene.bodies]
        self.graphs.set_scene(records, scene.state, graph_camera(scene.camera))
        self.panel.show_message(f"Scene {scene.name}: press Generate.", warn=False)

    def generate(self, prefs: Preferences, seed: int) -> None:
        """Preview a question about the scene as it is now (the world may have moved)."""
        loaded = self.state.loaded
        if loaded is None:
            self.panel.show_message("Open a scene first.")
            return
        with loaded.world.lock:
            state = loaded.world.capture_state()
        self.wanted = (prefs, seed)
        self.keys = []
        self._apply()
        self.panel.show_busy("Reading the scene graph…")
        self.graphs.request(TAG, state)

    def _graph_ready(self, tag, graph: SceneGraph) -> None:
        if tag != TAG or self.wanted is None:
            return
        (prefs, seed), self.wanted = self.wanted, None
        self.graph = graph
        context = f"scene {self.state.loaded.scene.name}"
        try:
            question = generate(graph, prefs, seed)
        except NoQuestion as exc:
            self.panel.show_message(f"No question: {exc}.", context=context)
            return
        names = {key: e.label for key, e in graph.entities.items()}
        self.panel.show_question(question, context=context, names=names)

    def show_step(self, keys: list[str], _slot: int) -> None:
        self.keys = list(keys)
        self._apply()
        index = self.panel.step_index
        question = self.panel.question
        if index is not None and question is not None and self.graph is not None:
            names = ", ".join(
                self.graph.entities[k].label for k in keys if k in self.graph.entities
            )
            self.mode.statusBar().showMessage(
                f"Step {index + 1} of {len(question.steps)}: {question.steps[index].description}"
                f" — {names}",
                8000,
            )

    def _in_view(self, visible: bool) -> None:
        self.in_view = visible
        self._apply()

    def _apply(self) -> None:
        keys = self.keys if self.in_view else []
        viewport = self.viewport
        if viewport.world is not None:
            viewport.set_highlight([k for k in keys if viewport.items_for(k)])
        if self.graph_view is not None:
            self.graph_view.highlight(keys)

    def raise_dock(self) -> None:
        self.dock.show()
        self.dock.raise_()

    def shutdown(self) -> None:
        self.wanted = None
        self.graphs.shutdown()
