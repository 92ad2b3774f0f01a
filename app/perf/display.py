"""The Qt application the perf cases that measure widgets run in (it registers no cases).

Qt aborts the process when it cannot reach a display, so whether OpenGL can work
here is decided from the environment before any QApplication is made, and a
case that needs it reports a failed result naming the problem instead of
crashing. Qt is imported only when an application is asked for.
"""

from __future__ import annotations

import os
import sys

NO_GL_PLATFORMS = ("offscreen", "minimal", "vnc")

_app = None  # the QApplication made here, kept alive for later cases


def display_problem(
    *, environ: dict[str, str], platform: str = sys.platform, app_platform: str | None = None
) -> str | None:
    """Why no OpenGL window can be made here, or None if one can.

    `app_platform` is the running QGuiApplication's platform name, if one runs.
    """
    qpa = app_platform or environ.get("QT_QPA_PLATFORM", "").split(":")[0]
    if qpa in NO_GL_PLATFORMS:
        return f"no display: Qt platform {qpa!r} has no OpenGL"
    if app_platform is None and platform.startswith("linux"):
        if not environ.get("DISPLAY") and not environ.get("WAYLAND_DISPLAY"):
            return "no display: neither DISPLAY nor WAYLAND_DISPLAY is set (run under xvfb-run)"
    return None


def gl_application():
    """The running QApplication, or a new one, able to draw OpenGL; raises RuntimeError
    (starting "no display") naming the problem when it cannot."""
    global _app
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    existing = QCoreApplication.instance()
    if existing is not None:
        if not isinstance(existing, QApplication):
            raise RuntimeError("no display: the running Qt application has no GUI")
        problem = display_problem(environ=dict(os.environ), app_platform=existing.platformName())
        if problem:
            raise RuntimeError(problem)
        return existing
    problem = display_problem(environ=dict(os.environ))
    if problem:
        raise RuntimeError(problem)
    import widgets.viewport.view  # noqa: F401  (asks Qt for shared GL contexts before the app exists)

    _app = QApplication(sys.argv[:1])
    return _app


def widget_application():
    """The running QApplication, or a new one for widgets that need no OpenGL (offscreen
    when there is no display)."""
    global _app
    from PySide6.QtWidgets import QApplication

    existing = QApplication.instance()
    if existing is not None:
        return existing
    argv = sys.argv[:1]
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        argv += ["-platform", os.environ.get("QT_QPA_PLATFORM") or "offscreen"]
    _app = QApplication(argv)
    return _app
