"""Creating a work package: one person's assignment, chosen under the project's rules,
written to a package file and noted as out (docs/work-packages.md#create)."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.jrdb.hoi_review import needs_review_by
from annotation.jrdb.question_frames import question_frames
from annotation.models import Annotator, Question
from app.work_packages.study import BLIND_ROLES, study_questions
from store import Project, ProjectError, open_project
from store.errors import utc_now
from store.package_io import content_hash, set_manifest, write_package
from store.packages import ROLE_KIND, ROLES

FORMAT = "reasonscope-package/1"
SUFFIX = ".rspack"
_MANY = 1_000_000


@dataclass
class PackageRequest:
    """What to hand out: `questions` is "pending" or question ids (verifier, adjudicator,
    rater, human-baseline; `benchmark` and `task` narrow "pending"); `labels` is True
    (every label the person may review) or label ids; `sequence` and `frames` (first,
    last frame index) choose frames to label, `episodes` ("all", "failed" or ids)
    episodes to label errors in."""

    person: str
    role: str
    questions: str | list[int] | None = None
    benchmark: str | None = None
    task: str | None = None
    labels: bool | list[int] = False
    episodes: str | list[int] | None = None
    sequence: str | None = None
    frames: tuple[int, int] | None = None
    limit: int | None = None
    notes: list[str] = field(default_factory=list)


def package_request(
    person: str,
    role: str,
    *,
    questions: str | None = None,
    labels: str | None = None,
    episodes: str | None = None,
    sequence: str | None = None,
    frames: str | None = None,
    limit: int | None = None,
    benchmark: str | None = None,
    task: str | None = None,
) -> PackageRequest:
    """A request from the options as typed (`pack create`, File > Work packages > Create):
    questions 'pending' or ids, labels 'all' or ids, frames 'A-B'."""
    chosen: str | list[int] | None = questions
    if questions is not None and questions != "pending":
        chosen = parse_ids(questions, "--questions")
    chosen_episodes: str | list[int] | None = episodes
    if episodes is not None and episodes not in ("all", "failed"):
        chosen_episodes = parse_ids(episodes, "--episodes")
    wanted: bool | list[int] = False
    if labels is not None:
        wanted = True if labels == "all" else parse_ids(labels, "--labels")
    return PackageRequest(
        person,
        role,
        questions=chosen,
        benchmark=benchmark,
        task=task,
        labels=wanted,
        episodes=chosen_episodes,
        sequence=sequence,
        frames=parse_frames(frames),
        limit=limit,
    )


def parse_ids(text: str, flag: str) -> list[int]:
    try:
        ids = list(dict.fromkeys(int(part) for part in text.split(",") if part.strip()))
    except ValueError:
        raise ProjectError(f"{flag} {text}: give 'pending' or comma-separated ids") from None
    if not ids:
        raise ProjectError(f"{flag}: no ids given")
    return ids


def parse_frames(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    first, _, last = text.partition("-")
    try:
        span = (int(first), int(last or first))
    except ValueError:
        raise ProjectError(f"--frames {text}: give A-B, frame indices") from None
    if span[0] > span[1]:
        raise ProjectError(f"--frames {text}: the first index is after the last")
    return span


def create_package(db: str | os.PathLike[str], request: PackageRequest, out: Path) -> dict:
    """Write the package file `out` and note its items as out with the person; returns
    the manifest. Raises `ProjectError` (one line, nothing written) when the request
    breaks a rule or finds nothing to hand out."""
    if request.role not in ROLES:
        raise ProjectError(f"role must be one of {', '.join(ROLES)}, not {request.role!r}")
    out = Path(out).absolute()
    if out.exists():
        raise ProjectError(f"{out}: already exists; choose another package file")
    with open_project(db) as project:
        name = " ".join(request.person.split())
        if not name:
            raise ProjectError(f"{project.path}: a package needs a person's name (--for NAME)")
        # someone new has done nothing yet (id 0 is never a row); created once it goes out
        person = project.annotators.find(name) or Annotator(0, name, "")
        items, picks, files = _choose(project, person, request)
        if not items:
            raise ProjectError(
                f"{project.path}: nothing to hand to {person.name} as {request.role} "
                "(every candidate is done, theirs, or out with enough people)"
            )
        if person.id == 0:
            person = project.annotators.sign_in(name)
            picks["annotators"] = (picks["annotators"] - {0}) | {person.id}
        part = out.with_name(out.name + ".part")
        for stale in (part, Path(f"{part}-wal"), Path(f"{part}-shm")):
            stale.unlink(missing_ok=True)
        copied = write_package(project.path, part, picks, files, blind=request.role in BLIND_ROLES)
        hashed = {t: ids for t, ids in copied.items() if not _worked_on(t, request.role)}
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "project_id": project.packages.project_id(),
            "package_id": str(uuid.uuid4()),
            "person": person.name,
            "person_id": person.id,
            "role": request.role,
            "items": items,
            "created": utc_now(),
            "copied": copied,
            "hashed": sorted(hashed),
            "content_sha256": content_hash(part, hashed),
            "notes": request.notes,
        }
        try:
            set_manifest(part, manifest)
            project.packages.record(manifest, person.id, str(out))
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        part.replace(out)
    return manifest


def _worked_on(table: str, role: str) -> bool:
    """Copied tables the package's own work may change (left out of its hash)."""
    return role == "annotator" and table in ANNOTATOR_WORK


