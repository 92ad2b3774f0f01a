"""Perf cases of results at scale: `metrics` over many episodes, the Replay list opening.

Both fill projects with synthetic episodes (several models, tasks and modes, tool calls
with some failed grasps, model requests with latency and tokens, one in eight a dual-arm
episode) in one transaction, then time the subject on a large and a small project in
turn, so machine noise hits both alike.
"""

from __future__ import annotations

import random
import statistics
import time
from pathlib import Path
from typing import Any

from app.perf.display import widget_application
from app.perf.harness import PerfResult, perf_case, report, scratch_folder
from store import open_for_reading, open_project

ORDER = 35  # where these cases run in `reasonscope bench` (see app.perf.harness)

# Sizes, module-level so that tests can shrink them.
METRICS_SIZES = {False: (3_000, 30_000), True: (1_000, 10_000)}
METRICS_REPEATS = 5
LIST_SIZES = {False: (5_000, 50_000), True: (5_000, 20_000)}
LIST_REPEATS = 7

MODELS = ("gpt-4o", "qwen2.5-vl-72b", "internvl3-38b", "gemini-2.5-pro", "llava-ov-7b")
TASKS = ("count", "find", "beneath", "compare")
MODES = ("direct", "perception", "manipulation")
DUAL_TASKS = ("handover_block", "stack_blocks_three", "place_burger_fries", "stack_blocks_two")


def _usage(rng: random.Random, model: str = "") -> dict[str, Any]:
    if model == "chance":
        return {}  # no model behind it
    return {
        "latency_s": round(rng.uniform(0.4, 6.0), 3),
        "tokens_in": rng.randint(900, 2400),
        "tokens_out": rng.randint(20, 300),
    }


