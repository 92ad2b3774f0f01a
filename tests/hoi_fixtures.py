"""A small imported JRDB-layout project for the HOI label tests (store, state, export)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.demo.jrdb_synth import SynthConfig, write_sequence
from app.io.jrdb import import_jrdb
from store import open_project

NAME = "synthetic-cafe_0"
SMALL = SynthConfig(frames=6, people=3, objects=4, points_per_sweep=300)


@dataclass(frozen=True)
class HoiProject:
    db: Path
    sequence_id: int
    frame_ids: list[int]  # in frame order
    persons: dict[str, int]  # "pedestrian:1" -> entity id
    objects: dict[str, int]  # "chair:1" -> entity id


def build_hoi_project(tmp_path: Path, config: SynthConfig = SMALL) -> HoiProject:
    root = tmp_path / "jrdb"
    write_sequence(root, config)
    db = tmp_path / "hoi.reasonscope"
    open_project(db, create=True).close()
    import_jrdb(db, root)
    with open_project(db) as project:
        sequence = project.sequences.find(config.name)
        frames = project.sequences.frames(sequence.id)
        entities = project.sequences.entities(sequence.id)
    return HoiProject(
        db,
        sequence.id,
        [f.id for f in frames],
        {e.key: e.id for e in entities if e.kind == "human"},
        {e.key: e.id for e in entities if e.kind == "object"},
    )


#: Two frames, three people, two objects: the package-rule tests' project.
TWO_FRAMES = SynthConfig(frames=2, people=3, objects=2, points_per_sweep=500)


def labelled_hoi_project(tmp_path: Path) -> HoiProject:
    """A `TWO_FRAMES` project with ana's label on each frame (labels 1 and 2): the first
    person holding the first object, difficulty 2."""
    base = build_hoi_project(tmp_path, TWO_FRAMES)
    with open_project(base.db) as p:
        ana = p.annotators.sign_in("ana")
        person, thing = list(base.persons.values())[0], list(base.objects.values())[0]
        for frame in base.frame_ids:
            p.hoi.add_label(
                frame_id=frame,
                subject_entity_id=person,
                object_entity_id=thing,
                category="physical",
                predicate="holding",
                difficulty=2,
                annotator=ana,
            )
    return base


def copy_of(base: HoiProject, tmp_path: Path) -> HoiProject:
    """A private copy of a built project (building one takes seconds)."""
    import shutil

    db = tmp_path / "copy.reasonscope"
    shutil.copyfile(base.db, db)
    return HoiProject(db, base.sequence_id, base.frame_ids, base.persons, base.objects)
