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
from sim.tabletop.world import MODEL_IMAGE_SIZE
from store import ProjectError, open_project

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
        return {
            "scene": scene_record(result.scene),
            "question": result.question_record(),
            "timing": timing,
        }
    finally:
        result.scene.world.close()


def generate_questions(
    db: str | os.PathLike[str],
    *,
    tasks: list[str],
    n: int,
    seed: int,
    threshold: float = MAX_VISIBILITY,
    image_size: int = MODEL_IMAGE_SIZE,
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
                        question = project.questions.add({**out["question"], "scene_id": scene_id})
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
                progress.report(
                    done,
                    total,
                    f"{task}: {summary.accepted[task]} of {n} (attempt {summary.attempts + 1})",
                )
                batch = run_batch(
                    [(task, s, threshold, image_size, gripper) for s in seeds],
                    attempt_question,
                    keep,
                    workers=workers,
                    ray_address=ray_address,
                    describe=lambda a: f"{a[0]} seed {a[1]}",
                    noun="attempt",
                )
                for item, why in batch.failed:
                    summary.rejected[f"failed: {why}"] += 1
                    summary.failed.append((item, why))
        progress.report(total, total, "done")
    return summary


def add_question(
    db: str | os.PathLike[str],
    scene_id: int,
    task: str,
    targets: list[str],
    *,
    tags: list[str] = (),
    threshold: float = MAX_VISIBILITY,
    image_size: int = MODEL_IMAGE_SIZE,
    extreme: str = "largest",
) -> int:
    """Author a question on a stored scene with the generators' checks; store it pending, for
    two verifiers, tagged "authored" (and `tags`), and return its id. A question failing a
    criterion raises `CriterionFailed` (nothing stored); bad targets raise ProjectError.
    Compare puts its letters on the objects, so it is stored with a new scene derived from
    this one, as a generated Compare question is stored with its labelled scene."""
    from sim.tabletop.authoring.questions import CriterionFailed, author_question
    from sim.tabletop.scenes import world_from_records

    with open_project(db) as project:
        scene = project.scenes.get(scene_id)
        world = world_from_records([b.as_record() for b in scene.bodies], scene.state)
        try:
            try:
                made = author_question(
                    world,
                    task,
                    list(targets),
                    threshold=threshold,
                    image_size=image_size,
                    extreme=extreme,
                )
            except CriterionFailed:
                raise
            except ValueError as exc:
                raise ProjectError(f"scene {scene_id}: {exc}") from None
            labelled = None
            if made.relabelled:
                state = world.capture_state()
                state["generation"] = {
                    **scene.state.get("generation", {}),
                    "derived_from": scene_id,
                }
                labelled = {
                    "name": f"{scene.name}, labelled A B C",
                    "benchmark": scene.benchmark,
                    "seed": scene.seed,
                    "generator": scene.generator,
                    "camera": scene.camera,
                    "state": state,
                    "bodies": world.body_records(),
                }
        finally:
            world.close()
        record = made.record
        record["criteria"]["tags"] = list(dict.fromkeys(["authored", *tags]))
        record["criteria"]["authored_on"] = scene_id
        with project.write():
            record["scene_id"] = project.scenes.add(labelled) if labelled else scene_id
            return project.questions.add(record).id
