"""The main window: a thin assembler of menus, the mode bar, the modes and the status bar.

A mode is built the first time it is needed, not at start: the window comes up with the
opening mode's busy page ("Opening Explore scenes…") in its place and builds it once that
page is on screen; another mode is built the first time it is chosen, behind its own busy
page, and kept, so every later switch is instant. Anything that needs a mode's parts asks
`mode(key)`, which builds it then if it is not built yet.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from PySide6.QtCore import QByteArray, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtOpenGLWidgets import QOpenGLWidget
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QStackedWidget,
    QToolBar,
    QToolButton,
)

from app import settings as app_settings
from app.modes import MODES, ModeController, ModeSpec, controller_module, load_controller
from app.paths import demo_project_path
from app.session import ProjectSession
from app.work_package_menu import WorkPackagesMenu
from widgets.activity import ActivityPanel
from widgets.busy import OpeningPage
from widgets.empty_state import EmptyState
from widgets.icons import icon
from widgets.imports import BackgroundImports
from widgets.mode import ModeWindow
from widgets.shortcuts import ShortcutSheet, shortcut_rows
from widgets.signin import SignInDialog
from widgets.summary import SummaryView
from widgets.tasks import TaskRunner

if TYPE_CHECKING:  # each mode's package is imported when the mode is first built
    from app.modes.annotate.mode import AnnotateMode
    from app.modes.explore.mode import ExploreMode
    from app.modes.replay.mode import ReplayMode
    from app.modes.results.mode import ResultsMode
    from app.modes.study.mode import StudyMode
    from app.modes.verify.mode import VerifyMode

PROJECT_FILTER = (
    "ReasonScope projects and work packages (*.reasonscope *.rspack *.db *.sqlite);;All files (*)"
)


class MainWindow(QMainWindow):
    mode_changed = Signal(str)

    def __init__(self, session: ProjectSession | None = None) -> None:
        super().__init__()
        self.session = session or ProjectSession()
        self.setObjectName("main_window")
        self.setWindowTitle("ReasonScope")
        self.setWindowIcon(icon("app"))
        self.specs: dict[str, ModeSpec] = {spec.key: spec for spec in MODES}
        # the modes built so far, by key (`mode(key)` and `mode_window(key)` build one)
        self.mode_windows: dict[str, ModeWindow] = {}
        self.controllers: dict[str, ModeController] = {}
        self.empty_states: dict[str, EmptyState] = {}
        self.summary_views: dict[str, SummaryView] = {}
        self.activity_panels: dict[str, ActivityPanel] = {}
        # a mode chosen but not built yet shows this page in its place while it builds
        self.opening_pages: dict[str, OpeningPage] = {}
        self._current = MODES[0].key
        # the store and each mode's package are imported off the GUI thread, ahead of
        # use, from the window's first paint on (not competing with it)
        self.imports = BackgroundImports(self, paused=True)
        self.imports.request("store")
        self.message_box: QMessageBox | None = None
        self.sign_in_dialog: SignInDialog | None = None
        self.task: TaskRunner | None = None

        self.stack = QStackedWidget()
        self.setCentralWidget(self.stack)
        # The modes' 3D views draw with OpenGL, and a window shown without an OpenGL
        # surface is re-created (unmapped, mapped again, no longer active) when its first
        # GL view arrives: this hidden one gives it that surface from the start.
        self.gl_surface = QOpenGLWidget(self)
        self.gl_surface.hide()
        self._build_actions()
        self._build_menus()
        self._build_mode_bar()
        self._build_status_bar()

        self.session.project_changed.connect(self._on_project_changed)
        self.session.annotator_changed.connect(self._on_annotator_changed)
        self.session.data_changed.connect(self.refresh)
        outside = "The project was changed elsewhere (another program, a background task): updated."
        self.session.changed_outside.connect(lambda: self.statusBar().showMessage(outside, 6000))
        self._restore_settings()
        self.refresh()

    # -- construction ---------------------------------------------------------
    def _action(self, text: str, slot, shortcut=None, icon_name: str | None = None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if icon_name:
            action.setIcon(icon(icon_name))
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        self.new_action = self._action(
            "&New project…", self.new_project_dialog, QKeySequence.StandardKey.New
        )
        self.open_action = self._action(
            "&Open project…", self.open_project_dialog, QKeySequence.StandardKey.Open
        )
        self.demo_action = self._action("Open &demo project", self.open_demo, "Ctrl+Shift+D")
        self.sign_in_action = self._action(
            "&Switch annotator…", self.request_sign_in, "Ctrl+Shift+U", "user"
        )
        self.quit_action = self._action("&Quit", self.close, QKeySequence.StandardKey.Quit)
        self.shortcuts_action = self._action(
            "&Keyboard shortcuts", self.show_shortcuts, "F1", "keyboard"
        )
        self.about_action = self._action("&About ReasonScope", self.show_about)
        self.reset_layout_action = self._action("&Reset panel layout", self.reset_layout)
        self.reload_action = self._action("Re&load project", self.session.reload, "F5")
        self.reload_action.setToolTip(
            "Read the project again (other programs' changes show anyway)"
        )
        self.mode_group = QActionGroup(self)
        self.mode_actions: dict[str, QAction] = {}
        for i, spec in enumerate(MODES, start=1):
            action = self._action(
                spec.title, lambda _=False, k=spec.key: self.set_mode(k), f"Ctrl+{i}", spec.icon
            )
            action.setCheckable(True)
            action.setToolTip(f"{spec.title} (Ctrl+{i})")
            self.mode_group.addAction(action)
            self.mode_actions[spec.key] = action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(self.new_action)
        file_menu.addAction(self.open_action)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addAction(self.demo_action)
        self.work_packages = WorkPackagesMenu(self, self, file_menu.addMenu("&Work packages"))
        file_menu.addSeparator()
        file_menu.addAction(self.sign_in_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        mode_menu = bar.addMenu("&Mode")
        for action in self.mode_actions.values():
            mode_menu.addAction(action)
        self.view_menu = bar.addMenu("&View")
        self.view_menu.aboutToShow.connect(self._fill_view_menu)
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.shortcuts_action)
        help_menu.addAction(self.about_action)

    def _build_mode_bar(self) -> None:
        self.mode_bar = QToolBar("Modes")
        self.mode_bar.setObjectName("mode_bar")
        self.mode_bar.setMovable(False)
        self.mode_bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for action in self.mode_actions.values():
            self.mode_bar.addAction(action)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.mode_bar)

    def _build_mode(self, spec: ModeSpec) -> None:
        """Build mode `spec` (import its package, make its panels, restore its saved
        layout) and put it in its place in the stack; it shows the open project at once."""
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self._add_mode(spec)
        finally:
            QApplication.restoreOverrideCursor()
        state = app_settings.settings().value(f"modes/{spec.key}/state")
        if isinstance(state, QByteArray):
            self.mode_windows[spec.key].restore_layout(state)
        self._refresh_mode(spec.key, self.session.summary())
        if spec.key == self._current:  # before its busy page goes: no other mode shows between
            self.stack.setCurrentWidget(self.mode_windows[spec.key])
        opening = self.opening_pages.pop(spec.key, None)
        if opening is not None:  # its place in the stack goes to the mode itself
            self.stack.removeWidget(opening)
            opening.deleteLater()

    def _add_mode(self, spec: ModeSpec) -> None:
        empty = EmptyState(
            title=spec.title, purpose=spec.purpose, how_to=spec.how_to, icon=icon(spec.icon)
        )
        pages = QStackedWidget()  # page 0: the empty state; later pages: the mode's views
        pages.addWidget(empty)
        mode = ModeWindow(spec.key, spec.title, pages)
        controller = load_controller(spec)(mode, pages, self.session)
        self.controllers[spec.key] = controller
        summary, activity = SummaryView(), ActivityPanel(self.session.recent_activity)
        mode.add_dock("project", "Project", summary, Qt.DockWidgetArea.RightDockWidgetArea)
        mode.add_dock("activity", "Activity", activity, Qt.DockWidgetArea.BottomDockWidgetArea)
        layout = spec.docks
        if layout.project_behind is not None:  # the mode's main dock shares Project's tab stack
            mode.tabifyDockWidget(mode.docks[layout.project_behind], mode.docks["project"])
            mode.docks[layout.project_behind].raise_()
        if layout.arrange is not None:
            layout.arrange(mode)
        if layout.project_hidden:
            mode.docks["project"].hide()
        if layout.activity_hidden:
            mode.docks["activity"].hide()
        mode.default_state = mode.saveState(mode.STATE_VERSION)
        self.summary_views[spec.key] = summary
        self.activity_panels[spec.key] = activity
        self.empty_states[spec.key] = empty
        self.mode_windows[spec.key] = mode
        self.stack.addWidget(mode)

    def _build_status_bar(self) -> None:
        self.annotator_button = QToolButton()
        self.annotator_button.setObjectName("annotator_button")
        self.annotator_button.setIcon(icon("user"))
        self.annotator_button.setToolTip("Switch annotator (Ctrl+Shift+U)")
        self.annotator_button.clicked.connect(self.request_sign_in)
        self.annotator_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.annotator_button.setAutoRaise(True)
        self.project_label = QLabel()
        self.statusBar().addPermanentWidget(self.project_label)  # messages get the rest
        self.statusBar().addPermanentWidget(self.annotator_button)

    # -- modes and layout -----------------------------------------------------
    @property
    def current_mode(self) -> str:
        """The chosen mode (on screen, or its busy page while it is built)."""
        return self._current

    @overload
    def mode(self, key: Literal["explore"]) -> ExploreMode: ...
    @overload
    def mode(self, key: Literal["annotate"]) -> AnnotateMode: ...
    @overload
    def mode(self, key: Literal["verify"]) -> VerifyMode: ...
    @overload
    def mode(self, key: Literal["replay"]) -> ReplayMode: ...
    @overload
    def mode(self, key: Literal["results"]) -> ResultsMode: ...
    @overload
    def mode(self, key: Literal["study"]) -> StudyMode: ...
    @overload
    def mode(self, key: str) -> ModeController: ...

    def mode(self, key: str) -> ModeController:
        """The controller of mode `key` (its panels, state and actions), typed per mode for
        scripts and tests; built now if it was not yet (the busy page is for the person
        choosing a mode: `set_mode`). `mode_window(key)` is the `ModeWindow` it fills."""
        spec = self._spec(key)
        if key not in self.controllers:
            self._build_mode(spec)
            if key == self._current:
                self._show_current()
        return self.controllers[key]

    def mode_window(self, key: str) -> ModeWindow:
        """The `ModeWindow` of mode `key` (its docks and toolbars), built now if need be."""
        self.mode(key)
        return self.mode_windows[key]

    def is_built(self, key: str) -> bool:
        """Whether mode `key` has been built (chosen, or asked for by `mode`)."""
        return key in self.controllers

    def _spec(self, key: str) -> ModeSpec:
        if key not in self.specs:
            raise KeyError(f"no mode {key!r}; modes are {list(self.specs)}")
        return self.specs[key]

    def switch_to(self, mode: str, page: str | None = None) -> None:
        """Bring `mode` to the front, at its page `page` (`ModeController.show_page`)."""
        self.set_mode(mode)
        if page is not None:
            self.mode(mode).show_page(page)

    def show_status(self, text: str, timeout_ms: int) -> None:
        self.statusBar().showMessage(text, timeout_ms)

    def set_mode(self, key: str) -> None:
        """Bring mode `key` to the front: at once when it is built; otherwise its busy page
        comes first and the mode is built once that page is on screen (in a hidden window,
        with nobody to look at a busy page, it is built now)."""
        self._spec(key)
        self._current = key
        self.mode_actions[key].setChecked(True)
        if key not in self.mode_windows and not self.isVisible():
            self._build_mode(self.specs[key])
        self._show_current()

    def _show_current(self) -> None:
        key = self._current
        if key in self.mode_windows:
            self.stack.setCurrentWidget(self.mode_windows[key])
            self.refresh()
            self.mode_changed.emit(key)
            return
        page = self.opening_pages.get(key)
        if page is None:
            page = OpeningPage(f"{key}_opening", f"Opening {self.specs[key].title}…")
            page.painted.connect(lambda k=key: self._open_when_painted(k))
            self.opening_pages[key] = page
            self.stack.addWidget(page)
            self.imports.request(controller_module(self.specs[key]))  # while it paints
        self.stack.setCurrentWidget(page)

    def _open_when_painted(self, key: str) -> None:
        """The busy page of `key` is on screen: once the mode's package is imported (in
        the background: the window keeps taking keys), build the mode."""
        self.imports.start()
        self.imports.then(controller_module(self.specs[key]), lambda: self._open_now(key))

    def _open_now(self, key: str) -> None:
        """Build mode `key` in its place, unless the person chose another one meanwhile
        (it is built when chosen again), something built it already, or the window was
        closed (it is built when the window shows again)."""
        if key == self._current and key not in self.mode_windows and self.isVisible():
            self._build_mode(self.specs[key])
            self._show_current()

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        page = self.opening_pages.get(self._current)
        if page is not None and page.was_painted:  # hidden before its mode was built
            QTimer.singleShot(0, lambda k=self._current: self._open_when_painted(k))
        elif page is None:  # its mode is built: no busy page to wait for
            self.imports.start()

    def reset_layout(self) -> None:
        mode = self.mode_windows.get(self.current_mode)
        if mode is None:  # still opening: its layout is the default one
            return
        mode.restore_layout(mode.default_state)
        for dock in mode.docks.values():
            dock.show()

    def _fill_view_menu(self) -> None:
        self.view_menu.clear()
        mode = self.mode_windows.get(self.current_mode)
        for dock in mode.docks.values() if mode is not None else ():
            self.view_menu.addAction(dock.toggleViewAction())
        self.view_menu.addSeparator()
        self.view_menu.addAction(self.reload_action)
        self.view_menu.addAction(self.reset_layout_action)

    def _restore_settings(self) -> None:
        s = app_settings.settings()
        geometry = s.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 860)
        mode_key = s.value("window/mode", MODES[0].key)
        # the opening mode is built once the window is on screen (`showEvent`), or when
        # something asks for it first
        self._current = mode_key if mode_key in self.specs else MODES[0].key
        self.mode_actions[self._current].setChecked(True)
        self._show_current()

    def save_settings(self) -> None:
        s = app_settings.settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/mode", self.current_mode)
        for key, mode in self.mode_windows.items():
            # one never built or never shown keeps the layout saved before
            if (state := mode.layout_state()) is not None:
                s.setValue(f"modes/{key}/state", state)
        s.sync()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if self.task is not None:
            self.task.shutdown()
        for controller in self.controllers.values():
            controller.shutdown()
        self.save_settings()
        self.session.close()
        super().closeEvent(event)

    # -- projects -------------------------------------------------------------
    def open_path(self, path: Path | str, *, create: bool = False) -> bool:
        """Open a project; on a bad file, say why in one line and keep the current one."""
        from store import ProjectError  # imported with the first project, not at start

        try:
            self.session.open(path, create=create)
        except ProjectError as exc:
            self.show_message("Cannot open project", str(exc), QMessageBox.Icon.Warning)
            return False
        app_settings.remember_project(self.session.path)
        # replaces "Opening NAME…" (app.gui) or the demo's progress
        self.statusBar().showMessage(f"Opened {Path(path).name}", 8000)
        if self.session.annotator is None:
            remembered = app_settings.annotator_name()
            if remembered:
                self.session.sign_in(remembered)
            else:
                QTimer.singleShot(0, self._ask_who_if_nobody)
        return True

    def new_project_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "New project", str(Path.home() / "project.reasonscope"), PROJECT_FILTER
        )
        if path:
            if Path(path).exists():
                self.show_message(
                    "Cannot create project",
                    f"{path}: already exists; open it instead",
                    QMessageBox.Icon.Warning,
                )
                return
            self.open_path(path, create=True)

    def open_project_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open project", str(Path.home()), PROJECT_FILTER
        )
        if path:
            self.open_path(path)

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = app_settings.recent_projects()
        for path in recent:
            action = self.recent_menu.addAction(path)
            action.setEnabled(Path(path).exists())
            action.triggered.connect(lambda _=False, p=path: self.open_path(p))
        if not recent:
            self.recent_menu.addAction("No recent projects").setEnabled(False)

    def open_demo(self) -> None:
        """Open the demo project, building or completing it off the GUI thread first."""
        from app.demo import build_demo

        path = demo_project_path()
        if self.task is not None:
            return
        self.task = TaskRunner("Preparing the demo project", lambda p: build_demo(path, p), self)
        self.task.progressed.connect(self._say_demo_progress)
        self.task.succeeded.connect(lambda _: self.open_path(path))
        self.task.failed.connect(
            lambda summary, _details: self.show_message(
                "Demo project not built", summary, QMessageBox.Icon.Warning
            )
        )
        self.task.finished.connect(self._task_done)
        self.task.start()

    def _task_done(self) -> None:
        self.task = None
        self.refresh()  # the pages behind say what they hold again

    def _say_demo_progress(self, text: str) -> None:
        """The window behind the progress dialog says what is happening too."""
        self.statusBar().showMessage(f"Preparing the demo project: {text}")
        part = text.split(" (part")[0]  # the details are in the dialog and the status bar
        for page in self.empty_states.values() if self.session.project is None else ():
            page.set_status(f"Preparing the demo project (first start): {part}…")
        # (a mode built later says it in its own place: `refresh` after the task)

    # -- people ---------------------------------------------------------------
    def request_sign_in(self) -> None:
        if self.session.project is None:
            self.show_message(
                "No project open", "Open a project before signing in.", QMessageBox.Icon.Information
            )
            return
        if self.sign_in_dialog is not None and self.sign_in_dialog.isVisible():
            self.sign_in_dialog.raise_()  # one "Who is working?" at a time
            self.sign_in_dialog.activateWindow()
            return
        current = self.session.annotator.name if self.session.annotator else None
        self.sign_in_dialog = SignInDialog(self.session.known_annotators(), current, self)
        self.sign_in_dialog.accepted.connect(self._accept_sign_in)
        self.sign_in_dialog.open()

    def _ask_who_if_nobody(self) -> None:
        """After a project opens with nobody signed in: ask, unless someone signed in
        meanwhile or the question is already on screen."""
        if self.session.project is not None and self.session.annotator is None:
            self.request_sign_in()

    def _accept_sign_in(self) -> None:
        from store import ProjectError

        name = self.sign_in_dialog.name()
        try:
            self.session.sign_in(name)
        except ProjectError as exc:
            self.show_message("Cannot sign in", str(exc), QMessageBox.Icon.Warning)
            return
        app_settings.remember_annotator(self.session.annotator.name)

    # -- display --------------------------------------------------------------
    def _on_project_changed(self) -> None:
        path = self.session.path
        self.setWindowTitle(f"ReasonScope — {path.name}" if path else "ReasonScope")
        self.refresh()

    def _on_annotator_changed(self) -> None:
        a = self.session.annotator
        self.annotator_button.setText(f"Signed in as {a.name}" if a else "Not signed in — sign in")

    def refresh(self) -> None:
        """Re-read what the project holds into every built mode's shared panels."""
        summary = self.session.summary()
        self.project_label.setText(self.session.describe())
        for key in self.mode_windows:
            self._refresh_mode(key, summary)
        if (activity := self.activity_panels.get(self.current_mode)) is not None:
            activity.refresh()
        self._on_annotator_changed()

    def _refresh_mode(self, key: str, summary) -> None:
        """Mode `key`'s empty state and Project panel, from `summary` (None: no project)."""
        if summary is None:
            text = "No project open: File ▸ Open project, or File ▸ Open demo project."
        else:
            text = self.specs[key].status(summary)
        self.empty_states[key].set_status(text)
        self.summary_views[key].set_summary(summary)

    def show_message(self, title: str, text: str, icon_kind: QMessageBox.Icon) -> None:
        self.message_box = QMessageBox(icon_kind, title, text, QMessageBox.StandardButton.Ok, self)
        self.message_box.setObjectName("message_box")
        self.message_box.open()

    def shortcut_groups(self) -> list[tuple[str, QAction]]:
        pairs: list[tuple[str, QAction]] = []

        def walk(menu: QMenu, group: str) -> None:
            for action in menu.actions():
                if action.menu():
                    walk(action.menu(), group)
                else:
                    pairs.append((group, action))

        self._fill_view_menu()  # filled as it opens: its keys (F5) are listed all the same
        for action in self.menuBar().actions():
            if action.menu():
                walk(action.menu(), action.text().replace("&", ""))
        # each mode's own tools: a mode not built yet is built to list them
        for mode in (self.mode_window(spec.key) for spec in MODES):
            for bar in mode.findChildren(QToolBar):
                pairs.extend((mode.title, a) for a in bar.actions() if not a.isSeparator())
        return pairs

    def show_shortcuts(self) -> None:
        rows, current = shortcut_rows(self.shortcut_groups()), self.specs[self.current_mode].title
        self.shortcut_sheet = ShortcutSheet(rows, self, current=current)  # its keys first
        self.shortcut_sheet.open()

    def show_about(self) -> None:
        self.show_message(
            "About ReasonScope",
            "ReasonScope builds, checks and studies visual-reasoning benchmarks for robots: "
            "HOI annotation on JRDB, two-verifier question checking, live scene graphs and "
            "episode replay in PyBullet, all saved as you work in one SQLite project file.",
            QMessageBox.Icon.Information,
        )
