"""Perf cases of JRDB frames: loading one frame's two lidar sweeps, merged
(`jrdb_frame_load`), and a step of the Annotate HOI mode at the size users run
(`annotate_step`, which needs a display: Xvfb will do).

`annotate_step` writes a sequence of 30 people, 10 objects and two 60,000-point sweeps a
frame (`app.demo.jrdb_synth`), imports it, and drives the real Annotate mode in this
process. Every figure is a ratio against returning to a frame already shown (PgUp and
PgDn between two shown frames), in the same run:

- PgDn to a never-shown frame, after the annotator looked at the frame before it for as
  long as preparing ahead takes (goal <= 1.5x);
- a slider move while the handle is dragged, against a PgDn's synchronous part (the time
  the window is blocked; goal <= 1.5x);
- PgDn with the Scene graph tab in front, until the graph shows the frame (goal <= 1.5x);
- memory: the process's resident size after the walk through every frame and then 1,000
  more PgDn steps (round and round the sequence, each step until the frame is on screen),
  against before the first step (goal: within 100 MB); and after the drag and the graph
  steps too (reported).
"""

from __future__ import annotations

import os
import statistics
import time

from annotation.jrdb.dataset import POINTCLOUDS, frame_name
from app.demo.jrdb_synth import TRUE_CALIBRATION, SynthConfig, write_sequence
from app.perf.harness import PerfResult, median_ms, perf_case, report, scratch_folder
from sim.jrdb.lidar import load_frame_points, read_sweep

ORDER = 80  # where these cases run in `reasonscope bench` (see app.perf.harness)

# Points per sweep: JRDB's Velodynes give about 60k points each; quick runs use fewer.
POINTS = {False: 60_000, True: 20_000}
REPEATS = {False: 30, True: 10}


@perf_case("jrdb_frame_load", goal="report")
def jrdb_frame_load(quick: bool) -> PerfResult:
    """Read and merge one frame's upper and lower sweeps (ms), vs reading one sweep."""
    config = SynthConfig(frames=1, points_per_sweep=POINTS[quick])
    with scratch_folder() as folder:
        report("jrdb_frame_load: writing a synthetic frame")
        write_sequence(folder, config)
        rel = [f"{POINTCLOUDS[s]}/{config.name}/{frame_name(0, '.pcd')}" for s in POINTCLOUDS]
        one = folder / rel[0]
        points = len(load_frame_points(folder, rel, TRUE_CALIBRATION))
        report("jrdb_frame_load: timing")
        merged_ms, single_ms = [], []
        for _ in range(3):  # interleave the two so that machine noise hits both alike
            merged_ms.append(
                median_ms(lambda: load_frame_points(folder, rel, TRUE_CALIBRATION), REPEATS[quick])
            )
            single_ms.append(median_ms(lambda: read_sweep(one), REPEATS[quick]))
    merged, single = min(merged_ms), min(single_ms)
    return PerfResult(
        "jrdb_frame_load",
        merged,
        "ms",
        "report",
        True,
        f"{points:,} points from two .pcd sweeps read with Open3D and moved into the label frame "
        f"in {merged:.1f} ms; one sweep alone {single:.1f} ms ({merged / single:.2f}x)",
    )


STEP_FRAMES = {False: 120, True: 100}  # frames of 30 people, 10 objects, 2 x 60,000 points
STEP_RETURNS = {False: 30, True: 16}
STEP_GOAL = 1.5  # each step against a return to a frame shown
CACHE_FILLED = 10  # steps after which the frame cache is full (memory is read then too)
MEMORY_WALK = {False: 1000, True: 300}  # PgDn steps of the memory walk
MEMORY_GOAL_MB = 100  # the walk ends within this of where the first step began


