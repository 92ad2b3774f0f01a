"""Perf cases of batch work on Ray: scenes on two workers vs one, and what the Ray path
costs when it has only one worker.

Both time `app.jobs.scenes.generate_and_store`, the code behind `scenes generate`, into
fresh projects. Ray is started (and its worker processes warmed up) before the timed
runs, as a cluster is up before a batch is sent to it; the start-up time is reported
beside the ratio. A Ray already running in this process (tests) is shut down first, so
each case gets the CPUs it asks for.
"""

from __future__ import annotations

import time

from app.jobs.batch import ray_module, start_ray
from app.jobs.scenes import generate_and_store, make_scene_record
from app.perf.harness import PerfResult, perf_case, report, scratch_folder
from store import open_project

ORDER = 260  # after the single-process cases: Ray starts here (see app.perf.harness)

SCENES = {False: 20, True: 8}
OBJECTS = (8, 15)  # the paper's range, as `scenes generate` makes by default
SPEEDUP_GOAL = 1.6
OVERHEAD_GOAL = 1.1


def _timed_run(folder, name: str, n: int, **options) -> float:
    db = folder / f"{name}.reasonscope"
    open_project(db, create=True).close()
    t0 = time.perf_counter()
    ids = generate_and_store(db, n=n, seed=100, objects=OBJECTS, **options)
    seconds = time.perf_counter() - t0
    if len(ids) != n:
        raise RuntimeError(f"{name}: {len(ids)} of {n} scenes stored")
    return seconds


def _fresh_ray(cpus: int) -> float:
    """Start a local Ray with `cpus` CPUs and warm one worker per CPU; the seconds taken."""
    ray = ray_module()
    if ray.is_initialized():
        ray.shutdown()
    t0 = time.perf_counter()
    start_ray(cpus, None)
    warm = ray.remote(make_scene_record)
    ray.get([warm.remote((seed, (1, 1), "2f140")) for seed in range(cpus)])
    return time.perf_counter() - t0


def _in_process_and_on_ray(
    name: str, quick: bool, cpus: int, **run
) -> tuple[int, float, float, float]:
    """The same scenes generated in this process, then on a fresh local Ray of `cpus` CPUs
    (`run`: how `scenes generate` is called there): n, both times and Ray's start-up."""
    n = SCENES[quick]
    with scratch_folder() as folder:
        report(f"{name}: {n} scenes in this process")
        alone = _timed_run(folder, "alone", n)
        report(f"{name}: starting a local Ray with {cpus} CPU(s)")
        startup = _fresh_ray(cpus)
        try:
            report(f"{name}: {n} scenes on Ray, {cpus} worker(s)")
            on_ray = _timed_run(folder, "ray", n, ray_address="auto", **run)
        finally:
            ray_module().shutdown()
    return n, alone, on_ray, startup


@perf_case("batch_scenes_speedup", goal=f">= {SPEEDUP_GOAL}x")
def batch_scenes_speedup(quick: bool) -> PerfResult:
    """`scenes generate` on a local Ray with 2 workers vs in-process, on this 2-core machine."""
    n, alone, two, startup = _in_process_and_on_ray("batch_scenes_speedup", quick, 2, workers=2)
    speedup = alone / two
    return PerfResult(
        "batch_scenes_speedup",
        speedup,
        "x",
        f">= {SPEEDUP_GOAL}x",
        speedup >= SPEEDUP_GOAL,
        f"{n} scenes of {OBJECTS[0]}-{OBJECTS[1]} objects: in-process {alone:.1f} s, 2 Ray "
        f"workers {two:.1f} s ({n / two:.2f} scenes/s); Ray start-up and warm-up "
        f"{startup:.1f} s, not counted",
    )


@perf_case("batch_ray_overhead", goal=f"<= {OVERHEAD_GOAL}x")
def batch_ray_overhead(quick: bool) -> PerfResult:
    """`scenes generate` through a 1-CPU Ray vs in-process: what the Ray path itself costs."""
    n, alone, one, startup = _in_process_and_on_ray("batch_ray_overhead", quick, 1)
    ratio = one / alone
    return PerfResult(
        "batch_ray_overhead",
        ratio,
        "x",
        f"<= {OVERHEAD_GOAL}x",
        ratio <= OVERHEAD_GOAL,
        f"{n} scenes: in-process {alone:.1f} s, through a 1-CPU Ray {one:.1f} s "
        f"({(one - alone) / n * 1000:+.0f} ms a scene); Ray start-up and warm-up "
        f"{startup:.1f} s, not counted",
    )
