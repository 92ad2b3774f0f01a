"""`reasonscope spatial generate`, `reasonscope import spatial-predictions`, spatial_metrics and
the bench case."""

from __future__ import annotations

import json
import math

import pytest
from PIL import Image

from app.cli import main
from app.jobs.spatial import spatial_metrics
from app.perf import harness as bench
from app.perf import spatial as bench_spatial
from store import open_project


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "spatial.reasonscope"
    open_project(path, create=True).close()
    return path


@pytest.fixture
def generated(db, tmp_path, capsys):
    out = tmp_path / "items"
    code = main(
        [
            "spatial",
            "generate",
            "--setting",
            "all",
            "--n",
            "2",
            "--seed",
            "7",
            "--out",
            str(out),
            "--image-size",
            "64",
            "--db",
            str(db),
            "--json",
        ]
    )
    assert code == 0
    return out, json.loads(capsys.readouterr().out)


def _write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_generate_writes_items_images_and_stores_them(generated, db):
    out, report = generated
    assert report["items"] == 6 and report["new_in_project"] == 6
    assert report["by_setting"] == {"sparse": 2, "dense": 2, "cluttered": 2}
    lines = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert [r["id"] for r in lines] == [
        f"{s}-7-{i}" for s in ("sparse", "dense", "cluttered") for i in (0, 1)
    ]
    dense = lines[2]
    assert dense["format"] == "reasonscope-spatial/1" and dense["seed"] == 7
    assert len(dense["objects"]) == 5 and all(o["asked"] for o in dense["objects"])
    assert dense["asked"] == [
        "red_block",
        "green_block",
        "blue_block",
        "yellow_block",
        "purple_block",
    ]
    for obj in dense["objects"]:
        x = obj["position"][0]
        assert dense["answers"][obj["name"]] == ("left" if x < 0 else "right")
        assert obj["position"][2] == pytest.approx(0.765)  # a 5 cm block on the 0.74 m top
    cluttered = lines[4]
    assert {o["name"] for o in cluttered["objects"] if not o["asked"]} == {
        "mug",
        "bowl",
        "bread",
        "tray",
        "sponge",
    }
    assert set(cluttered["answers"]) == {"red_block", "green_block", "blue_block"}
    assert "purple_block" in dense["prompt"] and "use_arm" in dense["prompt"]
    assert "mug" not in cluttered["prompt"]
    for r in lines:
        assert r["camera"] == "head" and r["image_size"] == [64, 48]
        with Image.open(out / r["image"]) as image:
            assert image.size == (64, 48) and image.mode == "RGB"
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["items.jsonl", *(r["image"] for r in lines)]
    )  # no staging folder left behind
    with open_project(db) as project:
        stored = {i.id: i for i in project.spatial.items()}
    assert set(stored) == {r["id"] for r in lines}
    assert list(stored["dense-7-0"].objects) == [o["name"] for o in lines[2]["objects"]]


