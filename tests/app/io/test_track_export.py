"""Tracks leave and come back: `annotate box --keyframe`, `annotate end-track`, and
`export labels --out-2d/--out-3d` read back by our importer and the toolkit's GT script."""

from __future__ import annotations

import json
import shutil

from jrdb_activity_fixture import DATA, FIXTURE, NAME, make_root, toolkit

from annotation.jrdb import dataset as L
from app.cli import main
from store import open_project

LABELMAP = str(DATA / "task_1.pbtxt")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out.strip(), out.err.strip()


def three_frames(tmp_path):
    """The fixture's frame 15, as frames 0, 1 and 2 of a dataset root, imported."""
    people = json.loads(FIXTURE.read_text())["labels"]["000015.jpg"]
    frames = {
        L.frame_name(i): [{**p, "file_id": L.frame_name(i)} for p in people] for i in range(3)
    }
    root = make_root(tmp_path, {"labels": frames})
    db = tmp_path / "project.reasonscope"
    open_project(db, create=True).close()
    assert main(["import", "jrdb", str(root), "--db", str(db)]) == 0
    return db, root


def test_an_object_boxed_in_frames_0_and_2_is_interpolated_in_frame_1(tmp_path, capsys):
    db, root = three_frames(tmp_path)
    common = ["--db", str(db), "--as", "Ada"]
    code, out, err = run(
        capsys, "annotate", "add-entity", NAME, "0", "--kind", "object", "--category", "bag",
        "--box", "3740,250,40,40", "--box3d", "2,0,0,0.4,0.3,0.5,3.0", *common,
    )  # fmt: skip
    assert code == 0, err
    box = ["--box", "60,250,40,60", "--box3d", "4,1,0,0.4,0.3,0.5,-3.0", "--keyframe"]
    code, out, err = run(capsys, "annotate", "box", NAME, "2", "bag:1", *box, *common, "--json")
    assert code == 0, err
    assert json.loads(out)["keyframe"] is True
    out_dir = tmp_path / "export"
    out_dir.mkdir()
    files = {k: out_dir / f"{k}.json" for k in ("social", "flat", "solid")}
    code, out, err = run(
        capsys, "export", "labels", "--db", str(db), "--sequence", NAME,
        "--out", str(files["social"]), "--out-2d", str(files["flat"]),
        "--out-3d", str(files["solid"]),
    )  # fmt: skip
    assert code == 0, err
    flat = json.loads(files["flat"].read_text())["labels"]
    solid = json.loads(files["solid"].read_text())["labels"]
    bag = {f: next(e for e in flat[f] if e["label_id"] == "bag:1") for f in flat}
    assert [bag[L.frame_name(i)]["attributes"]["interpolated"] for i in range(3)] == [
        False,
        True,
        False,
    ]
    x, y, w, h = bag[L.frame_name(1)]["box"]
    assert (x + w / 2) % L.PANORAMA_WIDTH == 40  # across the seam, the short way
    assert (w, h) == (40, 50)
    cuboid = next(e for e in solid[L.frame_name(1, ".pcd")] if e["label_id"] == "bag:1")
    assert cuboid["attributes"]["interpolated"] is True
    assert cuboid["box"]["cx"] == 3 and abs(cuboid["box"]["rot_z"]) > 3.1  # yaw the short way
    # the toolkit's GT conversion still reads the social file
    social = tmp_path / "social"
    social.mkdir()
    shutil.copy(files["social"], social / f"{NAME}.json")
    assert toolkit().construct_GT(str(social), LABELMAP)
    # our importer reads back what the exporter wrote
    copy = tmp_path / "copy"
    shutil.copytree(root / L.IMAGES, copy / L.IMAGES)
    (copy / L.LABELS_2D).mkdir(parents=True)
    (copy / L.LABELS_3D).mkdir(parents=True)
    shutil.copy(files["flat"], copy / L.LABELS_2D / f"{NAME}.json")
    shutil.copy(files["solid"], copy / L.LABELS_3D / f"{NAME}.json")
    again = tmp_path / "again.reasonscope"
    open_project(again, create=True).close()
    assert main(["import", "jrdb", str(copy), "--db", str(again)]) == 0
    with open_project(again) as p:
        seq = p.sequences.find(NAME)
        frames = p.sequences.frames(seq.id)
        bag_id = p.sequences.entity_ids(seq.id)["bag:1"]
        record = p.sequences.box_record(bag_id, frames[1].id, "2d")
        assert record.box.attributes["interpolated"] is True
        assert [record.box.w, record.box.h] == [40, 50]
        assert p.sequences.box_record(bag_id, frames[1].id, "3d").box.cx == 3


def test_end_track_stops_the_box_and_refuses_extending_it(tmp_path, capsys):
    db, _root = three_frames(tmp_path)
    common = ["--db", str(db), "--as", "Ada"]
    assert (
        run(
            capsys, "annotate", "add-entity", NAME, "0", "--kind", "object", "--category",
            "chair", "--box", "100,250,40,40", *common,
        )[0]
        == 0
    )  # fmt: skip
    code, out, err = run(capsys, "annotate", "end-track", NAME, "2", "chair:1", *common)
    assert code == 0, err
    assert "Ended the track of chair:1 at frame 2" in out
    code, out, err = run(capsys, "annotate", "box", NAME, "2", "chair:1", "--box", "1,2,3,4",
                         *common)  # fmt: skip
    assert code == 2 and "ended at frame 2" in err and "reopen" in err
    code, out, err = run(capsys, "annotate", "box", NAME, "1", "chair:1", "--box", "1,2,0,4",
                         *common)  # fmt: skip
    assert code == 2 and "size must be positive" in err
    code, out, err = run(capsys, "annotate", "end-track", NAME, "0", "pedestrian:6", *common)
    assert code == 2 and "no track to end" in err
    assert run(capsys, "annotate", "end-track", NAME, "2", "chair:1", "--reopen", *common)[0] == 0
    assert run(capsys, "annotate", "box", NAME, "2", "chair:1", "--keyframe", *common)[0] == 0
    with open_project(db) as p:
        seq = p.sequences.find(NAME)
        chair = p.sequences.entity_ids(seq.id)["chair:1"]
        assert sorted(p.sequences.keyframes(chair)) == [0, 2]
        actions = p.db.execute(
            "SELECT count(*) FROM audit_log WHERE table_name = 'track_ends'"
        ).fetchone()[0]
        assert actions == 2
