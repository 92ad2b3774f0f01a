"""Perf cases for a benchmark exported as a Hugging Face dataset (`export benchmark --format
hf`): its time against the JSON Lines export plus the images it cannot do without, and
its peak memory as the benchmark grows.

The workload is the one users run: MG-VQA questions on real generated scenes, each
exported with the model's top-down view at the full default size (`MODEL_IMAGE_SIZE`),
rendered as Direct mode renders it. A few generated questions are copied with new ids on
their scenes, so the project holds many questions without generating each.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from app.jobs.batch import BatchSetupError
from app.perf.harness import PerfResult, perf_case, report, scratch_folder
from store import open_project

ORDER = 45  # after the question generators, before the grasps (see app.perf.harness)

TASKS = ("count", "beneath", "find")  # one generated question (and scene) each
# Sizes, module-level so that tests can shrink them: questions exported; (small, large).
THROUGHPUT_QUESTIONS = {False: 24, True: 6}
MEMORY_SIZES = {False: (10, 40), True: (4, 16)}
OVERHEAD_GOAL = 1.25  # HF export / (JSON Lines export + rendering the views alone)
MEMORY_GOAL = 1.3  # peak memory exporting the large benchmark / the small one


def _require_hf() -> None:
    """Skip (with the pip line) where the hf extra is not installed."""
    from app.io.hf_dataset import INSTALL_HINT, HubSetupError, hf_modules

    try:
        hf_modules()
    except HubSetupError:
        raise BatchSetupError(INSTALL_HINT) from None


def build_project(db: Path, questions: int) -> None:
    """A project of `questions` approved MG-VQA questions: one generated per task in
    TASKS, then copies of them with new ids on the same scenes."""
    from sim.tabletop.questions import Candidate, generate
    from sim.tabletop.scenes import scene_record

    templates = []
    with open_project(db, create=True) as project:
        for task in TASKS:
            for seed in range(60):
                c = generate(task, seed, image_size=256)  # the scene; export renders full size
                if isinstance(c, Candidate):
                    with project.write():
                        templates.append(
                            c.question_record(project.scenes.add(scene_record(c.scene)))
                        )
                    c.scene.world.close()
                    break
        with project.write():
            for i in range(questions):
                record = dict(templates[i % len(templates)])
                record.update(uid=f"perf-{i:05d}", status="approved")
                project.questions.add(record)


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _render_views(db: Path) -> None:
    """The images alone: every exported question's model view, rendered and encoded."""
    from app.io.hf_dataset import model_view_png

    with open_project(db) as project:
        for q in project.questions.page(limit=10**6).rows:
            scene = project.scenes.get(q.scene_id)
            model_view_png([b.as_record() for b in scene.bodies], scene.state)


@perf_case("hf_export_overhead", goal=f"<= {OVERHEAD_GOAL}x")
def hf_export_overhead(quick: bool) -> PerfResult:
    """`export benchmark --format hf` vs the JSON Lines export plus rendering the views."""
    from app.io.benchmark import export_benchmark
    from app.io.hf_dataset import export_hf_dataset
    from sim.tabletop.world import MODEL_IMAGE_SIZE

    _require_hf()
    n = THROUGHPUT_QUESTIONS[quick]
    with scratch_folder() as folder:
        db = folder / "bench.reasonscope"
        report(f"hf_export_overhead: generating a project of {n} questions")
        build_project(db, n)
        report("hf_export_overhead: JSON Lines export, then the views alone, then HF")
        jsonl = _timed(lambda: export_benchmark(db, folder / "bench.jsonl"))
        views = _timed(lambda: _render_views(db))
        hf = _timed(lambda: export_hf_dataset(db, folder / "hf"))
        size = sum(p.stat().st_size for p in (folder / "hf" / "data").iterdir())
        lines = (folder / "bench.jsonl").stat().st_size
    ratio = hf / (jsonl + views)
    return PerfResult(
        "hf_export_overhead",
        ratio,
        "x",
        f"<= {OVERHEAD_GOAL}x",
        ratio <= OVERHEAD_GOAL,
        f"{n} questions with {MODEL_IMAGE_SIZE} px views: HF {hf:.1f} s "
        f"({1000 * hf / n:.0f} ms a question, {size / 1e6:.1f} MB Parquet), "
        f"JSON Lines {jsonl:.2f} s ({lines / 1e6:.1f} MB, no images; HF is "
        f"{hf / jsonl:.0f}x it), rendering the views alone {views:.1f} s",
    )


_CHILD = """
import json, sys, time
from app.io.hf_dataset import export_hf_dataset
t0 = time.perf_counter()
done = export_hf_dataset(sys.argv[1], sys.argv[2])
seconds = time.perf_counter() - t0
with open("/proc/self/status") as status:
    peak_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(json.dumps({"questions": done["questions"], "seconds": seconds, "peak_kb": peak_kb}))
"""


def _export_in_child(db: Path, out: Path) -> dict[str, float]:
    """Export `db` in a fresh process (VmHWM: that process's own peak); its memory and time."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(db), str(out)],
        capture_output=True,
        text=True,
        timeout=3600,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@perf_case("hf_export_memory", goal=f"<= {MEMORY_GOAL}x")
def hf_export_memory(quick: bool) -> PerfResult:
    """Peak memory of the HF export (in a fresh process) for a 4x larger benchmark."""
    _require_hf()
    sizes = MEMORY_SIZES[quick]
    runs = {}
    with scratch_folder() as folder:
        for n in sizes:
            report(f"hf_export_memory: generating and exporting {n} questions")
            build_project(folder / f"p{n}.reasonscope", n)
            runs[n] = _export_in_child(folder / f"p{n}.reasonscope", folder / f"hf{n}")
    small, large = (runs[n] for n in sizes)
    ratio = large["peak_kb"] / small["peak_kb"]
    detail = "; ".join(
        f"{n} questions: {run['peak_kb'] / 1024:.0f} MB peak, {run['seconds']:.1f} s"
        for n, run in runs.items()
    )
    return PerfResult(
        "hf_export_memory",
        ratio,
        "x",
        f"<= {MEMORY_GOAL}x",
        ratio <= MEMORY_GOAL,
        f"peak memory, {sizes[1]} vs {sizes[0]} questions; {detail}",
    )
