"""Live physics for the 3D viewport: a worker thread steps the world and reports link frames.

The worker holds `world.lock` while it steps and reads link states (PyBullet
clients are not thread-safe), computes `link_frames` itself, and emits them at
most once per tick (~30 Hz), and only once the view has applied the previous
frame, so a slow view never builds a queue. Frames reach the view through a
signal connected to a bound slot of a GUI-thread QObject (a queued connection);
a lambda would run in the worker thread.

Stopping uses `QThread.requestInterruption`: the worker sees it on its next
tick, stops its timer in its own thread and quits its event loop; the caller
waits for the thread to finish. A QThread destroyed while running aborts the
process, so `LiveSimulation.stop` runs on close, on destruction and at exit.
"""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from sim.tabletop.world import TabletopWorld
from sim.visuals import link_frames

log = logging.getLogger(__name__)

STEPS_PER_TICK = 8  # 8 steps of 1/240 s every 33 ms: about real time
TICK_MS = 33
STOP_TIMEOUT_MS = 5000

# Threads that did not finish in time: kept referenced so that Python never
# destroys a running QThread (which would abort the process).
_stuck_threads: list[QThread] = []


class LiveStepper(QObject):
    """Steps a world on a timer in its own thread; emits (generation, link frames)."""

    frames_ready = Signal(object)

    def __init__(
        self,
        world: TabletopWorld,
        generation: int,
        *,
        steps_per_tick: int = STEPS_PER_TICK,
        tick_ms: int = TICK_MS,
    ) -> None:
        super().__init__()
        self._world = world
        self._generation = generation
        self._steps = steps_per_tick
        self._tick_ms = tick_ms
        self._consumed = threading.Event()
        self._consumed.set()
        self._timer: QTimer | None = None
        self.ticks = 0

    @Slot()
    def run(self) -> None:
        """Start ticking; runs in the worker thread (connected to QThread.started)."""
        self._timer = QTimer(self)
        self._timer.setInterval(self._tick_ms)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    @Slot()
    def _tick(self) -> None:
        thread = QThread.currentThread()
        if thread.isInterruptionRequested():
            self._timer.stop()
            thread.quit()
            return
        with self._world.lock:
            self._world.step(self._steps)
            frames = link_frames(self._world) if self._consumed.is_set() else None
        self.ticks += 1
        if frames is not None:
            self._consumed.clear()
            self.frames_ready.emit((self._generation, frames))

    def frame_consumed(self) -> None:
        """The view applied the last frame: the next tick may send another (thread-safe)."""
        self._consumed.set()


class LiveSimulation:
    """Owns one worker thread and its stepper; start and stop it from the GUI thread."""

    def __init__(self, world: TabletopWorld, generation: int, receiver) -> None:
        """`receiver` must be a bound @Slot(object) of a QObject in the GUI thread."""
        self.thread = QThread()
        self.thread.setObjectName("viewport-live-physics")
        self.stepper = LiveStepper(world, generation)
        self.stepper.moveToThread(self.thread)
        self.thread.started.connect(self.stepper.run)
        self.stepper.frames_ready.connect(receiver)
        self.thread.start()

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.isRunning()

    def frame_consumed(self) -> None:
        if self.stepper is not None:
            self.stepper.frame_consumed()

    def stop(self, timeout_ms: int = STOP_TIMEOUT_MS) -> bool:
        """Stop stepping and wait for the thread; True if it finished. Safe to call twice."""
        thread, self.thread = self.thread, None
        if thread is None:
            return True
        thread.requestInterruption()
        finished = thread.wait(timeout_ms)
        if not finished:
            log.error("live physics thread did not stop within %d ms; leaving it", timeout_ms)
            _stuck_threads.append(thread)
            return False
        self.stepper = None
        return True
