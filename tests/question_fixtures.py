"""A small verification project shared by the GUI tests: one generated Beneath question
with its scene, and a Count question added by hand on the same scene."""

from __future__ import annotations

from pathlib import Path

from store import open_project


def write_question_project(path: Path) -> Path:
    from sim.tabletop.questions import Candidate, generate
    from sim.tabletop.scenes import scene_record

    with open_project(path, create=True) as project:
        for seed in range(1, 40):
            candidate = generate("beneath", seed, image_size=256)
            if isinstance(candidate, Candidate):
                break
        with project.write():
            sid = project.scenes.add(scene_record(candidate.scene))
            project.questions.add(candidate.question_record(sid))
        objects = [b.key for b in candidate.scene.world.objects()]
        candidate.scene.world.close()
        # A second question on the same scene, added by hand.
        project.questions.add(
            {
                "benchmark": "mgvqa",
                "task": "count",
                "text": "How many objects are there?",
                "answer": len(objects),
                "evidence_ids": objects[:2],
                "scene_id": sid,
            }
        )
    return path
