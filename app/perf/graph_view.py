"""Perf case `graph_view_update`: what the live scene-graph view costs a crowded JRDB frame.

A synthetic 30-person frame in the JRDB layout (30 people walking around the
robot, 10 objects, a few HOI labels, and the geometric relations the project
stores: everyone and everything seen from the robot, every person seen from
every other person, every object seen from every person, about 1,200 edges) is
built by `annotation.jrdb.synthetic.synthetic_frames`. The view shows a sequence
of such frames, people moving a little each frame, so each `set_graph` is a
frame change (a diff applied to the shown graph); the first one lays out every
node. The value is the median milliseconds of a frame change, the goal a
latency a person does not feel; the baseline, in the same process, is the same
for a 3-person frame, and the detail gives the ratio.
"""

from __future__ import annotations

import math
import statistics
import time

from annotation.jrdb.synthetic import synthetic_frames
from annotation.scene_graph import SceneGraph
from app.perf.display import widget_application
from app.perf.harness import PerfResult, perf_case, report

ORDER = 110  # where these cases run in `reasonscope bench` (see app.perf.harness)

NAME = "graph_view_update"
GOAL = "median < 50 ms per frame"
PEOPLE, SMALL_PEOPLE, OBJECTS = 30, 3, 10
FRAMES = {False: 40, True: 12}


def measure_frame_changes(graphs: list[SceneGraph]) -> tuple[float, float, int]:
    """(first layout ms, median frame-change ms, edges drawn at the end) in a 420 x 520 view."""
    app = widget_application()
    from widgets.graph.view import SceneGraphView

    view = SceneGraphView()
    view.resize(420, 520)
    view.show()
    app.processEvents()
    t0 = time.perf_counter()
    view.set_graph(graphs[0])
    first = (time.perf_counter() - t0) * 1000
    times = []
    for graph in graphs[1:]:
        t0 = time.perf_counter()
        view.set_graph(graph)
        times.append((time.perf_counter() - t0) * 1000)
        app.processEvents()  # paint, as the person would see it, outside the timing
    drawn = len(view.edge_items)
    view.close()
    view.deleteLater()
    app.processEvents()
    return first, statistics.median(times), drawn


@perf_case(NAME, goal=GOAL)
def graph_view_update(quick: bool) -> PerfResult:
    """The scene-graph view's set_graph on a 30-person JRDB frame change vs a 3-person one."""
    frames = FRAMES[quick]
    report(f"{NAME}: building {frames} synthetic frames of {PEOPLE} people")
    big = synthetic_frames(PEOPLE, OBJECTS, frames)
    small = synthetic_frames(SMALL_PEOPLE, 2, frames)
    try:
        report(f"{NAME}: the {PEOPLE}-person frames")
        first, median, drawn = measure_frame_changes(big)
        report(f"{NAME}: the {SMALL_PEOPLE}-person frames")
        small_first, small_median, _ = measure_frame_changes(small)
    except RuntimeError as exc:  # e.g. Qt cannot start
        return PerfResult(NAME, math.inf, "ms", GOAL, False, f"not measured: {exc}")
    g = big[0]
    return PerfResult(
        NAME,
        median,
        "ms",
        GOAL,
        median < 50,
        f"{len(g.entities)} entities, {len(g.relations)} relations a frame, {frames} frames: "
        f"first layout {first:.1f} ms, median frame change {median:.1f} ms ({drawn} edges "
        f"drawn); {SMALL_PEOPLE} people: {small_first:.1f} ms and {small_median:.2f} ms, "
        f"ratio {median / small_median:.1f}x",
    )
