"""The demo project: built headless by `reasonscope demo` or on the GUI's first run.

The demo is assembled from parts; each capability adds its own part to
`DEMO_PARTS`. A part runs once per project (recorded in `project_meta`), so
building the demo again only adds what a newer build brings. A brand-new demo
is built in a temporary file and moved into place when complete, so a
cancelled or failed first run never leaves a half-built project behind.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from annotation.progress import PART_SCALE, Progress
from store import Project, open_project

# The people in the demo: one labels, two others review (JRDB-Reasoning's
# two-reviewer rule), and two verify questions blind to each other (MG-VQA).
DEMO_ANNOTATORS = ("Ada (annotator)", "Ben (reviewer)", "Cleo (reviewer)")


def _part_annotators(project: Project, progress: Progress) -> None:
    for i, name in enumerate(DEMO_ANNOTATORS):
        progress.report(i, len(DEMO_ANNOTATORS), f"Adding annotator {name}")
        project.annotators.sign_in(name)


DEMO_SCENE_SEEDS = range(4)


def _part_scenes(project: Project, progress: Progress) -> None:
    """A handful of cluttered tabletop scenes for Explore scenes (and, later, questions)."""
    from sim.tabletop.scenes import generate_scene, scene_record

    seeds = list(DEMO_SCENE_SEEDS)
    for i, seed in enumerate(seeds):
        progress.report(i, len(seeds), f"Simulating demo scene {i + 1} of {len(seeds)}")
        scene = generate_scene(seed, objects=(8, 15))
        try:
            project.scenes.add(scene_record(scene))
        finally:
            scene.world.close()


DEMO_QUESTION_TASKS = ("count", "find", "beneath", "compare")


def _part_questions(project: Project, progress: Progress) -> None:
    """One generated question per task, verified by the two reviewers: one disagreement."""
    from annotation.verification import Verdict, asked_criteria
    from sim.tabletop.questions import Candidate, generate
    from sim.tabletop.scenes import scene_record

    ben, cleo = (project.annotators.sign_in(name) for name in DEMO_ANNOTATORS[1:])
    tasks = list(DEMO_QUESTION_TASKS)
    for i, task in enumerate(tasks):
        progress.report(i, len(tasks), f"Generating a demo {task} question")
        for seed in range(40):
            candidate = generate(task, seed)
            if isinstance(candidate, Candidate):
                break
        else:
            continue  # no question for this task on this machine: the demo says what it has
        try:
            with project.write():
                scene_id = project.scenes.add(scene_record(candidate.scene))
                question = project.questions.add(candidate.question_record(scene_id))
        finally:
            candidate.scene.world.close()
        yes = dict.fromkeys(asked_criteria(task), True)  # Compare: criterion 4 too
        project.verifications.submit(question.id, ben, Verdict(**yes, decision="approve"), 41.0)
        if i == len(tasks) - 1:  # the disagreement: waits for a third annotator
            cleo_says = Verdict(
                **{**yes, "evidence_withheld": False},
                decision="reject",
                reason="one label is readable at the edge of the image",
            )
        else:
            cleo_says = Verdict(**yes, decision="approve")
        project.verifications.submit(question.id, cleo, cleo_says, 37.5)


#: (task, seed) of tabletop questions nobody has verified yet, so a new verifier has
#: MG-VQA questions to take (only those of `DEMO_QUESTION_TASKS`). In these scenes some of
#: the search agent's grasps (2F-140) fail, which Replay compares with the plan and its
#: other candidates: in one of them a grasp closes on its object and it slips at lift
#: (count 33 and count 45 both did before the planner learned leaning slabs and balls);
#: where the planner refuses its grasps, Replay shows plans that never closed
#: (tests/app/demo/test_demo_pending_questions.py).
DEMO_PENDING_QUESTIONS = (("count", 33), ("count", 45), ("count", 24))


def _part_pending_questions(project: Project, progress: Progress) -> None:
    """Generated tabletop questions left pending, without verdicts. A demo built before
    this part has its episodes already: the pending questions get theirs here."""
    from sim.tabletop.questions import Candidate, generate
    from sim.tabletop.scenes import scene_record

    specs = [(task, seed) for task, seed in DEMO_PENDING_QUESTIONS if task in DEMO_QUESTION_TASKS]
    added = []
    for i, (task, seed) in enumerate(specs):
        progress.report(i, len(specs), f"Generating a demo {task} question to verify")
        candidate = generate(task, seed)
        if not isinstance(candidate, Candidate):
            continue  # the generator changed: fewer pending questions
        try:
            with project.write():
                scene_id = project.scenes.add(scene_record(candidate.scene))
                added.append(project.questions.add(candidate.question_record(scene_id)))
        finally:
            candidate.scene.world.close()
    if "episodes" in project.meta_list("demo_parts"):
        _run_demo_episodes(project, progress, added)


# (agent, mode): the chance baseline, and the scripted search agent with and without hands
DEMO_RUNS = (("chance", "direct"), ("search", "perception"), ("search", "manipulation"))


def _part_episodes(project: Project, progress: Progress) -> None:
    """Episodes of both scripted agents on every demo question, for Replay and Results."""
    from app.jobs.agents import select_questions

    _run_demo_episodes(project, progress, select_questions(project, "any", None))


#: Seconds a run of `DEMO_RUNS` took on six questions (2 cores, 2026-12-02): manipulation
#: simulates every grasp and push, so it is most of the demo's wait. Shares of the bar.
DEMO_RUN_SECONDS = {"direct": 1.1, "perception": 4.3, "manipulation": 50.0}


def _run_demo_episodes(project: Project, progress: Progress, questions: list) -> None:
    from app.jobs.agents import make_agent, run_episode

    weights = [DEMO_RUN_SECONDS.get(mode, 5.0) for _agent, mode in DEMO_RUNS]
    for r, (agent_name, mode) in enumerate(DEMO_RUNS):
        run = progress.part(r, len(DEMO_RUNS), f"{agent_name} agent, {mode} mode", weights)
        for i, question in enumerate(questions):
            run.report(i, len(questions), f"question {i + 1} of {len(questions)}")
            run_episode(project, question, make_agent(agent_name, seed=i), mode)


def _part_jrdb(project: Project, progress: Progress) -> None:
    """A small synthetic JRDB sequence written beside the project (`<project>.jrdb/`), imported."""
    import shutil

    from app.demo.jrdb_synth import MARKER, write_sequence
    from app.io.jrdb import read_jrdb, store_jrdb

    name = project.path.name.removesuffix(".building")
    root = project.path.with_name(name + ".jrdb")
    if (root / MARKER).exists():  # an earlier, unfinished demo build: ours to replace
        shutil.rmtree(root)
    progress.report(0, 2, "Demo: writing a synthetic JRDB sequence")
    write_sequence(root)
    progress.report(1, 2, "Demo: importing the JRDB sequence")
    plans, _warnings = read_jrdb(root)
    store_jrdb(project, plans)


DEMO_HOI_FRAMES = 3


def _part_hoi(project: Project, progress: Progress) -> None:
    """HOI labels by the annotator on the demo sequence's first frames, reviewed by the two
    reviewers: mostly accepted, one label returned, difficulties that sometimes differ."""
    from annotation.jrdb.hoi_taxonomy import load_hoi_taxonomy

    ada, ben, cleo = (project.annotators.sign_in(name) for name in DEMO_ANNOTATORS)
    pose = {label.id for label in load_hoi_taxonomy().categories[0].labels}
    for sequence in project.sequences.list():
        people = project.sequences.entities(sequence.id, "human")
        objects = project.sequences.entities(sequence.id, "object")
        frames = project.sequences.frames(sequence.id)[:DEMO_HOI_FRAMES]
        for f, frame in enumerate(frames):
            progress.report(f, len(frames), "Demo: HOI labels and reviews")
            actions = {
                (row["entity_id"], row["label"])
                for row in project.sequences.person_labels(frame.id)
            }
            for p, person in enumerate(people):
                seen = [label for (eid, label) in actions if eid == person.id and label in pose]
                labels = [("pose", seen[0] if seen else "standing", None, 1)]
                if p % 3 == 1 and objects:  # some people hold something, which is harder to see
                    labels.append(("physical", "holding", objects[p % len(objects)].id, 2))
                for category, predicate, target, difficulty in labels:
                    label = project.hoi.add_label(
                        frame_id=frame.id,
                        subject_entity_id=person.id,
                        object_entity_id=target,
                        category=category,
                        predicate=predicate,
                        difficulty=difficulty,
                        annotator=ada,
                        unique=True,
                    )
                    for reviewer in (ben, cleo):
                        odd = (person.id + frame.id + reviewer.id) % 5 == 0
                        if odd and reviewer is cleo and target is not None:
                            project.hoi.review(
                                label.id,
                                reviewer=cleo,
                                verdict="reject",
                                difficulty=3,
                                comment="the target is out of reach: looking at, not holding",
                            )
                            break
                        harder = min(3, difficulty + 1) if odd else difficulty
                        project.hoi.review(
                            label.id, reviewer=reviewer, verdict="accept", difficulty=harder
                        )


#: (task, subject, spatial, how many) of the demo's JRDB-Reasoning questions.
DEMO_REASONING = [
    ("vg", "human", "single", 2),
    ("vg", "human", "pair", 2),
    ("vg", "both", "clique", 2),
    ("vqa-count", "human", "pair", 2),
    ("vqa-wh", "both", "pair", 2),
]


def _part_reasoning(project: Project, progress: Progress) -> None:
    """Query-engine questions on the HOI-labelled frames, pending verification."""
    from annotation.query.model import Preferences
    from app.jobs.reasoning import generate_for_sequence

    for sequence in project.sequences.list():
        frames = [f.id for f in project.sequences.frames(sequence.id)[:DEMO_HOI_FRAMES]]
        for i, (task, subject, spatial, n) in enumerate(DEMO_REASONING):
            progress.report(i, len(DEMO_REASONING), "Demo: JRDB-Reasoning questions")
            records, _ = generate_for_sequence(
                project,
                sequence.id,
                Preferences(task, "image", subject, spatial),
                n,
                seed=i,
                frames=frames,
            )
            project.questions.add_many(records)


def _part_reasoning_results(project: Project, progress: Progress) -> None:
    """Something for Results > Reasoning: the category-only baseline's predictions, Ben's
    and Cleo's difficulty ratings (each tends to follow D, with a personal slant), and Ben's
    human-baseline answers (right except where the question is a long chain)."""
    from annotation.jrdb.reasoning_baselines import CATEGORY_ONLY, category_only

    progress.report(0, 3, "Demo: baseline predictions, ratings and human answers")
    questions = project.questions.page(benchmark="jrdb", limit=500).rows
    project.reasoning.import_predictions(CATEGORY_ONLY, category_only(questions), source="demo")
    ben, cleo = (project.annotators.sign_in(name) for name in DEMO_ANNOTATORS[1:])
    for q in questions:
        d = q.difficulty.D
        for slant, who in ((0, ben), (1, cleo)):
            project.reasoning.rate(q.id, who, max(1, min(5, d // 2 + (3 * q.id + slant) % 3 - 1)))
        if q.task == "vg":
            x, y, w, h = q.answer["boxes"][0]
            shift = w if d >= 6 and q.id % 2 else 0.1 * w  # misses one long chain
            answer = [x + shift, y, w, h]
        else:
            answer = q.answer
        project.reasoning.answer(q.id, ben, answer)


# Dual-arm content: which scripted logs to write and import (None: all of
# app.demo.bimanual.DEMO_LOGS), which reference plans to record, whether to replay in sim.
DEMO_BIMANUAL_LOGS: tuple | None = None
DEMO_BIMANUAL_REFERENCES = (("stack_blocks_two", 2), ("grab_roller", 0))
DEMO_BIMANUAL_REPLAY = True


def _part_bimanual(project: Project, progress: Progress) -> None:
    """Dual-arm episodes for Replay and Results: a BiManiBench-style log of two scripted
    planners (written, then imported), with error labels; reference plans recorded in our
    dual-arm world; a replay in sim of the logged handover that used the wrong arm."""
    from app.demo.bimanual import add_bimanual_demo

    add_bimanual_demo(
        project,
        progress,
        logs=DEMO_BIMANUAL_LOGS,
        references=DEMO_BIMANUAL_REFERENCES,
        replay=DEMO_BIMANUAL_REPLAY,
    )


DEMO_SPATIAL_ITEMS = 6  # per setting


def _part_spatial(project: Project, progress: Progress) -> None:
    """Spatial-grounding items rendered in the dual-arm world, with two rule baselines'
    replies scored (app/demo/spatial.py)."""
    from app.demo.spatial import add_spatial_demo

    add_spatial_demo(project, progress, n=DEMO_SPATIAL_ITEMS)


def _part_team(project: Project, progress: Progress) -> None:
    """Work packages: one merged back, one still out (app/demo/team.py)."""
    from app.demo.team import add_team_demo

    progress.report(0, 1, "Sending and merging demo work packages")
    add_team_demo(project)


DEMO_PARTS: list[tuple[str, Callable[[Project, Progress], None]]] = [
    ("annotators", _part_annotators),
    ("scenes", _part_scenes),
    ("questions", _part_questions),
    ("pending_questions", _part_pending_questions),
    ("episodes", _part_episodes),
    ("jrdb", _part_jrdb),
    ("hoi", _part_hoi),
    ("reasoning", _part_reasoning),
    ("reasoning_results", _part_reasoning_results),
    ("bimanual", _part_bimanual),
    ("spatial", _part_spatial),
    ("team", _part_team),
]


#: Seconds each part took in a full build on a 2-core machine (2026-12-02): its share of
#: the progress bar, so that the bar and the time left move evenly.
DEMO_PART_SECONDS = {
    "annotators": 0.1,
    "scenes": 2.5,
    "questions": 13.7,
    "pending_questions": 4.2,
    "episodes": 59.4,
    "jrdb": 1.3,
    "hoi": 0.1,
    "reasoning": 0.3,
    "reasoning_results": 0.1,
    "bimanual": 9.4,
    "spatial": 1.5,
    "team": 0.5,
}


def build_demo(path: str | os.PathLike[str], progress: Progress | None = None) -> list[str]:
    """Build or complete the demo project at `path`; return the parts added."""
    progress = progress or Progress()
    path = Path(path)
    fresh = not path.exists()
    target = path.with_name(path.name + ".building") if fresh else path
    if fresh and target.exists():
        target.unlink()
    project = open_project(target, create=True)
    added: list[str] = []
    try:
        done = set(project.meta_list("demo_parts"))
        for i, (name, part) in enumerate(DEMO_PARTS):
            # one overall bar: each part moves its share of it, named, never back to 0
            title = f"Demo: {name.replace('_', ' ')}"
            weights = [DEMO_PART_SECONDS.get(n, 1.0) for n, _ in DEMO_PARTS]
            step = progress.part(i, len(DEMO_PARTS), title, weights)
            step.report(0, 1, title)
            if name in done:
                continue
            part(project, step)
            project.meta_append("demo_parts", name)
            added.append(name)
        progress.report(PART_SCALE, PART_SCALE, "Demo ready")
        project.checkpoint()
    except BaseException:
        project.close()
        if fresh:
            for suffix in ("", "-wal", "-shm"):
                Path(str(target) + suffix).unlink(missing_ok=True)
        raise
    project.close()
    if fresh:
        os.replace(target, path)
        for suffix in ("-wal", "-shm"):
            Path(str(target) + suffix).unlink(missing_ok=True)
    return added
