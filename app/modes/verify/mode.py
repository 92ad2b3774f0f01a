"""Verify questions: the queue, the question with its verdict form, the model's image,
and the scene restored in verification rendering (annotators only, never a model).

Every key is a QAction in the mode's toolbar (so F1 lists it). Verdicts are
saved when given, through `project.verifications`; refusals become messages.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from annotation.models import Scene
from annotation.verification import ALL_CRITERIA
from app.modes.verify.graph import VerifyGraph
from app.modes.verify.jrdb import BANNER as JRDB_BANNER
from app.modes.verify.jrdb import EvidencePage
from app.modes.verify.loading import ScenePrefetch
from app.session import ProjectSession
from sim.tabletop.restore import LoadedScene, load_scene
from sim.tabletop.world import MODEL_IMAGE_SIZE
from widgets.busy import busy_page
from widgets.image_view import TopDownImagePanel
from widgets.mode import ModeWindow, mode_toolbar
from widgets.tasks import TaskRunner
from widgets.verify.answer_point import mark_answer_point
from widgets.verify.jrdb_evidence_rows import is_jrdb
from widgets.verify.panel import VOLUMES_WORDING, QuestionPanel, criteria_wording, decision_needs
from widgets.verify.queue import VerifyQueuePanel
from widgets.verify.state import VerifyState, verification_rendering
from widgets.viewport.view import SceneViewport

BANNER = (
    "Verification view: clutter that is not answer-critical is see-through, the evidence "
    "is outlined in cyan, a Find answer's point marked in magenta. For annotators only; "
    "never shown to a model."
)


class VerifyMode(QObject):
    """Assembles and wires the Verify questions panels inside a ModeWindow."""

    def __init__(
        self,
        mode: ModeWindow,
        pages: QStackedWidget,
        session: ProjectSession,
        *,
        image_size: int = MODEL_IMAGE_SIZE,
        prefetch_ahead: bool = True,
    ) -> None:
        """`image_size`: the model's image as the generators rendered it; `prefetch_ahead`:
        restore the next question's scene in the background while this one is checked."""
        super().__init__(mode)
        self.mode, self.pages, self.session = mode, pages, session
        self.image_size = image_size
        self.state = VerifyState(needs=decision_needs)
        self.viewport = SceneViewport()
        self.image = TopDownImagePanel()
        # a JRDB question's frames, instead of a scene
        self.jrdb = EvidencePage(mode, self.state, session, self.image)
        self.central = QStackedWidget()
        self.central.addWidget(self.viewport)
        self.central.addWidget(self.jrdb.view)
        self.busy = busy_page("verify_busy")  # while a scene is restored, where it will be
        self.central.addWidget(self.busy)
        self.banner = QLabel(BANNER)
        self.banner.setObjectName("verify_banner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("padding: 4px 8px; background: #fff4d6; color: #5a4300;")
        self.page = QWidget()
        column = QVBoxLayout(self.page)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.banner)
        column.addWidget(self.central, 1)
        pages.addWidget(self.page)
        self.page.installEventFilter(self)
        self.queue = VerifyQueuePanel(self.state)
        self.panel = QuestionPanel(self.state)
        mode.add_dock("queue", "Queue", self.queue, Qt.DockWidgetArea.LeftDockWidgetArea)
        mode.add_dock("question", "Question", self.panel, Qt.DockWidgetArea.RightDockWidgetArea)
        mode.add_dock(
            "image", "Model view (top-down)", self.image, Qt.DockWidgetArea.LeftDockWidgetArea
        )
        self.task: TaskRunner | None = None
        self.prefetch = ScenePrefetch(
            self, lambda scene: load_scene(scene, image_size=self.image_size), ahead=prefetch_ahead
        )
        self.prefetch.ready.connect(self._prefetched)
        self.loaded: LoadedScene | None = None
        self.wanted: Scene | None = None  # the scene the open question needs
        self.stale = False  # a question opened while the mode was hidden: load when shown
        self._build_toolbar()

        self.state.question_opened.connect(self._question_opened)
        self.state.draft_changed.connect(self._sync_actions)
        self.state.verdict_saved.connect(self._saved)
        self.state.refused.connect(lambda text: self._message(text, 8000))
        session.project_changed.connect(self.reload)
        session.annotator_changed.connect(self.reload)
        session.data_changed.connect(self._data_changed)
        self.graph = VerifyGraph(
            mode,
            self.state,
            session,
            self.jrdb.view,
            self.jrdb.highlight_keys,
            self.jrdb.highlight_changed,
            self.viewport,
            lambda: self.loaded.world.bodies if self.loaded is not None else (),
        )  # the Scene graph dock, behind Question
        if session.project is not None:  # built on first use, with a project open: show it
            self.reload()

    def _build_toolbar(self) -> None:
        s = self.state
        bar, self.actions = mode_toolbar(
            self.mode,
            "Verify",
            (
                ("approve", "Approve", ["A"], s.approve, "Approve: every criterion holds"),
                ("reject", "Reject…", ["R"], s.reject, "Reject, with a reason"),
                ("correct", "Correct…", ["E"], s.correct, "Edit text, options, answer"),
                (None, None, None, None, None),
                ("c1", "1 Unambiguous", ["1"], lambda: s.toggle(1), "Wording, options, answer"),
                (
                    "c2",
                    "2 Withheld",
                    ["2"],
                    lambda: s.toggle(2),
                    "The first view hides the evidence",
                ),
                ("c3", "3 Recoverable", ["3"], lambda: s.toggle(3), "Clutter removal reveals it"),
                (
                    "c4",
                    VOLUMES_WORDING.short,
                    ["4"],
                    lambda: s.toggle(4),
                    f"{VOLUMES_WORDING.tip} (4)",
                ),
                (None, None, None, None, None),
                ("previous", "Previous", ["K", "Up"], s.previous, "Previous question"),
                ("next", "Next", ["J", "Down"], s.next, "Next question"),
                ("undo", "Undo verdict", ["Ctrl+Z"], s.undo, "Retract your last verdict"),
                (None, None, None, None, None),
                (
                    "step_back",
                    "◀ Step",
                    ["["],
                    lambda: self.jrdb.view.move(-1),
                    "JRDB: the previous step (the answer is first)",
                ),
                (
                    "step_next",
                    "Step ▶",
                    ["]"],
                    lambda: self.jrdb.view.move(1),
                    "JRDB: the next step, its entities highlighted",
                ),
            ),
            checkable=lambda key: key.startswith("c"),
        )
        bar.addSeparator()
        self.rendering_action = QAction("Verification view", bar, checkable=True, checked=True)
        self.rendering_action.setShortcut(QKeySequence("V"))
        self.rendering_action.setToolTip("See-through clutter and outlined evidence, or plain (V)")
        self.rendering_action.toggled.connect(lambda _on: self._apply_rendering())
        self.rendering_action.toggled.connect(lambda on: self.jrdb.view.set_emphasis(on))
        bar.addAction(self.rendering_action)
        self.overlay_action = self.image.overlay_action(
            bar, "Colour what the model's view shows of the evidence (S)"
        )
        bar.addAction(self.overlay_action)

    def _sync_actions(self) -> None:
        for i, name in enumerate(ALL_CRITERIA, 1):
            self.actions[f"c{i}"].setChecked(bool(getattr(self.state.draft, name)))

    def _word_actions(self) -> None:
        """The criteria in the open question's benchmark's words; the step keys for JRDB
        questions only, the segmentation overlay for scenes only."""
        q = self.state.current
        wording = criteria_wording(q.benchmark if q is not None else None)
        for i in (1, 2, 3):
            action = self.actions[f"c{i}"]
            action.setText(wording.short[i - 1])
            action.setToolTip(f"{wording.tips[i - 1]} ({i})")
        self.actions["c4"].setVisible(self.state.asks("volumes_distinct"))  # Compare only
        jrdb = is_jrdb(q)
        for key in ("step_back", "step_next"):
            self.actions[key].setVisible(jrdb)
        self.overlay_action.setVisible(not jrdb)
        self.rendering_action.setToolTip(
            "The step's boxes bold, the rest shaded, the answer boxes drawn; or plain (V)"
            if jrdb
            else "See-through clutter and outlined evidence, or plain (V)"
        )

    # -- data -------------------------------------------------------------------
    def reload(self) -> None:
        """Another project or annotator: start from the top of their queue."""
        project = self.session.project
        self._show(None)
        self.prefetch.clear()  # restored scenes of the project (or the person's queue) before
        self.state.set_source(
            project.verifications if project else None,
            self.session.annotator,
            project.scenes if project else None,
        )
        self._show_page()

    def _data_changed(self) -> None:
        before = self.state.current
        self.state.refresh()
        after = self.state.current
        if before is not None and after is not None and before.id == after.id:
            self.jrdb.labels_changed()  # a JRDB question's boxes may have been edited
        self._show_page()

    def _show_page(self) -> None:
        project = self.session.project
        has_questions = project is not None and sum(project.questions.counts_by_status().values())
        self.pages.setCurrentWidget(self.page if has_questions else self.pages.widget(0))

    def _saved(self, text: str) -> None:
        self._message(text, 5000)
        self.session.data_changed.emit()  # the summary, the activity log, the other modes

    def _message(self, text: str, ms: int) -> None:
        self.mode.statusBar().showMessage(text, ms)

    # -- the scene --------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.page and event.type() == QEvent.Type.Show and self.stale:
            self.stale = False
            self.state.restart_clock()  # time on task starts when the question is on screen
            self._load()
        return False

    def _question_opened(self) -> None:
        self._word_actions()
        if self.page.isVisible() or self.state.current is None:
            self._load()
        else:
            self.stale = True

    def _load(self) -> None:
        """Restore the open question's scene off the GUI thread; the newest request wins.
        A JRDB question shows its frames instead (`app.modes.verify.jrdb`)."""
        question = self.state.current
        jrdb = is_jrdb(question)
        self.central.setCurrentWidget(self.jrdb.view if jrdb else self.viewport)
        if jrdb:
            self.wanted = None
            self._show(None)  # no scene; the previous question's views are cleared first
            self.banner.setText(JRDB_BANNER)
            self.image.caption.setText("The model is given the panorama, without boxes.")
            self.jrdb.open(question)  # its panorama fills the model view (at once if cached)
            return
        self.jrdb.open(None)
        scene = self.state.scene
        self.wanted = scene
        if scene is None:
            self._show(None)
            self.banner.setText(
                BANNER if self.state.current is None else "This question has no stored scene."
            )
            return
        self.banner.setText(BANNER)
        if self.loaded is not None and self.loaded.scene == scene:
            self._show(self.loaded)  # the same scene, untouched since it was restored
            return
        kept = self.prefetch.take(scene)
        if kept is not None:
            self._show(kept)  # restored ahead, or left a moment ago: no wait
            return
        self._show(None)  # nothing stale on screen while the scene is restored
        self.busy.setText(f"Restoring scene #{scene.id} for verification…")
        self.central.setCurrentWidget(self.busy)
        self.image.caption.setText(f"Rendering the model's view of scene #{scene.id}…")
        if self.task is not None or self.prefetch.is_loading(scene):
            return  # `_task_done` or `_prefetched` shows the wanted one
        self._message(f"Restoring scene #{scene.id}…", 0)
        size = self.image_size
        self.task = TaskRunner(
            f"Restoring scene #{scene.id}",
            lambda _p: load_scene(scene, image_size=size),
            self.mode,
            show_dialog=False,
        )
        self.task.succeeded.connect(self._loaded)
        self.task.failed.connect(lambda summary, _d: self._failed(scene, summary))
        self.task.finished.connect(self._task_done)
        self.task.start()

    def _loaded(self, loaded: LoadedScene) -> None:
        if loaded.scene != self.wanted:
            self.prefetch.keep(loaded)  # superseded while it was loading: maybe wanted again
            return
        self._message("", 0)
        self._show(loaded)

    def _failed(self, scene: Scene, summary: str) -> None:
        self._message(f"Cannot restore scene #{scene.id}: {summary}", 8000)
        self.busy.setText(f"Cannot restore scene #{scene.id}: {summary}")
        if self.wanted == scene:
            self.wanted = None  # do not try it again and again

    def _task_done(self) -> None:
        self.task = None
        current = self.loaded.scene if self.loaded else None
        if self.wanted is not None and self.wanted != current and self.page.isVisible():
            self._load()

    def _prefetched(self, scene_id: int) -> None:
        """A restore ahead arrived: show it if it is the one wanted now."""
        if self.wanted is not None and self.wanted.id == scene_id and self.page.isVisible():
            self._load()

    def _prefetch_next(self) -> None:
        """Restore the scene of the next question in the list while this one is read."""
        questions, row, project = self.state.questions, self.state.index, self.session.project
        if project is None or row < 0:
            return
        for q in questions[row + 1 : row + 3]:
            if q.scene_id is not None and not is_jrdb(q):
                if self.loaded is None or q.scene_id != self.loaded.scene.id:
                    self.prefetch.prefetch(project.scenes.get(q.scene_id))
                return

    def _show(self, loaded: LoadedScene | None) -> None:
        previous, self.loaded = self.loaded, loaded
        if loaded is not None and self.central.currentWidget() is self.busy:
            self.central.setCurrentWidget(self.viewport)
        if loaded is not previous:
            self.viewport.set_world(loaded.world if loaded else None)
            if previous is not None:
                self.prefetch.keep(previous)  # back with K is instant
        if loaded is None:
            self.image.set_image(None, None)
            return
        self._apply_rendering()
        self.viewport.set_camera_preset("oblique")
        world = loaded.world
        evidence = [world.bodies[k].uid for k in self._evidence() if k in world.bodies]
        # The overlay (S) colours what the model's view shows of the evidence.
        self.image.set_image(
            loaded.view.rgb, loaded.view.segmentation, evidence or [b.uid for b in world.objects()]
        )
        question = self.state.current  # a Find answer's point: in the image and in 3D
        answer = question.answer if question is not None else None
        mark_answer_point(
            answer, loaded.view, self.image, self.viewport, stored_camera=loaded.scene.camera
        )
        self.state.set_visibility({k: v.fraction for k, v in loaded.visibility.items()})
        self._prefetch_next()

    def _evidence(self) -> list[str]:
        q = self.state.current
        return list(q.evidence_ids) if q is not None else []

    def _apply_rendering(self) -> None:
        self.viewport.clear_transparency()
        self.viewport.set_highlight(())
        if self.loaded is None or self.state.current is None:
            return
        if not self.rendering_action.isChecked():
            return
        rendering = verification_rendering(
            task=self.state.current.task,
            evidence_ids=self._evidence(),
            object_keys=[b.key for b in self.loaded.world.objects()],
        )
        for alpha in set(rendering.alpha.values()):
            keys = [k for k, a in rendering.alpha.items() if a == alpha]
            self.viewport.set_transparent(keys, alpha)
        self.viewport.set_highlight(rendering.highlighted)

    def show_page(self, name: str) -> None:
        self.mode.show_dock(name)

    def shutdown(self) -> None:
        self.graph.shutdown()
        self.jrdb.shutdown()
        self.wanted = None  # a restore still running is closed when it arrives
        if self.task is not None:
            self.task.shutdown()
        self._show(None)
        self.prefetch.shutdown()
