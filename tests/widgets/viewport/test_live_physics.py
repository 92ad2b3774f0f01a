"""Live physics: a worker thread steps a real PyBullet world and sends link frames, one at a
time, only after the view has applied the last one; stopping ends the thread."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QObject, Signal, Slot

from sim.tabletop.world import TABLE_TOP_Z, TabletopWorld
from widgets.viewport.live import LiveSimulation


class Receiver(QObject):
    """A GUI-thread QObject with a bound slot, as the viewport is."""

    got = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.frames: list = []

    @Slot(object)
    def take(self, message) -> None:
        self.frames.append(message)
        self.got.emit()


@pytest.fixture
def world():
    w = TabletopWorld(with_robot=False)
    w.add_primitive("cube", "box", (0.03, 0.03, 0.03), (0.0, 0.0, TABLE_TOP_Z + 0.2), mass=0.1)
    yield w
    w.close()


def test_frames_come_one_at_a_time_and_the_world_moves(qtbot, world):
    start_z = world.aabb("cube")[0][2]
    receiver = Receiver()
    live = LiveSimulation(world, generation=7, receiver=receiver.take)
    try:
        with qtbot.waitSignal(receiver.got, timeout=5000):
            pass
        generation, frames = receiver.frames[0]
        assert generation == 7 and frames  # the link frames of the world's bodies
        qtbot.wait(300)  # ticks go on, but nothing more is sent until the frame is applied
        assert len(receiver.frames) == 1
        assert live.stepper.ticks > 2
        live.frame_consumed()
        with qtbot.waitSignal(receiver.got, timeout=5000):
            pass
        assert len(receiver.frames) == 2
    finally:
        assert live.stop()
    with world.lock:
        assert world.aabb("cube")[0][2] < start_z - 0.01  # it fell while stepping


def test_stop_ends_the_thread_and_is_safe_twice(qtbot, world):
    receiver = Receiver()
    live = LiveSimulation(world, generation=1, receiver=receiver.take)
    qtbot.waitUntil(lambda: live.running, timeout=5000)
    assert live.stop() and not live.running
    assert live.stop()  # again: nothing to stop
    ticks = len(receiver.frames)
    qtbot.wait(150)
    assert len(receiver.frames) == ticks  # nothing after the stop
