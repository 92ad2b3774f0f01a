"""A small library of user gestures for GUI tests: do what a person would do."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox


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
    """Ctrl+<index> switches to the index-th mode (1-based)."""
    press_shortcut(qtbot, window, getattr(Qt.Key, f"Key_{index}"), Qt.KeyboardModifier.ControlModifier)


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


def open_demo_and_wait(qtbot, window, timeout: int = 30000) -> None:
    window.open_demo()
    qtbot.waitUntil(lambda: window.task is None and window.session.project is not None, timeout=timeout)


def dismiss_message(qtbot, window) -> str:
    """Read and close the current message box; return its text."""
    qtbot.waitUntil(lambda: window.message_box is not None and window.message_box.isVisible())
    text = window.message_box.text()
    window.message_box.accept()
    QApplication.processEvents()
    return text
