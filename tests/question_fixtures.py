"""A small verification project shared by the GUI tests: one generated Beneath question
with its scene, and a Count question added by hand on the same scene."""

from __future__ import annotations

from pathlib import Path

from annotation.models import Question
from store import open_project


def jrdb_question(**changes) -> Question:
    """A pending JRDB-Reasoning VG question on sequence 1, as stored, with `changes`."""
    fields = dict(
        id=1,
        uid="u",
        version=1,
        benchmark="jrdb",
        task="vg",
        text="Find her.",
        options=None,
        answer=None,
        evidence_ids=[],
        steps=[],
        difficulty=None,
        criteria={},
        status="pending",
        is_current=True,
        scene_id=None,
        sequence_id=1,
        seed=0,
        created_at="",
        created_by=None,
    )
    return Question(**{**fields, **changes})


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
