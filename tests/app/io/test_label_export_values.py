"""The label export (`app/io/hoi_labels.py`) checked value by value against the project:
every field it writes for a moved, drawn, removed and labelled person or object, in the
activity file, the 2D and 3D box files and the objects file, and what the two writers put
on disk. The project has two sequences (written by `app.demo.jrdb_synth.write_sequence`,
the JRDB layout) so that nothing of one leaks into the other's files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from annotation.jrdb import dataset as L
from app.demo.jrdb_synth import SynthConfig, write_sequence
from app.io.hoi_labels import (
    FORMAT,
    export_label_files,
    export_labels,
    label_files,
    labels_document,
)
from app.io.jrdb import import_jrdb
from store import ProjectError, open_for_reading, open_project

CAFE, HALL = "synthetic-cafe_0", "synthetic-hall_1"
MOVED_2D = (10.5, 20.0, 30.0, 40.0)  # a fraction: whole numbers are written as integers
MOVED_3D = (1.5, 2.0, -0.5, 0.5, 0.5, 0.9, 0.25)


def _values(box, names) -> list:
    return [getattr(box, k) for k in names]


XYWH = ("x", "y", "w", "h")
SOLID = ("cx", "cy", "cz", "l", "w", "h", "rot_z")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """Two sequences; in the cafe, ana moved pedestrian:1's 2D box and chair:1's 3D box in
    frame 0, drew pedestrian:9 (2D) in frame 0 and pedestrian:10 (3D only) in frame 1,
    drew and took pedestrian:11 and pedestrian:12 out of frame 2 and pedestrian:2 too,
    moved table:1's 2D box in frame 0, drew bag:1 (3D only) in frame 1, cup:1 (both
    boxes, each with attributes of its own) and cup:2 (2D only) in frame 0, and labelled pedestrian:1 (a pose, two interactions with the chair, one with the
    table) and pedestrian:9; in the hall, one label of its own."""
    tmp = tmp_path_factory.mktemp("label_values")
    root = tmp / "jrdb"
    write_sequence(root, SynthConfig(frames=3, people=3, objects=2, points_per_sweep=300))
    write_sequence(root, SynthConfig(HALL, frames=2, people=2, objects=1, points_per_sweep=300))
    db = tmp / "labels.reasonscope"
    open_project(db, create=True).close()
    import_jrdb(db, root)
    with open_project(db) as p:
        ana, repo = p.annotators.sign_in("ana"), p.sequences
        ids = {}
        for name in (CAFE, HALL):
            seq = repo.find(name)
            ids[name] = {e.key: e.id for e in repo.entities(seq.id)}
            ids[name]["frames"] = [f.id for f in repo.frames(seq.id)]
            ids[name]["sequence"] = seq.id
        cafe = ids[CAFE]
        f0, f1, f2 = cafe["frames"]
        imported = {
            "2d": _values(repo.box_record(cafe["pedestrian:1"], f0).box, XYWH),
            "3d": _values(repo.box_record(cafe["chair:1"], f0, "3d").box, SOLID),
        }
        repo.set_box_2d(cafe["pedestrian:1"], f0, MOVED_2D, ana)
        repo.set_box_3d(cafe["chair:1"], f0, MOVED_3D, ana)
        drawn = {}
        for key in ("pedestrian:9", "pedestrian:10", "pedestrian:11", "pedestrian:12"):
            drawn[key] = repo.add_drawn_entity(cafe["sequence"], "human", "pedestrian", ana, key)
        repo.set_box_2d(drawn["pedestrian:9"], f0, (100, 50, 20, 60), ana, {"occlusion": "x"})
        repo.set_box_3d(drawn["pedestrian:10"], f1, (2, 1, 0, 0.5, 0.6, 1.7, 0), ana)
        for key in ("pedestrian:11", "pedestrian:12"):
            repo.set_box_2d(drawn[key], f2, (200, 50, 20, 60), ana)
        for key in ("pedestrian:12", "pedestrian:11"):
            repo.remove_entity(drawn[key], f2, ana)
        repo.remove_entity(cafe["pedestrian:2"], f2, ana)
        imported["table"] = _values(repo.box_record(cafe["table:1"], f0).box, XYWH)
        repo.set_box_2d(cafe["table:1"], f0, (600, 200, 150, 90), ana)
        for key, category in (("bag:1", "bag"), ("cup:1", "cup"), ("cup:2", "cup")):
            drawn[key] = repo.add_drawn_entity(cafe["sequence"], "object", category, ana, key)
        repo.set_box_3d(drawn["bag:1"], f1, MOVED_3D, ana, {"note": "sac à dos"})
        repo.set_box_2d(drawn["cup:1"], f0, (300, 300, 10, 10), ana, {"occlusion": "y"})
        repo.set_box_3d(drawn["cup:1"], f0, (1, 1, 0, 0.1, 0.1, 0.1, 0), ana, {"num_points": 4})
        repo.set_box_2d(drawn["cup:2"], f0, (320, 300, 10, 10), ana)
        cafe.update(drawn)

        def label(name, frame, subject, target, predicate, category, difficulty):
            people = ids[name]
            return p.hoi.add_label(
                frame_id=people["frames"][frame],
                subject_entity_id=people[subject],
                object_entity_id=people[target] if target else None,
                category=category,
                predicate=predicate,
                difficulty=difficulty,
                annotator=ana,
            )

        label(CAFE, 0, "pedestrian:1", None, "standing", "pose", 1)
        label(CAFE, 0, "pedestrian:1", "chair:1", "touching", "physical", 2)
        label(CAFE, 0, "pedestrian:1", "chair:1", "looking_at", "observational", 3)
        label(CAFE, 0, "pedestrian:1", "table:1", "holding", "physical", 1)
        label(CAFE, 0, "pedestrian:9", "table:1", "touching", "physical", 2)
        label(HALL, 1, "pedestrian:1", None, "sitting", "pose", 2)
    return db, ids, imported


@pytest.fixture
def files(project):
    """Built in each test (not once a module): mutation testing (make mutants) runs only
    the tests that reached a mutated function, and a module's fixture reaches it once."""
    db, _ids, _imported = project
    with open_for_reading(db) as p:
        return label_files(p, CAFE)