def _rss_mb() -> float:
    """This process's resident memory now (MB), from /proc (Linux)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def _settle(app, done, timeout: float = 120.0) -> None:
    """Run the event loop until `done()`. Deferred deletions are run too: without `exec()`,
    `processEvents` never deletes what `deleteLater` was called on, and memory would grow
    where the app's own event loop frees it."""
    from PySide6.QtCore import QEvent

    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            raise TimeoutError("annotate_step: the frame did not come")
        app.processEvents()
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        time.sleep(0.0005)


def _step(app, annotate, move, extra=lambda: True) -> tuple[float, float]:
    """(ms until the frame is on screen with its cloud and `extra()` holds, ms the window
    was blocked by the move itself)."""
    t0 = time.perf_counter()
    move()
    blocked = time.perf_counter() - t0
    _settle(app, lambda: annotate.shown == annotate.state.frame.id and extra())
    app.processEvents()  # paint
    return 1000 * (time.perf_counter() - t0), 1000 * blocked


def _open_annotate(app, db):
    from PySide6.QtWidgets import QStackedWidget, QWidget

    from app.modes.annotate.mode import AnnotateMode
    from app.session import ProjectSession
    from widgets.mode import ModeWindow

    session = ProjectSession()
    pages = QStackedWidget()
    pages.addWidget(QWidget())
    mode = ModeWindow("annotate", "Annotate HOI", pages)
    annotate = AnnotateMode(mode, pages, session)
    mode.resize(1280, 860)
    mode.show()
    session.open(db)
    _settle(app, lambda: annotate.state.frame is not None)
    _settle(app, lambda: annotate.shown == annotate.state.frame.id)
    return session, mode, annotate


def _looked_at(app, annotate) -> None:
    """The annotator looks at the frame until the frames ahead are prepared."""
    _settle(app, lambda: annotate.preparing_done())


def _walk(app, annotate, frames: int, returns: int) -> dict[str, list[float]]:
    """PgDn through frames, each looked at first; then returns (PgUp and PgDn between two
    frames shown); the Relations tab in front."""
    new, sync, back, rss = [], [], [], [_rss_mb()]
    for n in range(frames - 1):
        if n == CACHE_FILLED:
            rss.append(_rss_mb())
        _looked_at(app, annotate)
        total, blocked = _step(app, annotate, lambda: annotate.state.step(1))
        new.append(total)
        sync.append(blocked)
        if annotate.state.frame_index % 20 == 0:
            report(f"annotate_step: frame {annotate.state.frame_index + 1} of {frames}")
    for k in range(returns):
        _looked_at(app, annotate)
        move = -1 if k % 2 == 0 else 1
        back.append(_step(app, annotate, lambda m=move: annotate.state.step(m))[0])
    _looked_at(app, annotate)
    rss.append(_rss_mb())
    return {"new": new, "sync": sync, "back": back, "rss": rss}


def _memory_walk(app, annotate, steps: int) -> float:
    """PgDn `steps` times round and round the sequence (Home after the last frame), each
    step until the frame is on screen; the resident size after it (MB)."""
    last = len(annotate.state.frames) - 1
    for n in range(steps):
        at = annotate.state.frame_index
        _step(app, annotate, lambda a=at: annotate.state.set_frame(0 if a == last else a + 1))
        if n % 100 == 99:
            report(f"annotate_step: memory walk, step {n + 1} of {steps}")
    _looked_at(app, annotate)
    return _rss_mb()


def _drag(app, annotate) -> list[float]:
    """A slider drag from the first frame to the last: ms each move blocks the window."""
    bar = annotate.slider.slider
    annotate.state.set_frame(0)
    _settle(app, lambda: annotate.shown == annotate.state.frame.id)
    moves = []
    bar.setSliderDown(True)
    for position in range(1, bar.maximum() + 1):
        t0 = time.perf_counter()
        bar.setValue(position)
        moves.append(1000 * (time.perf_counter() - t0))
        app.processEvents()
    bar.setSliderDown(False)
    _settle(app, lambda: annotate.shown == annotate.state.frame.id)
    return moves


