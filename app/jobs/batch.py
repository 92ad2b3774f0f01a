"""Batch work fanned out on Ray, stored by the one process that owns the project.

`run_batch(items, work, store)` runs `work(item)` for every item and calls
`store(item, result)` in this process. With one worker and no Ray address it runs
in-process, one item after another, without starting Ray. With `workers` > 1 it
starts a local Ray with that many CPUs, and with `ray_address` it joins an existing
cluster ("auto": the one `ray start` made on this machine); either way the items go
to Ray as tasks that receive plain data (seeds, records, settings) and return plain
data, never the project file.

Results are stored in the items' order, each as soon as it and every item before it
have come back, so the stored rows (and their ids) are the same whatever the number
of workers, and a run stopped at any moment (Ctrl+C, kill -9) leaves a whole prefix
of items stored: `--resume` then skips what is already there. An item whose work
raises, or whose worker dies, is recorded as a failure with its error and the batch
goes on; `BatchReport.failed` lists them at the end.

`concurrency` K is for work that waits (a model endpoint): K items in flight at once.
In-process, K threads play items (each builds its own world; PyBullet holds the GIL,
the waits on the network do not), while this thread stores results in order. On Ray,
K tasks in flight in total, each asking for CPUs / K of the cluster's CPUs (at most 1),
so K fit even on fewer cores. Work that simulates between its waits takes `sim_turn()`:
one thread of a process simulates at a time, and gives the turn away while it waits on
the network, so K threads pipeline (one builds its world while the others wait for
replies) instead of all slowing each other down. Without it, one item at a time in-process, and on Ray
every item submitted at once, one CPU each.
"""

from __future__ import annotations

import contextlib
import math
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotation.progress import Progress

INSTALL_HINT = (
    "batch work on several workers runs on Ray, which is not installed: "
    "pip install 'reasonscope[cluster]' (or pip install ray)"
)


class BatchSetupError(Exception):
    """Ray is missing or cannot be reached: one line saying what to do."""


@dataclass
class BatchReport:
    """What a batch did: items stored, failed (with why), and how it ran."""

    stored: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (item, error)
    workers: int = 1
    backend: str = "in-process"  # or "ray (local, N CPUs)" / "ray (ADDRESS)"
    seconds: float = 0.0


def ray_module():
    """The `ray` module, or BatchSetupError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise BatchSetupError(INSTALL_HINT) from None
    return ray


def start_ray(workers: int, ray_address: str | None) -> str:
    """Connect this process to Ray (once); return how it runs, for reports."""
    ray = ray_module()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    if ray.is_initialized():
        return f"ray ({ray_address or 'local'}, already running)"
    options: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "configure_logging": False,
    }
    try:
        if ray_address:
            if ray_address not in ("auto", "local") and ray_address.startswith("127.0.0.1"):
                options["_node_ip_address"] = "127.0.0.1"
            ray.init(address=ray_address, **options)
            return f"ray ({ray_address})"
        ray.init(num_cpus=workers, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = ray_address or "a local Ray"
        raise BatchSetupError(f"cannot start or join {where}: {exc}".splitlines()[0]) from None
    return f"ray (local, {workers} CPUs)"


_SIM_TURN = threading.Lock()


class _TurnGivenAway:
    """A reusable context manager: the turn is released inside it, taken back after."""

    def __enter__(self) -> None:
        _SIM_TURN.release()

    def __exit__(self, *exc: object) -> None:
        _SIM_TURN.acquire()


@contextlib.contextmanager
def sim_turn() -> Iterator[contextlib.AbstractContextManager]:
    """Simulate with this process's one turn held; the context manager it gives wraps
    each network wait (it lets another thread simulate meanwhile)."""
    with _SIM_TURN:
        yield _TurnGivenAway()


def _call(work: Callable[[Any], Any], item: Any) -> Any:
    return work(item)


def _attempt(work: Callable[[Any], Any], item: Any) -> tuple[bool, Any]:
    """(True, result), or (False, the error in one line): one item's failure is data."""
    try:
        return True, work(item)
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}".splitlines()[0]