def _entries(document: dict, frame: int, suffix: str = ".jpg") -> dict[str, dict]:
    return {e["label_id"]: e for e in document["labels"][L.frame_name(frame, suffix)]}


def _activity(files, frame: int) -> dict[str, dict]:
    return _entries(files[f"{L.LABELS_ACTIVITY}/{CAFE}.json"], frame)


def _flat(files, frame: int) -> dict[str, dict]:
    return _entries(files[f"{L.LABELS_2D}/{CAFE}.json"], frame)


def _solid(files, frame: int) -> dict[str, dict]:
    return _entries(files[f"{L.LABELS_3D}/{CAFE}.json"], frame, ".pcd")


def _objects(files, frame: int) -> dict[str, dict]:
    return _entries(files[f"{L.LABELS_OBJECTS}/{CAFE}.json"], frame)


def _record(db: Path, entity: int, frame: int, dims: str = "2d"):
    with open_for_reading(db) as p:
        return p.sequences.box_record(entity, frame, dims)


def test_the_activity_file_says_what_it_is_and_what_went_out(files):
    doc = files[f"{L.LABELS_ACTIVITY}/{CAFE}.json"]
    assert (doc["format"], doc["sequence"], doc["taxonomy"], doc["status"]) == (
        FORMAT,
        CAFE,
        "hoi",
        "any",
    )
    assert doc["difficulty"] == {"1": "easy", "2": "medium", "3": "hard"}
    # the words of each predicate, sorted, with its category; the hall's pose is not here
    assert list(doc["categories"].items()) == [
        ("holding", "physical"),
        ("looking at", "observational"),
        ("standing", "pose"),
        ("touching", "physical"),
    ]
    # the people taken out of frame 2, in the dataset's order (11 after 2, 12 after 11)
    assert doc["removed"] == {"000002.jpg": ["pedestrian:2", "pedestrian:11", "pedestrian:12"]}
    assert list(doc["labels"]) == ["000000.jpg", "000001.jpg", "000002.jpg"]


