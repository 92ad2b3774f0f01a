"""Perf cases of question generation: throughput per task, and where the time goes.

Each case generates what `reasonscope questions generate` generates by default:
candidates from consecutive seeds at the model's image size (1024 x 1024), on full
scenes (table, textures, basket, the UR5e with its gripper, 8-15 piled objects),
one after the other in this process (one core). The value is accepted questions
a minute of the process's CPU time, the time on one core that a busy machine's
other programs cannot stretch; the detail gives the wall-clock rate beside it,
the acceptance rate, the rejections by reason and the time split between
settling the physics, visibility checks and the rest (building worlds, loading
objects and textures, sampling, the questions' own work).
"""

from __future__ import annotations

import time
from collections import Counter

from app.perf.harness import PerfResult, perf_case, report
from sim.tabletop.catalog import load_catalog
from sim.tabletop.questions import TASKS, Candidate, generate
from sim.tabletop.world import MODEL_IMAGE_SIZE

ORDER = 40  # where these cases run in `reasonscope bench` (see app.perf.harness)

CANDIDATES = {False: 24, True: 6}  # seeds 0, 1, ... per task
GOAL_PER_MINUTE = 45
GOAL = f">= {GOAL_PER_MINUTE} accepted per CPU minute (one core)"


def _run(task: str, quick: bool) -> dict:
    entries = load_catalog()
    n = CANDIDATES[quick]
    accepted = 0
    rejected: Counter = Counter()
    settle_s = visibility_s = 0.0
    t0, cpu0 = time.perf_counter(), time.process_time()
    for seed in range(n):
        report(f"questions_{task}: candidate {seed + 1} of {n}")
        result = generate(task, seed, entries=entries)
        settle_s += result.timing.settle_s
        visibility_s += result.timing.visibility_s
        if isinstance(result, Candidate):
            accepted += 1
            result.scene.world.close()
        else:
            rejected[result.reason] += 1
    wall = time.perf_counter() - t0
    return {
        "accepted": accepted,
        "tried": n,
        "wall": wall,
        "cpu": time.process_time() - cpu0,
        "settle": settle_s,
        "visibility": visibility_s,
        "rejected": rejected,
    }


def _case(task: str):
    name = f"questions_{task}"

    @perf_case(name, goal=GOAL)
    def case(quick: bool) -> PerfResult:
        r = _run(task, quick)
        wall = r["wall"]
        # "a minute on one core": the process's CPU minute (generation runs on one
        # thread), which another program on a busy machine cannot stretch; the
        # wall-clock rate is reported beside it
        per_minute = r["accepted"] / r["cpu"] * 60
        per_wall_minute = r["accepted"] / wall * 60
        rest = max(0.0, wall - r["settle"] - r["visibility"])
        why = ", ".join(f"{count} {reason}" for reason, count in r["rejected"].most_common())
        return PerfResult(
            name,
            per_minute,
            "accepted/min",
            GOAL,
            per_minute >= GOAL_PER_MINUTE,
            f"{r['accepted']} of {r['tried']} candidates accepted "
            f"({100 * r['accepted'] / r['tried']:.0f} %) in {r['cpu']:.1f} s of CPU, "
            f"{wall:.1f} s of wall clock ({per_wall_minute:.1f} a wall-clock minute), "
            f"{MODEL_IMAGE_SIZE} x {MODEL_IMAGE_SIZE}, full scenes with the robot; "
            f"settling {100 * r['settle'] / wall:.0f} %, visibility "
            f"{100 * r['visibility'] / wall:.0f} %, rest {100 * rest / wall:.0f} % "
            f"({r['settle']:.1f} s, {r['visibility']:.1f} s, {rest:.1f} s); "
            f"rejected: {why or 'none'}",
        )

    case.__doc__ = f"{task.capitalize()} questions accepted a minute at the default image size."
    case.__name__ = name
    return case


for _task in TASKS:
    _case(_task)
