"""The question generator in Annotate HOI: a dock that previews JRDB-Reasoning questions for
the current frame, steps through their reasoning in every view, and saves candidates.

`GeneratorDock` adds the "Question generator" dock
(`widgets.query.generator_panel.GeneratorPanel`) beside the Relations dock of the
Annotate HOI mode and wires it, from the parts it is handed:

- Generate: the current frame (image) or the `DEFAULT_WINDOW` frames ending
  at it (video) are read into a scene graph (`app.jobs.reasoning.load_window`,
  which computes missing relations first) and the engine runs on it, both off
  the GUI thread; the graph of a window is kept until the project's data change.
  The engine's `NoQuestion` is shown in the panel.
- A selected step highlights its entities in the panorama and the cloud (the
  rest dimmed) and in the scene-graph view; a video question's step in another
  time slot moves the frame there. Highlights show only while the dock is in
  view and the frame is the step's.
- Save: `question_record` stored with `project.questions.add` as a pending
  question, so it enters the two-verifier flow of Verify questions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication

from annotation.query.engine import generate
from annotation.query.model import GeneratedQuestion, NoQuestion, Preferences
from app.jobs.reasoning import DEFAULT_WINDOW, FrameWindow, load_window, question_record
from app.session import ProjectSession
from store import open_project
from widgets.graph.view import SceneGraphView
from widgets.jrdb.cloud_view import CloudView
from widgets.jrdb.panorama import PanoramaView
from widgets.jrdb.state import JrdbViewState
from widgets.mode import ModeWindow
from widgets.query.generator_panel import GeneratorPanel
from widgets.tasks import TaskRunner

RIGHT = Qt.DockWidgetArea.RightDockWidgetArea
VERTICAL = Qt.Orientation.Vertical
CACHED_WINDOWS = 8  # scene graphs of frame windows kept for generating again
SAVED = "Saved as a candidate question; it is now in Verify questions."


@dataclass
class Preview:
    """What one Generate produced: the window's graph and a question, or why there is none."""

    window: FrameWindow
    question: GeneratedQuestion | None
    problem: str | None = None
    computed: bool = False  # relations were computed (and stored) for the window first


def preview_question(
    path: Path | str,
    sequence_id: int,
    frame_ids: list[int],
    prefs: Preferences,
    seed: int,
    window: FrameWindow | None = None,
) -> Preview:
    """Read the frames' graph (unless `window` is given) and run the engine once.

    Opens its own project connection, so it may run on a worker thread.
    """
    computed = False
    if window is None:
        with open_project(path) as project:
            computed = any(not project.sequences.relations(f) for f in frame_ids)
            window = load_window(project, sequence_id, frame_ids)
    try:
        question = generate(window.graph, prefs, seed, index=window.index)
    except NoQuestion as exc:
        hint = "Try other preferences, another frame or (video) a later frame."
        return Preview(window, None, f"No question: {exc}. {hint}", computed)
    return Preview(window, question, None, computed)


def window_frames(frame_ids: list[int], current: int, prefs: Preferences) -> list[int]:
    """The frames a question is asked about: this one (image) or the window ending at it."""
    if prefs.modality == "image":
        return [frame_ids[current]]
    return frame_ids[max(0, current - DEFAULT_WINDOW + 1) : current + 1]


