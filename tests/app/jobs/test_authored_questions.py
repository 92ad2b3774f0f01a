"""Questions authored on a hand-built scene (MG-VQA-Hard): the generators' criteria
measured on the objects the author names; a failing question names its criterion and
stores nothing; a passing one is pending for two verifiers, tagged."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from store import open_project

SPEC = {
    "format": "reasonscope-scene-spec/1",
    "name": "a matchbox under a book",
    "objects": [
        {"catalog": "red matchbox", "position": [0.0, 0.0]},
        {"catalog": "navy book", "position": [0.0, 0.0]},
        {"catalog": "red cube", "position": [0.12, -0.08]},
        {"catalog": "white tissue box", "position": [-0.1, 0.1], "yaw_deg": 20},
    ],
}


@pytest.fixture(scope="module")
def hard(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hard")
    db, spec = folder / "hard.reasonscope", folder / "spec.json"
    open_project(db, create=True).close()
    spec.write_text(json.dumps(SPEC))
    assert main(["scenes", "create", "--from", str(spec), "--db", str(db)]) == 0
    return str(db)


def _add(capsys, db, *args):
    code = main(["questions", "add", "--scene", "1", "--db", db, "--json", *args])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else out.err)


def test_find_on_a_hidden_target_passes_and_is_pending_and_tagged(hard, capsys):
    code, out = _add(capsys, hard, "--task", "find", "--target", "red matchbox", "--tag", "hard")
    assert code == 0
    with open_project(hard) as project:
        q = project.questions.get(out["question_id"])
    assert q.status == "pending" and q.scene_id == 1 and q.task == "find"
    assert q.answer["answer"] == "yes" and len(q.answer["point"]) == 2
    assert q.criteria["tags"] == ["authored", "hard"] and q.criteria["generator"] == "authored/1"
    assert q.criteria["measured"]["visibility"]["obj_00"] <= 0.10
    assert q.evidence_ids == ["obj_00"]


def test_find_on_a_visible_target_fails_with_its_visibility(hard, capsys):
    with open_project(hard) as project:
        before = len(project.questions.page(limit=100).rows)
    code, err = _add(capsys, hard, "--task", "find", "--target", "red cube")
    assert code == 2 and err.count("\n") == 1
    assert "find question fails max_evidence_visibility: the red cube (obj_02) shows" in err
    assert "at most 10.0%" in err
    with open_project(hard) as project:
        assert len(project.questions.page(limit=100).rows) == before


def test_beneath_count_and_an_absent_find(hard, capsys):
    code, out = _add(
        capsys, hard, "--task", "beneath", "--target", "navy book", "--target", "red matchbox"
    )
    assert code == 0
    with open_project(hard) as project:
        q = project.questions.get(out["question_id"])
        assert q.answer == "red matchbox" and "red matchbox" in q.options
        assert q.criteria["measured"]["reveal"] >= 0.30
    code, err = _add(
        capsys, hard, "--task", "beneath", "--target", "red cube", "--target", "red matchbox"
    )
    assert code == 2 and "fails reveal: making obj_02 transparent reveals" in err
    assert _add(capsys, hard, "--task", "count", "--target", "red matchbox")[0] == 0
    code, out = _add(capsys, hard, "--task", "find", "--target", "lime")
    with open_project(hard) as project:
        assert project.questions.get(out["question_id"]).answer == {"answer": "no", "point": None}


def test_compare_letters_the_boxes_on_a_derived_scene(hard, capsys):
    code, out = _add(
        capsys,
        hard,
        "--task",
        "compare",
        "--target",
        "red matchbox",
        "--target",
        "red cube",
        "--target",
        "white tissue box",
        "--extreme",
        "smallest",
    )
    assert code == 0, out
    with open_project(hard) as project:
        q = project.questions.get(out["question_id"])
        labelled = project.scenes.get(q.scene_id)
    assert q.answer == "A" and q.criteria["measured"]["labels"] == {
        "A": "red matchbox",
        "B": "red cube",
        "C": "white tissue box",
    }
    assert q.criteria["measured"]["label_visibility"]["A"] <= 0.25
    assert q.scene_id != 1 and labelled.state["generation"]["derived_from"] == 1
    textures = {b.key: b.texture for b in labelled.bodies}
    assert textures["obj_00"].endswith("labels/A.png")
    code, err = _add(
        capsys,
        hard,
        "--task",
        "compare",
        "--target",
        "red cube",
        "--target",
        "navy book",
        "--target",
        "white tissue box",
    )
    assert code == 2 and "compare question fails label_occluded: every letter is readable" in err


def test_export_benchmark_by_tag_and_import_elsewhere(hard, capsys, tmp_path):
    code, out = _add(capsys, hard, "--task", "find", "--target", "red matchbox", "--tag", "hard")
    assert code == 0
    tagged, everything = tmp_path / "hard.jsonl", tmp_path / "all.jsonl"
    assert (
        main(
            [
                "export",
                "benchmark",
                "--db",
                hard,
                "--status",
                "any",
                "--tag",
                "hard",
                "--out",
                str(tagged),
            ]
        )
        == 0
    )
    assert (
        main(["export", "benchmark", "--db", hard, "--status", "any", "--out", str(everything)])
        == 0
    )
    capsys.readouterr()
    lines = [json.loads(line) for line in tagged.read_text().splitlines()]
    assert lines and all("hard" in r["criteria"]["tags"] for r in lines)
    assert len(lines) < len(everything.read_text().splitlines())
    # rebuilt independently: another project imports the tagged questions with their scenes
    other = tmp_path / "other.reasonscope"
    open_project(other, create=True).close()
    assert main(["import", "benchmark", str(tagged), "--db", str(other)]) == 0
    with open_project(other) as project:
        rows = project.questions.page(limit=100).rows
    assert len(rows) == len(lines) and all(q.scene_id for q in rows)
    assert {q.criteria["tags"][0] for q in rows} == {"authored"}


def test_results_and_metrics_filtered_by_tag(hard, capsys, qtbot):
    from gestures import open_as_ada

    assert _add(capsys, hard, "--task", "find", "--target", "red matchbox", "--tag", "hard")[0] == 0
    assert (
        main(
            [
                "run-agent",
                "--agent",
                "chance",
                "--mode",
                "direct",
                "--questions",
                "any",
                "--image-size",
                "64",
                "--db",
                hard,
            ]
        )
        == 0
    )
    capsys.readouterr()
    with open_project(hard) as project:
        episodes = project.episodes.list()
        hard_ids = {
            q.id
            for q in project.questions.page(limit=100).rows
            if "hard" in q.criteria.get("tags", [])
        }
    on_hard = sum(e.question_id in hard_ids for e in episodes)
    assert 0 < on_hard < len(episodes)
    assert main(["metrics", "--json", "--tag", "hard", "--db", hard]) == 0
    assert json.loads(capsys.readouterr().out)["episodes"]["n"] == on_hard
    assert main(["metrics", "--json", "--db", hard]) == 0
    assert json.loads(capsys.readouterr().out)["episodes"]["n"] == len(episodes)
    window = open_as_ada(qtbot, hard, "results")
    try:
        view = window.mode("results").episode_results
        assert view.tag_row.isVisibleTo(view)
        assert [view.tag_box.itemData(i) for i in range(view.tag_box.count())] == [
            None,
            "authored",
            "hard",
        ]
        assert window.mode("results").metrics["episodes"]["n"] == len(episodes)
        view.tag_box.setCurrentIndex(view.tag_box.findData("hard"))
        assert window.mode("results").metrics["episodes"]["n"] == on_hard
        assert view.summary.text().startswith(f"{on_hard} episode")
    finally:
        window.close()
