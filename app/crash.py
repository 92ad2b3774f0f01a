"""Uncaught exceptions: logged to a file, shown in a dialog, and the app keeps running."""

from __future__ import annotations

import logging
import sys
import traceback
from types import TracebackType

from app.paths import log_dir

log = logging.getLogger("reasonscope")
_open_dialogs: list = []


def log_file():
    return log_dir() / "reasonscope.log"


def configure_logging() -> None:
    if any(isinstance(h, logging.FileHandler) for h in log.handlers):
        return
    handler = logging.FileHandler(log_file(), encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)


def install_excepthook(parent_getter) -> None:
    """Route uncaught exceptions (including those in Qt slots) to a dialog and the log."""
    from PySide6.QtCore import Qt

    from widgets.error_dialog import ErrorDialog, error_summary

    configure_logging()

    def hook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        details = "".join(traceback.format_exception(exc_type, exc, tb))
        log.error("uncaught exception\n%s", details)
        for h in log.handlers:
            h.flush()
        parent = parent_getter()
        dialog = ErrorDialog(error_summary(exc), details, str(log_file()), parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        _open_dialogs.append(dialog)  # keep it alive when there is no parent window
        dialog.finished.connect(lambda *_: _open_dialogs.remove(dialog))
        dialog.open()

    sys.excepthook = hook