class GeneratorDock(QObject):
    """The generator panel of one Annotate HOI mode (see the module docstring)."""

    def __init__(
        self,
        mode: ModeWindow,
        state: JrdbViewState,
        session: ProjectSession,
        panorama: PanoramaView,
        cloud: CloudView,
        graph_view: SceneGraphView,
    ) -> None:
        super().__init__(mode)
        self.mode, self.state, self.session = mode, state, session
        self.panorama, self.cloud, self.graph_view = panorama, cloud, graph_view
        self.panel = GeneratorPanel()
        self.dock = self.mode.add_dock("generator", "Question generator", self.panel, RIGHT)
        self.mode.tabifyDockWidget(self.mode.docks["relations"], self.dock)
        self.windows: dict[tuple, FrameWindow] = {}
        self.window: FrameWindow | None = None  # the frames of the shown question
        self.question: GeneratedQuestion | None = None
        self.step: tuple[list[int], list[str], int] | None = None  # row ids, keys, frame id
        self.task: TaskRunner | None = None
        self.task_key: tuple | None = None
        self.task_prefs: Preferences | None = None
        self.pending: tuple[Preferences, int] | None = None  # asked for while a task ran
        self.panel.generate_requested.connect(self.generate)
        self.panel.step_selected.connect(self.show_step)
        self.panel.save_requested.connect(self.save)
        self.in_view = False  # the dock's tab is the one shown (it starts behind Relations)
        self.sized = False  # given more of the column's height (once, when first shown)
        self.dock.visibilityChanged.connect(self._in_view)
        self.state.frame_changed.connect(lambda _i: self._apply())
        self.state.sequence_changed.connect(self._forget_question)
        self.session.project_changed.connect(self._forget_question)
        self.session.data_changed.connect(self._data_changed)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)

    # -- generating ----------------------------------------------------------------------------
    def generate(self, prefs: Preferences, seed: int) -> None:
        """Preview a question for the current frame (or window); the newest request wins."""
        project, sequence, frame = self.session.project, self.state.sequence, self.state.frame
        if project is None or sequence is None or frame is None:
            self.panel.show_message("Open a project with a JRDB sequence first.")
            return
        if self.task is not None:
            self.pending = (prefs, seed)
            return
        frame_ids = window_frames([f.id for f in self.state.frames], self.state.frame_index, prefs)
        key = (str(project.path), sequence.id, tuple(frame_ids))
        cached = self.windows.get(key)
        self._forget_question()
        self.panel.show_busy(
            "Generating…"
            if cached
            else "Reading the scene graph (relations are computed the first time a frame is used)…"
        )
        path, sequence_id = project.path, sequence.id
        self.task_key, self.task_prefs = key, prefs
        self.task = TaskRunner(
            "Generating a question",
            lambda _p: preview_question(path, sequence_id, frame_ids, prefs, seed, cached),
            self.mode,
            show_dialog=False,
        )
        self.task.succeeded.connect(self._previewed)
        self.task.failed.connect(self._failed)
        self.task.finished.connect(self._task_done)
        self.task.start()

    def _previewed(self, preview: Preview) -> None:
        if self.session.project is None or self.task_key[0] != str(self.session.project.path):
            return  # another project was opened meanwhile
        if preview.computed:
            self.session.data_changed.emit()  # the relations panel shows the new relations
        self.windows[self.task_key] = preview.window
        while len(self.windows) > CACHED_WINDOWS:
            self.windows.pop(next(iter(self.windows)))
        if self.pending is not None:
            return  # a newer request runs next
        context = self._context(preview.window, self.task_prefs)
        if preview.question is None:
            self.panel.show_message(preview.problem or "No question.", context=context)
            return
        self.window, self.question = preview.window, preview.question
        names = {
            key: self.state.label(e.attributes.get("entity_id"))
            for key, e in preview.window.graph.entities.items()
        }
        self.panel.show_question(preview.question, context=context, names=names)

    def _failed(self, summary: str, _details: str) -> None:
        self.panel.show_message(f"Could not generate: {summary}")

    def _task_done(self) -> None:
        self.task = None
        if self.pending is not None:
            prefs, seed = self.pending
            self.pending = None
            self.generate(prefs, seed)

    def _context(self, window: FrameWindow, prefs: Preferences) -> str:
        index = {f.id: f.index for f in self.state.frames}
        first, last = index.get(window.frame_ids[0], 0), index.get(window.frame_ids[-1], 0)
        if prefs.modality == "image":
            return f"frame #{last:06d} (image)"
        n = len(window.frame_ids)
        return f"frames #{first:06d}–#{last:06d} (video, {n} frame{'s' if n != 1 else ''})"

    # -- steps ---------------------------------------------------------------------------------
    def show_step(self, keys: list[str], slot: int) -> None:
        """Highlight a step's entities everywhere; go to its frame if it is another one."""
        window = self.window
        if window is None or slot not in window.graph.slots:
            return
        frame_id = window.frame_ids[window.graph.slots.index(slot)]
        entities = window.graph.entities
        rows = [entities[k].attributes.get("entity_id") for k in keys if k in entities]
        self.step = ([r for r in rows if r is not None], list(keys), frame_id)
        if self.state.frame is None or self.state.frame.id != frame_id:
            position = next((i for i, f in enumerate(self.state.frames) if f.id == frame_id), None)
            if position is not None:
                self.state.set_frame(position)  # redraws, then `_apply` through frame_changed
        self._apply()
        index = self.panel.step_index
        if index is not None and self.question is not None:
            step = self.question.steps[index]
            who = ", ".join(self.state.label(r) for r in self.step[0][:6])
            more = "…" if len(self.step[0]) > 6 else ""
            self._message(
                f"Step {index + 1} of {len(self.question.steps)}: {step.description} "
                f"— {len(step.entity_ids)}: {who}{more}"
            )

    def _apply(self) -> None:
        """Show the selected step's highlight, or none (dock out of view, another frame)."""
        step, frame = self.step, self.state.frame
        on = step is not None and frame is not None and frame.id == step[2]
        on = on and self.in_view
        rows = step[0] if on else None
        self.panorama.highlight_entities(rows)
        self.cloud.highlight_entities(rows)
        self.graph_view.highlight(step[1] if on else [])

    def raise_dock(self) -> None:
        """Bring the dock in front of its tab group."""
        self.dock.show()
        self.dock.raise_()

    def _in_view(self, visible: bool) -> None:
        self.in_view = visible
        self._apply()
        if visible and not self.sized:  # the first time: room for the steps
            self.sized = True
            QTimer.singleShot(0, self._make_room)

    def _make_room(self) -> None:
        above = self.mode.docks.get("entities")
        if above is not None and self.mode.dockWidgetArea(above) == RIGHT:
            total = above.height() + self.dock.height()
            self.mode.resizeDocks([above, self.dock], [total // 4, total - total // 4], VERTICAL)

    def _data_changed(self) -> None:
        self.windows.clear()  # boxes, labels or relations may differ: read the graphs again

    def _forget_question(self) -> None:
        """The shown question no longer matches what is open: stop highlighting it."""
        had = self.question is not None
        self.window, self.question, self.step = None, None, None
        self._apply()
        if had:
            self.panel.show_message("Another sequence or project: generate again.", warn=False)

    # -- saving --------------------------------------------------------------------------------
    def save(self) -> None:
        """Store the shown question as a pending candidate for verification."""
        project, q, window = self.session.project, self.question, self.window
        if project is None or q is None or window is None:
            return
        try:
            stored = project.questions.add(question_record(q, window), self.session.annotator)
        except Exception as exc:  # a closed or read-only project: say so, keep the preview
            self._message(f"Not saved: {exc}")
            return
        self.panel.mark_saved(f"Saved: question {stored.id}")
        self._message(SAVED)
        self.session.data_changed.emit()  # Verify questions, the summary, the activity log

    def _message(self, text: str, ms: int = 8000) -> None:
        self.mode.statusBar().showMessage(text, ms)

    def shutdown(self) -> None:
        self.pending = None
        if self.task is not None:
            self.task.shutdown()
