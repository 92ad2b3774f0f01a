"""Verify's scene-graph dock: the question's scene or frames, its evidence highlighted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import SignalInstance

from annotation.scene_graph import SceneGraph
from app.graph.docks import GraphDock
from app.graph.sources import JrdbGraphs, WorldGraphs, graph_camera, window_key
from app.session import ProjectSession
from widgets.mode import ModeWindow
from widgets.verify.jrdb_evidence import JrdbEvidenceView
from widgets.verify.jrdb_evidence_rows import is_jrdb
from widgets.verify.state import VerifyState
from widgets.viewport.view import SceneViewport


class VerifyGraph(GraphDock):
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
