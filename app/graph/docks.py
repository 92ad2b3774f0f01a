"""The live scene-graph dock of each mode, and what keeps it up to date.

`install_graph_dock` adds a `SceneGraphView` as the "Scene graph" dock of a
mode, tabbed behind one of its right-hand docks (the window keeps its size;
the dock that was in front stays in front). One small controller per mode
(`ExploreGraph`, `AnnotateGraph`, `VerifyGraph`, `ReplayGraph`) keeps the view
current and ties its selection to the mode's; what each shows and when it
updates: docs/scene-graphs.md, "Live scene-graph view".

The graphs come from `app.graph.sources`: `WorldGraphs` (simulator graphs, off the
GUI thread on a private copy of the scene's world) and `JrdbGraphs` (a JRDB question's
frames, off the GUI thread too). A dock not on screen does no work; it catches up when
shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, SignalInstance, Slot

from annotation.scene_graph import SceneGraph
from app.graph.sources import JrdbGraphs, WorldGraphs, graph_camera, window_key
from app.jobs.scene_graphs import graph_for_window
from app.session import ProjectSession
from sim.tabletop.replay import acted_body, state_at
from store import ProjectError
from widgets.explore.state import ExploreState
from widgets.graph.view import SceneGraphView
from widgets.jrdb.state import JrdbViewState
from widgets.mode import ModeWindow
from widgets.replay.state import ReplayState
from widgets.verify.jrdb_evidence import JrdbEvidenceView
from widgets.verify.jrdb_evidence_rows import is_jrdb
from widgets.verify.state import VerifyState
from widgets.viewport.view import SceneViewport

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


class _GraphDock(QObject):
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


class ExploreGraph(_GraphDock):
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


class AnnotateGraph(_GraphDock):
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


class VerifyGraph(_GraphDock):
    """Verify: the question's restored scene, or a JRDB question's frames; its evidence
    highlighted (a JRDB question's picked step, when one is picked)."""

    def __init__(
        self,
        mode: ModeWindow,
        state: VerifyState,
        session: ProjectSession,
        evidence: JrdbEvidenceView,
        evidence_highlight: Callable[[], list[str]],
        evidence_changed: SignalInstance,
        viewport: SceneViewport,
        world_bodies: Callable[[], Any],
    ) -> None:
        super().__init__(mode, "question")
        self.state, self.session = state, session
        self.evidence, self.evidence_highlight = evidence, evidence_highlight  # a JRDB question's
        self.viewport = viewport
        self.world_bodies = world_bodies  # the bodies of the restored scene's world (or ())
        self.scene_id: int | None = None
        self.window: tuple | None = None  # the JRDB graph wanted: (path, sequence, frames)
        self.graphs = WorldGraphs(self)
        self.graphs.ready.connect(self._ready)
        self.graphs.failed.connect(self._failed)
        self.jrdb = JrdbGraphs(self)
        self.jrdb.ready.connect(self._ready)
        self.jrdb.failed.connect(self._failed)
        state.question_opened.connect(self.schedule)
        session.data_changed.connect(self.jrdb.forget)
        session.data_changed.connect(self.schedule)  # labels may have been edited
        evidence_changed.connect(self._highlight)
        evidence.entity_clicked.connect(self.view.select)  # a box: its node
        self.view.entity_clicked.connect(self._clicked)
        self.view.clear("No question open.")

    def show_current(self) -> None:
        q, scene = self.state.current, self.state.scene
        project = self.session.project
        if scene is None and is_jrdb(q) and project is not None:
            self.scene_id = None
            frames = (q.criteria or {}).get("frame_ids") or []
            if not frames:
                self.window = None
                self.view.clear("This question names no frames.")
                return
            self.window = window_key(project.path, q.sequence_id, frames)
            self.jrdb.request(self.window)  # `_ready` at once when kept
            return
        self.window = None
        if scene is None:
            self.scene_id = None
            self.view.clear("No question open." if q is None else "This question has no scene.")
            return
        if scene.id != self.scene_id:
            self.scene_id = scene.id
            records = [b.as_record() for b in scene.bodies]
            self.graphs.set_scene(records, scene.state, graph_camera(scene.camera))
            self.graphs.request(scene.id)
        else:
            self._highlight()

    def _ready(self, tag, graph: SceneGraph) -> None:
        if tag == (self.window if self.window is not None else self.scene_id):
            self.view.set_graph(graph)
            self._highlight()

    def _failed(self, text: str) -> None:
        self.scene_id = None  # try again when the question is opened again
        self.view.clear(f"No scene graph: {text}")

    def _highlight(self) -> None:
        q = self.state.current
        if is_jrdb(q):
            self.view.highlight(self.evidence_highlight())
        else:
            self.view.highlight(q.evidence_ids if q is not None else ())

    def _clicked(self, key: str) -> None:
        if is_jrdb(self.state.current):
            self.evidence.select_entity(key)  # ring its box in the panorama
        elif key in self.world_bodies():
            self.viewport.select(key)

    def shutdown(self) -> None:
        super().shutdown()
        self.graphs.shutdown()
        self.jrdb.shutdown()


class ReplayGraph(_GraphDock):
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
