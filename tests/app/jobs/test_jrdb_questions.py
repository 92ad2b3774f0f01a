"""JRDB-Reasoning questions from the CLI: generated on an imported sequence, stored,
re-checked independently from the labels, and exported in both formats."""

from __future__ import annotations

import json
import shutil

import pytest

from annotation.query.keys import step_keys
from app.cli import main
from app.jobs.scene_graphs import graph_for_window
from store import open_project
from tests.annotation.query.query_graphs import brute_force
from tests.hoi_fixtures import build_hoi_project


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("jrdbq"))


@pytest.fixture
def project(base, tmp_path):
    db = tmp_path / "q.reasonscope"
    shutil.copy(base.db, db)
    return base, db


def _jrdb_questions(db):
    with open_project(db) as p:
        rows = p.questions.page(limit=500).rows
        return [q for q in rows if q.benchmark == "jrdb"], p


def test_generate_stores_records_whose_answers_follow_from_the_labels(project, capsys):
    base, db = project
    for spatial in ("single", "pair", "clique"):
        args = [
            "questions",
            "generate",
            "--benchmark",
            "jrdb",
            "--task",
            "vg",
            "--subject",
            "human",
            "--spatial",
            spatial,
            "--n",
            "3",
            "--seed",
            "1",
            "--db",
            str(db),
        ]
        assert main(args) == 0
    assert "3 vg questions stored" in capsys.readouterr().out
    with open_project(db) as p:
        questions = [q for q in p.questions.page(limit=500).rows if q.benchmark == "jrdb"]
        assert len(questions) == 9
        for q in questions:
            frame_ids = q.criteria["frame_ids"]
            graph = graph_for_window(p, base.sequence_id, frame_ids)
            # the answer, recomputed from the stored labels and relations
            assert brute_force(graph, q.criteria["pattern"]) == set(q.answer["entity_ids"])
            assert len(q.answer["entity_ids"]) == 1
            target = graph.entities[q.answer["entity_ids"][0]].attributes["entity_id"]
            box = next(b for b in p.sequences.boxes_2d(frame_ids[0]) if b.entity_id == target)
            assert q.answer["boxes"] == [[round(v, 2) for v in (box.x, box.y, box.w, box.h)]]
            d = q.difficulty
            assert (d.S, d.T) == (
                {"single": 1, "pair": 2, "clique": 3}[q.criteria["preferences"]["spatial"]],
                1,
            )
            assert d.D == d.S + d.R + d.T
            assert q.sequence_id == base.sequence_id and q.status == "pending"
            assert q.steps[-1]["entity_ids"] == q.answer["entity_ids"]


def test_counts_and_video_windows(project):
    _, db = project
    assert (
        main(
            [
                "questions",
                "generate",
                "--benchmark",
                "jrdb",
                "--task",
                "vqa-count",
                "--modality",
                "video",
                "--temporal",
                "pair",
                "--spatial",
                "pair",
                "--window",
                "3",
                "--n",
                "2",
                "--seed",
                "4",
                "--db",
                str(db),
            ]
        )
        == 0
    )
    with open_project(db) as p:
        qs = [q for q in p.questions.page(limit=500).rows if q.benchmark == "jrdb"]
        for q in qs:
            assert len(q.criteria["frame_ids"]) == 3
            assert q.difficulty.T == 2
            graph = graph_for_window(p, q.sequence_id, q.criteria["frame_ids"])
            assert q.answer == len(brute_force(graph, q.criteria["pattern"]))


def test_bad_requests_fail_with_one_line(project, capsys):
    _, db = project
    assert (
        main(
            [
                "questions",
                "generate",
                "--benchmark",
                "jrdb",
                "--task",
                "count",
                "--n",
                "1",
                "--seed",
                "0",
                "--db",
                str(db),
            ]
        )
        != 0
    )
    assert "mgvqa task" in capsys.readouterr().err
    assert (
        main(
            [
                "questions",
                "generate",
                "--benchmark",
                "jrdb",
                "--task",
                "vg",
                "--subject",
                "both",
                "--n",
                "1",
                "--seed",
                "0",
                "--db",
                str(db),
            ]
        )
        != 0
    )
    assert "needs two entities" in capsys.readouterr().err
    assert (
        main(
            [
                "questions",
                "generate",
                "--benchmark",
                "jrdb",
                "--task",
                "vg",
                "--sequence",
                "nope",
                "--n",
                "1",
                "--seed",
                "0",
                "--db",
                str(db),
            ]
        )
        != 0
    )
    assert "no sequence 'nope'" in capsys.readouterr().err
    with open_project(db) as p:
        assert not [q for q in p.questions.page(limit=500).rows if q.benchmark == "jrdb"]


