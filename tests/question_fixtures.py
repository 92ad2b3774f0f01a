"""Questions the tests share: a JRDB-Reasoning question as stored (`jrdb_question`), three
JRDB question records on a sequence's first frame (`jrdb_questions`: VG, count, Wh), and
a small verification project for the GUI tests (one generated Beneath question with its
scene, and a Count question added by hand on the same scene)."""

from __future__ import annotations

from pathlib import Path

from annotation.jrdb.dataset import PANORAMA_WIDTH
from annotation.models import Question
from store import open_project

WH_ANSWER = "middle_adulthood"  # the answer of `jrdb_questions`' Wh question


#: One red mug on a table: the scene of the package and team tests' Count questions.
MUG_BODY = {
    "id": "mug_1",
    "name": "red mug",
    "asset": "mug.urdf",
    "position": [0, 0, 0.8],
    "orientation": [0, 0, 0, 1],
}


def add_mug_questions(project, count: int) -> int:
    """A scene of `MUG_BODY` and `count` pending Count questions on it ("How many mugs?
    i", answer 1, the mug as evidence), added to `project`; returns the scene's id."""
    scene = project.scenes.add({"name": "table 1", "seed": 1, "bodies": [MUG_BODY]})
    for i in range(count):
        project.questions.add(
            {
                "benchmark": "mgvqa",
                "task": "count",
                "text": f"How many mugs? {i}",
                "answer": 1,
                "evidence_ids": ["mug_1"],
                "scene_id": scene,
            }
        )
    return scene


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


def _criteria(frame, image_id: str) -> dict:
    return {
        "generator": "jrdb-query-engine/1",
        "preferences": {"task": "vg", "modality": "image", "subject": "human"},
        "frame_ids": [frame.id],
        "image_ids": [image_id],
        "combination": [],
    }


def jrdb_questions(project, sequence_id: int) -> dict[str, dict]:
    """Three JRDB-Reasoning question records on the sequence's first frame (docs/
    jrdb-questions.md): a VG question whose answer box is a stored person box, a count and
    a Wh question."""
    frame = project.sequences.frames(sequence_id)[0]
    image_id = Path(frame.image_path).name
    entities = {e.id: e for e in project.sequences.entities(sequence_id)}
    people = [
        b
        for b in project.sequences.boxes_2d(frame.id)
        if entities[b.entity_id].kind == "human" and b.x + b.w < PANORAMA_WIDTH
    ]
    target = max(people, key=lambda b: b.w * b.h)
    key = entities[target.entity_id].key
    box = [target.x, target.y, target.w, target.h]
    base = {"benchmark": "jrdb", "options": None, "sequence_id": sequence_id, "seed": 0}
    criteria = _criteria(frame, image_id)
    step = {"description": "all persons", "entity_ids": [key], "slot": 0, "boxes": {key: box}}
    return {
        "vg": {
            **base,
            "task": "vg",
            "text": "Find the tallest person in the picture.",
            "answer": {"entity_ids": [key], "image_id": image_id, "boxes": [box]},
            "evidence_ids": [key],
            "steps": [step],
            "difficulty": {"S": 1, "R": 0, "T": 1},
            "criteria": criteria,
        },
        "count": {
            **base,
            "task": "vqa-count",
            "text": "How many persons are in the picture?",
            "answer": len(people),
            "evidence_ids": [key],
            "steps": [step],
            "difficulty": {"S": 2, "R": 1, "T": 1},
            "criteria": criteria,
        },
        "wh": {
            **base,
            "task": "vqa-wh",
            "text": "What is the age of the woman?",
            "answer": WH_ANSWER,
            "evidence_ids": [key],
            "steps": [step],
            "difficulty": {"S": 3, "R": 2, "T": 1},
            "criteria": {**criteria, "asked": "age"},
        },
    }


def build_study_project(folder: Path) -> Path:
    """A small JRDB project (two frames) for the human study: questions 1-3 are
    `jrdb_questions` (vg, vqa-count, vqa-wh: D = 2, 4, 6), 4-5 tabletop counts without a
    scene (D = 3, 5); Zoe has rated question 1 (4) and answered it (a wrong box)."""
    from hoi_fixtures import build_hoi_project

    from app.demo.jrdb_synth import SynthConfig

    config = SynthConfig(frames=2, people=3, objects=2, points_per_sweep=2_000)
    hoi = build_hoi_project(folder, config)
    with open_project(hoi.db) as p:
        p.questions.add_many(jrdb_questions(p, hoi.sequence_id).values())
        for n, (s, r) in enumerate(((1, 1), (2, 2)), start=1):
            p.questions.add(
                {
                    "benchmark": "mgvqa",
                    "task": "count",
                    "text": f"How many mugs are on the table? ({n})",
                    "answer": n,
                    "difficulty": {"S": s, "R": r, "T": 1},
                }
            )
        zoe = p.annotators.sign_in("Zoe")  # someone else's work, which must not travel
        p.reasoning.rate(1, zoe, 4)
        p.reasoning.answer(1, zoe, [0, 0, 50, 50])
    return hoi.db