def _with_graph(app, annotate, steps: int) -> list[float]:
    """PgDn with the Scene graph tab in front, until the graph shows the frame."""
    annotate.mode.show_dock("graph")
    graph = annotate.graph
    _settle(app, lambda: not graph.stale)
    annotate.state.set_frame(0)
    _settle(app, lambda: annotate.shown == annotate.state.frame.id and not graph.stale)
    out = []
    ahead = graph.ahead
    for _ in range(steps):
        _looked_at(app, annotate)
        _settle(app, lambda: ahead.task is None and ahead.pending is None)  # read ahead too
        out.append(_step(app, annotate, lambda: annotate.state.step(1), lambda: not graph.stale)[0])
    annotate.mode.show_dock("relations")
    return out


@perf_case("annotate_step", goal="each <= 1.5x a return to a shown frame; memory <= +100 MB")
def annotate_step(quick: bool) -> PerfResult:
    """The Annotate mode's step at JRDB size, as ratios against returning to a frame."""
    from app.perf.display import gl_application

    try:
        app = gl_application()
    except RuntimeError as exc:
        return PerfResult("annotate_step", float("inf"), "x", "<= 1.5x", False, str(exc))
    from app.io.jrdb import import_jrdb
    from store import open_project

    frames = STEP_FRAMES[quick]
    config = SynthConfig(frames=frames, people=30, objects=10, points_per_sweep=60_000)
    with scratch_folder() as folder:
        report(f"annotate_step: writing {frames} frames")
        write_sequence(folder / "jrdb", config)
        db = folder / "step.reasonscope"
        open_project(db, create=True).close()
        import_jrdb(db, folder / "jrdb")
        session, mode, annotate = _open_annotate(app, db)
        walk = _walk(app, annotate, frames, STEP_RETURNS[quick])
        walk["rss"].append(_memory_walk(app, annotate, MEMORY_WALK[quick]))
        drag = _drag(app, annotate)
        graph = _with_graph(app, annotate, min(30, frames - 1))
        walk["rss"].append(_rss_mb())  # after the drag and the graph too (reported)
        annotate.shutdown()
        session.close()
        mode.close()
    return _step_result(walk, drag, graph, frames, MEMORY_WALK[quick])


def _step_result(walk, drag, graph, frames: int, steps: int) -> PerfResult:
    back = statistics.median(walk["back"])
    new = statistics.median(walk["new"])
    sync = statistics.median(walk["sync"])
    move = statistics.median(drag)
    with_graph = statistics.median(graph)
    start, filled, end, after, last = walk["rss"]
    grown, steady = end - start, (end - filled) / (frames - 1 - CACHE_FILLED) * 1000
    ratios = {"new": new / back, "drag": move / sync, "graph": with_graph / back}
    worst = max(ratios.values())
    return PerfResult(
        "annotate_step",
        worst,
        "x",
        f"each <= 1.5x; memory within {MEMORY_GOAL_MB} MB after {steps:,} more steps",
        worst <= STEP_GOAL and after - start <= MEMORY_GOAL_MB,
        f"{frames} frames of 30 people, 10 objects, 2 x 60,000 points; return to a shown "
        f"frame {back:.0f} ms; PgDn to a new frame {new:.0f} ms ({ratios['new']:.2f}x); "
        f"a drag move blocks {move:.0f} ms vs a PgDn's {sync:.0f} ms ({ratios['drag']:.2f}x); "
        f"PgDn with the graph in front {with_graph:.0f} ms ({ratios['graph']:.2f}x); "
        f"memory after walking every frame {grown:+.0f} MB ({end:.0f} MB; "
        f"{steady:+.0f} MB per 1,000 frames from step {CACHE_FILLED} on), and after "
        f"{steps:,} more PgDn steps {after - start:+.0f} MB ({after:.0f} MB; after the drag "
        f"and the graph steps too {last - start:+.0f} MB); medians of {len(walk['new'])}, {len(walk['back'])}, "
        f"{len(drag)}, {len(graph)}",
    )
