"""Where the graph docks' scene graphs come from, computed off the GUI thread.

- `WorldGraphs`: simulator graphs of one stored scene's states. They render the
  scene (visibility), so each is computed on a private copy of the scene's world
  restored to the state wanted: the worlds the viewports draw are never touched
  from another thread. Visibility is measured `GRAPH_IMAGE_PX` wide (about 0.1 s a
  graph).
- `JrdbGraphs`: the JRDB graph of a window of frames (`graph_for_window`), read
  through a read-only connection of the worker's own; the last few are kept until
  the project's data change.

Both: the newest request wins, and results for an older one are dropped.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from annotation.scene_graph import SceneGraph
from app.jobs.scene_graphs import graph_for_window
from sim.camera import CameraSpec
from sim.tabletop.graph import graph_from_world
from sim.tabletop.replay import episode_camera
from sim.tabletop.scenes import world_from_records
from store import open_project
from widgets.tasks import TaskRunner

log = logging.getLogger(__name__)

GRAPH_IMAGE_PX = 256  # width of the render that measures visibility for the graph
CACHED_WINDOWS = 8  # JRDB graphs kept


def graph_camera(scene_camera: dict | None, header: dict | None = None) -> CameraSpec:
    """The scene's (or episode's) camera at `GRAPH_IMAGE_PX` wide, same aspect."""
    camera = episode_camera(scene_camera, header)
    height = max(1, round(camera.height * GRAPH_IMAGE_PX / camera.width))
    return camera.with_size(GRAPH_IMAGE_PX, height)


class WorldGraphs(QObject):
    """Scene graphs of one stored scene's states, computed one at a time off the GUI thread
    on a private world; the newest request wins. Emits `ready(tag, graph)`."""

    ready = Signal(object, object)
    failed = Signal(str)

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.task: TaskRunner | None = None
        self.pending: tuple[int, Any, dict | None] | None = None
        self.generation = 0
        self.scene: tuple[list[dict], dict | None, CameraSpec] | None = None
        self._world: dict[str, Any] = {"generation": None, "world": None}  # used by one task

    def set_scene(self, records: list[dict], state: dict | None, camera: CameraSpec) -> None:
        """Another scene: results for the last one are dropped."""
        self.generation += 1
        self.scene = (records, state, camera)
        self.pending = None

    def clear(self) -> None:
        """No scene: nothing more is computed until the next `set_scene`."""
        self.generation += 1
        self.scene = self.pending = None

    def request(self, tag: Any, state: dict | None = None) -> None:
        """The graph of the scene in `state` (None: the scene's own state)."""
        if self.scene is None:
            return
        self.pending = (self.generation, tag, state)
        if self.task is None:
            self._start()

    def _start(self) -> None:
        generation, tag, state = self.pending
        self.pending = None
        (records, initial, camera), holder = self.scene, self._world

        def work(_progress):
            if holder["generation"] != generation:
                if holder["world"] is not None:
                    holder["world"].close()
                holder["world"], holder["generation"] = None, None
                holder["world"] = world_from_records(records, initial)
                holder["generation"] = generation
            world = holder["world"]
            wanted = state if state is not None else initial
            if wanted is not None:
                world.restore_state(wanted)
            return generation, tag, graph_from_world(world, camera)

        self.task = TaskRunner("Scene graph", work, self.parent(), show_dialog=False)
        self.task.succeeded.connect(self._succeeded)
        self.task.failed.connect(self._failed)
        self.task.finished.connect(self._finished)
        self.task.start()

    @Slot(object)
    def _succeeded(self, result) -> None:
        generation, tag, graph = result
        if generation == self.generation:
            self.ready.emit(tag, graph)

    @Slot(str, str)
    def _failed(self, summary: str, details: str) -> None:
        log.warning("scene graph not computed: %s\n%s", summary, details)
        self.failed.emit(summary)

    @Slot()
    def _finished(self) -> None:
        self.task = None
        if self.pending is not None and self.pending[0] == self.generation:
            self._start()

    def shutdown(self) -> None:
        """Wait for the running graph, then close the private world."""
        self.generation += 1  # a result still on its way is dropped
        self.pending = None
        if self.task is not None:
            self.task.shutdown()
            self.task = None
        if self._world["world"] is not None:
            self._world["world"].close()
            self._world.update(world=None, generation=None)


def window_key(path: Path | str, sequence_id: int, frame_ids: Sequence[int]) -> tuple:
    """How `JrdbGraphs` names a window: (project path, sequence id, frame ids)."""
    return (str(path), int(sequence_id), tuple(int(f) for f in frame_ids))


def read_window_graph(path: Path | str, sequence_id: int, frame_ids: Sequence[int]) -> SceneGraph:
    """The JRDB graph of a window of frames, through a read-only connection of its own (so
    it may run on a worker thread)."""
    with open_project(path, readonly=True) as project:
        return graph_for_window(project, sequence_id, list(frame_ids))


class JrdbGraphs(QObject):
    """JRDB graphs of frame windows, one at a time off the GUI thread; the newest request
    wins. Emits `ready(key, graph)` with the window's `window_key`."""

    ready = Signal(object, object)
    failed = Signal(str)

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.task: TaskRunner | None = None
        self.pending: tuple | None = None
        self.wanted: tuple | None = None
        self.cache: OrderedDict[tuple, SceneGraph] = OrderedDict()

    def request(self, key: tuple) -> None:
        """The graph of a window (`window_key`): at once when kept, else when computed."""
        self.wanted = key
        if key in self.cache:
            self.cache.move_to_end(key)
            self.ready.emit(key, self.cache[key])
            return
        self.pending = key
        if self.task is None:
            self._start()

    def forget(self) -> None:
        """The project's data changed: read the graphs again next time."""
        self.cache.clear()

    def _start(self) -> None:
        key, self.pending = self.pending, None
        path, sequence_id, frame_ids = key
        self.task = TaskRunner(
            "Scene graph",
            lambda _p: (key, read_window_graph(path, sequence_id, frame_ids)),
            self.parent(),
            show_dialog=False,
        )
        self.task.succeeded.connect(self._succeeded)
        self.task.failed.connect(self._failed)
        self.task.finished.connect(self._finished)
        self.task.start()

    @Slot(object)
    def _succeeded(self, result) -> None:
        key, graph = result
        self.cache[key] = graph
        while len(self.cache) > CACHED_WINDOWS:
            self.cache.popitem(last=False)
        if key == self.wanted:
            self.ready.emit(key, graph)

    @Slot(str, str)
    def _failed(self, summary: str, details: str) -> None:
        log.warning("JRDB scene graph not read: %s\n%s", summary, details)
        self.failed.emit(summary)

    @Slot()
    def _finished(self) -> None:
        self.task = None
        if self.pending is not None:
            self._start()

    def shutdown(self) -> None:
        self.pending = self.wanted = None
        if self.task is not None:
            self.task.shutdown()
            self.task = None