# What an annotator's work changes in the copied tables: labels, entities, boxes, where
# tracks end and who is taken out of a frame, and the relations a removed entity (or
# Relations ↻) takes out of a frame.
ANNOTATOR_WORK = (
    "hoi_labels",
    "entities",
    "boxes_2d",
    "boxes_3d",
    "track_ends",
    "entity_removals",
    "geometric_relations",
)


def _choose(project: Project, person: Annotator, request: PackageRequest):
    items: list[dict[str, Any]] = []
    picks: dict[str, set[int]] = {"annotators": {person.id}}
    limit = request.limit or _MANY
    kind = ROLE_KIND[request.role]
    if kind in ("question", "rating", "answer"):
        if request.questions is None:
            raise ProjectError(f"a {request.role} package needs --questions pending|ID,...")
        study = kind != "question"
        chosen = (study_questions if study else _questions)(project, person, request)
        for question in chosen[:limit]:
            items.append({"kind": kind, "id": question.id, "version": str(question.version)})
            _add_question(project, question, picks, request.role == "adjudicator")
    elif kind == "label":
        if not request.labels:
            raise ProjectError("a reviewer package needs --labels (all I may review, or IDs)")
        for record in _labels(project, person, request)[:limit]:
            label = record.label
            items.append({"kind": "label", "id": label.id, "version": f"r{record.round}"})
            picks.setdefault("hoi_labels", set()).add(label.id)
            picks.setdefault("annotators", set()).add(label.annotator_id)
            picks.setdefault("frames", set()).add(label.frame_id)
    else:
        if request.sequence is None and request.episodes is None:
            raise ProjectError(
                "an annotator package needs --sequence NAME [--frames A-B] or --episodes"
            )
        for episode in _episodes(project, person, request)[:limit]:
            items.append({"kind": "episode", "id": episode.id, "version": ""})
            picks.setdefault("episodes", set()).add(episode.id)
            if episode.scene_id is not None:
                picks.setdefault("scenes", set()).add(episode.scene_id)
        for frame in _frames(project, person, request)[:limit]:
            items.append({"kind": "frame", "id": frame.id, "version": ""})
            picks.setdefault("frames", set()).add(frame.id)
            for label in project.hoi.labels_for_frame(frame.id):
                picks.setdefault("hoi_labels", set()).add(label.id)
                picks.setdefault("annotators", set()).add(label.annotator_id)
    frames = picks.get("frames", set())
    files = _frame_files(project, frames, picks, request)
    return items, picks, files


def _questions(project: Project, person: Annotator, request: PackageRequest) -> list[Question]:
    awaiting = None
    if request.role == "adjudicator":
        waiting = project.verifications.adjudication_queue(person, limit=_MANY)
        awaiting = {q.id for q in waiting}
    if request.questions == "pending":
        pool = waiting if awaiting is not None else project.verifications.queue(person, limit=_MANY)
        return [
            q
            for q in pool
            if (request.benchmark is None or q.benchmark == request.benchmark)
            and (request.task is None or q.task == request.task)
            and _question_refusal(project, person, q, awaiting) is None
        ]
    chosen = []
    for qid in request.questions or []:
        question = project.questions.get(qid)
        refusal = _question_refusal(project, person, question, awaiting)
        if refusal:
            raise ProjectError(f"{project.path}: question {qid}: {refusal}")
        chosen.append(question)
    return chosen


def _question_refusal(
    project: Project, person: Annotator, question: Question, awaiting: set[int] | None
) -> str | None:
    """Why this question cannot go to this person in this role, or None."""
    version = str(question.version)
    if not question.is_current or question.status != "pending":
        return f"is {question.status if question.is_current else 'not current'}; nothing to verify"
    first = project.verifications.first_round_people(question.id)
    out = project.packages.out_with_others("question", question.id, version, person.id)
    if person.id in first:
        return f"{person.name} verified it already; an adjudicator is a third person"
    if project.packages.handed_to("question", question.id, version, person.id):
        return f"already handed to {person.name}"
    if awaiting is not None:  # an adjudicator: `awaiting` are the questions that wait
        if question.id not in awaiting:
            return "does not await adjudication (its two verdicts are not in, or agree)"
        if out:
            return f"is out for adjudication with {', '.join(out)}"
        return None
    if len(first) + len(out) >= 2:
        return f"has its two verifiers already ({len(first)} verdicts in, out with {out or 'none'})"
    return None


