"""Bench case `graph_view_update`: what the live scene-graph view costs a crowded JRDB frame.

A synthetic 30-person frame in the JRDB layout (30 people walking around the
robot, 10 objects, a few HOI labels, and the geometric relations the project
stores: everyone and everything seen from the robot, every person seen from
every other person, every object seen from every person, about 1,200 edges) is
built with `annotation.jrdb.graph.graph_from_jrdb`. The view shows a sequence
of such frames, people moving a little each frame, so each `set_graph` is a
frame change (a diff applied to the shown graph); the first one lays out every
node. The value is the median milliseconds of a frame change, the goal a
latency a person does not feel; the baseline, in the same process, is the same
for a 3-person frame, and the detail gives the ratio.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time

import numpy as np

from annotation.jrdb.geometry import GeometricRelation, ReferencePose, relate
from annotation.jrdb.graph import FrameFacts, HoiFacts, ObjectFacts, PersonFacts, graph_from_jrdb
from annotation.scene_graph import SceneGraph
from app.perf.harness import BenchResult, bench_case, report

NAME = "graph_view_update"
GOAL = "median < 50 ms per frame"
PEOPLE, SMALL_PEOPLE, OBJECTS = 30, 3, 10
FRAMES = {False: 40, True: 12}
_app = None  # the QApplication this module made, kept alive for later cases


def synthetic_frames(people: int, objects: int, frames: int, seed: int = 7) -> list[SceneGraph]:
    """One graph per frame of a crowd walking around the robot (seeded, so repeatable)."""
    rng = np.random.default_rng(seed)
    xy = rng.uniform(-10, 10, (people, 2))
    heading = rng.uniform(-math.pi, math.pi, people)
    things = rng.uniform(-8, 8, (objects, 2))
    step = np.column_stack([np.cos(heading), np.sin(heading)]) * 0.4
    categories = ("chair", "table", "bag", "laptop")
    persons = [PersonFacts(1 + i, f"pedestrian:{i + 1}", "female", "adult") for i in range(people)]
    kit = [
        ObjectFacts(1000 + j, f"{categories[j % 4]}:{j + 1}", categories[j % 4])
        for j in range(objects)
    ]
    hoi = tuple(
        HoiFacts(1 + i, "holding", 1000 + i % objects, "physical", 1 + i % 3)
        for i in range(0, people, 4)
    )
    graphs = []
    for f in range(frames):
        pos = xy + step * f
        geometry = []
        for i in range(people):
            geometry.append(_relation(f, 1 + i, None, (*pos[i], 0.0), ReferencePose()))
            me = ReferencePose(float(pos[i, 0]), float(pos[i, 1]), 0.0, float(heading[i]))
            for j in range(people):
                if j != i:
                    geometry.append(_relation(f, 1 + j, 1 + i, (*pos[j], 0.0), me))
            for j in range(objects):
                geometry.append(_relation(f, 1000 + j, 1 + i, (*things[j], -0.4), me))
        for j in range(objects):
            geometry.append(_relation(f, 1000 + j, None, (*things[j], -0.4), ReferencePose()))
        facts = FrameFacts(0, tuple(persons), tuple(kit), hoi, tuple(geometry), f, f)
        graphs.append(graph_from_jrdb([facts]))
    return graphs


def _relation(frame, subject, reference, where, pose) -> GeometricRelation:
    p = relate(where, pose)
    return GeometricRelation(
        frame, subject, reference, p.direction, p.vertical, p.distance_bin, p.distance_m, "bench"
    )


def _application():
    """The running QApplication or a new one (offscreen when there is no display)."""
    global _app
    from PySide6.QtWidgets import QApplication

    existing = QApplication.instance()
    if existing is not None:
        return existing
    argv = sys.argv[:1]
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        argv += ["-platform", os.environ.get("QT_QPA_PLATFORM") or "offscreen"]
    _app = QApplication(argv)
    return _app


def measure_frame_changes(graphs: list[SceneGraph]) -> tuple[float, float, int]:
    """(first layout ms, median frame-change ms, edges drawn at the end) in a 420 x 520 view."""
    app = _application()
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


@bench_case(NAME, goal=GOAL)
def graph_view_update(quick: bool) -> BenchResult:
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
        return BenchResult(NAME, math.inf, "ms", GOAL, False, f"not measured: {exc}")
    g = big[0]
    return BenchResult(
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
