"""Question generation for the CLI, the GUI and the demo: generate, store, report."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field

from annotation.progress import Progress
from app.jobs.batch import run_batch
from sim.robotiq import DEFAULT_GRIPPER
from sim.tabletop.questions import MAX_VISIBILITY, Candidate, generate
from sim.tabletop.scenes import scene_record
from store import open_project

BUILT_TASKS = ("count", "find", "beneath", "compare")
MAX_ATTEMPTS_PER_QUESTION = 30


@dataclass
class GenerationSummary:
    accepted: dict[str, int] = field(default_factory=dict)
    rejected: Counter = field(default_factory=Counter)
    attempts: int = 0
    question_ids: list[int] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # attempts whose work raised
    scene_s: float = 0.0
    visibility_s: float = 0.0

    def as_dict(self) -> dict:
        return {
            "accepted": self.accepted,
            "rejected": dict(self.rejected),
            "attempts": self.attempts,
            "question_ids": self.question_ids,
            "failed": [{"item": i, "error": e} for i, e in self.failed],
            "scene_seconds": round(self.scene_s, 2),
            "visibility_seconds": round(self.visibility_s, 2),
        }


def attempt_question(task_args: tuple[str, int, float, int, str]) -> dict:
    """One generation attempt as plain data (a batch worker's job): (task, seed, threshold,
    image size, gripper) -> {"scene", "question"} records, or {"rejected": reason}; with
    the attempt's timing either way."""
    task, seed, threshold, image_size, gripper = task_args
    result = generate(task, seed, threshold=threshold, image_size=image_size, gripper=gripper)
    timing = {"scene_s": result.timing.scene_s, "visibility_s": result.timing.visibility_s}
    if not isinstance(result, Candidate):
        return {"rejected": result.reason, "timing": timing}
    try:
        return {"scene": scene_record(result.scene), "question": result.question_record(),
                "timing": timing}  # fmt: skip
    finally:
        result.scene.world.close()


def generate_questions(
    db: str | os.PathLike[str],
    *,
    tasks: list[str],
    n: int,
    seed: int,
    threshold: float = MAX_VISIBILITY,
    image_size: int = 1024,
    gripper: str = DEFAULT_GRIPPER,
    progress: Progress | None = None,
    workers: int = 1,
    ray_address: str | None = None,
    resume: bool = False,
) -> GenerationSummary:
    """Generate `n` accepted questions per task; store each with its scene as it is accepted.

    Attempts use seeds seed, seed + 1, ... per task, and the first `n` accepted in seed
    order are kept, so the questions are the same with any number of workers (on Ray,
    attempts run a window at a time, 2 per worker; the ones past the n-th acceptance are
    dropped). With `resume`, the questions of this task already stored from these seeds
    count, and their seeds are not tried again."""
    progress = progress or Progress()
    summary = GenerationSummary(accepted=dict.fromkeys(tasks, 0))
    total = n * len(tasks)
    window = 1 if workers == 1 and not ray_address else 2 * max(workers, 2)
    with open_project(db) as project:
        for task in tasks:
            stored = project.questions.seeds("mgvqa", task) if resume else set()
            attempt_seed, budget = seed, n * MAX_ATTEMPTS_PER_QUESTION
            # stored questions of this run's seeds count once, their seeds are skipped
            summary.accepted[task] = len([s for s in stored if s >= seed])

            def keep(_args, out, task=task):
                summary.attempts += 1
                summary.scene_s += out["timing"]["scene_s"]
                summary.visibility_s += out["timing"]["visibility_s"]
                if "rejected" in out:
                    summary.rejected[out["rejected"]] += 1
                elif summary.accepted[task] < n:
                    with project.write():  # the scene and its question land together
                        scene_id = project.scenes.add(out["scene"])
                        question = project.questions.add({**out["question"],
                                                          "scene_id": scene_id})  # fmt: skip
                    summary.question_ids.append(question.id)
                    summary.accepted[task] += 1

            while summary.accepted[task] < n and budget > 0:
                seeds = []
                while len(seeds) < min(window, budget):
                    if attempt_seed not in stored:
                        seeds.append(attempt_seed)
                    attempt_seed += 1
                budget -= len(seeds)
                done = sum(summary.accepted.values())
                progress.report(done, total, f"{task}: {summary.accepted[task]} of {n} "
                                f"(attempt {summary.attempts + 1})")  # fmt: skip
                batch = run_batch(
                    [(task, s, threshold, image_size, gripper) for s in seeds],
                    attempt_question, keep, workers=workers, ray_address=ray_address,
                    describe=lambda a: f"{a[0]} seed {a[1]}", noun="attempt",
                )  # fmt: skip
                for item, why in batch.failed:
                    summary.rejected[f"failed: {why}"] += 1
                    summary.failed.append((item, why))
        progress.report(total, total, "done")
    return summary
