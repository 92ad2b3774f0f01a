"""The contract every fuzzed input is held to, and nothing else is acceptable:

1. refused: exit 2 with at most three lines on stderr, the last naming the input file (a
   file under the input folder counts), and the project logically unchanged
   (`reasonscope info --json` and every table's rows as before);
2. accepted: exit 0, after which everything downstream works on what was stored: `info`,
   `metrics`, every `export`, and the Replay, Verify, Results and Annotate state objects
   (`loaders.load_everything`).

Anything else (a traceback, a hang past TIMEOUT_S, another exit code, a refusal that
changed the project or does not say which file) is a broken example. The commands run in
this process through `app.cli.main`, as the `reasonscope` script runs them.

REASONSCOPE_FUZZ_EXAMPLES=N raises the examples per input; REASONSCOPE_FUZZ_SEED=S draws
other examples than the fixed default; REASONSCOPE_FUZZ_COLLECT=DIR records each broken
example in DIR (one JSON file each) and goes on instead of failing; see
docs/development.md#fuzzing.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import tempfile
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from hang_guard import deadline as alarm_deadline
from hypothesis import HealthCheck, seed, settings
from loaders import load_everything
from mutations import Mutation, apply

from app.cli import main

EXAMPLES_ENV = "REASONSCOPE_FUZZ_EXAMPLES"
SEED_ENV = "REASONSCOPE_FUZZ_SEED"
COLLECT_ENV = "REASONSCOPE_FUZZ_COLLECT"
TIMEOUT_S = float(os.environ.get("REASONSCOPE_FUZZ_TIMEOUT", "60"))
MAX_ERROR_CHARS = 2_000  # a one-line reason, not the file echoed back
REFUSED, ACCEPTED, BROKEN = "refused cleanly", "accepted and usable", "broken"
TALLY: Counter[tuple[str, str]] = Counter()  # (input, outcome) -> examples, for the summary


def fuzz(default_examples: int) -> Callable:
    """Settings for a fuzz test: `default_examples` (REASONSCOPE_FUZZ_EXAMPLES overrides),
    no deadline, no example database, and the same examples every run unless
    REASONSCOPE_FUZZ_SEED asks for others."""
    examples = int(os.environ.get(EXAMPLES_ENV) or default_examples)
    chosen = os.environ.get(SEED_ENV)
    configured = settings(
        max_examples=examples,
        derandomize=chosen is None,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )

    def decorate(test: Callable) -> Callable:
        test = configured(test)
        return seed(int(chosen))(test) if chosen is not None else test

    return decorate


class Hang(BaseException):
    """Raised in the command when it runs past TIMEOUT_S (a BaseException, so that no
    `except Exception` in the code under test turns it into a refusal)."""


@dataclass(frozen=True)
class Run:
    code: int | None
    out: str
    err: str
    crash: str | None  # the traceback, "hang", or None

    def describe(self) -> str:
        return self.crash or f"exit {self.code}; stderr: {self.err[-1500:]!r}"


def deadline():
    """Raise `Hang` in the block once it has run TIMEOUT_S (not nested)."""
    return alarm_deadline(TIMEOUT_S, Hang)


HANG = f"hang: still running after {TIMEOUT_S:g} s"


def run_cli(argv: Sequence[str]) -> Run:
    """`reasonscope ARGV` in this process: exit code, stdout, stderr, any uncaught error."""
    out, err = io.StringIO(), io.StringIO()
    code, crash = None, None
    try:
        with deadline(), redirect_stdout(out), redirect_stderr(err):
            code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except Hang:
        crash = HANG
    except Exception:  # noqa: BLE001  (what the contract is about)
        crash = traceback.format_exc()
    return Run(code, out.getvalue(), err.getvalue(), crash)


def loaded(db: Path) -> str | None:
    """`loaders.load_everything` under the same deadline."""
    try:
        with deadline():
            return load_everything(db)
    except Hang:
        return f"loading what was stored: {HANG}"


def table_rows(db: Path) -> dict[str, list[str]]:
    """Every table's rows (as sorted reprs, so NaN equals NaN) and the schema, read with
    plain sqlite3."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        schema = conn.execute(
            "SELECT type, name, sql FROM sqlite_master ORDER BY type, name"
        ).fetchall()
        dump = {"sqlite_master": [repr(r) for r in schema]}
        for _type, name, _sql in schema:
            if _type == "table":
                dump[name] = sorted(repr(r) for r in conn.execute(f'SELECT * FROM "{name}"'))
        return dump
    finally:
        conn.close()


def project_state(db: Path) -> tuple[dict, dict[str, list[str]]]:
    """`reasonscope info --json` (without the path) and every table's rows."""
    run = run_cli(["info", "--db", db, "--json"])
    assert run.code == 0 and run.crash is None, f"info failed before the import: {run.describe()}"
    info = json.loads(run.out)
    info.pop("path", None)
    return info, table_rows(db)


class Broken(AssertionError):
    """An example that breaks the contract; the message says how."""


def refusal_problem(run: Run, inputs: Sequence[Path]) -> str | None:
    """Why an exit-2 run is not a clean refusal, or None."""
    lines = run.err.strip().splitlines()
    if not 1 <= len(lines) <= 3:
        return f"refused with {len(lines)} lines on stderr: {run.err[-1500:]!r}"
    last = lines[-1]
    if len(last) > MAX_ERROR_CHARS:
        return f"refused with a {len(last):,}-character line: {last[:300]!r}..."
    if not any(str(p) in last for p in inputs):
        return f"the refusal does not name the file ({', '.join(map(str, inputs))}): {last!r}"
    return None


