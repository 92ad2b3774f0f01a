"""Geometric relations of JRDB frames: computed from a frame's 3D boxes and lidar points, stored
per frame through `project.sequences.set_relations`.

`relations_for_frame` is the computation alone (plain data in, relations
out: safe on a worker thread); `compute_frame_relations` and
`compute_sequence_relations` read what they need from a project and store
the result. The Annotate HOI mode computes a frame's relations the first time
the frame is shown; the "all frames" action (Ctrl+Alt+R), scripts and
`reasonscope relations compute` run `compute_relations_batch`: one item a frame
(`FrameWork`, plain data), worked by `frame_work` in this process or on Ray and
stored here as each comes back. Definitions of the relations: docs/relations.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from annotation.jrdb.geometry import GeometricRelation, points_in_box
from annotation.models import Box3D, Frame, Sequence
from annotation.progress import Progress
from app.io.jrdb import frame_points
from app.jobs.batch import BatchReport, run_batch
from sim.jrdb.relations import DEFAULT_K, frame_relations
from store import Project, ProjectError, open_project


def relations_for_frame(
    frame_id: int,
    boxes_3d: Iterable[Box3D],
    kinds: Mapping[int, str],
    points: np.ndarray | None,
    k: int = DEFAULT_K,
) -> list[GeometricRelation]:
    """Every relation of one frame from its 3D boxes and merged lidar points (N x 3, or None).

    `kinds` maps entity ids to "human" or "object". Persons are boxes of human
    entities; an object's points are the lidar points inside its box (objects
    with none are left out, as `sim.jrdb.relations.frame_relations` does).
    Without points only the box-centre relations (person-robot, person-person)
    are computed.
    """
    boxes = list(boxes_3d)
    persons = [b for b in boxes if kinds.get(b.entity_id) == "human"]
    cloud = None
    objects: dict[int, np.ndarray] = {}
    if points is not None and len(points):
        cloud = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        for box in boxes:
            if kinds.get(box.entity_id) == "object":
                inside = cloud[points_in_box(cloud, box)]
                if len(inside):
                    objects[box.entity_id] = inside
    return frame_relations(frame_id, persons, objects, cloud=cloud, k=k)


def entity_kinds(project: Project, sequence_id: int) -> dict[int, str]:
    return {e.id: e.kind for e in project.sequences.entities(sequence_id)}


def compute_frame_relations(
    project: Project,
    sequence: Sequence,
    frame: Frame,
    points: np.ndarray | None = None,
    kinds: Mapping[int, str] | None = None,
) -> list[GeometricRelation]:
    """Compute one frame's relations and store them (replacing what it had); return them.

    The frame's lidar points are read from its files unless `points` is given.
    """
    kinds = kinds if kinds is not None else entity_kinds(project, sequence.id)
    if points is None and frame.pointcloud_paths:
        points = frame_points(sequence, frame).points
    relations = relations_for_frame(frame.id, project.sequences.boxes_3d(frame.id), kinds, points)
    project.sequences.set_relations(frame.id, relations)
    return relations


@dataclass(frozen=True)
class FrameWork:
    """One frame's relations to compute: everything the work needs, as plain data."""

    sequence: Sequence
    frame: Frame
    boxes_3d: tuple[Box3D, ...]
    kinds: Mapping[int, str]

    def __str__(self) -> str:
        return f"{self.sequence.name} frame #{self.frame.index:06d}"


def frame_work(item: FrameWork) -> list[GeometricRelation]:
    """The relations of one frame, its lidar points read from its files (on any worker)."""
    points = None
    if item.frame.pointcloud_paths:
        points = frame_points(item.sequence, item.frame).points
    return relations_for_frame(item.frame.id, item.boxes_3d, item.kinds, points)


def relation_work(
    project: Project, sequence_ids: Iterable[int], *, missing_only: bool
) -> list[FrameWork]:
    """The frames of the sequences to compute, in order (`missing_only`: those without
    stored relations)."""
    items = []
    for sequence_id in sequence_ids:
        sequence = project.sequences.get(sequence_id)
        kinds = entity_kinds(project, sequence_id)
        for frame in project.sequences.frames(sequence_id):
            if missing_only and project.sequences.relations(frame.id):
                continue
            boxes = tuple(project.sequences.boxes_3d(frame.id))
            items.append(FrameWork(sequence, frame, boxes, kinds))
    return items


def compute_relations_batch(
    project: Project,
    sequence_ids: Iterable[int],
    progress: Progress | None = None,
    *,
    missing_only: bool = True,
    workers: int = 1,
    ray_address: str | None = None,
) -> BatchReport:
    """Compute and store the relations of the sequences' frames, one frame an item, on Ray
    when `workers` > 1 or `ray_address` (app.jobs.batch). Each frame is stored as it comes
    back, so an interrupted run keeps whole frames and `missing_only` finishes it."""
    items = relation_work(project, sequence_ids, missing_only=missing_only)
    return run_batch(
        items,
        frame_work,
        lambda item, relations: project.sequences.set_relations(item.frame.id, relations),
        workers=workers,
        ray_address=ray_address,
        progress=progress,
        noun="frame",
    )


def compute_sequence_relations(
    project: Project,
    sequence_id: int,
    progress: Progress | None = None,
    *,
    missing_only: bool = True,
) -> int:
    """Compute and store the relations of a sequence's frames; returns how many frames were done.

    With `missing_only`, frames that have relations already are skipped.
    Cancelling through `progress` stops between frames; finished frames stay
    stored. Frames that cannot be computed (a missing lidar file) raise
    ProjectError after the others are stored.
    """
    report = compute_relations_batch(project, [sequence_id], progress, missing_only=missing_only)
    if report.failed:
        item, why = report.failed[0]
        raise ProjectError(f"{item}: {why} ({len(report.failed)} frames not computed)")
    return report.stored


def compute_sequence_relations_at(
    path: str | os.PathLike[str],
    sequence_id: int,
    progress: Progress | None = None,
    *,
    missing_only: bool = True,
) -> int:
    """`compute_sequence_relations` on its own connection (for a worker thread)."""
    with open_project(path) as project:
        return compute_sequence_relations(project, sequence_id, progress, missing_only=missing_only)
