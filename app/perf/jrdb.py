"""Perf case of the JRDB import: loading one frame's two lidar sweeps, merged."""

from __future__ import annotations

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
