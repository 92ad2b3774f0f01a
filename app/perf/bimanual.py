"""Perf cases for the dual-arm world: reference plans' success, simulation speed."""

from __future__ import annotations

import time

from annotation.bimanual.paper_tables import FINE_TASKS, PLANNING_TASKS
from app.perf.harness import PerfResult, perf_case, report
from sim.bimanual.executor import BimanualExecutor
from sim.bimanual.tasks import TASKS
from sim.bimanual.world import DualArmWorld

ORDER = 130  # where these cases run in `reasonscope bench` (see app.perf.harness)

SEEDS, QUICK_SEEDS = 20, 3
SUCCESS_GOAL = 1.0  # the README's claim: every task's reference plan on every seed
SPEED_GOAL = 5.0  # x real time


def _run(name: str, seed: int) -> tuple[bool, float, float]:
    """One reference episode: (success, simulated seconds, wall seconds executing)."""
    task = TASKS[name]
    with DualArmWorld() as world:
        task.setup(world, seed)
        plan = task.reference_plan(world)
        sim0, wall0 = world.time, time.perf_counter()
        BimanualExecutor(world).execute(plan)
        wall = time.perf_counter() - wall0
        world.step(60)
        return task.check(world)[0], world.time - sim0 - 60 / 240, wall


@perf_case("bimanual_reference_plans", goal="100% of seeds per task")
def bimanual_reference_plans(quick: bool) -> PerfResult:
    """Every task of the paper's planning tier (Table 1's fourteen): its reference plan from
    SEEDS seeded set-ups, judged by the task's own success check."""
    seeds = range(QUICK_SEEDS if quick else SEEDS)
    rates, failed = {}, {}
    for name in PLANNING_TASKS:
        report(f"bimanual_reference_plans: {name}, {len(seeds)} seeds")
        outcomes = {s: _run(name, s)[0] for s in seeds}
        rates[name] = sum(outcomes.values()) / len(seeds)
        failed[name] = [s for s, ok in outcomes.items() if not ok]
    worst = min(rates.values())
    detail = ", ".join(f"{k} {100 * v:.0f}%" for k, v in rates.items())
    misses = "; ".join(f"{k} {v}" for k, v in failed.items() if v) or "none"
    return PerfResult(
        "bimanual_reference_plans",
        100 * worst,
        "%",
        "100% of seeds per task",
        worst >= SUCCESS_GOAL,
        f"worst task; {detail} ({len(seeds)} seeds each; failed seeds: {misses})",
    )


@perf_case("bimanual_sim_speed", goal=">= 5x real time")
def bimanual_sim_speed(quick: bool) -> PerfResult:
    names = (
        ["stack_blocks_two"]
        if quick
        else [
            "stack_blocks_two",
            "stack_blocks_three",
            "handover_block",
            "hanging_mug",
            "put_bottles_dustbin",
            "place_cans_plasticbox",
        ]
    )
    sim = wall = 0.0
    for name in names:
        report(f"bimanual_sim_speed: {name}")
        _, s, w = _run(name, 0)
        sim, wall = sim + s, wall + w
    return PerfResult(
        "bimanual_sim_speed",
        sim / wall,
        "x real time",
        ">= 5x real time",
        sim / wall >= SPEED_GOAL,
        f"{sim:.1f} simulated s in {wall:.1f} wall s executing the reference plans of "
        f"{', '.join(names)} (240 Hz physics, two UR5e + 2F-85)",
    )


ROW_SEEDS, QUICK_ROW_SEEDS = 5, 1


@perf_case("bimanual_row_plans", goal="report")
def bimanual_row_plans(quick: bool) -> PerfResult:
    """The 16-number tier, the paper's five fine-control tasks (Table 3): each task's
    reference plan traced into rows (`sim.bimanual.rows`), run with `execute_ee` from the
    same seeded start."""
    from sim.bimanual.rows import row_reference, run_rows

    seeds = range(QUICK_ROW_SEEDS if quick else ROW_SEEDS)
    rates, rows_per = {}, {}
    for name in FINE_TASKS:
        report(f"bimanual_row_plans: {name}, {len(seeds)} seeds")
        wins, counts = 0, []
        for seed in seeds:
            rows, _ = row_reference(name, seed)
            wins += run_rows(name, seed, rows)[0]
            counts.append(len(rows))
        rates[name], rows_per[name] = wins / len(seeds), max(counts)
    overall = sum(rates.values()) / len(rates)
    detail = ", ".join(f"{k} {100 * v:.0f}% ({rows_per[k]} rows)" for k, v in rates.items())
    return PerfResult(
        "bimanual_row_plans",
        100 * overall,
        "%",
        "report",
        True,
        f"mean over tasks; {detail} ({len(seeds)} seeds each)",
    )
