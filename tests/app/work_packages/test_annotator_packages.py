"""An annotator package brings every kind of box and label work back: boxes moved, people
and objects drawn (with labels on them), entities taken out of frames, copied labels
changed and deleted. Merged, the project exports what the annotator did, and the JRDB
toolkit's own GT conversion reads it (tests/data/jrdb/, real structure)."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from jrdb_activity_fixture import DATA as JRDB_DATA
from jrdb_activity_fixture import (
    FIXTURE,
    MOVED_BOX,
    NAME,
    implied_gt,
    imported_fixture,
    toolkit,
)

from app.cli import main
from app.io.hoi_labels import export_labels
from app.work_packages.create import PackageRequest, create_package
from app.work_packages.merge import apply_conflict, merge_package
from store import ProjectError, open_project

LABELMAP = str(JRDB_DATA / "task_1.pbtxt")


@pytest.fixture
def sent(tmp_path):
    """The imported fixture with two of Ada's labels in frame 15, and Ada's annotator
    package of frames 15-30 (moved to her laptop)."""
    db, _root = imported_fixture(tmp_path)
    with open_project(db) as p:
        seq = p.sequences.find(NAME)
        frame = next(f for f in p.sequences.frames(seq.id) if f.index == 15)
        ids = p.sequences.entity_ids(seq.id)
        ada = p.annotators.sign_in("Ada")
        for person, predicate in (("pedestrian:6", "sitting"), ("pedestrian:9", "walking")):
            p.hoi.add_label(
                frame_id=frame.id,
                subject_entity_id=ids[person],
                object_entity_id=None,
                category="pose",
                predicate=predicate,
                difficulty=1,
                annotator=ada,
            )
    request = PackageRequest("Ada", "annotator", sequence=NAME, frames=(15, 30))
    out = tmp_path / "ada.rspack"
    create_package(db, request, out)
    laptop = tmp_path / "laptop"
    laptop.mkdir()
    return db, out.rename(laptop / out.name)


def annotate(pack, capsys, *argv: str) -> str:
    capsys.readouterr()
    assert main(["annotate", *argv, "--db", str(pack), "--as", "Ada"]) == 0
    return capsys.readouterr().out.strip()


def work(pack, capsys) -> dict[str, str]:
    """Ada's work in the package, as the Annotate HOI mode saves it."""
    annotate(pack, capsys, "box", NAME, "15", "pedestrian:7", "--box", MOVED_BOX)
    annotate(pack, capsys, "delete-entity", NAME, "30", "pedestrian:9")
    person = annotate(
        pack, capsys, "add-entity", NAME, "15", "--kind", "person", "--box", "800,120,70,210"
    )
    bag = annotate(
        pack,
        capsys,
        "add-entity",
        NAME,
        "15",
        "--kind",
        "object",
        "--category",
        "bag",
        "--box",
        "820,250,40,40",
        "--box3d",
        "2.0,1.0,-0.5,0.4,0.3,0.4,0.2",
    )
    holding = ["--kind", "holding", "--target", bag, "--difficulty", "2"]
    annotate(pack, capsys, "label", NAME, "15", person, *holding)
    annotate(pack, capsys, "label", NAME, "15", "pedestrian:9", "--kind", "walking", "--delete")
    with open_project(pack) as p:  # a difficulty changed (the panel's 1/2/3 keys)
        [sitting] = [lab for lab in p.hoi.records() if lab.label.predicate == "sitting"]
        p.hoi.set_difficulty(sitting.id, 3, p.annotators.find("Ada"))
    return {"person": person, "bag": bag}