def test_a_persons_labels_go_into_its_entry_grouped_by_object(project, files):
    db, ids, _imported = project
    cafe, f0 = ids[CAFE], ids[CAFE]["frames"][0]
    people = _activity(files, 0)
    entry = people["pedestrian:1"]
    assert entry["pose_label"] == {"standing": 1}
    chair = _values(_record(db, cafe["chair:1"], f0).box, XYWH)
    table = _values(_record(db, cafe["table:1"], f0).box, XYWH)
    assert entry["HOI"] == [
        {"pair": "chair:1", "box_pair": chair, "inter_labels": {"touching": 2, "looking at": 3}},
        {"pair": "table:1", "box_pair": table, "inter_labels": {"holding": 1}},
    ]
    assert people["pedestrian:9"]["HOI"] == [
        {"pair": "table:1", "box_pair": table, "inter_labels": {"touching": 2}}
    ]
    assert [(k, "HOI" in e or "pose_label" in e) for k, e in people.items()] == [
        ("pedestrian:1", True),
        ("pedestrian:2", False),
        ("pedestrian:3", False),
        ("pedestrian:9", True),
    ]
    for frame in (1, 2):
        assert not any("HOI" in e or "pose_label" in e for e in _activity(files, frame).values())


def test_a_moved_box_is_the_entrys_box_with_the_datasets_beside_it(project, files):
    _db, _ids, imported = project
    entry = _activity(files, 0)["pedestrian:1"]
    assert entry["box"] == [10.5, 20, 30, 40]
    assert [type(v) for v in entry["box"]] == [float, int, int, int]
    assert entry["reasonscope"] == {"original_box": imported["2d"]}
    # every field of the imported entry is still there
    assert {"action_label", "social_group", "demographics_info", "H-interaction"} <= set(entry)
    flat = _flat(files, 0)["pedestrian:1"]
    assert (flat["file_id"], flat["box"], flat["reasonscope"]) == (
        "000000.jpg",
        [10.5, 20, 30, 40],
        {"original_box": imported["2d"]},
    )
    assert "reasonscope" not in _flat(files, 0)["pedestrian:3"]
    assert "reasonscope" not in _activity(files, 0)["pedestrian:3"]


def test_an_object_is_one_entry_of_the_objects_file_with_both_boxes(project, files):
    db, ids, imported = project
    chair, table = _objects(files, 0)["chair:1"], _objects(files, 0)["table:1"]
    assert files[f"{L.LABELS_OBJECTS}/{CAFE}.json"]["format"] == L.OBJECTS_FORMAT
    assert (chair["category"], table["category"]) == ("chair", "table")
    f0 = ids[CAFE]["frames"][0]
    assert chair["box"] == _values(_record(db, ids[CAFE]["chair:1"], f0).box, XYWH)
    assert chair["box_3d"] == dict(zip(SOLID, [1.5, 2, -0.5, 0.5, 0.5, 0.9, 0.25], strict=True))
    original = dict(zip(SOLID, imported["3d"], strict=True))
    assert chair["reasonscope"] == {"original_box_3d": original}
    assert chair["attributes"]["interpolated"] is False  # a keyframe of its track
    assert table["reasonscope"] == {"original_box": imported["table"]}
    assert table["box"] == [600, 200, 150, 90] and "original_box_3d" not in table["reasonscope"]
    assert "reasonscope" not in _objects(files, 1)["chair:1"]  # as the dataset gave it
    # people go to the people's files, objects to theirs
    assert set(_objects(files, 0)) == {"chair:1", "table:1", "cup:1", "cup:2"}
    assert "chair:1" not in _flat(files, 0) and "chair:1" not in _solid(files, 0)