def test_export_jrdb_reasoning_vg_structure(project, tmp_path):
    base, db = project
    assert (
        main(
            [
                "questions",
                "generate",
                "--benchmark",
                "jrdb",
                "--task",
                "vg",
                "--subject",
                "both",
                "--spatial",
                "pair",
                "--n",
                "2",
                "--seed",
                "2",
                "--db",
                str(db),
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "questions",
                "generate",
                "--benchmark",
                "jrdb",
                "--task",
                "vqa-wh",
                "--n",
                "1",
                "--seed",
                "2",
                "--db",
                str(db),
            ]
        )
        == 0
    )
    out = tmp_path / "vg.json"
    assert (
        main(
            [
                "export",
                "benchmark",
                "--format",
                "jrdb-reasoning-vg",
                "--status",
                "any",
                "--out",
                str(out),
                "--db",
                str(db),
            ]
        )
        == 0
    )
    data = json.loads(out.read_text())
    assert isinstance(data, list) and len(data) == 2  # the Wh question is not a VG one
    with open_project(db) as p:
        by_uid = {q.uid: q for q in p.questions.page(limit=500).rows}
        name = p.sequences.get(base.sequence_id).name
    for element in data:
        q = by_uid[element["id"]]
        assert element["data"] == {
            "seq": f"{name}.json",
            "modality_type": "image",
            "specs": {"fps": 15},
        }
        assert element["question"]["question"] == q.text
        subs = element["question"]["sub_questions"]
        keys = step_keys(q.criteria["pattern"], q.steps)
        assert list(subs) == [k for k in keys if k is not None]
        assert "human" in subs and "sub_q1" not in subs
        slot = element["labels"]["slot1"]
        assert slot["image_ids"] == q.criteria["image_ids"]
        assert slot["final_bbox"] == q.answer["boxes"]
        assert slot["final_ID"] == q.answer["entity_ids"]
        for box in slot["final_bbox"]:
            assert isinstance(box, list) and len(box) == 4
        for key, step in zip(keys, q.steps, strict=True):
            if key is None:
                continue
            assert slot[key]["target_bbox"] == [step["boxes"][i] for i in step["entity_ids"]]
            assert slot[key]["target_ID"] == step["entity_ids"]
        assert element["difficulty"]["D"] == q.difficulty.D


