"""Perf cases of question generation: throughput per task, and where the time goes."""

from __future__ import annotations

import time

from app.perf.harness import PerfResult, perf_case, report
from sim.tabletop.catalog import load_catalog
from sim.tabletop.questions import TASKS, Candidate, generate
from sim.tabletop.world import MODEL_IMAGE_SIZE

ORDER = 40  # where these cases run in `reasonscope bench` (see app.perf.harness)

SEEDS = {False: 12, True: 3}


def _run(task: str, quick: bool) -> tuple[int, int, float, float, float]:
    entries = load_catalog()
    accepted = tried = 0
    scene_s = visibility_s = 0.0
    t0 = time.perf_counter()
    for seed in range(SEEDS[quick]):
        report(f"questions_{task}: candidate {seed + 1} of {SEEDS[quick]}")
        result = generate(task, seed, entries=entries)
        tried += 1
        scene_s += result.timing.scene_s
        visibility_s += result.timing.visibility_s
        if isinstance(result, Candidate):
            accepted += 1
            result.scene.world.close()
    return accepted, tried, time.perf_counter() - t0, scene_s, visibility_s


def _case(task: str):
    name = f"questions_{task}"
    goal = "accepted > 0 (throughput reported)"

    @perf_case(name, goal=goal)
    def case(quick: bool) -> PerfResult:
        accepted, tried, wall, scene_s, vis_s = _run(task, quick)
        per_minute = accepted / wall * 60
        share = vis_s / (vis_s + scene_s) if vis_s + scene_s else 0.0
        return PerfResult(
            name,
            per_minute,
            "accepted/min",
            goal,
            accepted > 0,
            f"{accepted} of {tried} candidates accepted in {wall:.1f} s at {MODEL_IMAGE_SIZE} x {MODEL_IMAGE_SIZE}; "
            f"visibility checks {100 * share:.0f} % and scene settling {100 * (1 - share):.0f} % "
            f"of generation time ({vis_s:.1f} s vs {scene_s:.1f} s)",
        )

    case.__name__ = name
    return case


for _task in TASKS:
    _case(_task)
