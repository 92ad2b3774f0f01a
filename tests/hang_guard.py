"""A block of a test that must end within a time: SIGALRM raises an exception in it, so
a loop that never ends fails instead of hanging the run (not nested; POSIX only)."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class StillRunning(BaseException):
    """A test ran past its deadline. A BaseException, so that no `except Exception` (or
    `except OSError`) in the code under test swallows it and loops on."""


@contextmanager
def deadline(seconds: float, raise_: Callable[[], BaseException]) -> Iterator[None]:
    """Raise `raise_()` in the block once it has run `seconds` of wall clock."""

    def alarm(_signum, _frame) -> None:
        raise raise_()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