def test_objects_drawn_with_one_box_or_two(files):
    assert _objects(files, 1)["bag:1"] == {
        "label_id": "bag:1",
        "category": "bag",
        "box": None,
        "box_3d": dict(zip(SOLID, [1.5, 2, -0.5, 0.5, 0.5, 0.9, 0.25], strict=True)),
        "attributes": {"note": "sac à dos", "interpolated": False},
        "reasonscope": {"added": True},
    }
    cup = _objects(files, 0)["cup:1"]  # the 2D box's attributes speak for the object
    assert (cup["box"], cup["attributes"]) == (
        [300, 300, 10, 10],
        {"occlusion": "y", "interpolated": False},
    )
    assert cup["box_3d"] == {"cx": 1, "cy": 1, "cz": 0, "l": 0.1, "w": 0.1, "h": 0.1, "rot_z": 0}
    assert cup["reasonscope"] == {"added": True}
    only_2d = _objects(files, 0)["cup:2"]
    assert (only_2d["box_3d"], only_2d["reasonscope"]) == (None, {"added": True})
    carried = _objects(files, 2)["bag:1"]  # its track goes on after its keyframe
    assert (carried["box_3d"], carried["attributes"]["interpolated"]) == (
        _objects(files, 1)["bag:1"]["box_3d"],
        True,
    )


def test_a_person_drawn_is_an_entry_of_its_own_marked_added(files):
    entry = _activity(files, 0)["pedestrian:9"]
    assert {k: v for k, v in entry.items() if k != "HOI"} == {
        "label_id": "pedestrian:9",
        "file_id": "000000.jpg",
        "box": [100, 50, 20, 60],
        "attributes": {"occlusion": "x", "no_eval": True},
        "reasonscope": {"added": True},
    }
    assert _flat(files, 0)["pedestrian:9"] == {
        "label_id": "pedestrian:9",
        "file_id": "000000.jpg",
        "box": [100, 50, 20, 60],
        "attributes": {"occlusion": "x", "interpolated": False},
        "reasonscope": {"added": True},
    }
    # its track carries the box on to the frames after its keyframe
    carried = _flat(files, 1)["pedestrian:9"]
    assert (carried["box"], carried["attributes"]["interpolated"]) == ([100, 50, 20, 60], True)


def test_a_person_drawn_in_3d_only_has_an_empty_2d_box_in_the_activity_file(files):
    assert _activity(files, 1)["pedestrian:10"] == {
        "label_id": "pedestrian:10",
        "file_id": "000001.jpg",
        "box": [0, 0, 0, 0],
        "attributes": {"no_eval": True},
        "reasonscope": {"added": True},
    }
    assert _solid(files, 1)["pedestrian:10"] == {
        "label_id": "pedestrian:10",
        "box": {"cx": 2, "cy": 1, "cz": 0, "l": 0.5, "w": 0.6, "h": 1.7, "rot_z": 0},
        "attributes": {"interpolated": False},
        "reasonscope": {"added": True},
    }
    assert "pedestrian:10" not in _activity(files, 0) and "pedestrian:10" not in _flat(files, 1)


def test_people_taken_out_of_a_frame_are_left_out_of_it(files):
    for people in (_activity(files, 2), _flat(files, 2), _solid(files, 2)):
        assert not {"pedestrian:2", "pedestrian:11", "pedestrian:12"} & set(people)
    assert "pedestrian:2" in _activity(files, 1) and "pedestrian:2" in _flat(files, 1)


def test_only_accepted_labels_and_a_status_that_is_none(project):
    db, _ids, _imported = project
    with open_for_reading(db) as p:
        accepted = labels_document(p, CAFE, status="accepted")
        with pytest.raises(ValueError) as refused:
            labels_document(p, CAFE, status="done")
        with pytest.raises(ProjectError) as unknown:
            labels_document(p, "nope")
    assert (accepted["status"], accepted["categories"]) == ("accepted", {})
    assert not any(
        "HOI" in e or "pose_label" in e for people in accepted["labels"].values() for e in people
    )
    assert str(refused.value) == "status must be one of ('any', 'accepted'), not 'done'"
    assert str(unknown.value) == f"{db}: no sequence 'nope' (sequences: {CAFE}, {HALL})"


ROW = "WHERE entity_id = ? AND frame_id = ?"  # one entity's row of a frame


