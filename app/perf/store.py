"""Perf cases of the project store: paging the question list, autosaved writes."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from app.perf.harness import PerfResult, perf_case, report, scratch_folder
from store import open_project

ORDER = 10  # where these cases run in `reasonscope bench` (see app.perf.harness)

# Sizes, module-level so that tests can shrink them.
PAGING_SMALL = 1_000
PAGING_LARGE = {False: 100_000, True: 20_000}
PAGING_REPEATS = 30
PAGE_SIZE = 100
AUTOSAVE_WRITES = {False: 500, True: 200}
AUTOSAVE_WARMUP = 10


# -- question paging ------------------------------------------------------------

# Half of the questions wait for verification, as in a freshly generated benchmark.
_STATUS_MIX = ("pending", "approved", "pending", "corrected", "pending", "excluded") + (
    "pending",
    "approved",
    "pending",
    "corrected",
)
_TASKS = ("count", "find", "beneath", "compare", "vg")


def _questions(n: int) -> Iterator[dict[str, Any]]:
    for i in range(n):
        yield {
            "benchmark": "mgvqa",
            "task": _TASKS[i % len(_TASKS)],
            "text": f"How many objects of kind {i % 37} are beneath the tray in scene {i}?",
            "options": ["0", "1", "2", "3"],
            "answer": str(i % 4),
            "evidence_ids": [f"body_{i % 15}", f"body_{(i + 3) % 15}"],
            "steps": [{"description": "find the tray", "entity_ids": [f"body_{i % 15}"]}],
            "difficulty": {"S": 2, "R": 1, "T": 1},
            "status": _STATUS_MIX[i % len(_STATUS_MIX)],
            "seed": i,
        }


@dataclass(frozen=True)
class PagingProfile:
    """Page timings in one project."""

    questions: int
    pending: int
    first_ms: float
    deep_ms: float
    deep_page: int  # 0-based index of the timed deep page
    page_rows: tuple[int, int]  # rows in the timed first and deep pages
    statuses: frozenset[str]  # statuses seen in the timed pages


@dataclass(frozen=True)
class PagingMeasurement:
    small: PagingProfile
    large: PagingProfile
    repeats: int

    @property
    def ratio_first(self) -> float:
        return self.large.first_ms / self.small.first_ms

    @property
    def ratio_deep(self) -> float:
        return self.large.deep_ms / self.small.deep_ms

    @property
    def ratio(self) -> float:
        return max(self.ratio_first, self.ratio_deep)


def _prepare_paging(project, n: int):
    """Fill `project` with `n` questions; return the page function and a deep cursor."""
    report(f"question_paging: storing {n:,} questions")
    project.questions.add_many(_questions(n))
    pending = project.questions.counts_by_status()["pending"]
    questions = project.questions

    def page(after=None):
        return questions.page(status="pending", sort="created", after=after, limit=PAGE_SIZE)

    # Walk to the middle of the pending list, keeping the deep page a full one.
    full_pages = pending // PAGE_SIZE
    deep_page = max(0, min(full_pages // 2, full_pages - 1))
    cursor = None
    for _ in range(deep_page):
        cursor = page(cursor).next_cursor
    return page, cursor, pending, deep_page


def _interleaved_medians(fns: list[Callable[[], Any]], repeats: int) -> list[float]:
    """Median ms of each function, timed in alternation so machine noise hits all alike."""
    for fn in fns:
        fn(), fn()  # warm caches
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - t0)
    return [statistics.median(t) * 1000 for t in times]


def measure_paging(small: int, large: int, repeats: int = PAGING_REPEATS) -> PagingMeasurement:
    """Median time of a 100-row 'pending, oldest first' page in two project sizes."""
    with (
        scratch_folder() as folder,
        open_project(folder / "small.reasonscope", create=True) as p_small,
        open_project(folder / "large.reasonscope", create=True) as p_large,
    ):
        prepared = [_prepare_paging(p_small, small), _prepare_paging(p_large, large)]
        report("question_paging: timing first and deep pages, interleaved")
        fns = []
        for page, cursor, _, _ in prepared:
            fns += [page, lambda page=page, cursor=cursor: page(cursor)]
        medians = _interleaved_medians(fns, repeats)
        profiles = []
        for i, (n, (page, cursor, pending, deep_page)) in enumerate(
            zip((small, large), prepared, strict=True)
        ):
            first, deep = page(), page(cursor)
            profiles.append(
                PagingProfile(
                    questions=n,
                    pending=pending,
                    first_ms=medians[2 * i],
                    deep_ms=medians[2 * i + 1],
                    deep_page=deep_page,
                    page_rows=(len(first.rows), len(deep.rows)),
                    statuses=frozenset(q.status for q in first.rows + deep.rows),
                )
            )
    return PagingMeasurement(profiles[0], profiles[1], repeats)


_PAGING_GOAL = "<= 2"


@perf_case("question_paging", goal=_PAGING_GOAL)
def question_paging(quick: bool) -> PerfResult:
    """A page of pending questions costs the same in a large project as in a small one."""
    m = measure_paging(PAGING_SMALL, PAGING_LARGE[quick], PAGING_REPEATS)
    sane = all(
        p.page_rows == (PAGE_SIZE, PAGE_SIZE) and p.statuses == {"pending"}
        for p in (m.small, m.large)
    )
    detail = (
        f"{m.small.questions:,} questions: first {m.small.first_ms:.3f} ms, "
        f"deep (page {m.small.deep_page + 1}) {m.small.deep_ms:.3f} ms; "
        f"{m.large.questions:,} questions: first {m.large.first_ms:.3f} ms, "
        f"deep (page {m.large.deep_page + 1}) {m.large.deep_ms:.3f} ms; "
        f"ratios first {m.ratio_first:.2f}x, deep {m.ratio_deep:.2f}x; "
        f"medians of {m.repeats}, {PAGE_SIZE} rows a page"
    )
    if not sane:
        detail += f"; WRONG PAGES: rows {m.small.page_rows}/{m.large.page_rows}"
    return PerfResult(
        name="question_paging",
        value=m.ratio,
        unit="x",
        goal=_PAGING_GOAL,
        passed=sane and m.ratio <= 2,
        detail=detail,
    )


# -- autosave --------------------------------------------------------------------


@dataclass(frozen=True)
class AutosaveMeasurement:
    writes: int
    write_median_ms: float
    write_p90_ms: float
    dict_us: float  # one insert into a Python dict, in microseconds
    labels_stored: int

    @property
    def ratio(self) -> float:
        return self.write_median_ms * 1000 / self.dict_us


def measure_autosave(writes: int) -> AutosaveMeasurement:
    """Time `writes` committed `hoi.add_label` calls against dict inserts of the same records."""
    with (
        scratch_folder() as folder,
        open_project(folder / "autosave.reasonscope", create=True) as p,
    ):
        annotator = p.annotators.sign_in("Perf")
        seq = p.sequences.add("perf-sequence", "/synthetic/perf")
        frame = p.sequences.add_frame(seq.id, 0)
        person = p.sequences.add_entity(seq.id, "pedestrian:1", "human", "pedestrian")
        cup = p.sequences.add_entity(seq.id, "cup:1", "object", "cup")
        records = [
            {
                "frame_id": frame.id,
                "subject_entity_id": person,
                "object_entity_id": cup,
                "category": "object",
                "predicate": f"holding-{i}",
                "difficulty": 1 + i % 3,
                "annotator": annotator,
            }
            for i in range(AUTOSAVE_WARMUP + writes)
        ]
        report(f"autosave_label_write: {writes} autosaved labels")
        for record in records[:AUTOSAVE_WARMUP]:
            p.hoi.add_label(**record)
        times = []
        for record in records[AUTOSAVE_WARMUP:]:
            t0 = time.perf_counter()
            p.hoi.add_label(**record)
            times.append(time.perf_counter() - t0)
        stored = len(p.hoi.labels_for_frame(frame.id))
    # A single dict insert is below the timer's resolution: time whole batches.
    batches = []
    for _ in range(7):
        memory: dict[int, dict[str, Any]] = {}
        t0 = time.perf_counter()
        for i, record in enumerate(records):
            memory[i] = record
        batches.append((time.perf_counter() - t0) / len(records))
    times.sort()
    return AutosaveMeasurement(
        writes=writes,
        write_median_ms=statistics.median(times) * 1000,
        write_p90_ms=times[int(0.9 * (len(times) - 1))] * 1000,
        dict_us=statistics.median(batches) * 1e6,
        labels_stored=stored,
    )


_AUTOSAVE_GOAL = "median < 2 ms per write"


@perf_case("autosave_label_write", goal=_AUTOSAVE_GOAL)
def autosave_label_write(quick: bool) -> PerfResult:
    """Saving an HOI label on every keypress is fast enough that nobody waits for it."""
    m = measure_autosave(AUTOSAVE_WRITES[quick])
    return PerfResult(
        name="autosave_label_write",
        value=m.ratio,
        unit="x dict",
        goal=_AUTOSAVE_GOAL,
        passed=m.write_median_ms < 2.0,
        detail=(
            f"median {m.write_median_ms:.3f} ms, p90 {m.write_p90_ms:.3f} ms over "
            f"{m.writes} committed writes; dict insert {m.dict_us:.3f} µs"
        ),
    )
