"""A benchmark as a Hugging Face dataset: loaded by `datasets` itself, compared field by field
with the project, and read back into a fresh project with every question unchanged."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from PIL import Image

from annotation.verification import Verdict
from app.cli import main
from app.io.benchmark import export_benchmark
from app.io.hf_dataset import export_hf_dataset, model_view_png
from sim.tabletop.questions import Candidate, generate
from sim.tabletop.scenes import scene_record
from store import ProjectError, open_project

datasets = pytest.importorskip("datasets")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def load(folder):
    """`datasets.load_dataset(folder)`, with a cache of its own (not the user's, and never
    an earlier run's folder of the same name)."""
    return datasets.load_dataset(str(folder), cache_dir=str(folder) + "-cache")


APPROVE = Verdict(True, True, True, "approve")
REJECT = Verdict(True, False, True, "reject", reason="visible from the start")


def _jrdb_question(project, folder) -> None:
    """A JRDB question about a sequence whose stitched frame is on disk."""
    image = folder / "000012.jpg"
    Image.new("RGB", (64, 16), (40, 90, 160)).save(image)
    with project.write():
        sequence = project.sequences.add("bytes-cafe-2019-02-07_0", str(folder))
        project.sequences.add_frame(sequence.id, 12, image_path=str(image))
        project.questions.add(
            {
                "uid": "jrdb-q1",
                "version": 1,
                "benchmark": "jrdb",
                "task": "vg",
                "text": "Find the person who is sitting on the chair.",
                "options": None,
                "answer": {
                    "entity_ids": ["pedestrian:3"],
                    "image_id": "000012.jpg",
                    "boxes": [[1, 2, 3, 4]],
                },
                "evidence_ids": ["pedestrian:3", "chair:1"],
                "steps": [
                    {
                        "description": "all persons",
                        "entity_ids": ["pedestrian:3"],
                        "slot": 0,
                        "key": "human",
                        "boxes": {"pedestrian:3": [1, 2, 3, 4]},
                    },
                    {
                        "description": "sitting on a chair",
                        "entity_ids": ["pedestrian:3"],
                        "slot": 0,
                        "key": None,
                    },
                ],
                "difficulty": {"S": 2, "R": 1, "T": 1, "D": 4},
                "criteria": {"generator": "jrdb-query-engine/1", "image_ids": ["000012.jpg"]},
                "status": "pending",
                "seed": 7,
                "scene_id": None,
                "sequence_id": sequence.id,
            }
        )


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hf")
    db = folder / "source.reasonscope"
    with open_project(db, create=True) as project:
        ids = []
        for task in ("beneath", "count"):
            for seed in range(0, 40):
                c = generate(task, seed, image_size=256)
                if isinstance(c, Candidate):
                    with project.write():
                        scene_id = project.scenes.add(scene_record(c.scene))
                        ids.append(project.questions.add(c.question_record(scene_id)).id)
                    c.scene.world.close()
                    break
        carol = project.annotators.sign_in("Carol")
        dave = project.annotators.sign_in("Dave")
        project.verifications.submit(ids[0], carol, APPROVE, 5.0)
        project.verifications.submit(ids[0], dave, APPROVE, 6.0)
        project.verifications.submit(ids[1], carol, APPROVE, 5.0)
        project.verifications.submit(ids[1], dave, REJECT, 6.0)
        _jrdb_question(project, folder)
    out = folder / "dataset"
    done = export_hf_dataset(db, out, status="any")
    assert done["questions"] == 3 and done["images"] == 3 and done["shards"] == 1
    return db, out


def _project_records(db) -> dict[str, dict]:
    out = db.parent / f"{db.stem}-lines.jsonl"
    export_benchmark(db, out, status="any")
    return {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}


def test_datasets_loads_the_folder_and_every_field_matches_the_project(exported):
    db, out = exported
    assert sorted(p.name for p in (out / "data").iterdir()) == ["test-00000-of-00001.parquet"]
    loaded = load(out)
    assert list(loaded) == ["test"]
    rows = {row["id"]: row for row in loaded["test"]}
    records = _project_records(db)
    assert rows.keys() == records.keys()
    for uid, r in records.items():
        row = rows[uid]
        for field, key in (
            ("question", "question"),
            ("benchmark", "benchmark"),
            ("task", "task"),
            ("options", "options"),
            ("evidence_ids", "evidence_ids"),
            ("version", "version"),
            ("seed", "seed"),
        ):
            assert row[field] == r[key], (uid, field)
        assert json.loads(row["answer"]) == r["answer"]
        assert row["difficulty"] == (r["difficulty"] or None)
        assert row["status"] == r["verification"]["status"]
        assert json.loads(row["criteria"]) == r["criteria"]
        assert (json.loads(row["scene"]) if row["scene"] else None) == r["scene"]
        assert [s["description"] for s in row["steps"]] == [s["description"] for s in r["steps"]]
        assert [s["entity_ids"] for s in row["steps"]] == [s["entity_ids"] for s in r["steps"]]
        assert all(isinstance(im, Image.Image) for im in row["images"])
    features = loaded["test"].features
    assert isinstance(features["images"].feature, datasets.Image)


def test_the_mgvqa_image_is_the_one_direct_mode_sends(exported):
    db, out = exported
    loaded = load(out)["test"]
    row = next(r for r in loaded if r["benchmark"] == "mgvqa")
    with open_project(db) as project:
        q = next(q for q in project.questions.page(limit=10).rows if q.uid == row["id"])
        scene = project.scenes.get(q.scene_id)
        png = model_view_png([b.as_record() for b in scene.bodies], scene.state)
    image = row["images"][0]
    assert image.size == (1024, 1024)
    with Image.open(__import__("io").BytesIO(png)) as expected:
        assert np.array_equal(np.asarray(image.convert("RGB")), np.asarray(expected))


def test_the_jrdb_image_is_the_named_panorama_frame(exported):
    _, out = exported
    loaded = load(out)["test"]
    row = next(r for r in loaded if r["benchmark"] == "jrdb")
    assert row["image_ids"] == ["000012.jpg"]
    assert row["images"][0].size == (64, 16)
    assert row["steps"][0]["entity_ids"] == ["pedestrian:3"]
    assert json.loads(row["steps"][0]["details"])["boxes"] == {"pedestrian:3": [1, 2, 3, 4]}


def test_agreement_and_the_card(exported):
    _, out = exported
    rows = {r["task"]: r for r in load(out)["test"]}
    assert rows["beneath"]["agreement"] == {
        "verdicts": 2,
        "decisions": ["approve", "approve"],
        "agreed": True,
    }
    assert rows["count"]["agreement"]["agreed"] is False
    assert rows["vg"]["agreement"]["verdicts"] == 0
    card = (out / "README.md").read_text()
    header = card.split("---")[1]
    for key in (
        "configs:",
        "data_files:",
        "dataset_info:",
        "license:",
        "task_categories:",
        "size_categories:",
        "visual-question-answering",
        "n<1K",
    ):
        assert key in header
    assert "| jrdb/vg |" in card and "Cohen's kappa" in card and "ReasonScope" in card
    assert "hidden (0)" in card


def test_import_into_a_fresh_project_keeps_every_question(exported, tmp_path):
    db, out = exported
    copy = tmp_path / "copy.reasonscope"
    open_project(copy, create=True).close()
    assert main(["import", "benchmark", str(out), "--db", str(copy)]) == 0
    original = _project_records(db)
    again = _project_records(copy)
    for record in (*original.values(), *again.values()):
        record.pop("sequence", None)  # the fresh project has no JRDB sequence to name
    assert again == original


def test_the_cli_writes_the_folder_and_refuses_a_full_one(exported, tmp_path, capsys):
    db, out = exported
    target = tmp_path / "cli"
    argv = ["export", "benchmark", "--db", str(db), "--format", "hf", "--out", str(target)]
    assert main([*argv, "--status", "any", "--split", "validation"]) == 0
    assert "3 questions with 3 images" in capsys.readouterr().out
    assert list(load(target)) == ["validation"]
    assert main([*argv, "--status", "any"]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    with pytest.raises(ProjectError, match="split"):
        export_hf_dataset(db, tmp_path / "x", split="a b", status="any")
    assert not (tmp_path / "x").exists()


def test_a_folder_that_is_not_a_dataset_is_refused_in_one_line(tmp_path, capsys):
    db = tmp_path / "p.reasonscope"
    open_project(db, create=True).close()
    (tmp_path / "empty" / "data").mkdir(parents=True)
    assert main(["import", "benchmark", str(tmp_path / "empty"), "--db", str(db)]) == 2
    assert "no data/*.parquet" in capsys.readouterr().err
    (tmp_path / "empty" / "data" / "test-00000-of-00001.parquet").write_text("not parquet")
    assert main(["import", "benchmark", str(tmp_path / "empty"), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Parquet" in err


def test_a_large_benchmark_is_written_in_several_shards(exported, tmp_path, monkeypatch):
    from app.io import hf_dataset

    db, _ = exported
    monkeypatch.setattr(hf_dataset, "SHARD_BYTES", 1)  # a new shard after every row group
    monkeypatch.setattr(hf_dataset, "ROWS_PER_GROUP", 1)
    out = tmp_path / "sharded"
    assert export_hf_dataset(db, out, status="any", split="train")["shards"] == 3
    names = sorted(p.name for p in (out / "data").iterdir())
    assert names == [f"train-0000{i}-of-00003.parquet" for i in range(3)]
    loaded = load(out)["train"]
    assert sorted(loaded["id"]) == sorted(_project_records(db))
    assert "num_examples: 3" in (out / "README.md").read_text()


BLIND_LOADER = """
import json, sys

class NoReasonScope:  # a machine without ReasonScope: none of its packages can be imported
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"app", "sim", "store", "annotation", "widgets"}:
            raise ImportError(f"no {name} here")

sys.meta_path.insert(0, NoReasonScope())
import datasets

rows = datasets.load_dataset(sys.argv[1], cache_dir=sys.argv[2])["test"]
print(json.dumps([[r["id"], r["question"], json.loads(r["answer"]), r["images"][0].size]
                  for r in rows]))
"""


def test_datasets_alone_loads_it_without_reasonscope(exported, tmp_path):
    import subprocess
    import sys

    db, out = exported
    done = subprocess.run(
        [sys.executable, "-c", BLIND_LOADER, str(out), str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "HF_DATASETS_OFFLINE": "1"},
        check=True,
    )
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    records = _project_records(db)
    assert {r[0] for r in rows} == set(records)
    for uid, question, answer, _size in rows:
        assert (question, answer) == (records[uid]["question"], records[uid]["answer"])
