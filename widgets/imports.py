"""Slow imports off the GUI thread: the simulator, Open3D and pyqtgraph's GL views take
seconds to import on a small machine, and a window that imports them in its own thread
cannot repaint or take a key meanwhile.

`BackgroundImports.then(name, fn)` imports module `name` in one worker thread (in the
order asked) and calls `fn` from the event loop once it is in. Only importing happens
there: every widget is still made in the GUI thread. A module that fails to import is
reported the same way; the GUI thread's own import of it then raises the real error
where it is needed.
"""

from __future__ import annotations

import importlib
import queue
import sys
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal


class BackgroundImports(QObject):
    """One worker thread importing modules in turn; `imported(name)` in the GUI thread."""

    imported = Signal(str)

    def __init__(self, parent: QObject | None = None, *, paused: bool = False) -> None:
        """`paused`: queue what is asked for and start on `start()` (a window starting
        up paints first: the worker would compete with it for the interpreter)."""
        super().__init__(parent)
        self.paused = paused
        self.pending: set[str] = set()  # asked for and not imported yet
        self.waiting: dict[str, list[Callable[[], None]]] = {}
        self._queue: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.imported.connect(self._arrived)

    def is_imported(self, name: str) -> bool:
        # a module being imported is in sys.modules already: pending says it is not done
        return name in sys.modules and name not in self.pending

    def request(self, name: str) -> bool:
        """Start importing `name` unless it is in or on its way; True when it is in."""
        if self.is_imported(name):
            return True
        if name not in self.pending:
            self.pending.add(name)
            self._queue.put(name)
            if not self.paused:
                self.start()
        return False

    def start(self) -> None:
        """Start importing (once; what was asked while paused comes first, in order)."""
        self.paused = False
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._work, name="background-imports", daemon=True
            )
            self._thread.start()

    def then(self, name: str, fn: Callable[[], None]) -> None:
        """Call `fn` from the event loop once module `name` is imported (now asked for if
        it was not); soon, but never from inside this call, if it is already in."""
        if self.request(name):
            QTimer.singleShot(0, fn)
        else:
            self.waiting.setdefault(name, []).append(fn)

    def _work(self) -> None:
        while True:
            name = self._queue.get()
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 -- raised again where the GUI imports it
                pass
            try:
                self.imported.emit(name)  # queued to the GUI thread
            except RuntimeError:  # the window that asked has gone
                return

    def _arrived(self, name: str) -> None:
        self.pending.discard(name)
        for fn in self.waiting.pop(name, []):
            fn()
