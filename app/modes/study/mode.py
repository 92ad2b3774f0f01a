"""Human study: annotators rate how hard questions are, blind to their computed D, and answer
them as the human baseline (JRDB-Reasoning's user study and its "Human Eval" rows).

The page is the question's image across the top (a JRDB frame's stitched
panorama, or a tabletop scene's top-down image, rendered off the GUI thread)
and the `StudyPanel` below it. A toggle in the toolbar chooses the task. Every
key is a QAction in the mode's toolbar (F1 lists them); the actions of the
other task are hidden, so digits and Backspace type into the answer fields.
Ratings and answers are saved when given, through `project.reasoning`.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QImage, QKeySequence
from PySide6.QtWidgets import QComboBox, QSplitter, QStackedWidget

from annotation.jrdb.question_frames import slot_frame
from annotation.models import Question, Scene
from app.session import ProjectSession
from widgets.image_view import to_qimage
from widgets.mode import ModeWindow, mode_toolbar
from widgets.study.canvas import StudyImage
from widgets.study.panel import StudyPanel
from widgets.study.state import ANSWER, RATE, RATING_WORDS, StudyState, question_slots
from widgets.tasks import TaskRunner

TOP_DOWN_PX = 512  # the tabletop image a person rates from (the model's is 1024)
CACHED_IMAGES = 8
BENCHMARKS = ("jrdb", "mgvqa")  # offered in the rating's benchmark filter when present
RATE_KEYS = ("r1", "r2", "r3", "r4", "r5", "back", "forward")
ANSWER_KEYS = ("submit", "clear")


def render_top_down(scene: Scene, size: int = TOP_DOWN_PX) -> Any:
    """A stored tabletop scene's top-down RGB image (slow: run it off the GUI thread)."""
    from sim.camera import CameraSpec
    from sim.render import render
    from sim.tabletop.scenes import world_from_records

    world = world_from_records([b.as_record() for b in scene.bodies], scene.state)
    try:
        return render(world, CameraSpec.from_dict(scene.camera).with_size(size, size)).rgb
    finally:
        world.close()


def answer_vocabulary(project: Any, question: Question | None) -> list[str]:
    """Words a Wh answer may be, as seen in the question's sequence: genders, ages, actions,
    object categories. Never read from any question's answer."""
    if project is None or question is None or question.sequence_id is None:
        return []
    repo = project.sequences
    words: set[str] = set()
    for entity in repo.entities(question.sequence_id):
        if entity.kind == "object" and entity.category:
            words.add(entity.category)
        for name in ("gender", "age", "race"):
            value = entity.attributes.get(name)
            if isinstance(value, str) and value:
                words.add(value)
    frames = repo.frames(question.sequence_id)
    for slot in range(len(question_slots(question))):
        frame = slot_frame(question, slot, frames)
        if frame is not None:
            for row in repo.person_labels(frame.id):
                if row["kind"] in ("action", "social_activity") and row["label"]:
                    words.add(row["label"])
    return sorted(words)


