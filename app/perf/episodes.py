"""Perf cases for episodes at scale: streamed import memory, bytes per stored episode.

Results at scale (issue 20) means tens of thousands of episodes in one project: many
models on a few scenes. The episodes here are real ones replicated: the scripted
reference plan of six dual-arm set-ups (a task and a seed each: six scenes), recorded
with their head-camera views, exported as reasonscope-episode/1 lines, and copied
with new ids, 30 model names and the latency and token counts a model request
reports. Copies of one set-up share its states and views, as the episodes of many
models on one scene share the scene's snapshots.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from annotation.formats.episode import validate_episode
from app.io.episodes import export_episodes, store_episode_record
from app.io.jsonl import json_lines, write_lines
from app.perf.harness import PerfResult, perf_case, report, scratch_folder
from store import open_project
from store.state_blobs import state_json
from store.states import table_bytes

ORDER = 32  # after the viewport's frame time, before the launch (see app.perf.harness)

# The six set-ups the copies are made from (task, seed): six scenes.
TEMPLATES = (
    ("stack_blocks_two", 0),
    ("stack_blocks_two", 1),
    ("stack_blocks_two", 2),
    ("stack_blocks_three", 0),
    ("blocks_ranking_rgb", 0),
    ("handover_block", 0),
)
MODELS = 30
# Sizes, module-level so that tests can shrink them: (small, large) files; episodes stored.
IMPORT_SIZES = {False: (300, 3_000), True: (100, 1_000)}
SHARED_EPISODES = {False: 3_000, True: 600}
MEMORY_GOAL = 1.5  # peak memory importing the large file / the small one
BYTES_GOAL = 0.10  # bytes per episode sharing states / each with its own

_templates: list[dict[str, Any]] = []


def template_records() -> list[dict[str, Any]]:
    """The exported lines of the TEMPLATES' reference episodes (recorded once a process)."""
    if not _templates:
        from app.jobs.bimanual import record_reference_episode

        with scratch_folder() as folder:
            db, out = folder / "templates.reasonscope", folder / "templates.jsonl"
            with open_project(db, create=True) as project:
                for task, seed in TEMPLATES:
                    report(f"episodes: recording the reference episode of {task} seed {seed}")
                    record_reference_episode(project, task, seed)
            export_episodes(db, out)
            _templates.extend(record for _, record in json_lines(out, "an episode file"))
    return _templates


def replica(template: dict[str, Any], i: int, *, own_states: bool = False) -> dict[str, Any]:
    """Copy `i` of an episode line: a new id, one of MODELS model names, a model request's
    latency and tokens on each step with a reply; with `own_states`, a nonce in every
    state, so that nothing of it can be shared (every episode stores its own states)."""
    steps = []
    for step in template["steps"]:
        step = dict(step)
        if step.get("kind") != "observation":
            step.update(
                latency_s=0.8 + (i % 37) / 10, tokens_in=2400 + i % 500, tokens_out=120 + i % 90
            )
        if own_states and isinstance(step.get("state"), dict):
            step["state"] = {**step["state"], "nonce": i}
        steps.append(step)
    return {
        **template,
        "id": f"{template['id'][:20]}-{i:06d}",
        "model": f"model-{i % MODELS:02d}",
        "steps": steps,
    }


def _lines(n: int) -> Iterator[str]:
    templates = template_records()
    for i in range(n):
        yield json.dumps(replica(templates[i % len(templates)], i))


# -- streamed import: peak memory -----------------------------------------------------------

# VmHWM, not getrusage's ru_maxrss: Linux carries the forking parent's peak across exec
# into ru_maxrss, while VmHWM is the peak of this process's own memory.
_CHILD = """
import json, sys, time
from app.io.episodes import import_episodes
t0 = time.perf_counter()
episodes, _ = import_episodes(sys.argv[1], sys.argv[2])
seconds = time.perf_counter() - t0
with open("/proc/self/status") as status:
    peak_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(json.dumps({"episodes": episodes, "seconds": seconds, "peak_kb": peak_kb}))
"""


def _import_in_child(db: Path, source: Path) -> dict[str, float]:
    """Import `source` into a new project in a fresh process; its peak memory and time."""
    open_project(db, create=True).close()
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(db), str(source)],
        capture_output=True,
        text=True,
        timeout=3600,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@perf_case("episode_import_memory", goal="<= 1.5x")