def _at(ids: dict, key: str, frame: int = 0) -> list[int]:
    """The parameters of ROW: the cafe's entity `key` in frame `frame`."""
    return [ids[CAFE][key], ids[CAFE]["frames"][frame]]


def _changed(db: Path, tmp_path: Path, *statements: tuple[str, list]) -> Path:
    """A copy of the project with the dataset's files as they might also have been: the
    rows `statements` (SQL, parameters) change, as an import of such files would leave."""
    copy = tmp_path / f"changed{len(list(tmp_path.glob('changed*')))}.reasonscope"
    copy.write_bytes(db.read_bytes())
    conn = sqlite3.connect(copy)
    for sql, params in statements:
        assert conn.execute(sql, params).rowcount >= 1, sql
    conn.commit()
    conn.close()
    return copy


def _document(db: Path) -> dict:
    with open_for_reading(db) as p:
        return label_files(p, CAFE)


def test_a_box_nobody_changed_is_written_as_the_activity_file_has_it(project, tmp_path):
    """The activity file's box is kept even where the 2D file's differs (JRDB writes
    both; a dataset may round them apart): only a box a person made replaces it."""
    db, ids, _imported = project
    box = "UPDATE person_label_entries SET entry = json_set(entry, '$.box', json('[1, 2, 3, 4]'))"
    changed = _changed(db, tmp_path, (f"{box} {ROW}", _at(ids, "pedestrian:3")))
    entry = _activity(_document(changed), 0)["pedestrian:3"]
    assert entry["box"] == [1, 2, 3, 4] and "reasonscope" not in entry


def test_a_box_moved_before_originals_were_kept_has_the_activity_files_box_beside_it(
    project, tmp_path
):
    """Schema 0011 began keeping a moved box's dataset values; a box moved before it has
    none, and the export puts the activity file's box beside it (unless that entry,
    imported from our own export, already says what the dataset's box was)."""
    db, ids, imported = project
    none_kept = (f"UPDATE boxes_2d SET original = NULL {ROW}", _at(ids, "pedestrian:1"))
    entry = _activity(_document(_changed(db, tmp_path, none_kept)), 0)["pedestrian:1"]
    assert entry["box"] == [10.5, 20, 30, 40]
    assert entry["reasonscope"] == {"original_box": imported["2d"]}
    said = json.dumps({"original_box": [1, 2, 3, 4], "note": "kept"})
    noted = "UPDATE person_label_entries SET entry = json_set(entry, '$.reasonscope', json(?))"
    noted = (f"{noted} {ROW}", [said, *_at(ids, "pedestrian:1")])
    entry = _activity(_document(_changed(db, tmp_path, none_kept, noted)), 0)["pedestrian:1"]
    assert entry["reasonscope"] == {"original_box": [1, 2, 3, 4], "note": "kept"}


def test_export_labels_writes_the_three_files_with_objects_beside_the_people(
    project, files, tmp_path
):
    db, _ids, _imported = project
    out, flat, solid = (tmp_path / n for n in ("act.json", "2d.json", "3d.json"))
    assert export_labels(db, CAFE, out, out_2d=flat, out_3d=solid) == 5  # the hall's: not
    assert json.loads(out.read_text()) == files[f"{L.LABELS_ACTIVITY}/{CAFE}.json"]
    flat_doc, solid_doc = json.loads(flat.read_text()), json.loads(solid.read_text())
    assert _entries(flat_doc, 0)["chair:1"]["box"] == _objects(files, 0)["chair:1"]["box"]
    assert (
        _entries(solid_doc, 0, ".pcd")["chair:1"]["box"] == _objects(files, 0)["chair:1"]["box_3d"]
    )
    assert _entries(flat_doc, 0)["pedestrian:1"] == _flat(files, 0)["pedestrian:1"]
    only = tmp_path / "only.json"
    assert export_labels(db, CAFE, only, status="accepted") == 0
    assert json.loads(only.read_text())["status"] == "accepted"
    assert not (tmp_path / "2d-only.json").exists()


