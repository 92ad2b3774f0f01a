"""An uncaught exception is shown and logged, and the app keeps running."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QTimer

from app.crash import install_excepthook, log_file
from app.main_window import MainWindow


@pytest.mark.qt_no_exception_capture
def test_uncaught_exception_in_a_slot_shows_a_dialog_logs_and_keeps_running(qtbot, tmp_path):
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    previous = sys.excepthook
    install_excepthook(lambda: window)
    try:

        def broken_slot():
            raise ValueError("frame 12 has no image\nsecond line never shown")

        QTimer.singleShot(0, broken_slot)
        from widgets.error_dialog import ErrorDialog

        qtbot.waitUntil(lambda: window.findChild(ErrorDialog) is not None)
        dialog = window.findChild(ErrorDialog)
        assert dialog.text() == "ValueError: frame 12 has no image"
        assert "Traceback" in dialog.detailedText()
        assert "broken_slot" in log_file().read_text()
        # still alive and responsive
        window.set_mode("results")
        assert window.current_mode == "results"
        dialog.close()
    finally:
        sys.excepthook = previous