def test_box_and_label_work_comes_back_and_reaches_the_toolkit(sent, tmp_path, capsys):
    db, pack = sent
    drawn = work(pack, capsys)
    assert drawn == {"person": "pedestrian:13", "bag": "bag:1"}
    report = merge_package(db, pack)
    assert report.conflicts == []
    assert {k: n for k, n in report.merged.items() if n and k != "audit entries"} == {
        "entities": 2,
        "boxes": 4,  # pedestrian:7's, the person's, the bag's 2D and 3D
        "removals": 1,
        "labels": 1,
        "label edits": 1,
        "label deletions": 1,
    }
    with open_project(db) as p:
        seq = p.sequences.find(NAME)
        frames = {f.index: f.id for f in p.sequences.frames(seq.id)}
        ids = p.sequences.entity_ids(seq.id)
        ada = p.annotators.find("Ada")
        boxes = {b.box.entity_id: b for b in p.sequences.box_records(frames[15], "2d")}
        seven = boxes[ids["pedestrian:7"]]
        assert (seven.box.x, seven.box.w, seven.annotator_id) == (3300.0, 230.0, ada.id)
        assert seven.original == (3359.0, 106.0, 236.0, 366.0)
        assert boxes[ids["pedestrian:13"]].box.x == 800.0
        assert [b.box.entity_id for b in p.sequences.box_records(frames[15], "3d")] == [
            ids["bag:1"]
        ]
        [removal] = p.sequences.removals(seq.id)
        assert (removal["key"], removal["frame_index"]) == ("pedestrian:9", 30)
        labels = {(r.label.predicate, r.label.subject_entity_id): r for r in p.hoi.records()}
        holding = labels[("holding", ids["pedestrian:13"])].label
        assert (holding.object_entity_id, holding.annotator_id) == (ids["bag:1"], ada.id)
        assert labels[("sitting", ids["pedestrian:6"])].label.difficulty == 3
        assert ("walking", ids["pedestrian:9"]) not in labels
        team = {row["person"]: row for row in p.packages.team()}
        assert team["Ada"]["outstanding"] == 0  # the frames are done
    assert not merge_package(db, pack).changed  # a second merge changes nothing
    # the project's export gives the toolkit the lines Ada's edits imply
    out_dir, orig_dir = tmp_path / "export", tmp_path / "original"
    out_dir.mkdir(), orig_dir.mkdir()
    export_labels(db, NAME, out_dir / f"{NAME}.json")
    shutil.copy(FIXTURE, orig_dir / f"{NAME}.json")
    ours = toolkit().construct_GT(str(out_dir), LABELMAP)
    theirs = toolkit().construct_GT(str(orig_dir), LABELMAP)
    assert ours == implied_gt(theirs) and ours != theirs
    doc = json.loads((out_dir / f"{NAME}.json").read_text())
    assert doc["removed"] == {"000030.jpg": ["pedestrian:9"]}
    added = next(e for e in doc["labels"]["000015.jpg"] if e["label_id"] == "pedestrian:13")
    assert added["HOI"][0]["pair"] == "bag:1"


def test_work_on_what_changed_here_meanwhile_is_kept_aside(sent, capsys):
    db, pack = sent
    work(pack, capsys)
    with open_project(db) as p:  # meanwhile, in the project
        seq = p.sequences.find(NAME)
        frames = {f.index: f.id for f in p.sequences.frames(seq.id)}
        ids = p.sequences.entity_ids(seq.id)
        ada, bea = p.annotators.find("Ada"), p.annotators.sign_in("Bea")
        p.sequences.set_box_2d(ids["pedestrian:7"], frames[15], (3000, 100, 200, 300), bea)
        [sitting] = [r for r in p.hoi.records() if r.label.predicate == "sitting"]
        p.hoi.set_difficulty(sitting.id, 2, ada)
        taken = p.sequences.add_drawn_entity(seq.id, "human", "person", bea)  # pedestrian:13
        p.sequences.set_box_2d(taken, frames[15], (10, 10, 10, 10), bea)
    report = merge_package(db, pack)
    reasons = sorted(c["reason"].split(": ", 1)[1] for c in report.conflicts)
    assert reasons == [
        f"label {sitting.id} has been changed here since the package went out",
        "the 2D box of pedestrian:7 in frame 15 has been changed here since the package went out",
    ]
    tables = sorted(c["reason"].split(" row ")[0] for c in report.conflicts)
    assert tables == ["boxes_2d", "hoi_labels"]
    assert report.notes == [
        "pedestrian:13 drawn in the package is pedestrian:14 here (pedestrian:13 was taken)"
    ]
    with open_project(db) as p:
        ids = p.sequences.entity_ids(seq.id)
        boxes = {b.entity_id: b for b in p.sequences.boxes_2d(frames[15])}
        assert boxes[ids["pedestrian:7"]].x == 3000.0  # Bea's stays
        assert p.hoi.get_label(sitting.id).difficulty == 2
        holding = next(r.label for r in p.hoi.records() if r.label.predicate == "holding")
        assert holding.subject_entity_id == ids["pedestrian:14"]  # the label followed
        conflicts = {c["work"]["work_kind"]: c["id"] for c in p.packages.conflicts()}
    assert sorted(conflicts) == ["box", "label edit"]
    # the owner decides Ada's box wins after all: applied over Bea's
    apply_conflict(db, conflicts["box"])
    with open_project(db) as p:
        seven = p.sequences.box_record(ids["pedestrian:7"], frames[15])
        assert (seven.box.x, seven.annotator_id) == (3300.0, p.annotators.find("Ada").id)
        assert [c["id"] for c in p.packages.conflicts()] == [conflicts["label edit"]]


