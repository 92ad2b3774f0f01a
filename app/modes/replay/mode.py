"""Replay episodes: step through recorded agent episodes, see what moved and what a grasp saw,
re-simulate from a step, and label errors. Dual-arm episodes are shown by
`app.modes.replay.bimanual` in the same panels.

Every key is a QAction in the mode's toolbar (so F1 lists it). Seeking
restores stored states (`sim.tabletop.replay`); restoring the scene, rendering the
agent's image and re-simulating run off the GUI thread. Error labels are
saved when chosen, through `project.episodes`.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QStackedWidget, QTextBrowser, QVBoxLayout, QWidget

from app.modes.replay.bimanual import BimanualReplay, ReplayParts
from app.modes.replay.graph import ReplayGraph
from app.modes.replay.loading import LoadedEpisode, load_episode, run_resimulation
from app.modes.replay.presenter import StepPresenter
from app.modes.replay.rerun import RerunExport
from app.session import ProjectSession
from sim.tabletop.resim import ResimReport
from store import ProjectError
from widgets.mode import ModeWindow, mode_toolbar
from widgets.replay.episode_list import EpisodeListPanel, PagedEpisodeSource
from widgets.replay.error_labels import ErrorLabelPanel
from widgets.replay.overlay import MaskImagePanel
from widgets.replay.render import StepRenderer
from widgets.replay.state import ReplayState
from widgets.replay.step_panel import StepPanel, resim_report_html
from widgets.replay.timeline import Timeline
from widgets.tasks import TaskRunner
from widgets.viewport.point_cloud import PointCloudView
from widgets.viewport.view import SceneViewport

IMAGE_DOCK_TITLES = ("Model view (top-down)", "Observation (what the model saw)")
# The right column (step, labels, re-simulation, scene graph) never gets narrower than this,
# whatever layout is restored: the step's text and the graph's node labels need it.
RIGHT_COLUMN_MIN_WIDTH = 330


class ReplayMode(QObject):
    """Assembles and wires the Replay episodes panels inside a ModeWindow."""

    def __init__(self, mode: ModeWindow, pages: QStackedWidget, session: ProjectSession) -> None:
        super().__init__(mode)
        self.mode, self.pages, self.session = mode, pages, session
        self.state = ReplayState()
        self.viewport = SceneViewport()
        self.timeline = Timeline()
        self._build_page(pages)
        self.episodes = EpisodeListPanel(self.state)
        self.image = MaskImagePanel()
        self.step_panel = StepPanel()
        self.cloud = PointCloudView()
        self.labels = ErrorLabelPanel(self.state)
        self.resim_view = QTextBrowser()
        self.resim_view.setObjectName("replay_resim")
        self.resim_view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.resim_view.setPlaceholderText(
            "Re-simulate from a step (R) to compare with the record."
        )
        self._add_docks(mode)
        self.renderer = StepRenderer(mode)
        self.task: TaskRunner | None = None  # restoring a scene
        self.wanted: int | None = None  # the episode the views should show
        self.resim_task: TaskRunner | None = None
        self.resim_episode: int | None = None  # the episode the running re-simulation is for
        self._build_toolbar()
        self.view = StepPresenter(
            self.state,
            self.viewport,
            self.timeline,
            self.step_panel,
            self.image,
            self.cloud,
            self.renderer,
            self.tool_view_action,
            self.grasp_legend,
        )
        self.bimanual = BimanualReplay(
            ReplayParts(
                owner=mode,
                state=self.state,
                session=session,
                presenter=self.view,
                viewport=self.viewport,
                episodes=self.episodes,
                report=self.resim_view,
                message=self.message,
                raise_report=lambda: mode.docks["resim"].raise_(),
                show_world=lambda world: self.centre.setCurrentIndex(0 if world else 1),
            )
        )
        self.view.delegate = self.bimanual
        # a dual-arm episode's panels take the place of the step panel, the image and the centre
        self.step_stack = _stack(self.step_panel, self.bimanual.step_panel)
        mode.docks["step"].setWidget(self.step_stack)
        self.image_stack = _stack(self.image, self.bimanual.observation)
        mode.docks["image"].setWidget(self.image_stack)
        self.centre.addWidget(self.bimanual.big_observation)
        self.cloud_hidden = False  # the Grasp points dock, hidden for a dual-arm episode

        self.episodes.open_requested.connect(self.state.open)
        self.timeline.seek_requested.connect(self.state.seek)
        self.state.episode_opened.connect(self._episode_opened)
        self.state.step_changed.connect(lambda _i: self.view.show())
        self.state.playing_changed.connect(self._playing_changed)
        self.state.saved.connect(self._saved)
        self.state.refused.connect(lambda text: self.message(text, 8000))
        self.renderer.failed.connect(lambda text: self.message(f"Cannot render: {text}", 8000))
        session.project_changed.connect(self.reload)
        session.annotator_changed.connect(lambda: self.state.set_annotator(session.annotator))
        session.data_changed.connect(self._data_changed)
        self.graph = ReplayGraph(
            mode, self.state, session, self.viewport, self._world_bodies
        )  # the Scene graph dock, behind Error labels
        for key in ("step", "labels", "resim", "graph"):
            mode.docks[key].setMinimumWidth(RIGHT_COLUMN_MIN_WIDTH)
        if session.project is not None:  # built on first use, with a project open: show it
            self.reload()

    def _build_page(self, pages: QStackedWidget) -> None:
        """The centre: a banner, the grasp legend, the viewport (or a dual-arm log's views)
        and the timeline."""
        self.banner = QLabel("Pick an episode on the left.")
        self.banner.setObjectName("replay_banner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("padding: 4px 8px;")
        self.page = QWidget()
        column = QVBoxLayout(self.page)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.banner)
        self.grasp_legend = QLabel()  # what the grippers drawn over the scene are
        self.grasp_legend.setObjectName("replay_grasp_legend")
        self.grasp_legend.setWordWrap(True)
        self.grasp_legend.setStyleSheet("padding: 0 8px 4px 8px;")
        self.grasp_legend.hide()
        column.addWidget(self.grasp_legend)
        self.centre = QStackedWidget()  # the viewport; a dual-arm log's views in its place
        self.centre.addWidget(self.viewport)
        column.addWidget(self.centre, 1)
        column.addWidget(self.timeline)
        pages.addWidget(self.page)

    def _add_docks(self, mode: ModeWindow) -> None:
        """Left: what the agent saw; right: what happened, and the labels; sized so the
        Episodes list has room for its rows."""
        left, right = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea
        # left: what the agent saw; right: what happened, and the labels
        docks = [
            mode.add_dock("episodes", "Episodes", self.episodes, left),
            mode.add_dock("image", "Model view (top-down)", self.image, left),
            mode.add_dock("cloud", "Grasp points", self.cloud, left),
            mode.add_dock("step", "Step", self.step_panel, right),
            mode.add_dock("labels", "Error labels", self.labels, right),
            mode.add_dock("resim", "Re-simulation", self.resim_view, right),
        ]
        # the Grasp points behind the Model view, so the Episodes list has room for its rows
        mode.tabifyDockWidget(docks[1], docks[2])
        docks[1].raise_()
        # lay the docks out at a window's size now, so the default layout (the one Reset
        # panel layout goes back to) gives the Episodes list room for 8 rows at 1280 x 860
        mode.resize(1280, 760)
        mode.layout().activate()
        mode.resizeDocks(docks[:2], [350, 380], Qt.Orientation.Vertical)
        mode.resizeDocks(docks[3:5], [400, 330], Qt.Orientation.Vertical)
        mode.tabifyDockWidget(docks[4], docks[5])
        docks[4].raise_()

    def _world_bodies(self):
        loaded = self.view.loaded
        return loaded.view.world.bodies if loaded is not None and loaded.view is not None else ()

    def _build_toolbar(self) -> None:
        s = self.state
        bar, self.actions = mode_toolbar(
            self.mode,
            "Replay",
            (
                ("play", "Play", ["Space"], self._toggle_play, "Play or pause the episode"),
                (None, None, None, None, None),
                ("first", "First", ["Home"], s.first, "First step"),
                ("previous", "Previous", ["Left"], lambda: s.step_by(-1), "Previous step"),
                ("next", "Next", ["Right"], lambda: s.step_by(1), "Next step"),
                ("last", "Last", ["End"], s.last, "Last step"),
                (
                    "previous_failure",
                    "◀ Failure",
                    ["["],
                    s.previous_bookmark,
                    "Previous failed step",
                ),
                ("next_failure", "Failure ▶", ["]"], s.next_bookmark, "Next failed step"),
                (None, None, None, None, None),
                (
                    "resim",
                    "Re-simulate from here",
                    ["R"],
                    self.resimulate,
                    "Run the recorded calls again from this step and compare with the record",
                ),
            ),
            checkable=lambda key: key == "play",
        )
        bar.addSeparator()
        self.tool_view_action = QAction("Tool's view", bar, checkable=True, checked=True)
        self.tool_view_action.setShortcut(QKeySequence("B"))
        self.tool_view_action.setToolTip(
            "For a grasp or push, show the image before the step with its mask (B)"
        )
        self.tool_view_action.toggled.connect(lambda _on: self.view.show())
        bar.addAction(self.tool_view_action)
        self.overlay_action = self.image.overlay_action(bar, "Colour every object (S)")
        bar.addAction(self.overlay_action)
        bar.addSeparator()
        self.rerun = RerunExport(self.mode, self.session, self.state, self.message)
        bar.addAction(self.rerun.action)

    def _toggle_play(self) -> None:
        self.state.toggle_play()
        self._playing_changed(self.state.playing)  # the action's tick follows the state

    def _playing_changed(self, playing: bool) -> None:
        action = self.actions["play"]
        action.setChecked(playing)
        action.setText("Pause" if playing else "Play")

    # -- data -------------------------------------------------------------------------------
    def reload(self) -> None:
        """Another project: its episodes (the list read a page at a time), nothing open."""
        project = self.session.project
        source = PagedEpisodeSource(project.episodes, project.episode_queries) if project else None
        self.state.set_source(source, self.session.annotator)
        self._show_page()

    def _data_changed(self) -> None:
        self.state.refresh()
        self._show_page()

    def _show_page(self) -> None:
        project = self.session.project
        has = project is not None and project.episode_queries.any()
        self.pages.setCurrentWidget(self.page if has else self.pages.widget(0))

    def _saved(self, text: str) -> None:
        self.message(text, 5000)
        self.session.data_changed.emit()  # the summary and activity panels

    def message(self, text: str, ms: int) -> None:
        """A line in the status bar for `ms` milliseconds (0: until replaced)."""
        self.mode.statusBar().showMessage(text, ms)

    # -- opening an episode --------------------------------------------------------------------
    def _episode_opened(self) -> None:
        episode = self.state.episode
        self.wanted = episode.id if episode else None
        self.resim_view.clear()
        self.view.episode_opened(loading=episode is not None)
        self.view.set_loaded(None)
        self._swap_panels(self.bimanual.active)
        self.bimanual.episode_opened()
        self.banner.setText(self._describe() if episode else "Pick an episode on the left.")
        if episode is not None and self.task is None:
            self._load()

    def _swap_panels(self, bimanual: bool) -> None:
        """The panels for the open episode's kind: a dual-arm one has no grasp points."""
        self.step_stack.setCurrentIndex(int(bimanual))
        self.image_stack.setCurrentIndex(int(bimanual))
        self.mode.docks["image"].setWindowTitle(IMAGE_DOCK_TITLES[int(bimanual)])
        self.centre.setCurrentIndex(0)
        cloud = self.mode.docks["cloud"]
        if bimanual and not cloud.isHidden():
            cloud.hide()  # room for the views
            self.cloud_hidden = True
        elif not bimanual and self.cloud_hidden:
            cloud.show()
            self.cloud_hidden = False
        self.actions["resim"].setText("Replay in sim" if bimanual else "Re-simulate from here")

    def _describe(self) -> str:
        if self.bimanual.active:
            return self.bimanual.describe()
        e = self.state.episode
        result = {True: "✓ correct", False: "✗ wrong"}.get(e.success, e.outcome or "no outcome")
        text = f"Episode #{e.id} · {e.model or 'unknown model'} · {e.task} ({e.mode}) · {result}"
        question = self._question()
        return text + (f" — “{question.text}”" if question else "")

    def _question(self):
        e, project = self.state.episode, self.session.project
        if e is None or e.question_id is None or project is None:
            return None
        try:
            return project.questions.get(e.question_id)
        except ProjectError:
            return None

    def _scene(self):
        e, project = self.state.episode, self.session.project
        if e is None or e.scene_id is None or project is None:
            return None
        try:
            return project.scenes.get(e.scene_id)
        except ProjectError:
            return None

    def _load(self) -> None:
        """Restore the open episode's scene off the GUI thread; the newest request wins."""
        episode, steps, scene = self.state.episode, list(self.state.step_dicts), self._scene()
        self.message(f"Restoring the scene of episode #{episode.id}…", 0)
        self.task = TaskRunner(
            f"Restoring episode #{episode.id}",
            lambda _p: load_episode(episode, steps, scene),
            self.mode,
            show_dialog=False,
        )
        self.task.succeeded.connect(self._loaded)
        self.task.failed.connect(
            lambda summary, _d: self.message(f"Cannot restore: {summary}", 8000)
        )
        self.task.finished.connect(self._task_done)
        self.task.start()

    def _loaded(self, loaded: LoadedEpisode) -> None:
        if loaded.episode.id != self.wanted:
            loaded.close()  # superseded while it was loading
            return
        self.message("", 0)
        self.view.set_loaded(loaded)
        if self.bimanual.active and loaded.view is not None:
            self.bimanual.set_loaded_camera()
        self.view.show()

    def _task_done(self) -> None:
        self.task = None
        current = self.view.loaded.episode.id if self.view.loaded else None
        if self.wanted is not None and self.wanted != current:
            self._load()

    # -- re-simulation ------------------------------------------------------------------------------
    def resimulate(self) -> None:
        """Run the recorded calls of this and later steps again, from the state before it.
        A dual-arm episode is replayed in our simulator from its start instead."""
        if self.bimanual.active:
            self.bimanual.replay_in_sim()
            return
        episode, index = self.state.episode, self.state.index
        scene = self._scene()
        if episode is None or scene is None:
            self.message("Re-simulation needs an open episode with a stored scene.", 8000)
            return
        if self.resim_task is not None:
            self.message("A re-simulation is running already.", 5000)
            return
        self.state.pause()
        steps, question = list(self.state.step_dicts), self._question()
        self.resim_episode = episode.id
        self.resim_task = TaskRunner(
            f"Re-simulating episode #{episode.id} from step {index}",
            lambda p: run_resimulation(episode, scene, question, steps, index, p),
            self.mode,
        )
        self.resim_task.succeeded.connect(self._resimulated)
        self.resim_task.failed.connect(
            lambda summary, _d: self.message(f"Re-simulation failed: {summary}", 8000)
        )
        self.resim_task.cancelled.connect(lambda: self.message("Re-simulation cancelled.", 5000))
        self.resim_task.finished.connect(self._resim_done)
        self.resim_task.start()

    def _resimulated(self, report: ResimReport) -> None:
        if self.state.episode is None or self.state.episode.id != self.resim_episode:
            return  # another episode was opened meanwhile
        names = self.view.loaded.names if self.view.loaded else {}
        self.resim_view.setHtml(resim_report_html(report, names))
        self.mode.docks["resim"].raise_()
        self.view.set_report(report)
        self.message(report.summary(), 10000)

    def _resim_done(self) -> None:
        self.resim_task = None

    def show_page(self, name: str) -> None:
        self.mode.show_dock(name)

    def shutdown(self) -> None:
        self.graph.shutdown()
        self.bimanual.shutdown()
        self.wanted = None
        self.state.pause()
        for task in (self.task, self.resim_task):
            if task is not None:
                task.shutdown()
        self.renderer.shutdown()
        self.view.set_loaded(None)


def _stack(*widgets: QWidget) -> QStackedWidget:
    stack = QStackedWidget()
    for w in widgets:
        stack.addWidget(w)
    return stack