def _labels(project: Project, person: Annotator, request: PackageRequest) -> list:
    records = [r for r in project.hoi.records() if r.label is not None]
    wanted = None if request.labels is True else set(request.labels)
    if wanted is not None:
        known = {r.label.id for r in records}
        missing = sorted(wanted - known)
        if missing:
            raise ProjectError(f"{project.path}: no HOI label {missing[0]}")
    chosen = []
    for record in records:
        label = record.label
        if wanted is not None and label.id not in wanted:
            continue
        version = f"r{record.round}"
        refusal = None
        if label.annotator_id == person.id:
            refusal = "no one reviews their own label"
        elif project.packages.handed_to("label", label.id, version, person.id):
            refusal = f"already handed to {person.name}"
        elif not needs_review_by(record, person.id):
            refusal = f"needs no review from {person.name} (reviewed, or two reviews in)"
        else:
            given = [r for r in record.current("review") if r.reviewer_id != person.id]
            out = project.packages.out_with_others("label", label.id, version, person.id)
            if len(given) + len(out) >= 2:
                refusal = f"round {record.round} has its two reviewers (out with {out})"
        if refusal and wanted is not None:
            raise ProjectError(f"{project.path}: label {label.id}: {refusal}")
        if refusal is None:
            chosen.append(record)
    return chosen


def _episodes(project: Project, person: Annotator, request: PackageRequest) -> list:
    if request.episodes is None:
        return []
    if isinstance(request.episodes, list):
        chosen = []
        for episode_id in request.episodes:
            episode = project.episodes.get(episode_id)
            holder = project.packages.item_out("episode", episode_id)
            if project.packages.handed_to("episode", episode_id, "", person.id):
                holder = f"{person.name} already (nothing goes to a person twice)"
            if holder is not None:
                raise ProjectError(f"{project.path}: episode {episode_id} is out with {holder}")
            chosen.append(episode)
        return chosen
    if request.episodes not in ("all", "failed"):
        raise ProjectError(f"--episodes {request.episodes}: give all, failed or ids")
    episodes = [project.episodes.get(i) for i in project.episodes.ids()]
    return [
        e
        for e in episodes
        if (request.episodes == "all" or e.success is False)
        and project.packages.item_out("episode", e.id) is None
        and not project.packages.handed_to("episode", e.id, "", person.id)
    ]


def _frames(project: Project, person: Annotator, request: PackageRequest) -> list:
    if request.sequence is None:
        return []
    sequence = project.sequences.find(request.sequence)
    if sequence is None:
        raise ProjectError(f"{project.path}: no sequence {request.sequence!r}")
    first, last = request.frames or (-1, 1 << 62)
    chosen = []
    for frame in project.sequences.frames(sequence.id):
        if not first <= frame.index <= last:
            continue
        holder = project.packages.item_out("frame", frame.id)
        if holder is None and project.packages.handed_to("frame", frame.id, "", person.id):
            holder = f"{person.name} already (nothing goes to a person twice)"
        if holder is not None:
            if request.frames is not None:
                raise ProjectError(
                    f"{project.path}: frame {frame.index} of {sequence.name} is out with {holder}"
                )
            continue
        chosen.append(frame)
    return chosen


def _add_question(
    project: Project, question: Question, picks: dict[str, set[int]], adjudicate: bool
) -> None:
    picks.setdefault("questions", set()).add(question.id)
    if question.sequence_id is not None:  # the question refers to it, frames found or not
        picks.setdefault("sequences", set()).add(question.sequence_id)
    if question.scene_id is not None:
        picks.setdefault("scenes", set()).add(question.scene_id)
    if question.sequence_id is not None:
        frames = project.sequences.frames(question.sequence_id)
        picks.setdefault("frames", set()).update(f.id for f in question_frames(question, frames))
    if adjudicate:
        # The two first-round verdicts: an adjudicator sees both (the blind rule's end).
        ids = project.verifications.first_round_people(question.id)
        picks.setdefault("annotators", set()).update(ids)
        for record in project.verifications.visible_verdicts(
            question.id, project.annotators.get(ids[0])
        ):
            if record.round == "first":
                picks.setdefault("verifications", set()).add(record.id)


def _frame_files(project: Project, frames: set[int], picks, request) -> list:
    """The frames' sequences, and the panorama and point-cloud files under their root (the
    Human study shows the panorama alone: a rater's or answerer's package carries no clouds)."""
    files: list[tuple[int, str, bytes]] = []
    clouds = request.role not in BLIND_ROLES
    by_sequence: dict[int, list] = {}
    for frame_id in sorted(frames):
        frame = project.sequences.frame(frame_id)
        by_sequence.setdefault(frame.sequence_id, []).append(frame)
    for sequence_id, seq_frames in by_sequence.items():
        picks.setdefault("sequences", set()).add(sequence_id)
        root = Path(project.sequences.get(sequence_id).root)
        for frame in seq_frames:
            for rel in [frame.image_path, *(frame.pointcloud_paths if clouds else [])]:
                if not rel:
                    continue
                path = root / rel
                if path.is_file():
                    files.append((sequence_id, rel, path.read_bytes()))
                else:
                    request.notes.append(f"missing file {path}")
    return files