def test_box_work_signed_by_someone_else_refuses_the_package(sent, capsys):
    db, pack = sent
    work(pack, capsys)
    with open_project(db) as p:
        before = p.db.execute("SELECT count(*) FROM boxes_2d").fetchone()[0]
    conn = sqlite3.connect(pack)
    conn.execute("INSERT INTO annotators(id, name, created_at) VALUES (99, 'Mallory', '2026')")
    conn.execute("UPDATE boxes_2d SET annotator_id = 99 WHERE source = 'annotator'")
    conn.commit()
    conn.close()
    with pytest.raises(ProjectError, match="2d box .* is signed by Mallory, not by Ada"):
        merge_package(db, pack)
    with open_project(db) as p:
        assert p.db.execute("SELECT count(*) FROM boxes_2d").fetchone()[0] == before
        assert p.sequences.removals(p.sequences.find(NAME).id) == []


def test_a_track_drawn_in_a_package_comes_back_with_its_keyframes_and_end(sent, capsys):
    """Keyframes are boxes like any other and a track's end travels too; merged, the
    project derives the same interpolated boxes, and the end is checked as new input."""
    db, pack = sent
    bag = annotate(
        pack, capsys, "add-entity", NAME, "15", "--kind", "object", "--category", "bag",
        "--box", "820,250,40,40",
    )  # fmt: skip
    annotate(pack, capsys, "box", NAME, "30", bag, "--box", "900,250,40,40", "--keyframe")
    chair = annotate(
        pack, capsys, "add-entity", NAME, "15", "--kind", "object", "--category", "chair",
        "--box", "1200,250,80,80",
    )  # fmt: skip
    annotate(pack, capsys, "end-track", NAME, "30", chair)  # carried to 16, gone in 30
    with open_project(pack) as p:  # the package's frames: ended after 16, as the GUI does
        seq = p.sequences.find(NAME)
        frames = {f.index: f.id for f in p.sequences.frames(seq.id)}
        entity = p.sequences.entity_ids(seq.id)[bag]
        interpolated = p.sequences.box_record(entity, frames[16]).box
    report = merge_package(db, pack)
    assert report.conflicts == [] and report.merged["boxes"] == 3
    assert report.merged["track ends"] == 1
    with open_project(db) as p:
        seq = p.sequences.find(NAME)
        frames = {f.index: f.id for f in p.sequences.frames(seq.id)}
        entity = p.sequences.entity_ids(seq.id)[bag]
        here = p.sequences.box_record(entity, frames[16])
        assert here.source == "interpolated" and here.box.x == interpolated.x
        assert sorted(p.sequences.keyframes(entity)) == [15, 30]
        chair_id = p.sequences.entity_ids(seq.id)[chair]
        assert p.sequences.track_end(chair_id) == 30
        assert p.sequences.box_record(chair_id, frames[16]).source == "interpolated"
        assert p.sequences.box_record(chair_id, frames[30]) is None
    assert not merge_package(db, pack).changed  # a second merge changes nothing


