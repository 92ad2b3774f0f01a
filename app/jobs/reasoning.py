"""JRDB-Reasoning questions from a project: frames -> scene graph -> engine -> stored records.

`question_record` turns an engine question into the stored record of
docs/jrdb-questions.md (answer boxes and per-step boxes read from the frames'
2D boxes); `generate_jrdb_questions` picks frames (or windows of frames for
video) with the seed, makes sure their geometric relations are computed, runs
the engine and stores the questions in one transaction.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from annotation.jrdb.dataset import frame_name
from annotation.progress import Progress
from annotation.query.engine import generate
from annotation.query.keys import graph_keys, step_keys
from annotation.query.model import (
    GENERATOR,
    GeneratedQuestion,
    GraphIndex,
    NoQuestion,
    Preferences,
)
from annotation.scene_graph import SceneGraph
from app.jobs.scene_graphs import graph_for_window
from store import Project, open_project

DEFAULT_WINDOW = 5  # frames in a video question's window


@dataclass
class FrameWindow:
    """The frames one question is asked about, with their graph and 2D boxes."""

    sequence_id: int
    frame_ids: list[int]
    image_ids: list[str]
    graph: SceneGraph
    boxes: list[dict[str, list[float]]]  # per slot: graph entity id -> [x, y, w, h]
    index: GraphIndex = field(init=False)

    def __post_init__(self) -> None:
        self.index = GraphIndex(self.graph)


def load_window(project: Project, sequence_id: int, frame_ids: Sequence[int]) -> FrameWindow:
    """The window's graph (relations computed first where missing) and its boxes."""
    # Open3D comes with the relations: imported when first needed, so the Annotate mode
    # (whose question generator calls this) is built without it
    from app.jobs.relations import compute_frame_relations, entity_kinds

    sequence = project.sequences.get(sequence_id)
    frames = {f.id: f for f in project.sequences.frames(sequence_id)}
    kinds = None
    for frame_id in frame_ids:
        if not project.sequences.relations(frame_id):
            kinds = kinds or entity_kinds(project, sequence_id)
            compute_frame_relations(project, sequence, frames[frame_id], kinds=kinds)
    graph = graph_for_window(project, sequence_id, list(frame_ids))
    key_of = {e.attributes.get("entity_id"): e.id for e in graph.entities.values()}
    boxes = []
    for frame_id in frame_ids:
        per = {}
        for b in project.sequences.boxes_2d(frame_id):
            if b.entity_id in key_of:
                per[key_of[b.entity_id]] = [
                    round(b.x, 2),
                    round(b.y, 2),
                    round(b.w, 2),
                    round(b.h, 2),
                ]
        boxes.append(per)
    image_ids = [
        os.path.basename(frames[f].image_path)
        if frames[f].image_path
        else frame_name(frames[f].index)
        for f in frame_ids
    ]
    return FrameWindow(sequence_id, list(frame_ids), image_ids, graph, boxes)


def question_record(q: GeneratedQuestion, window: FrameWindow) -> dict[str, Any]:
    """The stored record of one engine question (docs/jrdb-questions.md)."""
    slot_pos = {s: i for i, s in enumerate(window.graph.slots)}

    def boxes_at(slot: int, ids) -> dict[str, list[float]]:
        per = window.boxes[slot_pos[slot]]
        return {i: per[i] for i in ids if i in per}

    answer_pos = slot_pos[q.answer_slot]
    if q.preferences.task == "vg":
        answer: Any = {
            "entity_ids": list(q.target_ids),
            "image_id": window.image_ids[answer_pos],
            "boxes": [
                window.boxes[answer_pos][i] for i in q.target_ids if i in window.boxes[answer_pos]
            ],
        }
        if q.preferences.modality == "video":
            # grounded over the video: the targets' boxes in every frame of the window
            # (None where a target has no box), scored as a track (reasoning_eval.TRACK_RULE)
            answer["track"] = [
                {
                    "frame_id": frame_id,
                    "image_id": window.image_ids[pos],
                    "boxes": [window.boxes[pos].get(i) for i in q.target_ids],
                }
                for pos, frame_id in enumerate(window.frame_ids)
            ]
    else:
        answer = q.answer
    steps = [{**s.as_dict(), "boxes": boxes_at(s.slot, s.entity_ids)} for s in q.steps]
    # each step's attribute combination in JRDB-Reasoning's words ("human", "gender, age"):
    # the sub-question key of the JRDB-Reasoning export (annotation.query.keys)
    for step, key in zip(steps, step_keys(q.pattern, steps), strict=True):
        step["key"] = key
    criteria = {
        "generator": GENERATOR,
        "preferences": q.preferences.as_dict(),
        "frame_ids": window.frame_ids,
        "image_ids": window.image_ids,
        "question_slots": list(q.slots),
        "answer_slot": q.answer_slot,
        "combination": list(q.combination),
        "template": q.template,
        "pattern": q.pattern,
    }
    if q.asked:
        criteria["asked"] = q.asked
    return {
        "benchmark": "jrdb",
        "task": q.preferences.task,
        "text": q.text,
        "options": None,
        "answer": answer,
        "evidence_ids": list(q.evidence_ids),
        "steps": steps,
        "difficulty": {"S": q.S, "R": q.R, "T": q.T},
        "criteria": criteria,
        "sequence_id": window.sequence_id,
        "seed": q.seed,
    }


