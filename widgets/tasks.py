"""Long work off the GUI thread, with a progress dialog and a Cancel button.

The work is a plain function `fn(progress)` that reports through
`annotation.progress.Progress`; it must open its own project connection
(SQLite connections belong to the thread that made them).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot
from PySide6.QtWidgets import QLabel, QProgressDialog, QWidget

from annotation.progress import Cancelled, Progress


class _Worker(QObject):
    progressed = Signal(int, int, str)
    succeeded = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()

    def __init__(self, fn: Callable[[Progress], Any]) -> None:
        super().__init__()
        self.fn = fn
        self.progress = Progress(self._report)
        self._last_emit = 0.0
        self._last_message = ""

    def _report(self, done: int, total: int, message: str) -> None:
        # At most ~30 updates a second reach the GUI; a new message or the end always does.
        now = time.monotonic()
        if now - self._last_emit >= 0.033 or done >= total or message != self._last_message:
            self._last_emit, self._last_message = now, message
            self.progressed.emit(done, total, message)

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


def time_left_text(elapsed_s: float, fraction: float) -> str:
    """ "about 1 min 20 s left" from the time so far and the share done; "" while the
    estimate would be a guess (under 3 s in, or under 2 % done)."""
    if elapsed_s < 3 or fraction < 0.02 or fraction >= 1:
        return ""
    left = elapsed_s * (1 - fraction) / fraction
    if left < 10:
        return "a few seconds left"
    minutes, seconds = divmod(int(round(left / 5) * 5), 60)
    return f"about {minutes} min {seconds} s left" if minutes else f"about {seconds} s left"


class TaskRunner(QObject):
    """Run one function in a worker thread; show progress; allow cancel.

    `progressed(text)` carries each progress line with the time left, for a status
    bar or an empty page behind the dialog to show what is happening."""

    progressed = Signal(str)
    succeeded = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()
    finished = Signal()

    def __init__(
        self,
        title: str,
        fn: Callable[[Progress], Any],
        parent: QWidget | None = None,
        *,
        show_dialog: bool = True,
    ) -> None:
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
            self.dialog.setMinimumWidth(520)  # room for "Part name (part 3 of 9): step"
            label = QLabel(title)
            label.setWordWrap(True)
            label.setMinimumWidth(480)
            self.dialog.setLabel(label)
            self.dialog.canceled.connect(self.cancel)
        self.started_at = time.monotonic()
        self.thread.started.connect(self.worker.run)
        self.worker.progressed.connect(self._on_progress)
        # Bound slots of this (GUI-thread) object, so the connections are queued:
        # a lambda would run in the worker thread. The thread is stopped before
        # the outcome is announced, so listeners may drop this runner at once.
        self.worker.succeeded.connect(self._on_succeeded)
        self.worker.failed.connect(self._on_failed)
        self.worker.cancelled.connect(self._on_cancelled)

    def start(self) -> None:
        self.started_at = time.monotonic()
        self.thread.start()

    def cancel(self) -> None:
        self.worker.progress.cancel()
        if self.dialog is not None:
            self.dialog.setLabelText("Cancelling…")

    @Slot(int, int, str)
    def _on_progress(self, done: int, total: int, message: str) -> None:
        left = time_left_text(time.monotonic() - self.started_at, done / total if total else 0)
        text = f"{message}\n{left}" if message and left else message or left
        if self.dialog is not None:
            self.dialog.setMaximum(max(total, 1))
            self.dialog.setValue(min(done, max(total, 1)))
            if text:
                self.dialog.setLabelText(text)
        if text:
            self.progressed.emit(text.replace("\n", " · "))

    @property
    def running(self) -> bool:
        return self.thread.isRunning()

    def shutdown(self) -> None:
        """Cancel and wait for the worker (e.g. when the window closes mid-task)."""
        if self.thread.isRunning():
            self.worker.progress.cancel()
            self.thread.quit()
            self.thread.wait()

    @Slot(object)
    def _on_succeeded(self, result: object) -> None:
        self._finish(self.succeeded, result)

    @Slot(str, str)
    def _on_failed(self, summary: str, details: str) -> None:
        self._finish(self.failed, summary, details)

    @Slot()
    def _on_cancelled(self) -> None:
        self._finish(self.cancelled)

    def _finish(self, signal, *args: object) -> None:
        self.thread.quit()
        self.thread.wait()
        if self.dialog is not None:
            self.dialog.close()
        signal.emit(*args)
        self.finished.emit()
