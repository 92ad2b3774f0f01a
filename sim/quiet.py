"""Keep PyBullet's C-level chatter (build time, URDF importer warnings) off our stdout.

The C library writes straight to file descriptors 1 and 2, past Python's
sys.stdout, so a `--json` report would be corrupted. We point the descriptors
at /dev/null while PyBullet loads things. Not for use around Python output.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()


def _libc_flush() -> None:
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):
        pass


@contextmanager
def quiet_c_output(stderr: bool = True) -> Iterator[None]:
    fds = [1, 2] if stderr else [1]
    with _lock:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (AttributeError, ValueError):
                pass
        try:
            saved = [os.dup(fd) for fd in fds]
        except OSError:  # no real descriptors (embedded interpreters): nothing to silence
            yield
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            for fd in fds:
                os.dup2(devnull, fd)
            yield
        finally:
            _libc_flush()  # C stdio buffers what it printed; drop it into /dev/null now
            for fd, copy in zip(fds, saved, strict=True):
                os.dup2(copy, fd)
                os.close(copy)
            os.close(devnull)