@dataclass
class GenerationSummary:
    accepted: int = 0
    attempts: int = 0
    rejected: Counter = field(default_factory=Counter)
    by_level: Counter = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        return {
            "accepted": self.accepted,
            "attempts": self.attempts,
            "rejected": dict(self.rejected),
            "by_difficulty": dict(self.by_level),
        }


def pick_window(
    frame_ids: Sequence[int], prefs: Preferences, rng: random.Random, window: int = DEFAULT_WINDOW
) -> list[int]:
    """One frame (image) or `window` consecutive frames (video), chosen with `rng`."""
    if prefs.modality == "image":
        return [rng.choice(list(frame_ids))]
    size = min(window, len(frame_ids))
    start = rng.randrange(0, len(frame_ids) - size + 1)
    return list(frame_ids[start : start + size])


def generate_for_sequence(
    project: Project,
    sequence_id: int,
    prefs: Preferences,
    n: int,
    seed: int,
    *,
    window: int = DEFAULT_WINDOW,
    progress: Progress | None = None,
    frames: Sequence[int] | None = None,
) -> tuple[list[dict[str, Any]], GenerationSummary]:
    """Up to `n` records with distinct texts; frames (all, or `frames`) chosen with the seed."""
    progress = progress or Progress()
    if frames is None:
        frames = [f.id for f in project.sequences.frames(sequence_id)]
    if not frames:
        raise ValueError(f"sequence {sequence_id} has no frames")
    rng = random.Random(seed)
    windows: dict[tuple[int, ...], FrameWindow] = {}
    records: list[dict[str, Any]] = []
    seen: set[str] = set()
    summary = GenerationSummary()
    for attempt in range(8 * n + 16):
        if len(records) == n or progress.cancelled:
            break
        summary.attempts += 1
        chosen = tuple(pick_window(frames, prefs, rng, window))
        if chosen not in windows:
            windows[chosen] = load_window(project, sequence_id, chosen)
        w = windows[chosen]
        try:
            q = generate(w.graph, prefs, seed + attempt, index=w.index)
        except NoQuestion as exc:
            summary.rejected[str(exc).split(" after ")[0]] += 1
            continue
        if q.text in seen:
            summary.rejected["duplicate text"] += 1
            continue
        seen.add(q.text)
        records.append(question_record(q, w))
        summary.by_level[f"D={q.D}"] += 1
        progress.report(len(records), n, f"{len(records)} of {n} questions")
    summary.accepted = len(records)
    return records, summary


def generate_jrdb_questions(
    path: str | os.PathLike[str],
    *,
    prefs: Preferences,
    n: int,
    seed: int,
    sequence: str | None = None,
    window: int = DEFAULT_WINDOW,
    progress: Progress | None = None,
) -> GenerationSummary:
    """Generate and store questions for one sequence (the only one, or `sequence` by name)."""
    with open_project(path) as project:
        sequences = project.sequences.list()
        if sequence is not None:
            found = project.sequences.find(sequence)
            if found is None:
                names = ", ".join(s.name for s in sequences) or "none"
                raise ValueError(f"{path}: no sequence {sequence!r} (sequences: {names})")
        elif len(sequences) == 1:
            found = sequences[0]
        elif not sequences:
            raise ValueError(f"{path}: the project has no JRDB sequence; import one first")
        else:
            names = ", ".join(s.name for s in sequences)
            raise ValueError(f"{path}: several sequences ({names}); choose one with --sequence")
        records, summary = generate_for_sequence(
            project, found.id, prefs, n, seed, window=window, progress=progress
        )
        if not records and prefs.require and not (progress and progress.cancelled):
            raise ValueError(required_keys_problem(project, found.id, prefs, summary))
        if records:
            project.questions.add_many(records)
    return summary


#: Keys of geometric relations: frames need their relations computed to offer them.
GEOMETRY_KEYS = frozenset({"SR_Robot_Ref", "distance", "hhg", "hoG", "ooG"})


def required_keys_problem(
    project: Project, sequence_id: int, prefs: Preferences, summary: GenerationSummary
) -> str:
    """Why no question uses `prefs.require`, in one line naming the sequence and the keys:
    the keys no frame of the sequence offers (every frame is looked at; their geometric
    relations are computed first when a geometry key is asked for), or else that the tries
    found no question with them."""
    name = project.sequences.get(sequence_id).name
    keys = ", ".join(prefs.require)
    frame_ids = [f.id for f in project.sequences.frames(sequence_id)]
    offered: Counter = Counter()
    for frame_id in frame_ids:
        if GEOMETRY_KEYS & set(prefs.require):
            index = load_window(project, sequence_id, [frame_id]).index
        else:
            index = GraphIndex(graph_for_window(project, sequence_id, [frame_id]))
        offered.update(graph_keys(index) & set(prefs.require))
    missing = [k for k in prefs.require if not offered[k]]
    if missing:
        return (
            f"sequence {name} has no question using {keys}: "
            f"none of its {len(frame_ids)} frames has {', '.join(missing)}"
        )
    return (
        f"sequence {name}: no {prefs.task} question (subject {prefs.subject}, spatial "
        f"{prefs.spatial}) using {keys} found in {summary.attempts} tries"
    )