def test_generate_refuses_a_bad_out_with_one_line(db, tmp_path, capsys):
    missing = tmp_path / "no" / "such"
    assert (
        main(
            [
                "spatial",
                "generate",
                "--setting",
                "sparse",
                "--n",
                "1",
                "--seed",
                "0",
                "--out",
                str(missing),
                "--db",
                str(db),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert str(missing) in err and err.count("\n") == 1
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    assert (
        main(
            [
                "spatial",
                "generate",
                "--setting",
                "sparse",
                "--n",
                "1",
                "--seed",
                "0",
                "--out",
                str(a_file),
                "--db",
                str(db),
            ]
        )
        == 2
    )
    assert "is not a folder" in capsys.readouterr().err
    with open_project(db) as project:
        assert project.spatial.items() == []


def test_import_predictions_round_trip(generated, db, tmp_path, capsys):
    out, _ = generated
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    sparse = items[0]
    wrong = {n: "right" if a == "left" else "left" for n, a in sparse["answers"].items()}
    body = ", ".join(f"{{object: {n.upper()}, use_arm: {a.upper()}}}" for n, a in wrong.items())
    preds = _write(
        tmp_path / "preds.jsonl",
        [
            {
                "id": sparse["id"],
                "reply": f"{{visual_state_description: blocks, results: [{body}]}}",
            },
            {"id": items[1]["id"], "reply": "I cannot see any blocks."},
            {
                "id": items[2]["id"],
                "results": [{"object": n, "use_arm": a} for n, a in items[2]["answers"].items()],
            },
        ],
    )
    assert (
        main(
            ["import", "spatial-predictions", str(preds), "--model", "m", "--db", str(db), "--json"]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert (report["imported"], report["unreadable"]) == (3, 1)
    xs = [o["position"][0] for o in sparse["objects"]]
    by_hand = sum(100 * math.exp(-x * x / (2 * 0.1**2)) for x in xs) / len(xs)
    assert report["results"]["sparse"]["score"] == pytest.approx(by_hand / 2)  # 2nd item: 0
    assert report["results"]["dense"] == {"score": 100.0, "items": 1}
    with open_project(db) as project:
        summary = spatial_metrics(project)
    # sparse and dense only: no Avg. over the three settings
    assert summary["by_model"]["m"]["average"] is None
    assert summary["by_model"]["m"]["missing"] == ["cluttered"]
    assert (
        main(
            [
                "import",
                "spatial-predictions",
                str(preds),
                "--model",
                "m",
                "--db",
                str(db),
                "--sigma",
                "0.2",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "replacing 3 earlier" in text and "1 unreadable" in text and "sigma 0.2 m" in text
    assert main(["info", "--db", str(db), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["spatial_items"], info["spatial_predictions"]) == (6, 3)
    assert main(["metrics", "--json", "--db", str(db)]) == 0
    spatial = json.loads(capsys.readouterr().out)["bimanual"]["spatial"]
    assert spatial["sigma"] == 0.2 and spatial["by_model"]["m"]["dense"]["items"] == 1
    assert main(["metrics", "--db", str(db)]) == 0
    assert "spatial grounding m: sparse " in capsys.readouterr().out


def test_results_mode_shows_the_spatial_scores(qtbot, generated, db, tmp_path):
    from gestures import open_as_ada

    out, _ = generated
    item = json.loads((out / "items.jsonl").read_text().splitlines()[0])
    preds = _write(
        tmp_path / "preds.jsonl",
        [
            {
                "id": item["id"],
                "results": [{"object": n, "use_arm": a} for n, a in item["answers"].items()],
            }
        ],
    )
    assert main(["import", "spatial-predictions", str(preds), "--model", "m", "--db", str(db)]) == 0
    window = open_as_ada(qtbot, db, "results", copy_to=tmp_path)
    try:
        results = window.mode("results")
        assert results.tabs.currentWidget() is results.bimanual_results  # its only data
        model = results.spatial_results.table.model()
        assert model.rowCount() == 1
        assert model.index(0, 1).data() == "100.0"
    finally:
        window.close()


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "not JSON"),
        ('{"reply": "x"}', "'id' must be"),
        ('{"id": "sparse-99-0", "reply": "x"}', "no spatial grounding item"),
    ],
)
def test_a_malformed_line_rejects_the_whole_file(generated, db, tmp_path, capsys, line, problem):
    good = json.dumps({"id": "sparse-7-0", "reply": "{results: []}"})
    preds = _write(tmp_path / "bad.jsonl", [good, good.replace("sparse-7-0", "dense-7-0"), line])
    assert main(["import", "spatial-predictions", str(preds), "--model", "m", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert f"{preds}:3: {problem}" in err and err.count("\n") == 1
    with open_project(db) as project:
        assert project.spatial.counts()["predictions"] == 0


def test_bench_case_runs_small(monkeypatch, tmp_path):
    monkeypatch.setenv(bench.PERF_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(bench_spatial, "RENDER_ITEMS", {True: 1, False: 1})
    monkeypatch.setattr(bench_spatial, "SCORE_ITEMS", {True: 20, False: 20})
    monkeypatch.setattr(bench_spatial, "RENDER_WIDTH", 64)
    [result] = bench.run_cases(["spatial_grounding"], True)
    assert result.unit == "x" and result.value > 0
    assert "items/s" in result.detail and "predictions/s" in result.detail
