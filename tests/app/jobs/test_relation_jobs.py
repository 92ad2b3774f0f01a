"""Relations of JRDB frames: computed from stored boxes and lidar points, stored per frame."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from annotation.jrdb.geometry import METHOD_BOX_CENTRE
from app.demo.jrdb_synth import SynthConfig, write_sequence
from app.io.jrdb import frame_points, read_jrdb, store_jrdb
from app.jobs.relations import (
    compute_frame_relations,
    compute_sequence_relations,
    compute_sequence_relations_at,
    relations_for_frame,
)
from app.modes.annotate.loading import list_sequences, load_frame
from store import open_project

CONFIG = SynthConfig(frames=2, people=3, objects=3, points_per_sweep=4_000)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """A project file holding one small synthetic sequence (copied per test)."""
    folder = tmp_path_factory.mktemp("relations")
    write_sequence(folder / "jrdb", CONFIG)
    path = folder / "seq.reasonscope"
    with open_project(path, create=True) as project:
        plans, _warnings = read_jrdb(folder / "jrdb")
        store_jrdb(project, plans)
    return path


@pytest.fixture
def project(imported, tmp_path):
    path = tmp_path / "copy.reasonscope"
    shutil.copy(imported, path)
    with open_project(path) as p:
        yield p


def kinds_of(project, sequence_id):
    return {e.id: e.kind for e in project.sequences.entities(sequence_id)}


def test_a_frames_relations_are_computed_and_stored(project):
    (sequence,) = list_sequences(project)
    frame = project.sequences.frames(sequence.id)[0]
    kinds = kinds_of(project, sequence.id)
    persons = [b for b in project.sequences.boxes_3d(frame.id) if kinds[b.entity_id] == "human"]
    assert project.sequences.relations(frame.id) == []
    assert not project.sequences.has_relations(frame.id)
    relations = compute_frame_relations(project, sequence, frame)
    assert project.sequences.has_relations(frame.id)
    stored = project.sequences.relations(frame.id)
    assert len(stored) == len(relations) > 0
    key = lambda r: (r.subject_entity_id, r.reference_entity_id or 0)  # noqa: E731
    assert sorted(stored, key=key) == sorted(relations, key=key)
    to_robot = [r for r in stored if r.to_robot]
    people_to_robot = [r for r in to_robot if kinds[r.subject_entity_id] == "human"]
    assert sorted(r.subject_entity_id for r in people_to_robot) == sorted(
        b.entity_id for b in persons
    )
    # objects are placed relative to the robot too (their points' centroid)
    objects_to_robot = [r for r in to_robot if kinds[r.subject_entity_id] == "object"]
    assert objects_to_robot and all(r.method == "points_centroid" for r in objects_to_robot)
    between = [r for r in stored if kinds.get(r.reference_entity_id) == "human"]
    objects = [r for r in between if kinds[r.subject_entity_id] == "object"]
    assert len([r for r in between if kinds[r.subject_entity_id] == "human"]) == len(persons) * (
        len(persons) - 1
    )
    assert objects and all(r.method.startswith("knn") for r in objects)
    again = compute_frame_relations(project, sequence, frame)  # replaces, never duplicates
    assert len(project.sequences.relations(frame.id)) == len(again) == len(stored)


def test_without_points_only_box_centre_relations_are_made(project):
    (sequence,) = list_sequences(project)
    frame = project.sequences.frames(sequence.id)[0]
    kinds = kinds_of(project, sequence.id)
    boxes = project.sequences.boxes_3d(frame.id)
    bare = relations_for_frame(frame.id, boxes, kinds, None)
    assert bare and all(r.method == METHOD_BOX_CENTRE for r in bare)
    assert all(kinds[r.subject_entity_id] == "human" for r in bare)
    points = frame_points(sequence, frame).points
    full = relations_for_frame(frame.id, boxes, kinds, points)
    assert len(full) > len(bare)


def test_a_sequence_is_computed_once_and_again_on_request(project, tmp_path):
    (sequence,) = list_sequences(project)
    messages: list[str] = []
    from annotation.progress import Progress

    done = compute_sequence_relations(
        project, sequence.id, Progress(lambda _d, _t, m: messages.append(m))
    )
    assert done == CONFIG.frames
    assert all(project.sequences.relations(f.id) for f in project.sequences.frames(sequence.id))
    assert compute_sequence_relations(project, sequence.id) == 0  # nothing missing
    assert compute_sequence_relations(project, sequence.id, missing_only=False) == CONFIG.frames
    assert messages[-1].startswith(f"{CONFIG.frames} frames stored, 0 failed")
    assert compute_sequence_relations_at(project.path, sequence.id, missing_only=False) == 2


def test_loading_a_frame_prepares_its_cloud_and_relations(project):
    (sequence,) = list_sequences(project)
    frame = project.sequences.frames(sequence.id)[1]
    boxes = project.sequences.boxes_3d(frame.id)
    kinds = kinds_of(project, sequence.id)
    loaded = load_frame(sequence, frame, boxes, kinds, compute_relations=True)
    assert loaded.frame_id == frame.id and not loaded.error
    assert len(loaded.cloud) == len(frame_points(sequence, frame))
    assert set(np.unique(loaded.cloud.entities)) - {-1} <= {b.entity_id for b in boxes}
    assert loaded.relations and all(r.frame_id == frame.id for r in loaded.relations)
    assert load_frame(sequence, frame, boxes, kinds, compute_relations=False).relations is None
