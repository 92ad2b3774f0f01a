"""Progress reporting and cancellation for long work, independent of any GUI."""

from __future__ import annotations

import threading
from collections.abc import Callable


class Cancelled(Exception):
    """Raised inside long work when the person asked to stop."""


class Progress:
    """Handed to long-running functions; a GUI or a terminal listens to it.

    Work calls `report(done, total, message)`; `report` raises `Cancelled`
    once `cancel()` has been called, so work stops at its next checkpoint.
    """

    def __init__(self, listener: Callable[[int, int, str], None] | None = None) -> None:
        self._listener = listener
        self._cancel = threading.Event()

    def report(self, done: int, total: int, message: str = "") -> None:
        if self._cancel.is_set():
            raise Cancelled(message or "cancelled")
        if self._listener is not None:
            self._listener(done, total, message)

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()
