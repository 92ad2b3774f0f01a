"""A bimanual episode exported as reasonscope-episode/1 and imported into another project keeps
its whole header (tier, pose order, round and episode numbers) and its observation images;
an image whose bytes do not match their sha256, or a step pointing at an image that is
nowhere, refuses the file and stores nothing."""

from __future__ import annotations

import json

import pytest
from bimanual_corpus import make_corpus

from app.cli import main
from store import open_project


def fresh(path):
    open_project(path, create=True).close()
    return path


def everything(db):
    with open_project(db) as project:
        out = []
        for i in project.episodes.ids():
            e = project.episodes.get(i)
            steps = project.episodes.steps(i)
            images = {}
            for s in steps:
                for sha in [s.image_sha256, *(s.result or {}).get("images", {}).values()]:
                    if sha:
                        images[sha] = project.images.get(sha)
            out.append(
                (e.uid, e.header, [(s.kind, s.feedback, s.image_sha256) for s in steps], images)
            )
        return out


@pytest.fixture
def exported(tmp_path, capsys):
    corpus = make_corpus(tmp_path)
    source = fresh(tmp_path / "source.reasonscope")
    assert (
        main(
            [
                "import",
                "episodes",
                str(corpus / "bimanibench"),
                "--format",
                "bimanibench",
                "--db",
                str(source),
            ]
        )
        == 0
    )
    out = tmp_path / "episodes.jsonl"
    assert main(["export", "episodes", "--out", str(out), "--db", str(source)]) == 0
    capsys.readouterr()
    return source, out


def test_export_then_import_keeps_header_and_images(tmp_path, exported, capsys):
    source, out = exported
    target = fresh(tmp_path / "target.reasonscope")
    assert (
        main(["import", "episodes", str(out), "--format", "reasonscope", "--db", str(target)]) == 0
    )
    before, after = everything(source), everything(target)
    assert len(before) == 2 and after == before
    header = after[0][1]
    assert header["tier"] == "high_level" and header["pose_order"] == "xyz_wxyz"
    assert "round" in header and after[0][3], "the episode's images came along"


def _rewrite(path, change):
    records = [json.loads(line) for line in path.read_text().splitlines()]
    change(records)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_tampered_image_refuses_the_file(tmp_path, exported, capsys):
    _, out = exported

    def tamper(records):
        sha = next(iter(records[1]["images"]))
        records[1]["images"][sha]["base64"] = "AAAA"

    _rewrite(out, tamper)
    target = fresh(tmp_path / "target.reasonscope")
    code = main(["import", "episodes", str(out), "--db", str(target)])
    err = capsys.readouterr().err.strip()
    assert code != 0 and f"{out}:2:" in err and "does not match its sha256" in err
    assert everything(target) == []


def test_image_nowhere_refuses_the_file(tmp_path, exported, capsys):
    _, out = exported
    _rewrite(out, lambda records: records[0].pop("images"))
    target = fresh(tmp_path / "target.reasonscope")
    code = main(["import", "episodes", str(out), "--db", str(target)])
    err = capsys.readouterr().err.strip()
    assert code != 0 and "neither in the file's images nor in the project" in err
    assert len(err.splitlines()) == 1 and everything(target) == []