def test_export_label_files_writes_the_dataset_layout_and_counts_it(project, files, tmp_path):
    db, _ids, _imported = project
    labels = tmp_path / "labels"
    labels.mkdir()
    counts = export_label_files(db, CAFE, labels)
    expected = {}
    for path, document in files.items():
        under = path.split("/", 1)[1]
        assert json.loads((labels / under).read_text()) == document, path
        expected[under.split("/")[0]] = sum(len(v) for v in document["labels"].values())
    assert counts == {**expected, "hoi_labels": 5}
    # frame 0: pedestrians 1-3 and 9; frame 1: 9 carried, 10 drawn; frame 2: 2 taken out
    assert counts["labels_2d_activity_social_stitched"] == 4 + 5 + 4
    accepted = tmp_path / "accepted"
    accepted.mkdir()
    assert export_label_files(db, CAFE, accepted, status="accepted")["hoi_labels"] == 0
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    with pytest.raises(ProjectError) as refused:
        export_label_files(db, CAFE, not_a_folder)
    assert str(refused.value) == (
        f"{not_a_folder}: not a folder (give the dataset's labels/ folder to write)"
    )


def test_the_datasets_interpolated_flag_is_kept_on_what_it_boxed(project, tmp_path):
    """What the dataset boxed (people, objects) says what the dataset says of each box;
    only tracks drawn here get the flag from their keyframes (store/tracks.py)."""
    db, ids, _imported = project
    flag = "UPDATE boxes_2d SET attributes = json_set(attributes, '$.interpolated', json('true'))"
    changed = _changed(
        db,
        tmp_path,
        (f"{flag} {ROW}", _at(ids, "pedestrian:3")),
        (f"{flag} {ROW}", _at(ids, "chair:1", 1)),
    )
    files = _document(changed)
    assert _flat(files, 0)["pedestrian:3"]["attributes"]["interpolated"] is True
    assert _flat(files, 0)["pedestrian:1"]["attributes"]["interpolated"] is False
    assert _objects(files, 1)["chair:1"]["attributes"]["interpolated"] is True
    assert _objects(files, 0)["chair:1"]["attributes"]["interpolated"] is False
    assert _objects(files, 1)["cup:1"]["attributes"]["interpolated"] is True  # carried


def test_a_person_the_2d_file_lacks_keeps_the_activity_files_box(project, tmp_path):
    db, ids, _imported = project
    person, f0 = _at(ids, "pedestrian:3")
    changed = _changed(db, tmp_path, (f"DELETE FROM boxes_2d {ROW}", [person, f0]))
    entry = _activity(_document(changed), 0)["pedestrian:3"]
    dataset = entry["box"]
    assert "reasonscope" not in entry and "pedestrian:3" not in _flat(_document(changed), 0)
    with open_project(changed) as p:  # drawn where the activity file has it: nothing to say
        p.sequences.set_box_2d(person, f0, dataset, p.annotators.sign_in("ana"))
    entry = _activity(_document(changed), 0)["pedestrian:3"]
    assert (entry["box"], "reasonscope" in entry) == (dataset, False)
    with open_project(changed) as p:  # drawn elsewhere: the activity file's box beside it
        p.sequences.set_box_2d(person, f0, (5, 6, 7, 8), p.annotators.sign_in("ana"))
    entry = _activity(_document(changed), 0)["pedestrian:3"]
    assert (entry["box"], entry["reasonscope"]) == ([5, 6, 7, 8], {"original_box": dataset})


