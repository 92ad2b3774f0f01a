"""The engine behind `reasonscope bench`: performance as ratios to same-process baselines.

These machines are noisy, so a case never compares a wall-clock time with a fixed
number from elsewhere: it times its subject and a baseline in the same process,
one after the other, and reports the ratio (or, where the goal is a latency a
person feels, the median of many repetitions). The harness imports no Qt; the
cases that measure what a person sees (`cloud`, `display`, `graph_view`,
`results`, `startup`, `viewport`) import Qt inside the case, when it runs. Every measurement goes through the public store API,
never through SQL.

A case is a function `fn(quick: bool) -> PerfResult` registered by name::

    from app.perf.harness import PerfResult, perf_case, report

    ORDER = 150  # where this module's cases run in `reasonscope bench`

    @perf_case("scene_render", goal="<= 3x bare getCameraImage")
    def scene_render(quick: bool) -> PerfResult:
        report("scene_render: building the tabletop world")
        ratio = ...
        return PerfResult(
            name="scene_render", value=ratio, unit="x", goal="<= 3x bare getCameraImage",
            passed=ratio <= 3, detail="...",
        )

Cases are found by discovery: `known_cases` and `run_cases` import every module
of this package but the harness (`case_modules`), and registration happens when
a module is imported, so a new module of cases in `app/perf/` needs no list
to be kept. The running order is deterministic: modules by their `ORDER`
constant (cheap cases first; a module without one runs after all that have one,
and ties go by module name), and within a module the order in which its cases
are defined. The modules' `ORDER`s keep the order `reasonscope bench` has
always run its cases in. A module that holds no cases (`display`) is
imported and adds nothing. `quick=True` asks for a smaller run (CI,
`reasonscope bench --quick`); `report(message)` forwards a progress line to
whoever called `run_cases`.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import pkgutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

PACKAGE, HARNESS = __name__.rsplit(".", 1)  # "app.perf", "harness"

#: Where the cases build their projects (default: the system's temporary folder).
#: Autosave latency depends on the disk, so point this at the disk projects live on.
PERF_DIR_ENV = "REASONSCOPE_BENCH_DIR"


@dataclass(frozen=True)
class PerfResult:
    """One case's outcome: `value` in `unit`, judged against `goal`."""

    name: str
    value: float
    unit: str
    goal: str
    passed: bool
    detail: str
    skipped: bool = False  # the case could not run here (detail says what to install)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def reports_only(self) -> bool:
        """A case with no goal, whose figure is for reading (its goal says "report")."""
        return self.goal == REPORT

    @property
    def missed(self) -> bool:
        """Whether the case ran, has a goal, and missed it."""
        return not (self.passed or self.skipped or self.reports_only)

    @property
    def verdict(self) -> str:
        """The word the tables print: pass, FAIL, report or skipped."""
        if self.skipped:
            return "skipped"
        if self.reports_only:
            return "report"
        return "pass" if self.passed else "FAIL"


REPORT = "report"  # the goal of a case that only reports a figure


def missed_cases(results: list[PerfResult]) -> list[str]:
    """The names of the cases that missed their goal (`reasonscope bench` exits 1)."""
    return [r.name for r in results if r.missed]


@dataclass(frozen=True)
class Case:
    name: str
    goal: str
    fn: Callable[[bool], PerfResult]

    @property
    def description(self) -> str:
        doc = (self.fn.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""


CASES: dict[str, Case] = {}


def perf_case(
    name: str, *, goal: str
) -> Callable[[Callable[[bool], PerfResult]], Callable[[bool], PerfResult]]:
    """Register `fn(quick) -> PerfResult` as case `name`; returns `fn` unchanged."""

    def register(fn: Callable[[bool], PerfResult]) -> Callable[[bool], PerfResult]:
        existing = CASES.get(name)
        if existing is not None and (existing.fn.__module__, existing.fn.__qualname__) != (
            fn.__module__,
            fn.__qualname__,
        ):
            raise ValueError(
                f"perf case {name!r} is already registered by "
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


def case_modules() -> list[str]:
    """The dotted names of this package's modules but the harness, imported (so their
    cases are registered), in running order: by `ORDER`, then by name."""
    package = importlib.import_module(PACKAGE)
    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.name != HARNESS)
    modules = [importlib.import_module(f"{PACKAGE}.{name}") for name in names]
    modules.sort(key=lambda module: getattr(module, "ORDER", math.inf))  # stable: ties by name
    return [module.__name__ for module in modules]


def known_cases() -> list[str]:
    """The names of every case, in running order (see the module's docstring); cases
    registered from a module outside this package come last, in registration order."""
    rank = {name: i for i, name in enumerate(case_modules())}
    # CASES keeps registration order, which within a module is definition order
    return sorted(CASES, key=lambda name: rank.get(CASES[name].fn.__module__, len(rank)))


def run_cases(
    names: list[str] | None = None,
    quick: bool = False,
    progress: Callable[[str], None] | None = None,
) -> list[PerfResult]:
    """Run the named cases (all of them for None), in order; return their results."""
    global _progress
    known = known_cases()
    wanted = list(known) if names is None else list(names)
    unknown = [n for n in wanted if n not in CASES]
    if unknown:
        raise ValueError(
            f"unknown perf case{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
            f"known: {', '.join(known)}"
        )
    results = []
    previous, _progress = _progress, progress
    try:
        for name in wanted:
            report(f"{name}: running{' (quick)' if quick else ''}")
            result = _run_case(name, quick)
            report(
                f"{name}: {result.value:.3g} {result.unit} ({result.verdict}, goal {result.goal})"
            )
            results.append(result)
    finally:
        _progress = previous
    return results


def _run_case(name: str, quick: bool) -> PerfResult:
    """One case; a case that needs an optional part this install lacks (Ray, without the
    `cluster` extra) is reported skipped, with the pip line, and the others still run."""
    from app.jobs.batch import BatchSetupError

    try:
        return CASES[name].fn(quick)
    except BatchSetupError as exc:
        hint = str(exc).split(": ", 1)[-1] if "pip install" in str(exc) else str(exc)
        return PerfResult(
            name, math.nan, "", CASES[name].goal, True, f"skipped: {hint}", skipped=True
        )


def format_results(results: list[PerfResult]) -> str:
    """A plain-text table, one case a line, for terminals."""
    width = max((len(r.name) for r in results), default=4)
    lines = []
    for r in results:
        if r.skipped:
            lines.append(f"{r.name:<{width}}  {'skipped':>17}  goal {r.goal}; {r.detail}")
            continue
        lines.append(
            f"{r.name:<{width}}  {r.value:>9.3g} {r.unit:<7} {r.verdict}  goal {r.goal}; {r.detail}"
        )
    return "\n".join(lines)


@contextlib.contextmanager
def scratch_folder() -> Iterator[Path]:
    """A temporary folder for a case's projects (under `PERF_DIR_ENV` if set), removed after."""
    base = os.environ.get(PERF_DIR_ENV) or None
    with tempfile.TemporaryDirectory(prefix="reasonscope-perf-", dir=base) as folder:
        yield Path(folder)


def median_ms(fn: Callable[[], Any], repeats: int, warmup: int = 2) -> float:
    """The median milliseconds of `repeats` calls of `fn`, after `warmup` untimed ones."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000