def test_reasonscope_benchmark_round_trip_keeps_the_sequence(project, tmp_path):
    base, db = project
    assert (
        main(
            [
                "questions",
                "generate",
                "--benchmark",
                "jrdb",
                "--task",
                "vqa-count",
                "--n",
                "2",
                "--seed",
                "5",
                "--db",
                str(db),
            ]
        )
        == 0
    )
    out = tmp_path / "all.jsonl"
    assert main(["export", "benchmark", "--status", "any", "--out", str(out), "--db", str(db)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    jrdb = [r for r in lines if r["benchmark"] == "jrdb"]
    assert len(jrdb) == 2 and all(r["scene"] is None for r in jrdb)
    fresh = tmp_path / "fresh.reasonscope"
    shutil.copy(base.db, fresh)
    assert main(["import", "benchmark", str(out), "--db", str(fresh)]) == 0
    with open_project(fresh) as p:
        imported = [q for q in p.questions.page(limit=500).rows if q.benchmark == "jrdb"]
        assert {q.sequence_id for q in imported} == {base.sequence_id}
        assert sorted(q.answer for q in imported) == sorted(r["answer"] for r in jrdb)


def test_metrics_and_info_report_reasoning_results(project, tmp_path, capsys):
    _, db = project
    assert (
        main(
            [
                "questions",
                "generate",
                "--benchmark",
                "jrdb",
                "--task",
                "vg",
                "--spatial",
                "pair",
                "--n",
                "2",
                "--seed",
                "3",
                "--db",
                str(db),
            ]
        )
        == 0
    )
    with open_project(db) as p:
        qs = [q for q in p.questions.page(limit=500).rows if q.benchmark == "jrdb"]
    lines = [json.dumps({"question_id": q.uid, "box": q.answer["boxes"][0]}) for q in qs]
    lines[1] = json.dumps({"question_id": qs[1].uid, "box": [0, 0, 5, 5]})  # a miss
    preds = tmp_path / "preds.jsonl"
    preds.write_text("\n".join(lines) + "\n")
    assert main(["import", "predictions", str(preds), "--model", "m1", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["metrics", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "reasoning: 1 model(s)" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("m1"))
    assert "50.0 % (2)" in row  # both are pair questions: D2
    assert main(["info", "--db", str(db)]) == 0
    assert "reasoning predictions  2" in capsys.readouterr().out


def test_verifier_agreement_is_split_by_benchmark(project):
    from annotation.verification import Verdict
    from app.jobs.metrics import project_metrics

    _, db = project
    assert (
        main(
            [
                "questions",
                "generate",
                "--benchmark",
                "jrdb",
                "--task",
                "vqa-count",
                "--n",
                "2",
                "--seed",
                "6",
                "--db",
                str(db),
            ]
        )
        == 0
    )
    approve = Verdict(True, True, True, "approve")
    reject = Verdict(True, False, False, "reject", reason="a label is wrong")
    with open_project(db) as p:
        ann, ben = p.annotators.sign_in("Ann"), p.annotators.sign_in("Ben")
        qs = [q for q in p.questions.page(limit=500).rows if q.benchmark == "jrdb"]
        for q, second in zip(qs, (approve, reject), strict=True):
            p.verifications.submit(q.id, ann, approve, seconds_on_task=3)
            p.verifications.submit(q.id, ben, second, seconds_on_task=4)
    v = project_metrics(db)["verification"]
    assert v["by_benchmark"]["jrdb"]["n"] == 2
    assert v["by_benchmark"]["jrdb"]["decision"]["disagreements"] == 1
    assert v["n"] == 2  # the pooled figure counts the same pairs here


def test_export_to_a_bad_path_names_it_and_writes_nothing(project, tmp_path, capsys):
    _, db = project
    out = tmp_path / "missing" / "vg.json"
    assert (
        main(
            [
                "export",
                "benchmark",
                "--format",
                "jrdb-reasoning-vg",
                "--status",
                "any",
                "--out",
                str(out),
                "--db",
                str(db),
            ]
        )
        == 2
    )
    assert f"{out}: not a writable file path" in capsys.readouterr().err
    assert not out.parent.exists()


def _generate(db, *extra):
    args = ["questions", "generate", "--benchmark", "jrdb", "--n", "3", "--seed", "2"]
    return main([*args, *extra, "--db", str(db)])


def test_required_keys_use_jrdb_social_labels_and_objects_relative_to_the_robot(project, capsys):
    """`--require` keeps the combinations using those keys: the synthetic sequence's
    H-interaction pairs (hhi) and race labels, as imported, and objects placed relative to
    the robot (SR_Robot_Ref) all make questions whose answers follow from the labels."""
    base, db = project
    runs = [
        ("hhi", ["--task", "vg", "--subject", "human", "--spatial", "pair"]),
        ("race", ["--task", "vqa-count", "--subject", "human", "--spatial", "single"]),
        ("race,hhi", ["--task", "vg", "--subject", "human", "--spatial", "clique"]),
        ("SR_Robot_Ref", ["--task", "vg", "--subject", "object", "--spatial", "pair"]),
    ]
    for keys, extra in runs:
        assert _generate(db, "--require", keys, *extra) == 0, capsys.readouterr().err
    rows, _ = _jrdb_questions(db)
    with open_project(db) as p:
        for q in rows:
            required = q.criteria["preferences"]["require"]
            used = {k for s in q.steps if s["key"] for k in s["key"].split(": ")[-1].split(", ")}
            assert set(required) <= used, (q.text, required, used)
            frames = q.criteria["frame_ids"]
            graph = graph_for_window(p, q.sequence_id, frames)
            expected = brute_force(graph, q.criteria["pattern"])
            if q.task == "vg":
                assert expected == set(q.answer["entity_ids"])
            else:
                assert q.answer == len(expected)
    texts = {tuple(q.criteria["preferences"]["require"]): q.text for q in rows}
    assert len(texts) == len(runs)
    assert any(w in texts[("race",)] for w in ("white", "Asian", "Black")), texts
    assert "walking together with" in texts[("hhi",)] or "chatting with" in texts[("hhi",)]
    assert "the robot" in texts[("SR_Robot_Ref",)]
    objects = [q for q in rows if q.criteria["preferences"]["subject"] == "object"]
    assert all(
        [n["kind"] for n in q.criteria["pattern"]["nodes"]] == ["object", "robot"] for q in objects
    )


def test_required_keys_the_sequence_lacks_are_named_in_one_line(project, capsys):
    base, db = project
    assert _generate(db, "--task", "vg", "--require", "colour,race") == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "synthetic-cafe_0" in err and "colour, race" in err and "has colour" in err
    assert _generate(db, "--task", "vg", "--require", "race,colours") == 2
    assert "unknown key 'colours'" in capsys.readouterr().err
    args = ["questions", "generate", "--task", "count", "--n", "1", "--seed", "0"]
    assert main([*args, "--require", "race", "--db", str(db)]) == 2
    assert "--require is for --benchmark jrdb" in capsys.readouterr().err
