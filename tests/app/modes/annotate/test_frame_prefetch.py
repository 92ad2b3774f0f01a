"""Frames prepared ahead in Annotate HOI: the neighbours in the direction of travel are
made ready in the background, used without being read again, dropped when the annotator
jumps away, and held in a cache that never grows past its bound."""

from __future__ import annotations

import threading

import pytest
from gestures import open_as_ada, press_shortcut
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import Qt

import app.modes.annotate.mode as mode_module
from app.demo.jrdb_synth import SynthConfig
from app.modes.annotate import graph as graph_module
from app.modes.annotate import loading
from app.modes.annotate.prefetch import FrameCache, PreparedFrame, neighbours

CONFIG = SynthConfig(frames=12, people=4, objects=3, points_per_sweep=3_000)


def test_neighbours_follow_the_direction_of_travel():
    assert neighbours(5, 12, 1) == [6, 7, 4]
    assert neighbours(5, 12, -1) == [4, 3, 6]
    assert neighbours(0, 12, -1) == [1]  # nothing before the first frame
    assert neighbours(11, 12, 1) == [10]


def test_the_cache_never_holds_more_than_its_bound():
    cache = FrameCache(3)
    for frame_id in range(10):
        cache.put(PreparedFrame(frame_id, None, None))
        assert len(cache) <= 3
        if frame_id >= 1:
            assert cache.get(frame_id - 1) is not None  # used: kept over older frames
    assert cache.frame_ids() == [7, 9, 8]


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("prefetch"), CONFIG).db


@pytest.fixture
def annotate(qtbot, imported, tmp_path, monkeypatch):
    """Annotate HOI on frame 1 of 12, with its neighbours prepared; counts the frames the
    mode reads itself (`load_frame` on its own task)."""
    reads: list[int] = []
    original = mode_module.load_frame

    def counted(sequence, frame, *args):
        reads.append(frame.id)
        return original(sequence, frame, *args)

    monkeypatch.setattr(mode_module, "load_frame", counted)
    w = open_as_ada(qtbot, imported, "annotate", copy_to=tmp_path)
    a = w.mode("annotate")
    a.reads = reads
    qtbot.waitUntil(lambda: a.shown == a.state.frame.id, timeout=30000)
    qtbot.waitUntil(lambda: a.preparing_done(), timeout=30000)
    yield a
    w.close()


def settled(qtbot, a) -> None:
    qtbot.waitUntil(lambda: a.shown == a.state.frame.id, timeout=30000)
    qtbot.waitUntil(lambda: a.preparing_done(), timeout=30000)


def test_the_next_frames_are_prepared_and_used_without_reading_again(qtbot, annotate):
    a, window = annotate, annotate.mode.window()
    frames = a.state.frames
    assert frames[1].id in a.cache and frames[2].id in a.cache  # the next two, ahead
    project = a.session.project
    assert project.sequences.has_relations(frames[1].id)  # computed and stored ahead
    reads = len(a.reads)
    press_shortcut(qtbot, window, Qt.Key.Key_PageDown)
    # shown at once, from what was prepared: no task, nothing read again
    assert a.shown == frames[1].id and a.task is None and len(a.reads) == reads
    assert a.panorama.has_image and a.cloud.total_count > 1000
    assert a.relations.relations  # the stored relations, in words
    settled(qtbot, a)
    assert frames[3].id in a.cache and frames[0].id in a.cache  # ahead again, and behind
    started = list(a.prefetch.started)
    press_shortcut(qtbot, window, Qt.Key.Key_PageDown)
    assert a.shown == frames[2].id and len(a.reads) == reads
    settled(qtbot, a)
    # going back: the previous frames are kept, nothing is prepared twice
    press_shortcut(qtbot, window, Qt.Key.Key_PageUp)
    assert a.shown == frames[1].id and len(a.reads) == reads
    settled(qtbot, a)
    assert len(set(a.prefetch.started)) == len(a.prefetch.started)
    assert set(started) <= set(a.prefetch.started)


def test_the_neighbours_are_prepared_only_once_the_frame_is_painted(qtbot, annotate):
    """A step to a prepared frame asks for nothing in the background until the cloud view
    has painted it (a worker started with the step would slow its paint)."""
    a, window = annotate, annotate.mode.window()
    frames = a.state.frames
    painted = []
    a.cloud.painted.connect(lambda: painted.append(a.near_pending))
    started = len(a.prefetch.started)
    press_shortcut(qtbot, window, Qt.Key.Key_PageDown)
    assert a.shown == frames[1].id and a.near_pending  # waiting for the paint
    assert len(a.prefetch.started) == started and not a.prefetch.queued()
    qtbot.waitUntil(lambda: bool(painted), timeout=10000)
    assert painted[0] is False  # the paint itself asked for them (before this slot ran)
    settled(qtbot, a)
    assert not a.near_pending and frames[3].id in a.cache  # then the next ones came


