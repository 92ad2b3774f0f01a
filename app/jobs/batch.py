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
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
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
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                               "configure_logging": False}  # fmt: skip
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


def _call(work: Callable[[Any], Any], item: Any) -> Any:
    return work(item)


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
) -> BatchReport:
    """Run `work` on every item (on Ray when `workers` > 1 or `ray_address`) and `store`
    each result here, in the items' order; failures are recorded, not raised.

    `work` must be a module-level function (Ray ships it to workers by reference) taking
    and returning plain data. `store` runs in this process only. `progress` gets
    (done, total, "N stored, M failed, R/s, T left") after every item.
    """
    if workers < 1:
        raise ValueError(f"--workers {workers}: need at least one")
    progress = progress or Progress()
    report = BatchReport(workers=workers)
    start = time.monotonic()
    total = len(items)

    def tick(done: int) -> None:
        elapsed = time.monotonic() - start
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (total - done) / rate if rate > 0 else 0.0
        progress.report(done, total, f"{report.stored} {noun}s stored, {len(report.failed)} "
                        f"failed, {rate:.2f}/s, {left:.0f} s left")  # fmt: skip

    def settle(item: Any, outcome: tuple[bool, Any]) -> None:
        ok, value = outcome
        if ok:
            store(item, value)
            report.stored += 1
        else:
            report.failed.append((describe(item), value))

    tick(0)
    if workers == 1 and not ray_address:
        for n, item in enumerate(items):
            try:
                outcome = (True, work(item))
            except Exception as exc:  # one item's failure is data, not the batch's end
                outcome = (False, f"{type(exc).__name__}: {exc}".splitlines()[0])
            settle(item, outcome)
            tick(n + 1)
    else:
        report.backend = start_ray(workers, ray_address)
        _run_on_ray(items, work, settle, tick)
    report.seconds = time.monotonic() - start
    return report


def _run_on_ray(items, work, settle, tick) -> None:
    ray = ray_module()
    remote = ray.remote(max_retries=0)(_call)
    work_ref = ray.put(work)
    pending = {remote.remote(work_ref, item): n for n, item in enumerate(items)}
    arrived: dict[int, tuple[bool, Any]] = {}
    next_to_store = 0
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
            while next_to_store in arrived:
                settle(items[next_to_store], arrived.pop(next_to_store))
                next_to_store += 1
                tick(next_to_store)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
