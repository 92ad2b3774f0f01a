"""Rendering replay views off the GUI thread: the agent's image at a step, a grasp's points.

The renderer owns an `EpisodeReplay` on a world of its own (the viewport's
world stays on the GUI thread), renders one request at a time in a
`TaskRunner`, and keeps only the newest request while one runs: stepping
fast through an episode never builds a queue. A replaced replay's world is
closed once no render uses it.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QWidget

from sim.render import RenderedView
from sim.tabletop.replay import EpisodeReplay, GraspInspection
from widgets.tasks import TaskRunner


@dataclass(frozen=True)
class RenderRequest:
    generation: int  # which replay (episode) it is for
    index: int
    before: bool  # the state before the step (what its tool saw) instead of after


@dataclass(frozen=True)
class RenderedStep:
    request: RenderRequest
    view: RenderedView | None
    inspection: GraspInspection | None


def render_step(replay: EpisodeReplay, request: RenderRequest) -> RenderedStep:
    """The work of one request (runs in the worker thread)."""
    view = replay.view(request.index, before=request.before)
    return RenderedStep(request, view, replay.inspect(request.index))


class StepRenderer(QObject):
    rendered = Signal(object)  # RenderedStep, for the current replay only
    failed = Signal(str)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.parent_widget = parent
        self.replay: EpisodeReplay | None = None
        self.generation = 0
        self.task: TaskRunner | None = None
        self.pending: RenderRequest | None = None
        self.retired: list[EpisodeReplay] = []

    @property
    def busy(self) -> bool:
        return self.task is not None or self.pending is not None

    def set_replay(self, replay: EpisodeReplay | None) -> None:
        """Render from this replay from now on; the previous one's world is closed."""
        if self.replay is not None:
            self.retired.append(self.replay)
        self.replay = replay
        self.generation += 1
        self.pending = None
        self._close_retired()

    def request(self, index: int, before: bool = False) -> None:
        if self.replay is None:
            return
        self.pending = RenderRequest(self.generation, index, before)
        if self.task is None:
            self._start()

    def _start(self) -> None:
        request, self.pending = self.pending, None
        replay = self.replay
        if request is None or replay is None:
            return
        self.task = TaskRunner(
            f"Rendering step {request.index}",
            lambda _p: render_step(replay, request),
            self.parent_widget,
            show_dialog=False,
        )
        self.task.succeeded.connect(self._done)
        self.task.failed.connect(self._failed)
        self.task.finished.connect(self._finished)
        self.task.start()

    @Slot(object)
    def _done(self, result: RenderedStep) -> None:
        if result.request.generation == self.generation and self.pending is None:
            self.rendered.emit(result)

    @Slot(str, str)
    def _failed(self, summary: str, _details: str) -> None:
        self.failed.emit(summary)

    @Slot()
    def _finished(self) -> None:
        self.task = None
        self._close_retired()
        if self.pending is not None:
            self._start()

    def _close_retired(self) -> None:
        if self.task is not None:
            return  # a render may still be using one of them
        for replay in self.retired:
            replay.world.close()
        self.retired = []

    def shutdown(self) -> None:
        self.pending = None
        if self.task is not None:
            self.task.shutdown()
            self.task = None
        self.set_replay(None)
