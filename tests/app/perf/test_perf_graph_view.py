"""The perf case `graph_view_update`: what the live scene-graph view costs a crowded frame."""

from __future__ import annotations

from annotation.jrdb.synthetic import synthetic_frames


def test_the_bench_case_measures_frame_changes(qtbot):
    from app.perf import harness as bench
    from app.perf.graph_view import measure_frame_changes

    assert bench.CASES.get("graph_view_update") or "graph_view_update" in bench.known_cases()
    assert bench.CASES["graph_view_update"].goal == "median < 50 ms per frame"
    frames = synthetic_frames(4, 2, 3)
    assert frames[0] != frames[1]  # people move between frames
    assert len(frames[0].relations) == 4 + 4 * 3 + 4 * 2 + 2 + 1  # robot, people, objects, hoi
    first, median, drawn = measure_frame_changes(frames)
    assert first > 0 and median > 0 and drawn > 0
