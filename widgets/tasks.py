"""Long work off the GUI thread, with a progress dialog and a Cancel button.

The work is a plain function `fn(progress)` that reports through
`annotation.progress.Progress`; it must open its own project connection
(SQLite connections belong to the thread that made them).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QThread, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from annotation.progress import Cancelled, Progress


class _Worker(QObject):
    progressed = Signal(int, int, str)
    succeeded = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()

    def __init__(self, fn: Callable[[Progress], Any]) -> None:
        super().__init__()
        self.fn = fn
        self.progress = Progress(lambda d, t, m: self.progressed.emit(d, t, m))

    def run(self) -> None:
        try:
            result = self.fn(self.progress)
        except Cancelled:
            self.cancelled.emit()
        except Exception as exc:  # reported to the person, not swallowed
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self.failed.emit(first, traceback.format_exc())
        else:
            self.succeeded.emit(result)


class TaskRunner(QObject):
    """Run one function in a worker thread; show progress; allow cancel."""

    succeeded = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()
    finished = Signal()

    def __init__(self, title: str, fn: Callable[[Progress], Any],
                 parent: QWidget | None = None, *, show_dialog: bool = True) -> None:
        super().__init__(parent)
        self.thread = QThread()
        self.worker = _Worker(fn)
        self.worker.moveToThread(self.thread)
        self.dialog: QProgressDialog | None = None
        if show_dialog:
            self.dialog = QProgressDialog(title, "Cancel", 0, 0, parent)
            self.dialog.setObjectName("task_progress")
            self.dialog.setWindowTitle(title)
            self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
            self.dialog.setMinimumDuration(300)
            self.dialog.setAutoClose(False)
            self.dialog.setAutoReset(False)
            self.dialog.canceled.connect(self.cancel)
        self.thread.started.connect(self.worker.run)
        self.worker.progressed.connect(self._on_progress)
        for signal, slot in ((self.worker.succeeded, self.succeeded.emit),
                             (self.worker.failed, self.failed.emit),
                             (self.worker.cancelled, self.cancelled.emit)):
            signal.connect(slot)
            signal.connect(self._stop)

    def start(self) -> None:
        self.thread.start()

    def cancel(self) -> None:
        self.worker.progress.cancel()
        if self.dialog is not None:
            self.dialog.setLabelText("Cancelling…")

    def _on_progress(self, done: int, total: int, message: str) -> None:
        if self.dialog is not None:
            self.dialog.setMaximum(max(total, 1))
            self.dialog.setValue(min(done, max(total, 1)))
            if message:
                self.dialog.setLabelText(message)

    def _stop(self, *_: object) -> None:
        self.thread.quit()
        self.thread.wait()
        if self.dialog is not None:
            self.dialog.close()
        self.finished.emit()
