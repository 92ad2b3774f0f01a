"""A small library of user gestures for GUI tests: do what a person would do."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox

# imported before any QApplication exists: the GL views ask Qt to share OpenGL contexts
# (shader programs are cached across windows), which only works before it is created
from app import settings
from app.main_window import MainWindow
from app.modes import MODES


def shown_window(qtbot, size: tuple[int, int] = (1280, 860)) -> MainWindow:
    """A main window on screen at `size` (the default layout's 1280 x 860), with no project."""
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    return window


def press_shortcut(qtbot, widget, key, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    """Press a key combination on `widget`, as from the keyboard.

    Shortcuts only fire in the active window; under Xvfb there is no window
    manager to activate it on show, so do it as a click on the title bar would.
    """
    window = widget.window()
    if not window.isActiveWindow():
        window.activateWindow()
        with qtbot.waitActive(window):
            pass
    qtbot.keyClick(widget, key, modifiers)


def switch_mode(qtbot, window, index: int) -> None:
    """Ctrl+<index> switches to the index-th mode (1-based): at once to a mode already
    built, to its busy page ("Opening …") for one chosen the first time."""
    press_shortcut(
        qtbot, window, getattr(Qt.Key, f"Key_{index}"), Qt.KeyboardModifier.ControlModifier
    )


def wait_for_mode(qtbot, window, key: str, timeout: int = 60000) -> None:
    """Wait until mode `key` is on screen (built behind its busy page if it was not)."""
    qtbot.waitUntil(
        lambda: window.stack.currentWidget() is window.mode_windows.get(key), timeout=timeout
    )


def open_mode(qtbot, window, key: str) -> None:
    """Choose mode `key` with its shortcut, as a person would, and wait until it is on
    screen."""
    index = [spec.key for spec in MODES].index(key) + 1
    switch_mode(qtbot, window, index)
    wait_for_mode(qtbot, window, key)


def sign_in_with_dialog(qtbot, window, name: str) -> None:
    """Fill the open sign-in dialog with `name` and click Sign in."""
    qtbot.waitUntil(lambda: window.sign_in_dialog is not None and window.sign_in_dialog.isVisible())
    dialog = window.sign_in_dialog
    line = dialog.combo.lineEdit()
    line.selectAll()
    qtbot.keyClicks(line, name)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible())


def open_demo_and_wait(qtbot, window, timeout: int = 60000) -> None:
    window.open_demo()
    qtbot.waitUntil(
        lambda: window.task is None and window.session.project is not None, timeout=timeout
    )


def dismiss_message(qtbot, window) -> str:
    """Read and close the current message box; return its text."""
    qtbot.waitUntil(lambda: window.message_box is not None and window.message_box.isVisible())
    text = window.message_box.text()
    window.message_box.accept()
    QApplication.processEvents()
    return text


def open_as_ada(qtbot, project_path, mode: str, *, copy_to=None, prepare=None):
    """Sign in as Ada and open the main window (1280 x 860) in `mode` on the project,
    or on a private copy of it in the folder `copy_to`. `prepare(window)` runs before
    the project opens (e.g. to choose smaller renders)."""
    path = Path(project_path)
    if copy_to is not None:
        path = Path(copy_to) / "copy.reasonscope"
        shutil.copy(project_path, path)
    settings.remember_annotator("Ada")
    window = MainWindow()
    if prepare is not None:
        prepare(window)
    qtbot.addWidget(window)
    window.resize(1280, 860)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_path(path)
    window.set_mode(mode)
    wait_for_mode(qtbot, window, mode)
    return window


@contextmanager
def annotate_window(qtbot, project_path, copy_to) -> Iterator[MainWindow]:
    """Annotate HOI as Ada on a private copy of the project, its first frame shown;
    closed after the block once any work it started has ended."""
    window = open_as_ada(qtbot, project_path, "annotate", copy_to=copy_to)
    annotate = window.mode("annotate")
    qtbot.waitUntil(lambda: annotate.shown == annotate.state.frame.id, timeout=30000)
    try:
        yield window
        qtbot.waitUntil(lambda: annotate.task is None, timeout=30000)
    finally:
        window.close()


CRITERIA_KEYS = (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3)


def approve_question(qtbot, window) -> None:
    """In Verify: tick the criteria with 1, 2, 3 (and 4 on a Compare question) and approve
    with A, as a verifier does from the keyboard."""
    compare = window.mode("verify").state.asks("volumes_distinct")
    for key in (*CRITERIA_KEYS, *([Qt.Key.Key_4] if compare else []), Qt.Key.Key_A):
        press_shortcut(qtbot, window, key)


def reject_question(qtbot, window, reason: str, criteria=(Qt.Key.Key_1,)) -> None:
    """In Verify: tick `criteria`, press R, type the reason and press Enter to save it."""
    for key in criteria:
        press_shortcut(qtbot, window, key)
    press_shortcut(qtbot, window, Qt.Key.Key_R)
    reason_box = window.mode("verify").panel.reason
    qtbot.keyClicks(reason_box, reason)
    qtbot.keyClick(reason_box, Qt.Key.Key_Return)


def seek_to_step(qtbot, window, index: int) -> None:
    """In Replay: Home to the first step, then → `index` times, as from the keyboard."""
    press_shortcut(qtbot, window, Qt.Key.Key_Home)
    for _ in range(index):
        press_shortcut(qtbot, window, Qt.Key.Key_Right)


def shown_viewport(qtbot, world, size: tuple[int, int] = (400, 300), preset: str | None = None):
    """A 3D viewport on `world`, on screen at `size`, optionally from a camera preset
    ("top_down", "oblique", ...), as a person sees it once the window is up."""
    from widgets.viewport.view import SceneViewport

    view = SceneViewport(world)
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    if preset is not None:
        view.set_camera_preset(preset)
    return view


def drag_on_panorama(qtbot, panorama, start, end, modifier=Qt.KeyboardModifier.NoModifier):
    """Press at image point `start` of a JRDB panorama, move and release at `end` (image
    pixels), as a hand does (Ctrl held: draw a new box)."""
    viewport = panorama.view.viewport()
    a = panorama.scene_to_widget(*start).toPoint()
    b = panorama.scene_to_widget(*end).toPoint()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, modifier, a)
    qtbot.mouseMove(viewport, (a + b) / 2)
    qtbot.mouseMove(viewport, b)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifier, b)
