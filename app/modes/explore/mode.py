"""Explore scenes: the scene list, the 3D viewport, the model's image and the object table.

Selecting a body anywhere (viewport click, image click, table row) selects it
everywhere, through the mode's `ExploreState`.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QStackedWidget, QToolBar

from app.modes.explore.batch import SceneBatchRunner
from app.modes.explore.editor import SceneEditing
from app.modes.explore.generator import ExploreGenerator
from app.modes.explore.graph import ExploreGraph
from app.session import ProjectSession
from sim.tabletop.restore import LoadedScene, load_scene
from widgets.busy import busy_page
from widgets.explore.object_table import ObjectRow, ObjectTablePanel
from widgets.explore.scene_list import SceneListPanel
from widgets.explore.state import ExploreState
from widgets.image_view import TopDownImagePanel
from widgets.mode import ModeWindow
from widgets.tasks import TaskRunner
from widgets.viewport.view import SceneViewport


class ExploreMode(QObject):
    """Assembles and wires the Explore scenes panels inside a ModeWindow."""

    def __init__(self, mode: ModeWindow, pages: QStackedWidget, session: ProjectSession) -> None:
        super().__init__(mode)
        self.mode, self.pages, self.session = mode, pages, session
        self.state = ExploreState()
        self.viewport = SceneViewport()
        self.busy = busy_page("explore_busy")  # while a scene is restored, where it will be
        self.central = QStackedWidget()
        self.central.addWidget(self.viewport)
        self.central.addWidget(self.busy)
        self.pages.addWidget(self.central)
        self.scene_list = SceneListPanel(self.state)
        self.image = TopDownImagePanel()
        self.objects = ObjectTablePanel()
        mode.add_dock("scenes", "Scenes", self.scene_list, Qt.DockWidgetArea.LeftDockWidgetArea)
        mode.add_dock(
            "image", "Model view (top-down)", self.image, Qt.DockWidgetArea.RightDockWidgetArea
        )
        mode.add_dock("objects", "Objects", self.objects, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.task: TaskRunner | None = None
        self.pending: int | None = None
        self._build_toolbar()

        self.scene_list.open_requested.connect(self.open_scene)
        self.viewport.body_selected.connect(self.state.select)
        self.objects.object_clicked.connect(self.state.select)
        self.image.pixel_clicked.connect(self._image_clicked)
        self.state.scene_opened.connect(self._show_scene)
        self.state.selection_changed.connect(self._show_selection)
        self.state.scenes_changed.connect(self._show_page)
        session.project_changed.connect(self.reload)
        session.data_changed.connect(self.state.refresh)
        # the Scene graph dock, live with the world
        self.graph = ExploreGraph(mode, self.state, self.viewport)
        # engine questions on the scene
        self.generator = ExploreGenerator(mode, self.state, self.viewport, self.graph.view)
        # editing scenes by hand, and authoring questions on them
        self.editing = SceneEditing(self)
        if session.project is not None:  # built on first use, with a project open: show it
            self.reload()

    def _build_toolbar(self) -> None:
        bar = QToolBar("View")
        bar.setObjectName("explore_view_toolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.mode.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        group = QActionGroup(bar)
        self.preset_actions: dict[str, QAction] = {}
        for key, text, shortcut in (
            ("top_down", "Top-down", "T"),
            ("oblique", "Oblique", "O"),
            ("free", "Free", "F"),
        ):
            action = QAction(f"{text} camera", bar, checkable=True)
            action.setShortcut(QKeySequence(shortcut))
            action.setToolTip(f"{text} camera ({shortcut})")
            action.triggered.connect(lambda _=False, k=key: self.viewport.set_camera_preset(k))
            group.addAction(action)
            bar.addAction(action)
            self.preset_actions[key] = action
        bar.addSeparator()
        self.live_action = QAction("Live physics", bar, checkable=True)
        self.live_action.setShortcut(QKeySequence("P"))
        self.live_action.setToolTip("Step the simulation and watch it (P)")
        self.live_action.toggled.connect(self.viewport.set_live)
        bar.addAction(self.live_action)
        self.overlay_action = self.image.overlay_action(
            bar, "Colour every body in the model view (S)"
        )
        bar.addAction(self.overlay_action)
        bar.addSeparator()
        self.batch = SceneBatchRunner(self.mode, bar, self.session)
        self.viewport.camera_preset_changed.connect(self._preset_changed)
        self.viewport.live_changed.connect(self.live_action.setChecked)
        self._preset_changed(self.viewport.camera_preset)

    def _preset_changed(self, key: str) -> None:
        action = self.preset_actions.get(key)
        if action is not None:
            action.setChecked(True)

    # -- data -------------------------------------------------------------------
    def reload(self) -> None:
        project = self.session.project
        self.state.set_source(project.scenes if project else None)

    def open_scene(self, scene_id: int) -> None:
        """Restore a stored scene off the GUI thread; the newest request wins."""
        self.busy.setText(
            f"Restoring scene #{scene_id}: its physics, the model's view and "
            "what that view shows of each object…"
        )
        self.central.setCurrentWidget(self.busy)
        self.image.set_image(None, None)  # no stale model view of the scene before
        if self.task is not None:
            self.pending = scene_id
            return
        scene = self.session.project.scenes.get(scene_id)  # the GUI thread's connection
        self.task = TaskRunner(
            f"Restoring scene #{scene_id}",
            lambda _p: load_scene(scene),
            self.mode,
            show_dialog=False,  # the view itself says it is busy
        )
        self.task.succeeded.connect(self._loaded)
        self.task.failed.connect(self._failed)
        self.task.finished.connect(self._task_done)
        self.task.start()

    def _loaded(self, loaded: LoadedScene) -> None:
        if self.pending is not None:
            loaded.world.close()  # superseded while it was loading
            return
        self.central.setCurrentWidget(self.viewport)
        self.state.open(loaded)

    def _failed(self, summary: str, _details: str) -> None:
        self.mode.statusBar().showMessage(summary, 8000)
        self.busy.setText(f"Cannot restore the scene: {summary}")

    def _task_done(self) -> None:
        self.task = None
        if self.pending is not None:
            scene_id, self.pending = self.pending, None
            self.open_scene(scene_id)

    def show_page(self, name: str) -> None:
        self.mode.show_dock(name)

    def shutdown(self) -> None:
        self.graph.shutdown()
        self.generator.shutdown()
        self.editing.shutdown()
        self.batch.shutdown()
        if self.task is not None:
            self.task.shutdown()
        self.viewport.set_live(False)
        self.state.close_scene()

    # -- display ------------------------------------------------------------------
    def _show_page(self) -> None:
        self.pages.setCurrentIndex(1 if self.state.scenes else 0)

    def _show_scene(self) -> None:
        loaded = self.state.loaded
        self.viewport.set_world(loaded.world if loaded else None)
        if loaded is None:
            self.image.set_image(None, None)
            self.objects.set_rows([])
            return
        self.image.set_image(
            loaded.view.rgb, loaded.view.segmentation, [b.uid for b in loaded.world.objects()]
        )
        self.objects.set_rows(
            [
                ObjectRow(
                    b.key,
                    b.name,
                    b.category,
                    loaded.visibility[b.key].fraction if b.key in loaded.visibility else None,
                )
                for b in loaded.world.objects()
            ]
        )

    def _show_selection(self, key: str) -> None:
        self.viewport.select(key or None)
        self.objects.select_key(key)
        loaded = self.state.loaded
        uid = loaded.world.bodies[key].uid if (loaded and key) else None
        self.image.set_selected_uid(uid)

    def _image_clicked(self, x: int, y: int) -> None:
        loaded = self.state.loaded
        if loaded is None:
            return
        live = self.editing.live  # while editing, the image as it is now
        segmentation = live.segmentation if live is not None else loaded.view.segmentation
        self.state.select(self.state.key_of_uid(int(segmentation[y, x])))
