"""`reasonscope relations compute`: the relations the Annotate mode computes, headless, on
Ray, resumable."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest

from app.cli import main
from app.demo.jrdb_synth import SynthConfig, write_sequence
from app.io.jrdb import read_jrdb, store_jrdb
from app.jobs.relations import compute_sequence_relations_at
from app.modes.annotate.loading import load_frame
from store import open_project

CONFIG = SynthConfig(frames=3, people=4, objects=3, points_per_sweep=3_000)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """A project holding two small synthetic sequences (copied per test)."""
    folder = tmp_path_factory.mktemp("relations_cli")
    path = folder / "seq.reasonscope"
    with open_project(path, create=True) as project:
        for name in ("cafe", "hall"):
            write_sequence(folder / name, replace(CONFIG, name=f"synthetic-{name}_0"))
            plans, _warnings = read_jrdb(folder / name)
            store_jrdb(project, plans)
    return path


@pytest.fixture
def db(imported, tmp_path):
    path = tmp_path / "copy.reasonscope"
    shutil.copy(imported, path)
    return path


def stored(path) -> dict[tuple[str, int], list]:
    """Every frame's stored relations, by (sequence name, frame index)."""
    with open_project(path) as project:
        return {
            (seq.name, frame.index): project.sequences.relations(frame.id)
            for seq in project.sequences.list()
            for frame in project.sequences.frames(seq.id)
        }


def gui_relations(path) -> dict[tuple[str, int], list]:
    """What the Annotate mode stores: a frame shown the first time (`load_frame` on its
    worker thread, `set_relations` on the GUI thread), and Ctrl+Alt+R for the rest."""
    with open_project(path) as project:
        first, *rest = project.sequences.list()
        kinds = {e.id: e.kind for e in project.sequences.entities(first.id)}
        frame = project.sequences.frames(first.id)[0]
        boxes = project.sequences.boxes_3d(frame.id)
        loaded = load_frame(first, frame, boxes, kinds, compute_relations=True)
        project.sequences.set_relations(frame.id, loaded.relations)
    for seq in (first, *rest):
        compute_sequence_relations_at(path, seq.id)  # what Ctrl+Alt+R runs
    return stored(path)


def test_the_command_stores_what_the_annotate_mode_stores(db, tmp_path, capsys, ray_local):
    gui = tmp_path / "gui.reasonscope"
    shutil.copy(db, gui)
    expected = gui_relations(gui)
    assert all(expected.values()) and len(expected) == 2 * CONFIG.frames
    assert main(["relations", "compute", "--workers", "2", "--db", str(db), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["frames"] == 2 * CONFIG.frames and report["failed"] == []
    assert report["backend"].startswith("ray")
    assert stored(db) == expected


def test_one_sequence_and_resume_after_an_interruption(db, capsys):
    name = "synthetic-hall_0"
    assert main(["relations", "compute", "--sequence", name, "--db", str(db)]) == 0
    assert f"for {CONFIG.frames} frames of {name}" in capsys.readouterr().out
    after = stored(db)
    assert all(after[(name, i)] for i in range(CONFIG.frames))
    assert not any(rels for (seq, _i), rels in after.items() if seq != name)
    with open_project(db) as project:  # as if the run had been killed after frame 0
        seq = project.sequences.find(name)
        for frame in project.sequences.frames(seq.id)[1:]:
            project.sequences.set_relations(frame.id, [])
    args = ["relations", "compute", "--sequence", name, "--missing-only", "--db", str(db)]
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["frames"] == CONFIG.frames - 1
    assert stored(db) == after
    assert main([*args, "--json"]) == 0  # nothing left to do
    assert json.loads(capsys.readouterr().out)["frames"] == 0


def test_an_unknown_sequence_exits_2_with_one_line(db, capsys):
    assert main(["relations", "compute", "--sequence", "nowhere", "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no sequence 'nowhere'" in err
    assert "synthetic-cafe_0" in err