def run_batch(
    items: Sequence[Any],
    work: Callable[[Any], Any],
    store: Callable[[Any, Any], Any],
    *,
    workers: int = 1,
    ray_address: str | None = None,
    progress: Progress | None = None,
    describe: Callable[[Any], str] = str,
    noun: str = "item",
    concurrency: int | None = None,
) -> BatchReport:
    """Run `work` on every item (on Ray when `workers` > 1 or `ray_address`) and `store`
    each result here, in the items' order; failures are recorded, not raised.

    `work` must be a module-level function (Ray ships it to workers by reference) taking
    and returning plain data. `store` runs in this process only, in this thread.
    `progress` gets (done, total, "N stored, M failed, R/s, T left") after every item.
    `concurrency`: items in flight at once (see the module's docstring).
    """
    if workers < 1:
        raise ValueError(f"--workers {workers}: need at least one")
    if concurrency is not None and concurrency < 1:
        raise ValueError(f"--concurrency {concurrency}: need at least one")
    progress = progress or Progress()
    report = BatchReport(workers=workers)
    start = time.monotonic()
    total = len(items)

    def tick(done: int) -> None:
        elapsed = time.monotonic() - start
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (total - done) / rate if rate > 0 else 0.0
        progress.report(
            done,
            total,
            f"{report.stored} {noun}s stored, {len(report.failed)} "
            f"failed, {rate:.2f}/s, {left:.0f} s left",
        )

    def settle(item: Any, outcome: tuple[bool, Any]) -> None:
        ok, value = outcome
        if ok:
            store(item, value)
            report.stored += 1
        else:
            report.failed.append((describe(item), value))

    tick(0)
    if workers == 1 and not ray_address:
        if (concurrency or 1) > 1 and len(items) > 1:
            report.backend = f"in-process, {concurrency} threads"
            _run_in_threads(items, work, settle, tick, concurrency or 1)
        else:
            for n, item in enumerate(items):
                settle(item, _attempt(work, item))
                tick(n + 1)
    else:
        report.backend = start_ray(workers, ray_address)
        _run_on_ray(items, work, settle, tick, concurrency)
    report.seconds = time.monotonic() - start
    return report


def _run_in_threads(items, work, settle, tick, concurrency: int) -> None:
    """`concurrency` daemon threads take items in order and play them; this thread stores
    each result once it and every item before it are back (Ctrl+C is not held up by
    items still in flight: their threads die with the process)."""
    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for n in range(len(items)):
        todo.put(n)
    done: queue.SimpleQueue[tuple[int, tuple[bool, Any]]] = queue.SimpleQueue()
    stop = threading.Event()

    def play() -> None:
        while not stop.is_set():
            try:
                n = todo.get_nowait()
            except queue.Empty:
                return
            done.put((n, _attempt(work, items[n])))

    for _ in range(min(concurrency, len(items))):
        threading.Thread(target=play, name="batch-item", daemon=True).start()
    arrived: dict[int, tuple[bool, Any]] = {}
    next_to_store = 0
    try:
        while next_to_store < len(items):
            n, outcome = done.get()
            arrived[n] = outcome
            while next_to_store in arrived:
                settle(items[next_to_store], arrived.pop(next_to_store))
                next_to_store += 1
                tick(next_to_store)
    finally:
        stop.set()


def task_cpus(concurrency: int | None) -> float:
    """CPUs a Ray task asks for so that `concurrency` of them fit on the cluster at once
    (1 without a concurrency, or when the cluster has a CPU for each)."""
    if not concurrency:
        return 1.0
    cpus = float(ray_module().cluster_resources().get("CPU", 1.0))
    share = math.floor(cpus / concurrency * 10_000) / 10_000  # Ray's resource precision
    return min(1.0, max(0.0001, share))


def _run_on_ray(items, work, settle, tick, concurrency: int | None = None) -> None:
    ray = ray_module()
    remote = ray.remote(max_retries=0)(_call).options(num_cpus=task_cpus(concurrency))
    work_ref = ray.put(work)
    window = concurrency or len(items)
    queued = iter(enumerate(items))
    pending: dict[Any, int] = {}

    def submit() -> None:
        while len(pending) < window:
            nxt = next(queued, None)
            if nxt is None:
                return
            pending[remote.remote(work_ref, nxt[1])] = nxt[0]

    arrived: dict[int, tuple[bool, Any]] = {}
    next_to_store = 0
    submit()
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                n = pending.pop(ref)
                try:
                    arrived[n] = (True, ray.get(ref))
                except Exception as exc:  # the task raised, or its worker died
                    cause = getattr(exc, "cause", None) or exc
                    arrived[n] = (False, f"{type(cause).__name__}: {cause}".splitlines()[0])
            submit()
            while next_to_store in arrived:
                settle(items[next_to_store], arrived.pop(next_to_store))
                next_to_store += 1
                tick(next_to_store)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
