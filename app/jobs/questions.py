"""Question generation for the CLI, the GUI and the demo: generate, store, report."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field

from annotation.progress import Progress
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
    scene_s: float = 0.0
    visibility_s: float = 0.0

    def as_dict(self) -> dict:
        return {
            "accepted": self.accepted,
            "rejected": dict(self.rejected),
            "attempts": self.attempts,
            "question_ids": self.question_ids,
            "scene_seconds": round(self.scene_s, 2),
            "visibility_seconds": round(self.visibility_s, 2),
        }


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
) -> GenerationSummary:
    """Generate `n` accepted questions per task; store each with its scene as it is accepted."""
    progress = progress or Progress()
    summary = GenerationSummary(accepted=dict.fromkeys(tasks, 0))
    total = n * len(tasks)
    with open_project(db) as project:
        for task in tasks:
            attempt_seed = seed
            budget = n * MAX_ATTEMPTS_PER_QUESTION
            while summary.accepted[task] < n and budget > 0:
                done = sum(summary.accepted.values())
                progress.report(
                    done,
                    total,
                    f"{task}: {summary.accepted[task]} of {n} (attempt {summary.attempts + 1})",
                )
                result = generate(
                    task, attempt_seed, threshold=threshold, image_size=image_size, gripper=gripper
                )
                attempt_seed += 1
                budget -= 1
                summary.attempts += 1
                summary.scene_s += result.timing.scene_s
                summary.visibility_s += result.timing.visibility_s
                if not isinstance(result, Candidate):
                    summary.rejected[result.reason] += 1
                    continue
                try:
                    with project.write():  # the scene and its question land together or not at all
                        scene_id = project.scenes.add(scene_record(result.scene))
                        question = project.questions.add(result.question_record(scene_id))
                finally:
                    result.scene.world.close()
                summary.question_ids.append(question.id)
                summary.accepted[task] += 1
        progress.report(total, total, "done")
    return summary
