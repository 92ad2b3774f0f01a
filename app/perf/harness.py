"""The engine behind `reasonscope bench`: performance as ratios to same-process baselines.

These machines are noisy, so a case never compares a wall-clock time with a fixed
number from elsewhere: it times its subject and a baseline in the same process,
one after the other, and reports the ratio (or, where the goal is a latency a
person feels, the median of many repetitions). Nothing here imports Qt; every
measurement goes through the public store API, never through SQL.

A case is a function `fn(quick: bool) -> BenchResult` registered by name::

    from app.perf.harness import BenchResult, bench_case, report

    @bench_case("scene_render", goal="<= 3x bare getCameraImage")
    def scene_render(quick: bool) -> BenchResult:
        report("scene_render: building the tabletop world")
        ratio = ...
        return BenchResult(
            name="scene_render", value=ratio, unit="x", goal="<= 3x bare getCameraImage",
            passed=ratio <= 3, detail="...",
        )

Registration happens when the module is imported. To add cases from another
module, put that module in `app/` (the layers contract lets only `app` import
`app`) and append its dotted name to `CASE_MODULES` below; `run_cases` imports
every listed module before it looks names up. `quick=True` asks for a smaller
run (CI, `reasonscope bench --quick`); `report(message)` forwards a progress line
to whoever called `run_cases`.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

#: Modules that register more cases; imported by `run_cases` and `known_cases`.
CASE_MODULES: list[str] = [
    "app.perf.store",
    "app.perf.sim",
    "app.perf.viewport",
    "app.perf.questions",
    "app.perf.grasp",
    "app.perf.replay",
    "app.perf.relations",
    "app.perf.jrdb",
    "app.perf.cloud",
    "app.perf.reasoning",
    "app.perf.graph_view",
    "app.perf.queries",
    "app.perf.bimanual",
    "app.perf.spatial",
]

#: Where benchmark projects are built (default: the system's temporary folder).
#: Autosave latency depends on the disk, so point this at the disk projects live on.
BENCH_DIR_ENV = "REASONSCOPE_BENCH_DIR"


@dataclass(frozen=True)
class BenchResult:
    """One case's outcome: `value` in `unit`, judged against `goal`."""

    name: str
    value: float
    unit: str
    goal: str
    passed: bool
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Case:
    name: str
    goal: str
    fn: Callable[[bool], BenchResult]

    @property
    def description(self) -> str:
        doc = (self.fn.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""


CASES: dict[str, Case] = {}


def bench_case(
    name: str, *, goal: str
) -> Callable[[Callable[[bool], BenchResult]], Callable[[bool], BenchResult]]:
    """Register `fn(quick) -> BenchResult` as case `name`; returns `fn` unchanged."""

    def register(fn: Callable[[bool], BenchResult]) -> Callable[[bool], BenchResult]:
        existing = CASES.get(name)
        if existing is not None and (existing.fn.__module__, existing.fn.__qualname__) != (
            fn.__module__,
            fn.__qualname__,
        ):
            raise ValueError(
                f"bench case {name!r} is already registered by "
                f"{existing.fn.__module__}.{existing.fn.__qualname__}"
            )
        CASES[name] = Case(name=name, goal=goal, fn=fn)
        return fn

    return register


_progress: Callable[[str], None] | None = None


def report(message: str) -> None:
    """Tell the caller of `run_cases` what a case is doing (no-op without a listener)."""
    if _progress is not None:
        _progress(message)


def known_cases() -> list[str]:
    for module in CASE_MODULES:
        importlib.import_module(module)
    return list(CASES)


def run_cases(
    names: list[str] | None = None,
    quick: bool = False,
    progress: Callable[[str], None] | None = None,
) -> list[BenchResult]:
    """Run the named cases (all of them for None), in order; return their results."""
    global _progress
    known = known_cases()
    wanted = list(known) if names is None else list(names)
    unknown = [n for n in wanted if n not in CASES]
    if unknown:
        raise ValueError(
            f"unknown bench case{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
            f"known: {', '.join(known)}"
        )
    results = []
    previous, _progress = _progress, progress
    try:
        for name in wanted:
            report(f"{name}: running{' (quick)' if quick else ''}")
            result = CASES[name].fn(quick)
            report(
                f"{name}: {result.value:.3g} {result.unit} "
                f"({'pass' if result.passed else 'FAIL'}, goal {result.goal})"
            )
            results.append(result)
    finally:
        _progress = previous
    return results


def format_results(results: list[BenchResult]) -> str:
    """A plain-text table, one case a line, for terminals."""
    width = max((len(r.name) for r in results), default=4)
    lines = []
    for r in results:
        verdict = "pass" if r.passed else "FAIL"
        lines.append(
            f"{r.name:<{width}}  {r.value:>9.3g} {r.unit:<7} {verdict}  goal {r.goal}; {r.detail}"
        )
    return "\n".join(lines)


@contextlib.contextmanager
def _workdir() -> Iterator[Path]:
    base = os.environ.get(BENCH_DIR_ENV) or None
    with tempfile.TemporaryDirectory(prefix="reasonscope-bench-", dir=base) as folder:
        yield Path(folder)


def _median_ms(fn: Callable[[], Any], repeats: int, warmup: int = 2) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000
