"""The episode timeline: a tick per recorded step (its kind, whether it failed, its tip), and
seeking by clicking or dragging on it."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from recorded_steps import FAILED, STEPS

from widgets.replay.timeline import MARGIN, Tick, Timeline

LEFT = Qt.MouseButton.LeftButton


def _timeline(qtbot, ticks=()):
    timeline = Timeline()
    qtbot.addWidget(timeline)
    timeline.resize(600 + 2 * MARGIN, 58)
    timeline.set_ticks(list(ticks))
    timeline.show()
    qtbot.waitExposed(timeline)
    return timeline


def test_a_tick_says_the_kind_of_each_recorded_step():
    ticks = [Tick.of(i, s) for i, s in enumerate(STEPS)]
    assert [t.kind for t in ticks] == [
        "observation",
        "perception",
        "perception",
        "manipulation",
        "format_error",
        "answer",
    ]
    assert [i for i, t in enumerate(ticks) if t.failed] == FAILED
    assert ticks[0].tip == "Step 0: observation"
    assert ticks[1].tip == "Step 1: perceive_scene"
    assert ticks[3].tip == (
        "Step 3: grasp — failed: Action failed: the object is wider than the gripper opens"
    )
    assert ticks[4].tip == "Step 4: format error — failed: Format error: no tool call found"
    plan = {"kind": "tool", "name": "executable_plan", "ok": True}
    assert Tick.of(7, plan) == Tick("manipulation", False, "Step 7: plan")
    # an observation is never a failure, whatever its ok says
    assert not Tick.of(0, {"kind": "observation", "ok": False}).failed


def test_clicking_a_tick_asks_to_seek_to_its_step(qtbot):
    timeline = _timeline(qtbot, [Tick.of(i, s) for i, s in enumerate(STEPS)])
    assert timeline.bookmarks == FAILED
    pitch = 600 / len(STEPS)
    assert timeline.x_of(2) == MARGIN + 2.5 * pitch
    for index in (0, 3, 5):
        x = round(timeline.x_of(index))
        with qtbot.waitSignal(timeline.seek_requested) as seek:
            qtbot.mouseClick(timeline, LEFT, pos=QPoint(x, 30))
        assert seek.args == [index]
    # left of the first tick or right of the last: the nearest end
    assert timeline.index_at(0) == 0 and timeline.index_at(timeline.width()) == len(STEPS) - 1


def test_dragging_seeks_and_an_empty_timeline_asks_nothing(qtbot):
    timeline = _timeline(qtbot, [Tick.of(i, s) for i, s in enumerate(STEPS)])
    asked: list[int] = []
    timeline.seek_requested.connect(asked.append)
    qtbot.mousePress(timeline, LEFT, pos=QPoint(round(timeline.x_of(1)), 30))
    qtbot.mouseMove(timeline, QPoint(round(timeline.x_of(4)), 30))
    qtbot.mouseRelease(timeline, LEFT, pos=QPoint(round(timeline.x_of(4)), 30))
    assert asked[0] == 1 and asked[-1] == 4
    empty = _timeline(qtbot)
    with qtbot.assertNotEmitted(empty.seek_requested):
        qtbot.mouseClick(empty, LEFT, pos=QPoint(300, 30))
    assert empty.bookmarks == [] and empty.index_at(300) == 0


def test_fewer_ticks_bring_the_current_step_back_inside(qtbot):
    timeline = _timeline(qtbot, [Tick.of(i, s) for i, s in enumerate(STEPS)])
    timeline.set_current(5)
    assert timeline.current == 5
    timeline.set_ticks([Tick.of(i, s) for i, s in enumerate(STEPS[:2])])
    assert timeline.current == 1 and timeline.bookmarks == []
    timeline.set_ticks([])
    assert timeline.current == 0
    assert not timeline.grab().isNull()  # paints "No episode open"