def _mgvqa(i: int, rng: random.Random) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    model = MODELS[i % len(MODELS)] if i % 17 else "chance"
    task, mode = TASKS[i % len(TASKS)], MODES[(i // 4) % len(MODES)]
    truth = {"count": str(rng.randint(0, 5)), "find": rng.choice(("yes", "no"))}.get(task, "A")
    steps: list[dict[str, Any]] = [{"kind": "observation", "name": "observe", "ok": True}]
    calls = ["perceive_scene", "find_object"]
    if mode == "manipulation":
        calls += rng.choice((["grasp"], ["grasp", "find_object", "push"], ["push", "grasp"]))
    for name in calls:
        ok = not (name == "grasp" and rng.random() < 0.35)
        steps.append(
            {
                "kind": "tool",
                "name": name,
                "arguments": {"object": "red box"},
                "result": {"ok": ok},
                "ok": ok,
                **_usage(rng, model),
            }
        )
    if rng.random() < 0.05:
        steps.append({"kind": "format_error", "raw_output": "I think", "ok": False})
    correct = rng.random() < 0.55
    steps.append(
        {
            "kind": "answer",
            "name": "answer_question",
            "arguments": {"answer": truth},
            "result": {"replay": {"correct": correct}},
            "ok": True,
            **_usage(rng, model),
        }
    )
    header = {
        "benchmark": "mgvqa",
        "model": model,
        "agent": "chance" if model == "chance" else "openai",
        "mode": mode,
        "task": task,
        "outcome": "answered",
        "success": correct,
        "question": {"text": f"question {i}", "answer": truth},
    }
    return header, steps


def _bimanual(i: int, rng: random.Random) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    steps = []
    for k in range(rng.randint(2, 5)):
        if rng.random() < 0.08:
            steps.append({"kind": "format_error", "raw_output": "{", "ok": False, **_usage(rng)})
        else:
            steps.append({"kind": "action", "name": f"plan {k}", "ok": True, **_usage(rng)})
    header = {
        "benchmark": "bimanual",
        "model": rng.choice(MODELS),
        "agent": "openai",
        "task": rng.choice(DUAL_TASKS),
        "success": rng.random() < 0.4,
        "outcome": "done",
        "tier": "row16" if i % 5 == 0 else "primitive",
    }
    return header, steps


def fill_episodes(path: Path, n: int, seed: int = 0) -> Path:
    """A project of `n` synthetic episodes (one in eight dual-arm), in one transaction."""
    rng = random.Random(seed)
    with open_project(path, create=True) as project, project.write():
        for i in range(n):
            header, steps = (_bimanual if i % 8 == 7 else _mgvqa)(i, rng)
            project.episodes.add(header, steps)
    return path


def _projects(folder: Path, sizes: tuple[int, int]) -> tuple[Path, Path]:
    small, large = sizes
    report(f"filling projects of {small:,} and {large:,} episodes")
    return (
        fill_episodes(folder / "small.reasonscope", small),
        fill_episodes(folder / "large.reasonscope", large),
    )


def _alternating(
    small: Path, large: Path, repeats: int, timer
) -> tuple[list[float], list[float], object]:
    """`timer(path)` on the small and the large project after a warm-up run of each (the
    file cache), then `repeats` times in turn: the seconds of each, and the last result
    of the large one (a timer returns seconds, or a tuple that starts with them)."""
    timer(small), timer(large)
    times: dict[Path, list[float]] = {small: [], large: []}
    last = None
    for _ in range(repeats):
        for path in (small, large):
            last = timer(path)
            times[path].append(last[0] if isinstance(last, tuple) else last)
    return times[small], times[large], last


def time_metrics(path: Path) -> float:
    """Seconds for the `episodes` and `bimanual` metrics of a project."""
    from app.jobs.metrics import project_bimanual_metrics, project_episode_metrics

    with open_for_reading(path) as project:
        t0 = time.perf_counter()
        project_episode_metrics(project)
        project_bimanual_metrics(project)
        return time.perf_counter() - t0


def time_python_metrics(path: Path) -> float:
    """Seconds for the `episodes` metrics the way they were computed before: every
    episode and its steps loaded into Python (for comparison only)."""
    from annotation.bimanual.metrics import is_bimanual
    from annotation.tabletop.episode_metrics import episode_metrics

    with open_for_reading(path) as project:
        t0 = time.perf_counter()
        repo = project.episodes
        episodes = (repo.get(i) for i in repo.ids())
        episode_metrics((e, repo.steps(e.id)) for e in episodes if not is_bimanual(e))
        return time.perf_counter() - t0


@perf_case("metrics_scaling", goal="<= 10x for 10x the episodes")
def metrics_scaling(quick: bool) -> PerfResult:
    """The episode and dual-arm metrics on 10x the episodes, added up in SQL."""
    sizes = METRICS_SIZES[quick]
    with scratch_folder() as folder:
        small, large = _projects(folder, sizes)
        times_small, times_large, _ = _alternating(small, large, METRICS_REPEATS, time_metrics)
        old = time_python_metrics(small)
    # the best of the repeats: other work on the machine only ever adds time
    t_small, t_large = min(times_small), min(times_large)
    ratio = t_large / t_small
    return PerfResult(
        name="metrics_scaling",
        value=ratio,
        unit="x",
        goal="<= 10x for 10x the episodes",
        passed=ratio <= 10,
        detail=f"{sizes[0]:,} episodes {t_small * 1000:.0f} ms, {sizes[1]:,} episodes "
        f"{t_large * 1000:.0f} ms (best of {METRICS_REPEATS}); loading every episode into "
        f"Python as before: {old * 1000:.0f} ms at {sizes[0]:,}",
    )


def time_list_open(path: Path) -> tuple[float, int, int]:
    """(seconds, rows read, total) to open the Replay list on a project: a new connection,
    the paged source, the state's first page, count, facets and failed grasps, and the
    table model's rows, as the mode does on opening a project (no window)."""
    widget_application()
    from widgets.replay.episode_list import EpisodeTableModel, PagedEpisodeSource
    from widgets.replay.state import ReplayState

    t0 = time.perf_counter()
    with open_for_reading(path) as project:
        state = ReplayState(PagedEpisodeSource(project.episodes, project.episode_queries))
        model = EpisodeTableModel(state)
        rows = model.rowCount()
        model.data(model.index(rows - 1, 5))
        seconds = time.perf_counter() - t0
        total = state.episodes.total
    return seconds, rows, total


@perf_case("replay_list_open", goal="median < 1 s at the large size")
def replay_list_open(quick: bool) -> PerfResult:
    """Opening the Replay episode list: first page, count and filter choices, in SQL."""
    sizes = LIST_SIZES[quick]
    with scratch_folder() as folder:
        small, large = _projects(folder, sizes)
        times_small, times_large, last = _alternating(small, large, LIST_REPEATS, time_list_open)
        _seconds, rows, total = last
    t_small, t_large = statistics.median(times_small), statistics.median(times_large)
    return PerfResult(
        name="replay_list_open",
        value=t_large * 1000,
        unit="ms",
        goal="median < 1 s at the large size",
        passed=t_large < 1.0,
        detail=f"{sizes[1]:,} episodes {t_large * 1000:.0f} ms ({rows} of {total:,} rows "
        f"read), {sizes[0]:,} episodes {t_small * 1000:.0f} ms: {t_large / t_small:.2f}x "
        f"(median of {LIST_REPEATS})",
    )