def test_a_jump_drops_the_preparation_of_frames_no_longer_near(qtbot, annotate, monkeypatch):
    a, window = annotate, annotate.mode.window()
    frames = a.state.frames
    gate = threading.Event()  # preparing a frame waits until the test lets it go on
    real = loading.load_frame

    def slow(sequence, frame, *args):
        gate.wait(10)
        return real(sequence, frame, *args)

    monkeypatch.setattr(loading, "load_frame", slow)
    press_shortcut(qtbot, window, Qt.Key.Key_PageDown)  # frame 2 of 12: frame 4 is asked for
    qtbot.waitUntil(lambda: a.prefetch.busy_with(frames[3].id), timeout=10000)
    press_shortcut(qtbot, window, Qt.Key.Key_End)  # far away
    last = len(frames) - 1
    assert set(a.prefetch.queued()) <= {frames[i].id for i in neighbours(last, len(frames), 1)}
    gate.set()
    settled(qtbot, a)
    near = {frames[i].id for i in (last, *neighbours(last, len(frames), 1))}
    assert frames[3].id not in a.cache  # its preparation was dropped
    assert set(a.cache.frame_ids()) - {frames[i].id for i in range(3)} <= near


def test_a_walk_keeps_the_cache_within_its_bound(qtbot, annotate):
    a, window = annotate, annotate.mode.window()
    a.cache.limit = 4
    for _ in range(len(a.state.frames) - 1):
        press_shortcut(qtbot, window, Qt.Key.Key_PageDown)
        assert len(a.cache) <= 4
        qtbot.waitUntil(lambda: a.shown == a.state.frame.id, timeout=30000)
        assert len(a.cache) <= 4
    settled(qtbot, a)
    assert len(a.cache) <= 4


def test_a_dragged_slider_shows_images_and_boxes_and_no_cloud_until_it_rests(qtbot, annotate):
    a = annotate
    frames, project = a.state.frames, a.session.project
    reads, started = len(a.reads), len(a.prefetch.started)
    bar = a.slider.slider
    bar.setSliderDown(True)
    for position in range(1, 9):
        bar.setValue(position)
        # the number, the panorama and the 2D boxes follow the handle ...
        assert f"Frame {position + 1} of" in a.slider.label.text()
        assert a.panorama.boxes == project.sequences.boxes_2d(frames[position].id)
        assert a.panorama.has_image
    # ... nothing else: the frame stays, no cloud is read or prepared
    assert a.state.frame_index == 0 and a.shown == frames[0].id
    assert len(a.reads) == reads and len(a.prefetch.started) == started
    assert a.prefetch.queued() == []  # what was near frame 1 is dropped
    qtbot.waitUntil(lambda: a.state.frame_index == 8, timeout=2000)  # rested: the frame
    settled(qtbot, a)
    assert a.shown == frames[8].id and len(a.reads) == reads + 1
    bar.setValue(10)
    bar.setSliderDown(False)  # released: the frame at once
    assert a.state.frame_index == 10
    settled(qtbot, a)
    assert a.shown == frames[10].id


def test_with_the_graph_in_front_a_prepared_frame_shows_the_graph_read_ahead(
    qtbot, annotate, monkeypatch
):
    a, window = annotate, annotate.mode.window()
    a.mode.show_dock("graph")
    qtbot.waitUntil(lambda: not a.graph.stale, timeout=10000)
    a._prefetch_near()  # the dock is on screen now: the neighbours' graphs are read too
    key = a.graph.key_of(a.state.frames[1].id)
    qtbot.waitUntil(lambda: key in a.graph.ahead.cache, timeout=30000)
    calls = []
    monkeypatch.setattr(graph_module, "graph_for_window", lambda *args: calls.append(args))
    press_shortcut(qtbot, window, Qt.Key.Key_PageDown)
    # shown with the step, no debounce, nothing read on the GUI thread
    assert not a.graph.stale and calls == []
    assert a.graph.view.graph is a.graph.ahead.cache[key]
    assert a.graph.view.graph.entities