class StudyMode(QObject):
    """Assembles and wires the Human study views inside a ModeWindow."""

    def __init__(self, mode: ModeWindow, pages: QStackedWidget, session: ProjectSession) -> None:
        super().__init__(mode)
        self.mode, self.pages, self.session = mode, pages, session
        self.state = StudyState()
        self.image = StudyImage()
        self.panel = StudyPanel(self.state)
        self.page = QSplitter(Qt.Orientation.Vertical)
        self.page.setObjectName("study_page")
        self.page.addWidget(self.image)
        self.page.addWidget(self.panel)
        self.page.setStretchFactor(0, 1)  # the image takes what the form does not need
        self.page.setStretchFactor(1, 0)
        self.page.setChildrenCollapsible(False)
        pages.addWidget(self.page)
        self.page.installEventFilter(self)
        self.images: OrderedDict[tuple, Any] = OrderedDict()  # (kind, id) -> QImage | rgb
        self.task: TaskRunner | None = None  # rendering a tabletop scene
        self.wanted: Scene | None = None
        self.stale = True  # a question opened while the mode was hidden: show it when shown
        self.shown: tuple | None = None  # (question id, slot) of the image on screen
        self._build_toolbar()

        self.state.question_opened.connect(self._question_opened)
        self.state.draft_changed.connect(self._draft_changed)
        self.state.saved.connect(self._saved)
        self.state.refused.connect(lambda text: self._message(text, 8000))
        self.image.box_drawn.connect(lambda box, add: self.state.set_box(box, add=add))
        session.project_changed.connect(self.reload)
        session.annotator_changed.connect(self.reload)
        session.data_changed.connect(self._data_changed)
        if session.project is not None:  # built on first use, with a project open: show it
            self.reload()

    def _build_toolbar(self) -> None:
        s, p = self.state, self.image.panorama
        rate = [
            (f"r{v}", str(v), [str(v)], lambda v=v: s.rate(v), f"Rate {v}: {w}")
            for v, w in RATING_WORDS.items()
        ]
        bar, self.actions = mode_toolbar(
            self.mode,
            "Study",
            (
                (
                    "rate_task",
                    "Rate difficulty",
                    ["Alt+R"],
                    lambda: self.set_task(RATE),
                    "Rate how hard each question is, 1 very easy to 5 very hard",
                ),
                (
                    "answer_task",
                    "Human baseline",
                    ["Alt+B"],
                    lambda: self.set_task(ANSWER),
                    "Answer JRDB questions yourself: a number, a word or a box",
                ),
                (None, None, None, None, None),
                *rate,
                ("back", "◀ Back", ["Backspace", "Left"], s.back, "The question rated before"),
                ("forward", "Forward ▶", ["Right"], s.forward, "After Back: the next one"),
                ("submit", "Submit", ["Return", "Enter"], self.panel.submit, "Save the answer"),
                ("clear", "Clear boxes", ["Escape"], s.clear_boxes, "Remove the drawn boxes"),
                (None, None, None, None, None),
                (
                    "previous_slot",
                    "◀ Slot",
                    ["["],
                    lambda: s.set_slot(s.slot - 1),
                    "The question's previous time slot",
                ),
                (
                    "next_slot",
                    "Slot ▶",
                    ["]"],
                    lambda: s.set_slot(s.slot + 1),
                    "The question's next time slot",
                ),
                ("fit", "Fit", ["Ctrl+0"], p.fit, "The whole image in view"),
                ("zoom_in", "Zoom +", ["Ctrl+=", "Ctrl++"], lambda: p.zoom_by(1.25), "Zoom in"),
                ("zoom_out", "Zoom −", ["Ctrl+-"], lambda: p.zoom_by(0.8), "Zoom out"),
            ),
            checkable=lambda key: key.endswith("_task"),
        )
        group = QActionGroup(bar)
        for key in ("rate_task", "answer_task"):
            group.addAction(self.actions[key])
        self.actions["rate_task"].setChecked(True)
        bar.addSeparator()
        self.feedback_action = QAction("Show feedback", bar, checkable=True)
        self.feedback_action.setShortcut(QKeySequence("Ctrl+Shift+F"))
        self.feedback_action.setToolTip(
            "Say after each answer whether it was right (off by default: a baseline should "
            "not learn from feedback) (Ctrl+Shift+F)"
        )
        self.feedback_action.toggled.connect(s.set_show_feedback)
        bar.addAction(self.feedback_action)
        self.benchmark_box = QComboBox()
        self.benchmark_box.setObjectName("study_benchmark")
        self.benchmark_box.setToolTip("Rate the questions of one benchmark, or of all")
        self.benchmark_box.currentIndexChanged.connect(
            lambda _i: s.set_benchmark(self.benchmark_box.currentData())
        )
        self.benchmark_action = bar.addWidget(self.benchmark_box)
        self._sync_actions()

    def set_task(self, task: str) -> None:
        """Rate difficulty or Human baseline (the toolbar toggle, Alt+R / Alt+B)."""
        self.actions["rate_task" if task == RATE else "answer_task"].setChecked(True)
        self.state.set_task(task)
        self._sync_actions()

    def _sync_actions(self) -> None:
        """Only the open task's keys are live: the other task's actions are hidden."""
        rating = self.state.task == RATE
        for key in RATE_KEYS:
            self.actions[key].setVisible(rating)
        for key in ANSWER_KEYS:
            self.actions[key].setVisible(not rating)
        self.actions["clear"].setVisible(self.state.kind == "box")
        self.feedback_action.setVisible(not rating)
        self.benchmark_action.setVisible(rating)
        several = len(question_slots(self.state.current)) > 1
        for key in ("previous_slot", "next_slot"):
            self.actions[key].setVisible(several)
        self.image.set_drawing(self.state.kind == "box")

    # -- data ------------------------------------------------------------------------------------
    def reload(self) -> None:
        """Another project or annotator: their next question."""
        project = self.session.project
        self.images.clear()
        self.shown = None
        self._fill_benchmarks(project)
        self.state.set_source(
            getattr(project, "reasoning", None) if project is not None else None,
            self.session.annotator,
            project.questions if project is not None else None,
        )
        self._show_page()

    def _fill_benchmarks(self, project: Any) -> None:
        names = [
            name
            for name in BENCHMARKS
            if project is not None and project.questions.page(benchmark=name, limit=1).rows
        ]
        box = self.benchmark_box
        box.blockSignals(True)
        box.clear()
        box.addItem("All benchmarks", None)
        for name in names:
            box.addItem(name, name)
        box.setCurrentIndex(max(box.findData(self.state.benchmark), 0))
        box.blockSignals(False)
        self.state.set_benchmark(box.currentData())

    def _data_changed(self) -> None:
        self._fill_benchmarks(self.session.project)  # questions may have been imported
        self.state.refresh()
        self._show_page()

    def _show_page(self) -> None:
        project = self.session.project
        has_questions = project is not None and sum(project.questions.counts_by_status().values())
        self.pages.setCurrentWidget(self.page if has_questions else self.pages.widget(0))

    def _saved(self, text: str) -> None:
        self._message(text, 4000)
        self.session.data_changed.emit()  # the summary, the activity log, Results

    def _message(self, text: str, ms: int) -> None:
        self.mode.statusBar().showMessage(text, ms)

    # -- the image -------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.page and event.type() == QEvent.Type.Show and self.stale:
            self._show_image()
        return False

    def _question_opened(self) -> None:
        self._sync_actions()
        self._draft_changed()
        if self.state.kind == "text":
            project, q = self.session.project, self.state.current
            self.panel.set_completions(answer_vocabulary(project, q))

    def _draft_changed(self) -> None:
        self.image.show_boxes(self.state.boxes if self.state.kind == "box" else [])
        if self._image_key() == self.shown:
            return  # only the boxes changed: keep the image, its zoom and its scroll
        if self.page.isVisible():
            self._show_image()
        else:
            self.stale = True  # read and render only when someone looks

    def _image_key(self) -> tuple | None:
        q = self.state.current
        return (q.id, self.state.slot) if q is not None else None

    def _show_image(self) -> None:
        """The open question's image for its shown slot: a frame's panorama now, a tabletop
        scene's top-down image when rendered."""
        self.stale, self.shown = False, self._image_key()
        q, project = self.state.current, self.session.project
        if q is None or project is None:
            self.image.set_image(None, "")
            return
        if q.sequence_id is not None:
            self._show_frame(project, q)
        elif q.scene_id is not None:
            self._show_scene(project, q.scene_id)
        else:
            self.image.set_image(None, "This question has no image.")

    def _show_frame(self, project: Any, q: Question) -> None:
        s = self.state
        slots = question_slots(q)
        where = f" (time slot {s.slot + 1} of {len(slots)}; [ and ] change it)"
        where = where if len(slots) > 1 else ""
        sequence = project.sequences.get(q.sequence_id)
        frame = slot_frame(q, s.slot, project.sequences.frames(q.sequence_id))
        if frame is None or not frame.image_path:
            self.image.set_image(None, f"{sequence.name}: the question's frame has no image.")
            return
        key = ("frame", frame.id)
        image = self.images.get(key)
        if image is None:
            path = Path(sequence.root) / frame.image_path
            image = QImage(str(path)) if path.is_file() else None
            self._cache(key, image)
        name = Path(frame.image_path).name
        caption = f"{sequence.name}, frame {name}{where}"
        self.image.set_image(
            image, caption if image else f"{caption}: image file missing", panorama=True
        )

    def _show_scene(self, project: Any, scene_id: int) -> None:
        rgb = self.images.get(("scene", scene_id))
        caption = f"Top-down image of scene #{scene_id}"
        if rgb is not None:
            self.wanted = None
            self.image.set_image(to_qimage(rgb), caption)
            return
        self.image.set_image(None, f"{caption}: rendering…")
        self.wanted = project.scenes.get(scene_id)
        self._render()

    def _render(self) -> None:
        scene = self.wanted
        if scene is None or self.task is not None:
            return  # `_task_done` starts the wanted one
        self.task = TaskRunner(
            f"Rendering scene #{scene.id}",
            lambda _p: render_top_down(scene),
            self.mode,
            show_dialog=False,
        )
        project = self.session.project  # an image for another project's scene is dropped
        self.task.succeeded.connect(lambda rgb, sid=scene.id: self._rendered(project, sid, rgb))
        self.task.failed.connect(lambda summary, _d, sc=scene: self._failed(sc, summary))
        self.task.finished.connect(self._task_done)
        self.task.start()

    def _rendered(self, project: Any, scene_id: int, rgb: Any) -> None:
        if project is not self.session.project:
            return
        self._cache(("scene", scene_id), rgb)
        q = self.state.current
        if q is not None and q.scene_id == scene_id:
            if self.page.isVisible():
                self._show_image()
            else:
                self.stale = True

    def _failed(self, scene: Scene, summary: str) -> None:
        self._message(f"Cannot render scene #{scene.id}: {summary}", 8000)
        if self.wanted == scene:
            self.wanted = None  # do not try it again and again

    def _task_done(self) -> None:
        finished, self.task = self.wanted, None
        if finished is not None and ("scene", finished.id) not in self.images:
            self._render()  # another question's scene was asked for meanwhile

    def _cache(self, key: tuple, value: Any) -> None:
        self.images[key] = value
        while len(self.images) > CACHED_IMAGES:
            self.images.popitem(last=False)

    def show_page(self, name: str) -> None:
        self.mode.show_dock(name)

    def shutdown(self) -> None:
        self.wanted = None
        if self.task is not None:
            self.task.shutdown()
