"""Progress reporting and cancellation for long work, independent of any GUI."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence


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

    def part(
        self, index: int, count: int, name: str, weights: Sequence[float] | None = None
    ) -> Progress:
        """The progress of part `index` of `count` (0-based) of this work: its reports
        move one overall bar (`PART_SCALE` steps across all parts, never back to 0), and
        its messages are prefixed with the part's name and number. `weights` (one per
        part, e.g. their usual seconds) give each part its share of the bar, so that the
        bar, and a time left read from it, move evenly; by default the parts share it
        equally. Cancelling this progress stops the part at its next report."""
        shares = list(weights) if weights is not None else [1.0] * count
        if len(shares) != count or any(w < 0 for w in shares) or not sum(shares):
            raise ValueError(f"{count} parts need {count} non-negative weights, not {shares}")
        total = sum(shares)
        span = PART_SCALE * shares[index] / total
        base = PART_SCALE * sum(shares[:index]) / total
        label = f"{name} (part {index + 1} of {count})"
        prefix = name.split(": ")[0] + ": " if ": " in name else None  # "Demo: ..." once

        def forward(done: int, total: int, message: str) -> None:
            fraction = min(max(done / total, 0.0), 1.0) if total > 0 else 0.0
            if prefix and message.startswith(prefix) and message != name:
                message = message[len(prefix) :]
            text = f"{label}: {message}" if message and message != name else label
            self.report(int(base + fraction * span), PART_SCALE, text)

        child = Progress(forward)
        child._cancel = self._cancel  # one Cancel button stops every part
        return child


PART_SCALE = 1000  # the overall bar of work split into parts (`Progress.part`)