def test_a_track_reopened_in_a_package_comes_back_reopened(tmp_path, capsys):
    """A chair's track ended at home in frame 30 travels in Ada's package; she finds the
    chair still there and reopens the track (annotate end-track --reopen), then keys it in
    frame 30. Merged, the track is reopened at home too (it had been dropped: a reopening
    deleted the end's row, and nothing was left to carry), the keyframe after the old end
    is accepted, and the audit names Ada."""
    db, _root = imported_fixture(tmp_path)
    chair = annotate(
        db, capsys, "add-entity", NAME, "15", "--kind", "object", "--category", "chair",
        "--box", "1200,250,80,80",
    )  # fmt: skip
    annotate(db, capsys, "end-track", NAME, "30", chair)
    out = tmp_path / "ada.rspack"
    create_package(db, PackageRequest("Ada", "annotator", sequence=NAME, frames=(15, 30)), out)
    with open_project(out) as p:  # the package shows the track as it ends at home
        seq = p.sequences.find(NAME)
        entity = p.sequences.entity_ids(seq.id)[chair]
        assert p.sequences.track_end(entity) == 30
        last = next(f for f in p.sequences.frames(seq.id) if f.index == 30)
        assert p.sequences.box_record(entity, last.id) is None
    annotate(out, capsys, "end-track", NAME, "30", chair, "--reopen")
    annotate(out, capsys, "box", NAME, "30", chair, "--box", "1260,250,80,80", "--keyframe")
    with open_project(out) as p:
        entity = p.sequences.entity_ids(p.sequences.find(NAME).id)[chair]
        assert p.sequences.track_end(entity) is None
    report = merge_package(db, out)
    assert report.conflicts == [] and report.merged["track ends"] == 1
    with open_project(db) as p:
        seq = p.sequences.find(NAME)
        frames = {f.index: f.id for f in p.sequences.frames(seq.id)}
        entity = p.sequences.entity_ids(seq.id)[chair]
        assert p.sequences.track_end(entity) is None
        assert sorted(p.sequences.keyframes(entity)) == [15, 30]
        assert p.sequences.box_record(entity, frames[16]).source == "interpolated"
        assert p.sequences.box_record(entity, frames[16]).box.x == 1200 + 60 / 15
        who = p.db.execute(
            "SELECT a.name FROM track_ends t JOIN annotators a ON a.id = t.annotator_id "
            "WHERE t.entity_id = ?",
            [entity],
        ).fetchone()
        assert who == ("Ada",)
    assert not merge_package(db, out).changed  # a second merge changes nothing


def test_a_package_shows_who_was_taken_out_of_a_frame_at_home(tmp_path, capsys):
    """A bag drawn at home in frame 15, keyed in 16, taken out of frame 16 at home
    before the package is made: the package has no box of it there either (removals were
    not copied, so its carried box came back in the package), and the copied removal is
    not work of the package's: merged, nothing."""
    db, _root = imported_fixture(tmp_path)
    bag = annotate(
        db, capsys, "add-entity", NAME, "15", "--kind", "object", "--category", "bag",
        "--box", "820,250,40,40",
    )  # fmt: skip
    annotate(db, capsys, "box", NAME, "16", bag, "--box", "830,250,40,40", "--keyframe")
    annotate(db, capsys, "delete-entity", NAME, "16", bag)  # its keyframe there goes too
    out = tmp_path / "ada.rspack"
    create_package(db, PackageRequest("Ada", "annotator", sequence=NAME, frames=(15, 30)), out)
    with open_project(out) as p:
        seq = p.sequences.find(NAME)
        frames = {f.index: f.id for f in p.sequences.frames(seq.id)}
        entity = p.sequences.entity_ids(seq.id)[bag]
        assert p.sequences.box_record(entity, frames[16]) is None
        assert p.sequences.box_record(entity, frames[30]).source == "interpolated"
    report = merge_package(db, out)
    assert report.conflicts == [] and report.merged.get("removals", 0) == 0
