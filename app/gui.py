"""Start the desktop app."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from app.paths import demo_project_path


def display_available() -> bool:
    """Whether Qt can reach a screen (X11, Wayland) or was told to go offscreen."""
    if os.environ.get("QT_QPA_PLATFORM", "").startswith(("offscreen", "minimal", "vnc")):
        return True
    if sys.platform != "linux":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def create_application(argv: list[str] | None = None):
    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtWidgets import QApplication

    from widgets.icons import icon
    from widgets.theme import apply_theme

    if QCoreApplication.instance() is None:
        # every GL view shares pyqtgraph's shader programs: one context group
        QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("ReasonScope")
    app.setOrganizationName("ReasonScope")
    app.setWindowIcon(icon("app"))
    apply_theme(app)
    return app


def run_gui(db: Path | None) -> int:
    if not display_available():
        sys.stderr.write(
            "reasonscope: no display; run `xvfb-run make run` for a virtual one, "
            "or `make screenshots` for PNGs of every mode\n"
        )
        return 2
    app = create_application()
    _window = start_window(db)  # held here: the window lives as long as the event loop
    return app.exec()


def start_window(db: Path | None):
    """Show the splash at once, build the main window behind it, show the window, then
    open the project from the event loop (so the window is painted first). The window
    comes up with no mode built: the opening one is built behind its busy page."""
    from widgets.icons import icon
    from widgets.splash import StartSplash

    splash = StartSplash(icon("app"))
    splash.show()
    splash.say("Loading the window…")
    from app.crash import install_excepthook
    from app.main_window import MainWindow

    window = MainWindow()
    install_excepthook(lambda: window)
    window.show()
    splash.finish(window)

    def open_project() -> None:
        if db is not None:
            window.open_path(db, create=False)  # a bad file is explained in a message box
        elif demo_project_path().exists():
            window.open_path(demo_project_path())
            window.open_demo()  # completes parts added by newer builds, off the GUI thread
        else:
            window.open_demo()

    window.statusBar().showMessage(
        f"Opening {db.name}…" if db is not None else "Opening the demo project…"
    )
    # once the store is imported (in the background, from the window's start)
    window.imports.then("store", open_project)
    return window
