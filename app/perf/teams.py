"""Perf cases of work packages: creating one of 200 questions with their scenes, and
merging the worked package back, each against exporting and importing the same
questions as a benchmark file (docs/work-packages.md#speed)."""

from __future__ import annotations

import shutil
import statistics
import time
from pathlib import Path

from annotation.verification import Verdict
from app.io.benchmark import export_benchmark, import_benchmark
from app.perf.harness import PerfResult, perf_case, report, scratch_folder
from app.work_packages.create import PackageRequest, create_package
from app.work_packages.merge import merge_package
from store import open_project

ORDER = 36  # after the results cases (see app.perf.harness)

QUESTIONS = {False: 200, True: 200}
ROUNDS = {False: 5, True: 3}
GOAL = 2.0
APPROVE = Verdict(True, True, True, "approve")


def _project(folder: Path, n: int) -> Path:
    """n questions, each on its own copy of one generated tabletop scene."""
    from sim.tabletop.scenes import generate_scene, scene_record

    scene = generate_scene(7)
    record = scene_record(scene)
    scene.world.close()
    path = folder / "team.reasonscope"
    with open_project(path, create=True) as project, project.write():
        for i in range(n):
            sid = project.scenes.add({**record, "name": f"scene {i}", "seed": i})
            project.questions.add(
                {
                    "benchmark": "mgvqa",
                    "task": "count",
                    "text": f"How many objects are on the table? ({i})",
                    "answer": 3,
                    "evidence_ids": [],
                    "scene_id": sid,
                }
            )
    return path


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _result(name: str, ours: list[float], base: list[float], n: int, what: str) -> PerfResult:
    ratio = statistics.median(ours) / statistics.median(base)
    return PerfResult(
        name,
        ratio,
        "x",
        f"<= {GOAL:g}x {what}",
        ratio <= GOAL,
        f"{n} questions with their scenes: median {1000 * statistics.median(ours):.0f} ms "
        f"against {1000 * statistics.median(base):.0f} ms to {what} ({len(ours)} rounds)",
    )


@perf_case("package_create", goal=f"<= {GOAL:g}x exporting the questions as a benchmark file")
def package_create(quick: bool) -> PerfResult:
    """A verifier package of every question (copied rows, content hash, assignments noted)
    against `export benchmark` of the same questions."""
    n = QUESTIONS[quick]
    ours, base = [], []
    with scratch_folder() as folder:
        report(f"package_create: a project of {n} questions with scenes")
        source = _project(folder, n)
        for r in range(ROUNDS[quick]):
            report(f"package_create: round {r + 1} of {ROUNDS[quick]}")
            db = folder / f"round{r}.reasonscope"
            shutil.copy(source, db)
            out, jsonl = folder / f"round{r}.rspack", folder / f"round{r}.jsonl"
            request = PackageRequest("ana", "verifier", "pending")
            ours.append(_timed(lambda: create_package(db, request, out)))  # noqa: B023
            base.append(_timed(lambda: export_benchmark(db, jsonl, status="any")))  # noqa: B023
    return _result("package_create", ours, base, n, "export them as a benchmark file")


@perf_case("package_merge", goal=f"<= {GOAL:g}x importing the questions from a benchmark file")
def package_merge(quick: bool) -> PerfResult:
    """Merging a package with a verdict on each of its questions back, against `import
    benchmark` of the same questions into an empty project."""
    n = QUESTIONS[quick]
    ours, base = [], []
    with scratch_folder() as folder:
        report(f"package_merge: a project of {n} questions with scenes, and its package")
        source = _project(folder, n)
        pack = folder / "ana.rspack"
        create_package(source, PackageRequest("ana", "verifier", "pending"), pack)
        with open_project(pack) as p:
            ana = p.annotators.sign_in("ana")
            for q in p.verifications.queue(ana, limit=n):
                p.verifications.submit(q.id, ana, APPROVE, 4.0)
        jsonl = folder / "questions.jsonl"
        export_benchmark(source, jsonl, status="any")
        for r in range(ROUNDS[quick]):
            report(f"package_merge: round {r + 1} of {ROUNDS[quick]}")
            db, empty = folder / f"round{r}.reasonscope", folder / f"empty{r}.reasonscope"
            shutil.copy(source, db)
            open_project(empty, create=True).close()
            ours.append(_timed(lambda: merge_package(db, pack)))  # noqa: B023
            base.append(_timed(lambda: import_benchmark(empty, jsonl)))  # noqa: B023
    return _result("package_merge", ours, base, n, "import them from a benchmark file")
