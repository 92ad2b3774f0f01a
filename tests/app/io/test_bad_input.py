"""Boxes of the wrong kind are refused on import, in one line naming FILE:LINE, and nothing
is stored: a benchmark answer's `boxes` given as a string, a prediction's `box` as a string."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from app.io.benchmark import export_benchmark
from store import open_project

BOX = [10, 10, 20, 40]
VG = {
    "uid": "vg-1",
    "benchmark": "jrdb",
    "task": "vg",
    "text": "Find the woman.",
    "answer": {"entity_ids": ["pedestrian:3"], "image_id": "0.jpg", "boxes": [BOX]},
    "evidence_ids": ["pedestrian:3"],
    "steps": [
        {
            "description": "all persons",
            "entity_ids": ["pedestrian:3"],
            "slot": 0,
            "boxes": {"pedestrian:3": BOX},
        }
    ],
    "difficulty": {"S": 1, "R": 0, "T": 1},
}


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "source.reasonscope"
    with open_project(path, create=True) as p:
        p.questions.add_many([VG])
    return path


def _info(db, capsys) -> dict:
    assert main(["info", "--db", str(db), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    out.pop("path")
    return out


@pytest.mark.parametrize(
    ("break_line", "needle"),
    [
        (lambda r: r["answer"].update(boxes="[10, 10, 20, 40]"), "answer.boxes must be a list"),
        (lambda r: r["answer"].update(boxes=["left"]), "answer.boxes holds a string"),
        (lambda r: r["answer"].update(boxes=[[1, 2, 3]]), "answer.boxes: box is not [x, y, w, h]"),
        (lambda r: r["steps"][0].update(boxes={"pedestrian:3": "here"}), "steps[0].boxes holds"),
    ],
)
def test_a_benchmark_box_of_the_wrong_kind_is_refused(
    project, tmp_path, capsys, break_line, needle
):
    good = tmp_path / "good.jsonl"
    assert export_benchmark(project, good, status="any") == 1
    record = json.loads(good.read_text())
    break_line(record)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(good.read_text() + json.dumps(record) + "\n")  # line 2 is the broken one
    target = tmp_path / "target.reasonscope"
    open_project(target, create=True).close()
    before = _info(target, capsys)
    assert main(["import", "benchmark", str(bad), "--db", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{bad}:2" in err[0] and needle in err[0], err
    assert _info(target, capsys) == before  # the good first line was not stored either


@pytest.mark.parametrize(
    ("box", "needle"),
    [
        ("[0, 0, 1, 1]", "'box' must be [x, y, w, h], four numbers, not a string"),
        ("the woman", "'box' must be [x, y, w, h], four numbers, not a string"),
        ([1, 2, 3], "'box': box is not [x, y, w, h]"),
        ([1, 2, "w", 4], "'box': box has a non-number"),
    ],
)
def test_a_prediction_box_of_the_wrong_kind_is_refused(project, tmp_path, capsys, box, needle):
    path = tmp_path / "predictions.jsonl"
    path.write_text(
        json.dumps({"question_id": "vg-1", "box": BOX})
        + "\n"
        + json.dumps({"question_id": "vg-1", "model": "other", "box": box})
        + "\n"
    )
    before = _info(project, capsys)
    assert main(["import", "predictions", str(path), "--model", "m", "--db", str(project)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{path}:2" in err[0] and needle in err[0], err
    assert _info(project, capsys) == before
    with open_project(project) as p:
        assert p.reasoning.predictions() == []


def test_a_good_prediction_box_is_still_scored(project, tmp_path, capsys):
    path = tmp_path / "predictions.jsonl"
    path.write_text(json.dumps({"question_id": "vg-1", "box": BOX}) + "\n")
    assert main(["import", "predictions", str(path), "--model", "m", "--db", str(project)]) == 0
    with open_project(project) as p:
        (prediction,) = p.reasoning.predictions()
    assert prediction.correct


def test_a_prediction_with_one_box_per_target_is_still_read(project, tmp_path, capsys):
    """A question with several targets takes a list of boxes in `box`, one per target."""
    path = tmp_path / "predictions.jsonl"
    path.write_text(json.dumps({"question_id": "vg-1", "box": [BOX, [200, 10, 20, 40]]}) + "\n")
    assert main(["import", "predictions", str(path), "--model", "m", "--db", str(project)]) == 0
    with open_project(project) as p:
        (prediction,) = p.reasoning.predictions()
    assert not prediction.correct  # one gold box, two predicted: scored, not refused