def test_a_labelled_person_the_activity_file_lacks_gets_an_entry_of_its_own(project, tmp_path):
    """JRDB's activity file leaves people out; one of them is written only when labelled
    (no_eval, so that JRDB's evaluation skips it), with the box a person moved."""
    db, ids, _imported = project
    cafe = ids[CAFE]
    person, f0 = _at(ids, "pedestrian:3")
    changed = _changed(db, tmp_path, (f"DELETE FROM person_label_entries {ROW}", [person, f0]))
    assert "pedestrian:3" not in _activity(_document(changed), 0)
    with open_project(changed) as p:
        ana = p.annotators.sign_in("ana")
        before = _values(p.sequences.box_record(person, f0).box, XYWH)
        p.sequences.set_box_2d(person, f0, (5, 6, 7, 8), ana)
        p.hoi.add_label(
            frame_id=f0,
            subject_entity_id=person,
            object_entity_id=cafe["bag:1"],
            category="physical",
            predicate="holding",
            difficulty=3,
            annotator=ana,
        )
    entry = _activity(_document(changed), 0)["pedestrian:3"]
    assert {k: v for k, v in entry.items() if k != "HOI"} == {
        "label_id": "pedestrian:3",
        "file_id": "000000.jpg",
        "box": [5, 6, 7, 8],
        "attributes": {
            **_flat(_document(changed), 0)["pedestrian:3"]["attributes"],
            "no_eval": True,
        },
        "reasonscope": {"original_box": before},
    }
    # bag:1 has no box in frame 0 (drawn in 3D, in frame 1): its pair has no box there
    assert entry["HOI"] == [{"pair": "bag:1", "box_pair": None, "inter_labels": {"holding": 3}}]


def test_people_and_objects_are_written_in_the_datasets_order_of_their_ids(project, tmp_path):
    db, ids, _imported = project
    changed = tmp_path / "order.reasonscope"
    changed.write_bytes(db.read_bytes())
    cafe, f0 = ids[CAFE], ids[CAFE]["frames"][0]
    with open_project(changed) as p:
        ana = p.annotators.sign_in("ana")
        for key in ("pedestrian:31", "pedestrian:5"):  # drawn in this order
            drawn = p.sequences.add_drawn_entity(cafe["sequence"], "human", "pedestrian", ana, key)
            p.sequences.set_box_2d(drawn, f0, (400, 100, 20, 50), ana)
    files = _document(changed)
    assert list(_activity(files, 0)) == [
        "pedestrian:1",
        "pedestrian:2",
        "pedestrian:3",
        "pedestrian:5",
        "pedestrian:9",
        "pedestrian:31",
    ]
    assert list(_flat(files, 0)) == list(_activity(files, 0))


def test_the_files_are_indented_and_keep_their_text_as_written(project, tmp_path):
    """One space a level (a file people read and diff), and text outside ASCII as it is
    (a note "sac à dos", not "sac \\u00e0 dos"), from both writers."""
    db, _ids, _imported = project
    out, flat, solid = (tmp_path / n for n in ("act.json", "2d.json", "3d.json"))
    export_labels(db, CAFE, out, out_2d=flat, out_3d=solid)
    labels = tmp_path / "labels"
    labels.mkdir()
    export_label_files(db, CAFE, labels)
    for path in (out, flat, solid, *sorted(labels.glob("*/*.json"))):
        text = path.read_text(encoding="utf-8")
        assert text.startswith('{\n "'), path
        assert text == json.dumps(json.loads(text), indent=1, ensure_ascii=False) + "\n", path
    assert "sac à dos" in solid.read_text(encoding="utf-8")
    assert "sac à dos" in (labels / L.LABELS_OBJECTS.split("/", 1)[1] / f"{CAFE}.json").read_text(
        encoding="utf-8"
    )


def test_label_files_go_into_the_datasets_labels_folder_over_its_files(project, files, tmp_path):
    """Written back where the dataset keeps them: its folders are there already."""
    db, _ids, _imported = project
    labels = tmp_path / "labels"
    for folder in (L.LABELS_2D, L.LABELS_3D, L.LABELS_ACTIVITY, L.LABELS_OBJECTS):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / f"{CAFE}.json").write_text("{}")
    export_label_files(db, CAFE, labels)
    for path, document in files.items():
        assert json.loads((tmp_path / path).read_text()) == document, path


def test_a_project_with_no_sequence_says_so(tmp_path):
    db = tmp_path / "empty.reasonscope"
    open_project(db, create=True).close()
    with open_for_reading(db) as p, pytest.raises(ProjectError) as refused:
        labels_document(p, CAFE)
    assert str(refused.value) == f"{db}: no sequence '{CAFE}' (sequences: none)"
