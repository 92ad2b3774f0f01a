"""Rendering replay steps off the GUI thread on a real PyBullet world of its own (DIRECT,
64 px images): the view after (or before) a step, only the newest of fast requests, and a
replaced replay's world closed once no render uses it."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QWidget

from sim.camera import project_points
from sim.tabletop.replay import EpisodeReplay
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, TabletopWorld
from widgets.replay.render import RenderRequest, StepRenderer, render_step

CAMERA = TOP_DOWN.with_size(64, 64)
START, PUSHED = (0.0, 0.0), (0.15, 0.1)


def red(pixel) -> bool:
    r, g, b = (int(c) for c in pixel)
    return r > 150 and g < 80 and b < 80


def make_replay() -> EpisodeReplay:
    """A red box pushed from START to PUSHED at step 1, then left alone at step 2."""
    world = TabletopWorld(with_robot=False)
    z = TABLE_TOP_Z + 0.03
    world.add_primitive("red_box", "box", (0.03,) * 3, (*START, z), rgba=(0.9, 0.1, 0.1, 1))
    before = world.capture_state()
    world.client.resetBasePositionAndOrientation(
        world.bodies["red_box"].uid, (*PUSHED, z), (0, 0, 0, 1)
    )
    after = world.capture_state()
    steps = [
        {"kind": "observation", "name": "", "state": before},
        {"kind": "tool", "name": "push", "arguments": {"direction": "right"}, "state": after},
        {"kind": "tool", "name": "perceive_scene", "state": None},
    ]
    return EpisodeReplay(world, steps, CAMERA)


def pixel_of(xy) -> tuple[int, int]:
    uv, _ = project_points(CAMERA, np.array([[*xy, TABLE_TOP_Z + 0.06]]))
    return int(uv[0, 1]), int(uv[0, 0])


@pytest.fixture
def replay():
    r = make_replay()
    yield r
    r.world.close()


@pytest.fixture
def renderer(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    r = StepRenderer(parent)
    yield r
    r.shutdown()


def test_a_step_is_rendered_after_it_or_before_it(replay):
    after = render_step(replay, RenderRequest(1, 1, before=False))
    before = render_step(replay, RenderRequest(1, 1, before=True))
    assert after.request == RenderRequest(1, 1, False) and after.inspection is None  # no grasp
    assert after.view.rgb.shape == (64, 64, 3)
    assert red(after.view.rgb[pixel_of(PUSHED)]) and not red(after.view.rgb[pixel_of(START)])
    assert red(before.view.rgb[pixel_of(START)]) and not red(before.view.rgb[pixel_of(PUSHED)])
    # a step without a state of its own shows the last stored one
    np.testing.assert_array_equal(
        render_step(replay, RenderRequest(1, 2, False)).view.rgb, after.view.rgb
    )


def test_the_renderer_renders_off_the_gui_thread_and_reports(qtbot, renderer, replay):
    assert not renderer.busy
    renderer.request(0)  # no replay yet: nothing to do
    assert not renderer.busy
    renderer.set_replay(replay)
    with qtbot.waitSignal(renderer.rendered, timeout=5000) as done:
        renderer.request(1)
        assert renderer.busy
    result = done.args[0]
    assert result.request == RenderRequest(renderer.generation, 1, False)
    assert red(result.view.rgb[pixel_of(PUSHED)])
    qtbot.waitUntil(lambda: not renderer.busy)


def test_only_the_newest_of_fast_requests_is_shown(qtbot, renderer, replay):
    renderer.set_replay(replay)
    shown = []
    renderer.rendered.connect(lambda r: shown.append((r.request.index, r.request.before)))
    for index in (0, 1, 2):  # stepping fast: no queue builds up
        renderer.request(index)
    renderer.request(1, before=True)
    qtbot.waitUntil(lambda: not renderer.busy, timeout=5000)
    assert shown == [(1, True)]


def test_a_replaced_replays_world_is_closed_once_its_render_ends(qtbot, renderer, replay):
    first = make_replay()
    renderer.set_replay(first)
    with qtbot.assertNotEmitted(renderer.rendered, wait=100):
        renderer.request(1)
        renderer.set_replay(replay)  # another episode while step 1 of the first renders
        assert first.world.client.isConnected()  # still in use
        qtbot.waitUntil(lambda: not renderer.busy, timeout=5000)
    assert not first.world.client.isConnected() and renderer.retired == []
    with qtbot.waitSignal(renderer.rendered, timeout=5000) as done:
        renderer.request(0)
    assert done.args[0].request.generation == 2


def test_a_render_that_fails_says_why(qtbot, renderer):
    broken = make_replay()
    broken.world.close()  # its world is gone: restoring a state fails
    renderer.set_replay(broken)
    with qtbot.waitSignal(renderer.failed, timeout=5000) as failed:
        renderer.request(1)
    assert failed.args[0]
    qtbot.waitUntil(lambda: not renderer.busy, timeout=5000)
