"""ST-BiBench's third-view ablation (Table 4) and error breakdown (Figure 3) as
`metrics --table bimanual_views | bimanual_errors`, checked cell by cell against
episodes and labels whose figures are known by construction."""

from __future__ import annotations

import csv
import io

import pytest

from app.cli import main
from store import open_project


def dual(model, task, success, cameras, tier="row16"):
    header = {
        "benchmark": "bimanual",
        "model": model,
        "agent": "openai",
        "task": task,
        "success": success,
        "tier": tier,
        "cameras": cameras,
        "image_size": [640, 480],
        "max_steps": 10,
    }
    steps = [{"kind": "action", "name": f"a{i}", "ok": True} for i in range(3)]
    return header, steps


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "dual.reasonscope"
    head, both = ["head"], ["head", "third"]
    with open_project(path, create=True) as project, project.write():
        ids = {}
        for key, (model, task, success, cameras) in {
            "s1": ("vlm-a", "place_object_scale", True, head),
            "s2": ("vlm-a", "place_object_scale", False, head),
            "s3": ("vlm-a", "place_object_scale", True, both),
            "g1": ("vlm-a", "grab_roller", False, head),
            "g2": ("vlm-a", "grab_roller", True, both),
            "b1": ("vlm-b", "place_burger_fries", True, both),
        }.items():
            ids[key] = project.episodes.add(*dual(model, task, success, cameras)).id
        alice = project.annotators.sign_in("alice")
        for key, step, category, sub in (
            ("s2", 0, "perceptual_reasoning", "state_estimation"),
            ("s2", 1, "strategic_planning", "action_sequencing"),
            ("g1", 0, "perceptual_reasoning", "state_estimation"),
            ("g1", 2, "perceptual_reasoning", "physical_attribute"),
        ):
            project.episodes.add_label(ids[key], step, category, sub, annotator=alice)
    return path


def table(capsys, db, name):
    assert main(["metrics", "--db", str(db), "--table", name]) == 0
    lines = capsys.readouterr().out.splitlines()
    body = [ln for ln in lines if not ln.startswith("# ")]
    notes = [ln[2:] for ln in lines if ln.startswith("# ")]
    return list(csv.DictReader(io.StringIO("\n".join(body)))), notes


def test_the_third_view_ablation(capsys, db):
    rows, notes = table(capsys, db, "bimanual_views")
    by = {r["Models"]: r for r in rows}
    # one row per model, whatever its camera runs are called elsewhere
    assert set(by) == {"vlm-a", "vlm-b"}
    assert (by["vlm-a"]["Place8"], by["vlm-a"]["Grab1"], by["vlm-a"]["Place9"]) == (
        "50 / 100",
        "0 / 100",
        "- / -",
    )
    assert by["vlm-b"]["Place9"] == "- / 100"
    assert any("ST-BiBench Table 4" in n for n in notes)


def test_the_error_breakdown_per_model(capsys, db):
    rows, notes = table(capsys, db, "bimanual_errors")
    (row,) = [r for r in rows if r["Models"].startswith("vlm-a")]
    assert row["Models"].startswith("vlm-a (head camera")  # two camera runs: two rows
    assert row["Labelled"] == "4"
    assert (row["Perceptual"], row["Planning"], row["Format"]) == ("75.0", "25.0", "0.0")
    assert row["state estimation"] == "50.0" and row["physical attribute"] == "25.0"
    assert any("ST-BiBench Figure 3" in n for n in notes)
