"""An unexpected error: one line for the person, the traceback behind Details, never blocking."""

from __future__ import annotations

import traceback

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from widgets.error_dialog import ErrorDialog, error_summary


def raised(exc: BaseException) -> BaseException:
    try:
        raise exc
    except BaseException as caught:  # noqa: BLE001 - any exception is a case here
        return caught


@pytest.mark.parametrize(
    ("exc", "summary"),
    [
        (
            ValueError("frame 12 has no image\nsecond line never shown"),
            "ValueError: frame 12 has no image",
        ),
        (KeyError("pedestrian:3"), "KeyError: 'pedestrian:3'"),
        (RuntimeError(), "RuntimeError"),
        (OSError("   \n  "), "OSError"),
    ],
)
def test_the_summary_is_the_type_and_the_first_line(exc, summary):
    assert error_summary(exc) == summary


def test_the_dialog_shows_the_line_the_log_and_the_traceback(qtbot, tmp_path):
    exc = raised(ValueError("frame 12 has no image"))
    details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    log = tmp_path / "reasonscope.log"
    dialog = ErrorDialog(error_summary(exc), details, str(log))
    qtbot.addWidget(dialog)
    assert dialog.windowTitle() == "Something went wrong"
    assert dialog.icon() == QMessageBox.Icon.Critical
    assert dialog.text() == "ValueError: frame 12 has no image"
    assert str(log) in dialog.informativeText()
    assert dialog.detailedText().startswith("Traceback") and "raised" in dialog.detailedText()
    assert dialog.standardButtons() == QMessageBox.StandardButton.Close


def test_it_opens_without_blocking_and_close_dismisses_it(qtbot, tmp_path):
    dialog = ErrorDialog("ValueError: x", "Traceback ...", str(tmp_path / "log"))
    qtbot.addWidget(dialog)
    dialog.open()  # returns at once: the app keeps running underneath
    qtbot.waitExposed(dialog)
    assert dialog.isVisible()
    close = dialog.button(QMessageBox.StandardButton.Close)
    with qtbot.waitSignal(dialog.finished, timeout=2000):
        qtbot.mouseClick(close, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
