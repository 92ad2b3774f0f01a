"""The perf case `cloud_frame_time`: a lidar view frame with millions of points, level of detail."""

from __future__ import annotations

import pytest


def test_the_bench_case_measures_both_clouds(qapp):
    from annotation.jrdb.synthetic import lidar_like
    from app.perf import harness as bench
    from app.perf.cloud import measure_cloud_frames

    assert bench.CASES.get("cloud_frame_time") or "cloud_frame_time" in bench.known_cases()
    assert bench.CASES["cloud_frame_time"].goal == "<= 2"
    assert lidar_like(1_000).shape == (1_000, 3)
    m = measure_cloud_frames(2, points=150_000, base_points=5_000, size=(240, 180))
    assert m.points == 150_000 and m.base_points == 5_000
    assert m.drawn <= 100_000 and m.still_drawn >= m.drawn
    assert m.big_ms > 0 and m.base_ms > 0 and m.ratio == pytest.approx(m.big_ms / m.base_ms)
