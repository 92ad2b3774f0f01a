"""What annotators change in a JRDB sequence leaves the project: moved, added and removed
boxes, made headless with `reasonscope annotate`, reach the exported activity file (read
by the JRDB toolkit's own GT conversion, `construct_GT`) and the exported 2D/3D/object
label files (read back by our importer).

The fixture is tests/data/jrdb/ (its README names the real code it follows)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jrdb_activity_fixture import (
    DATA,
    FIXTURE,
    MOVED_BOX,
    NAME,
    implied_gt,
    imported_fixture,
    toolkit,
)

from annotation.jrdb import dataset as L
from app.cli import main
from app.io.hoi_labels import OURS
from store import open_project

LABELMAP = str(DATA / "task_1.pbtxt")
MOVED = ["--box", MOVED_BOX]


@pytest.fixture
def imported(tmp_path):
    return imported_fixture(tmp_path)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out.strip(), out.err.strip()


def edit(db: Path, capsys) -> dict[str, str]:
    """Ada's edits: pedestrian:7 moved in frame 15, pedestrian:9 taken out of frame 30, a
    person the labels missed and the bag they hold added in frame 15."""
    common = ["--db", str(db), "--as", "Ada"]
    assert run(capsys, "annotate", "box", NAME, "15", "pedestrian:7", *MOVED, *common)[0] == 0
    code, out, _ = run(capsys, "annotate", "delete-entity", NAME, "30", "pedestrian:9", *common)
    assert code == 0 and "pedestrian:9" in out
    new = {}
    for kind, box, extra in (
        ("person", "800,120,70,210", []),
        ("object", "820,250,40,40", ["--category", "bag"]),
    ):
        code, out, err = run(
            capsys,
            "annotate",
            "add-entity",
            NAME,
            "15",
            "--kind",
            kind,
            "--box",
            box,
            *extra,
            *common,
        )
        assert code == 0, err
        new[kind] = out
    label = ["--kind", "holding", "--target", new["object"], "--difficulty", "2"]
    assert run(capsys, "annotate", "label", NAME, "15", new["person"], *label, *common)[0] == 0
    return new


def test_the_toolkit_reads_moved_added_and_removed_boxes(imported, tmp_path, capsys):
    db, _root = imported
    new = edit(db, capsys)
    assert new == {"person": "pedestrian:13", "object": "bag:1"}  # after the file's highest
    out_dir, orig_dir = tmp_path / "export", tmp_path / "original"
    out_dir.mkdir(), orig_dir.mkdir()
    out = out_dir / f"{NAME}.json"
    assert (
        run(capsys, "export", "labels", "--db", str(db), "--sequence", NAME, "--out", str(out))[0]
        == 0
    )
    shutil.copy(FIXTURE, orig_dir / f"{NAME}.json")
    ours = toolkit().construct_GT(str(out_dir), LABELMAP)
    theirs = toolkit().construct_GT(str(orig_dir), LABELMAP)
    assert ours == implied_gt(theirs)
    assert ours != theirs
    assert any(line.startswith("0 15 3300 100 3530 460 7 ") for line in ours["./out/gt_group.txt"])
    assert not any(line.startswith("0 30 1500 140") for line in ours["./out/gt_action.txt"])
    doc = json.loads(out.read_text())
    frame15 = {e["label_id"]: e for e in doc["labels"]["000015.jpg"]}
    original = {e["label_id"]: e for e in json.loads(FIXTURE.read_text())["labels"]["000015.jpg"]}
    seven = frame15["pedestrian:7"]
    assert seven["box"] == [3300, 100, 230, 360]
    assert seven[OURS] == {"original_box": [3359, 106, 236, 366]}
    assert {k: v for k, v in seven.items() if k not in ("box", OURS)} == {
        k: v for k, v in original["pedestrian:7"].items() if k != "box"
    }
    added = frame15["pedestrian:13"]
    assert added["box"] == [800, 120, 70, 210] and added["attributes"]["no_eval"] is True
    assert added[OURS] == {"added": True}
    assert added["HOI"] == [
        {"pair": "bag:1", "box_pair": [820, 250, 40, 40], "inter_labels": {"holding": 2}}
    ]
    assert doc["removed"] == {"000030.jpg": ["pedestrian:9"]}
    assert "pedestrian:9" not in {e["label_id"] for e in doc["labels"]["000030.jpg"]}
    assert "pedestrian:9" in {e["label_id"] for e in doc["labels"]["000016.jpg"]}


def test_the_label_files_carry_the_edits_back_into_an_import(imported, tmp_path, capsys):
    """`export labels --labels-dir` writes the dataset's labels/ folder; importing a copy
    of the dataset with that folder gives the boxes as the annotator left them."""
    db, root = imported
    edit(db, capsys)
    copy = tmp_path / "copy"
    shutil.copytree(root / L.IMAGES, copy / L.IMAGES)
    (copy / "labels").mkdir()
    code, out, err = run(
        capsys,
        "export",
        "labels",
        "--db",
        str(db),
        "--sequence",
        NAME,
        "--labels-dir",
        str(copy / "labels"),
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["labels_objects"] == 3  # the bag drawn in frame 15, carried to 16, 30
    flat = json.loads((copy / L.LABELS_2D / f"{NAME}.json").read_text())["labels"]
    seven = next(e for e in flat["000015.jpg"] if e["label_id"] == "pedestrian:7")
    assert seven[OURS]["original_box"] == [3359, 106, 236, 366]
    again = tmp_path / "again.reasonscope"
    open_project(again, create=True).close()
    assert run(capsys, "import", "jrdb", str(copy), "--db", str(again))[0] == 0
    with open_project(again) as p:
        seq = p.sequences.find(NAME)
        frames = {f.index: f.id for f in p.sequences.frames(seq.id)}
        ids = {e.id: e.key for e in p.sequences.entities(seq.id)}
        boxes = {ids[b.entity_id]: b for b in p.sequences.boxes_2d(frames[15])}
        late = {ids[b.entity_id] for b in p.sequences.boxes_2d(frames[30])}
    assert (boxes["pedestrian:7"].x, boxes["pedestrian:7"].w) == (3300.0, 230.0)
    assert (boxes["pedestrian:13"].x, boxes["bag:1"].x) == (800.0, 820.0)
    assert "pedestrian:9" not in late and "pedestrian:7" in late


def test_a_refused_edit_is_one_line_and_changes_nothing(imported, capsys):
    db, _root = imported
    new = edit(db, capsys)
    with open_project(db) as p:
        before = p.db.execute("SELECT count(*) FROM audit_log").fetchone()[0]
        people = p.db.execute("SELECT count(*) FROM annotators").fetchone()[0]
    common = ["--db", str(db), "--as", "Bea"]
    for argv, rule in (
        (["delete-entity", NAME, "15", new["person"]], "has 1 HOI label(s) in frame 15"),
        (["box", NAME, "15", "pedestrian:99", *MOVED], "has no entity 'pedestrian:99'"),
        (["box", NAME, "17", "pedestrian:7", *MOVED], "has no frame 17"),
        (["box", NAME, "15", "pedestrian:7", "--box", "1,2,-3,4"], "size must be positive"),
        (
            ["label", NAME, "15", new["person"], "--kind", "holding", "--target", "pedestrian:6"]
            + ["--difficulty", "1"],
            "the target pedestrian:6 is not an object",
        ),
        (["label", NAME, "15", new["person"], "--kind", "holding", "--delete"], "needs a target"),
        (
            ["label", NAME, "15", new["person"], "--kind", "holding", "--target", new["object"]]
            + ["--delete"],
            "Bea has no 'holding' label",
        ),
        (["delete-entity", NAME, "30", "pedestrian:9"], "has no box in frame 30"),
    ):
        code, out, err = run(capsys, "annotate", *argv, *common)
        lines = err.splitlines()
        assert code == 2 and len(lines) == 1 and rule in lines[0], (argv, err)
        assert str(db) in lines[0]
    with open_project(db) as p:
        assert p.db.execute("SELECT count(*) FROM audit_log").fetchone()[0] == before
        assert p.db.execute("SELECT count(*) FROM annotators").fetchone()[0] == people