def downstream_problem(run: Run, what: str) -> str | None:
    """Downstream commands exit 0, or 2 with one line; never a traceback."""
    if run.crash is not None:
        return f"{what}: {run.crash}"
    if run.code == 0:
        return None
    lines = run.err.strip().splitlines()
    if run.code == 2 and len(lines) == 1 and len(lines[0]) <= MAX_ERROR_CHARS:
        return None
    return f"{what}: {run.describe()}"


def check(
    name: str,
    argv: Sequence[str],
    db: Path,
    inputs: Sequence[Path],
    downstream: Callable[[], str | None],
    example: object,
) -> str:
    """Run the command on a mutated input and hold it to the contract; returns the outcome
    (REFUSED or ACCEPTED) or raises `Broken` (in collect mode, records it and returns
    BROKEN)."""
    before = project_state(db)
    run = run_cli(argv)
    problem, outcome = None, BROKEN
    if run.crash is not None or run.code not in (0, 2):
        problem = run.describe()
    elif run.code == 2:
        problem = refusal_problem(run, inputs)
        if problem is None and project_state(db) != before:
            problem = f"refused ({run.err.strip()!r}) but the project changed"
        outcome = REFUSED
    else:
        problem, outcome = downstream(), ACCEPTED
    if problem is not None:
        _broken(name, argv, example, problem)
    TALLY[(name, outcome)] += 1
    return outcome


def _broken(name: str, argv: Sequence[str], example: object, problem: str) -> None:
    TALLY[(name, BROKEN)] += 1
    folder = os.environ.get(COLLECT_ENV)
    if not folder:
        raise Broken(f"{name}: {problem}\n  command: reasonscope {' '.join(map(str, argv))}")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    n = len(list(out.glob(f"{name}-*.json")))
    (out / f"{name}-{n:04d}.json").write_text(
        json.dumps({"input": name, "example": repr(example), "problem": problem}, indent=1)
    )
    raise _Collected


class _Collected(Exception):
    pass


def held(check_call: Callable[[], str]) -> str:
    """Run a `check` call; in collect mode a broken example returns BROKEN instead of
    raising (it was recorded)."""
    try:
        return check_call()
    except _Collected:
        return BROKEN


def cli_downstream(db: Path, work: Path, *, packages: bool = False) -> str | None:
    """`info`, `metrics` (the report and every table), every `export` (each benchmark
    format, episodes, each JRDB sequence's labels) on what was stored; the first problem."""
    from app.jobs.tables import TABLES

    runs: list[tuple[str, list]] = [
        ("info", ["info", "--json"]),
        ("metrics", ["metrics", "--json"]),
        ("metrics text", ["metrics"]),
        *[
            (f"metrics --table {t}", ["metrics", "--table", t, "--out", work / f"{t}.csv"])
            for t in TABLES
        ],
        *[
            (
                f"export benchmark {fmt}",
                ["export", "benchmark", "--status", "any", "--format", fmt, "--out", work / "b"],
            )
            for fmt in ("reasonscope-benchmark/1", "jrdb-reasoning-vg", "jrdb-reasoning-vqa")
        ],
        ("export episodes", ["export", "episodes", "--out", work / "episodes.jsonl"]),
    ]
    for n, sequence in enumerate(sequence_names(db)):
        labels = ["export", "labels", "--sequence", sequence]
        runs += [
            (f"export labels {sequence}", [*labels, "--out", work / f"labels{n}.json"]),
            (f"export labels {sequence} dir", [*labels, "--labels-dir", work / f"labels{n}"]),
        ]
    if packages:
        runs += [
            ("pack list", ["pack", "list", "--json"]),
            ("pack conflicts", ["pack", "conflicts"]),
        ]
    for what, argv in runs:
        problem = downstream_problem(run_cli([*argv, "--db", db]), what)
        if problem is not None:
            return problem
    return None


def sequence_names(db: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [name for (name,) in conn.execute("SELECT name FROM sequences ORDER BY id")]
    finally:
        conn.close()


def run_example(seed_: object, name: str, mutations: Sequence[Mutation]) -> str:
    """Copy the seed's project and its input `name` to a fresh folder, make the mutations
    and hold the import to the contract; the outcome (BROKEN only in collect mode)."""
    with tempfile.TemporaryDirectory(prefix=f"fuzz-{seed_.name}-") as tmp:
        work = Path(tmp)
        db = work / "project.reasonscope"
        shutil.copyfile(seed_.target, db)
        source = seed_.inputs[name]
        copy = work / "input" / source.name
        if source.is_dir():
            shutil.copytree(source, copy)
        else:
            copy.parent.mkdir()
            shutil.copyfile(source, copy)
        apply(copy, mutations)
        out = work / "out"
        out.mkdir()

        def downstream() -> str | None:
            packages = seed_.name == "pack-merge"
            return cli_downstream(db, out, packages=packages) or loaded(db)

        argv = seed_.argv(copy, db)
        return held(lambda: check(seed_.name, argv, db, [copy], downstream, (name, mutations)))