def episode_import_memory(quick: bool) -> PerfResult:
    """Peak memory of `import episodes` (in a fresh process) for a 10x larger file."""
    sizes = IMPORT_SIZES[quick]
    template_records()
    runs = {}
    with scratch_folder() as folder:
        for n in sizes:
            source = folder / f"episodes-{n}.jsonl"
            report(f"episode_import_memory: writing {n:,} episodes")
            write_lines(source, _lines(n))
            report(f"episode_import_memory: importing {n:,} episodes in a fresh process")
            run = _import_in_child(folder / f"p{n}.reasonscope", source)
            run["mb"] = source.stat().st_size / 1e6
            source.unlink()
            runs[n] = run
    small, large = (runs[n] for n in sizes)
    ratio = large["peak_kb"] / small["peak_kb"]
    detail = "; ".join(
        f"{n:,} episodes ({run['mb']:.0f} MB file): {run['peak_kb'] / 1024:.0f} MB peak, "
        f"{run['seconds']:.1f} s ({1000 * run['seconds'] / n:.1f} ms an episode)"
        for n, run in runs.items()
    )
    return PerfResult(
        "episode_import_memory",
        ratio,
        "x",
        "<= 1.5x",
        ratio <= MEMORY_GOAL,
        f"peak memory, {sizes[1]:,} vs {sizes[0]:,} episodes; {detail}",
    )


# -- bytes per stored episode ---------------------------------------------------------------


def _store(db: Path, n: int, own_states: bool) -> dict[str, Any]:
    """n copies stored through the store (as an import stores them): per-episode bytes by
    table (what they added to an empty project), by episode column, and time."""
    templates = [validate_episode(t) for t in template_records()]
    with open_project(db, create=True) as project:
        empty = table_bytes(project)
        t0 = time.perf_counter()
        with project.write():
            for i in range(n):
                record = replica(templates[i % len(templates)], i, own_states=own_states)
                store_episode_record(project, record, where=f"copy {i}")
        seconds = time.perf_counter() - t0
        grown = {t: b - empty.get(t, 0) for t, b in table_bytes(project).items()}
        columns = project.episodes.stored_bytes()
        states = project.states.count()
    return {
        "tables": {t: b / n for t, b in grown.items() if b},
        "seconds": seconds,
        "columns": {c: b / n for c, b in columns.items()},
        "states": states,
    }


def _inline_state_bytes(templates: list[dict[str, Any]]) -> float:
    """Bytes of state JSON an episode stored in its steps before content addressing."""
    sizes = [
        sum(len(state_json(s["state"]).encode()) for s in t["steps"] if s.get("state"))
        for t in templates
    ]
    return sum(sizes) / len(sizes)


def _breakdown(parts: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:,.0f}" for k, v in sorted(parts.items(), key=lambda kv: -kv[1]))


GOAL_TEXT = "<= 10% of an episode stored with its states inline"


@perf_case("episode_bytes_shared", goal=GOAL_TEXT)
def episode_bytes_shared(quick: bool) -> PerfResult:
    """Bytes per stored episode when the episodes share six scenes' states, against the
    same episode as stored before content addressing (its states inline in its steps).

    The baseline is conservative: it counts the step text as stored now (long text
    compressed), where before it was plain."""
    n = SHARED_EPISODES[quick]
    templates = template_records()
    with scratch_folder() as folder:
        report(f"episode_bytes_shared: storing {n:,} episodes sharing {len(templates)} scenes")
        shared = _store(folder / "shared.reasonscope", n, own_states=False)
        report(f"episode_bytes_shared: storing {n:,} episodes, each with its own states")
        own = _store(folder / "own.reasonscope", n, own_states=True)
    per_shared, per_own = sum(shared["tables"].values()), sum(own["tables"].values())
    # before content addressing the states were JSON text in each step, uncompressed
    inline = per_own - own["tables"].get("states", 0) + _inline_state_bytes(templates)
    ratio = per_shared / inline
    goal = GOAL_TEXT
    detail = (
        f"{n:,} episodes on {len(templates)} scenes: {per_shared:,.0f} B an episode sharing "
        f"states ({shared['states']} states; by table: {_breakdown(shared['tables'])}) vs "
        f"{per_own:,.0f} B each with its own ({own['states']:,} states; by table: "
        f"{_breakdown(own['tables'])}, {100 * per_shared / per_own:.0f}%); an episode took ~"
        f"{inline:,.0f} B with its states inline (before 0009). What stays per episode, "
        f"bytes of text: {_breakdown(shared['columns'])}; stored in {shared['seconds']:.1f} s "
        f"and {own['seconds']:.1f} s"
    )
    return PerfResult("episode_bytes_shared", 100 * ratio, "%", goal, ratio <= BYTES_GOAL, detail)
