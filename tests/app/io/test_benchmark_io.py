"""Benchmark export and import: a round trip, refusals, and an independent plain-PyBullet check."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pybullet as p
import pytest

from app.io.benchmark import export_benchmark, import_benchmark
from sim.tabletop.questions import Candidate, generate
from sim.tabletop.scenes import scene_record
from store import ProjectError, open_project

ROOT = Path(__file__).resolve().parents[3]


def load_rebuild_script():
    spec = importlib.util.spec_from_file_location(
        "rebuild_scene", ROOT / "scripts" / "rebuild_scene.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bench")
    db = folder / "source.reasonscope"
    with open_project(db, create=True) as project:
        for task in ("beneath", "find"):
            for seed in range(0, 40, 2):
                c = generate(task, seed, image_size=1024)
                if isinstance(c, Candidate):
                    with project.write():
                        scene_id = project.scenes.add(scene_record(c.scene))
                        project.questions.add(c.question_record(scene_id))
                    c.scene.world.close()
                    break
    out = folder / "bench.jsonl"
    assert export_benchmark(db, out, status="any") == 2
    return db, out


def test_round_trip_gives_the_same_questions_and_scenes(exported, tmp_path):
    _, out = exported
    copy = tmp_path / "copy.reasonscope"
    open_project(copy, create=True).close()
    assert import_benchmark(copy, out) == 2
    again = tmp_path / "again.jsonl"
    export_benchmark(copy, again, status="any")
    assert [json.loads(x) for x in out.read_text().splitlines()] == [
        json.loads(x) for x in again.read_text().splitlines()
    ]


def test_a_bad_line_names_itself_and_imports_nothing(exported, tmp_path):
    _, out = exported
    lines = out.read_text().splitlines()
    broken = json.loads(lines[1])
    broken["evidence_ids"] = ["no_such_body"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n" + json.dumps(broken) + "\n")
    target = tmp_path / "t.reasonscope"
    open_project(target, create=True).close()
    with pytest.raises(ProjectError, match=r"bad\.jsonl:2: evidence id 'no_such_body'"):
        import_benchmark(target, bad)
    with open_project(target) as project:
        assert project.summary.summary().scenes == 0
        assert sum(project.questions.counts_by_status().values()) == 0
    (tmp_path / "notjson.jsonl").write_text("{oops\n")
    with pytest.raises(ProjectError, match="notjson.jsonl:1: not JSON"):
        import_benchmark(target, tmp_path / "notjson.jsonl")


def test_plain_pybullet_rebuild_gives_the_same_evidence_visibility(exported):
    """An independent check: no ReasonScope code, only the exported line and PyBullet."""
    rebuild = load_rebuild_script()
    _, out = exported
    record = next(
        json.loads(x) for x in out.read_text().splitlines() if json.loads(x)["task"] == "beneath"
    )
    scene = record["scene"]
    client = p.connect(p.DIRECT)
    try:
        uids = rebuild.build(scene, client)
        _, seg = rebuild.render(scene, client)
        hidden_id = record["evidence_ids"][1]
        uid = uids[hidden_id]
        for other, other_uid in uids.items():  # alone: everything else transparent
            if other != hidden_id:
                for row in p.getVisualShapeData(other_uid, physicsClientId=client):
                    p.changeVisualShape(
                        other_uid, row[1], rgbaColor=(1, 1, 1, 0), physicsClientId=client
                    )
        _, alone = rebuild.render(scene, client)
        fraction = np.count_nonzero(seg == uid) / np.count_nonzero(alone == uid)
        recorded = record["criteria"]["measured"]["visibility"][hidden_id]
        assert fraction == pytest.approx(recorded, abs=0.02)
        assert fraction <= record["criteria"]["max_evidence_visibility"] + 0.02
    finally:
        p.disconnect(client)


def test_a_binary_file_is_refused_in_one_line(tmp_path):
    target = tmp_path / "t.reasonscope"
    open_project(target, create=True).close()
    binary = tmp_path / "photo.jpg"
    binary.write_bytes(b"\xff\xd8\xff\xe0" + bytes(range(256)))
    with pytest.raises(ProjectError, match=r"photo\.jpg:1: not UTF-8 text"):
        import_benchmark(target, binary)
