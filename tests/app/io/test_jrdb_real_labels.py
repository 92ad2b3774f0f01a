"""Real `labels_2d_activity_social_stitched` files: mixed difficulty types in, every field
kept, and `export labels` giving the JRDB toolkit the same ground truth as the original.

The fixture (tests/data/jrdb/, its README says which real code it follows) is a real
file's structure; the toolkit's GT conversion is its own script, copied with its file
I/O replaced.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jrdb_activity_fixture import (
    DATA,
    FIXTURE,
    NAME,
    imported_fixture,
    make_root,
    toolkit,
)

from annotation.jrdb import dataset as L
from annotation.query.engine import generate_many
from annotation.query.model import Preferences
from app.cli import main
from app.io.hoi_labels import export_labels
from app.jobs.scene_graphs import graph_for_window
from store import open_project


@pytest.fixture
def imported(tmp_path):
    return imported_fixture(tmp_path)


def info(db: Path, capsys) -> dict:
    capsys.readouterr()
    assert main(["info", "--db", str(db), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_integral_difficulties_of_every_type_are_read(imported):
    """1, 1.0 and "1" are all difficulty 1 (the real files mix the three)."""
    db, _root = imported
    with open_project(db) as p:
        seq = p.sequences.find(NAME)
        frame = next(f for f in p.sequences.frames(seq.id) if f.index == 15)
        people = {e.id: e for e in p.sequences.entities(seq.id)}
        rows = {
            (people[r["entity_id"]].key, r["kind"], r["label"]): r["difficulty"]
            for r in p.sequences.person_labels(frame.id)
        }
        six = next(e for e in people.values() if e.key == "pedestrian:6")
        child = next(e for e in people.values() if e.key == "pedestrian:3")
    assert rows[("pedestrian:6", "social_activity", "sitting")] == 1  # 1.0
    assert rows[("pedestrian:6", "gender", "Female")] == 1  # "1"
    assert rows[("pedestrian:7", "action", "eating sth")] == 3  # 3
    assert rows[("pedestrian:6", "interaction", "conversation")] == 2  # 2.0
    assert rows[("pedestrian:7", "social_group", "7")] == 3  # cluster_stat
    assert rows[("pedestrian:9", "social_group", "9")] == 1  # cluster_stat 1.0
    assert all(isinstance(d, int) for d in rows.values() if d is not None)
    # the app's attribute values: lower case, "impossible" left out
    assert six.attributes == {
        "gender": "female",
        "age": "young_adulthood",
        "race": "mongoloid/asian",
        "social_group": "7",
    }
    assert child.attributes["age"] == "childhood"


def test_every_field_is_kept_and_questions_use_demographics_and_groups(imported):
    """Social groups, demographics, H-interaction pairs (with box_pair) and group_info are
    stored; a graph of real labels asks about age and gender and relates group members."""
    db, _root = imported
    original = json.loads(FIXTURE.read_text())["labels"]
    with open_project(db) as p:
        seq = p.sequences.find(NAME)
        frames = {f.index: f for f in p.sequences.frames(seq.id)}
        keys = {e.id: e.key for e in p.sequences.entities(seq.id)}
        stored = {keys[i]: e for i, e in p.sequences.label_entries(frames[15].id).items()}
        graph = graph_for_window(p, seq.id, [frames[15].id])
    assert list(stored) == [e["label_id"] for e in original["000015.jpg"]]  # file order
    for entry in original["000015.jpg"]:
        assert stored[entry["label_id"]] == entry  # every field, every value type
    assert stored["pedestrian:6"]["H-interaction"][0]["box_pair"] == [3359, 106, 236, 366]
    assert stored["pedestrian:6"]["group_info"][0]["SSC"] == {"table": "1", "wall": "2"}
    six = graph.entities["pedestrian:6"].attributes
    assert (six["gender"], six["age"], six["social_group"]) == ("female", "young_adulthood", "7")
    same = {(r.subject, r.object) for r in graph.relations if r.predicate == "in the same group as"}
    assert same == {("pedestrian:6", "pedestrian:7"), ("pedestrian:7", "pedestrian:6")}
    asked = generate_many(graph, Preferences(task="vqa-wh"), 30, seed=0)
    assert {q.asked for q in asked} >= {"age", "gender"}
    grouped = generate_many(graph, Preferences(task="vg", spatial="pair"), 40, seed=0)
    assert any("in the same group as" in q.text for q in grouped), [q.text for q in grouped]


def test_export_gives_the_toolkit_the_same_ground_truth(imported, tmp_path):
    """JRDB's own GT conversion reads our export exactly as it reads the original file,
    and our HOI labels sit beside the imported fields, shaped like H-interaction."""
    db, _root = imported
    with open_project(db) as p:
        seq = p.sequences.find(NAME)
        frame = next(f for f in p.sequences.frames(seq.id) if f.index == 15)
        ids = {e.key: e.id for e in p.sequences.entities(seq.id)}
        ada = p.annotators.sign_in("Ada")
        cup = p.sequences.add_object(seq.id, "cup:1", "cup", ada)
        p.sequences.set_box_2d(cup, frame.id, (3300.0, 300.0, 20.0, 30.0), ada)
        for predicate, target, category, difficulty in (
            ("sitting", None, "pose", 1),
            ("holding", cup, "physical", 2),
            ("looking_at", cup, "observational", 3),
        ):
            p.hoi.add_label(
                frame_id=frame.id,
                subject_entity_id=ids["pedestrian:7"],
                object_entity_id=target,
                category=category,
                predicate=predicate,
                difficulty=difficulty,
                annotator=ada,
            )
    out_dir, orig_dir = tmp_path / "export", tmp_path / "original"
    out_dir.mkdir(), orig_dir.mkdir()
    assert export_labels(db, NAME, out_dir / f"{NAME}.json") == 3
    shutil.copy(FIXTURE, orig_dir / f"{NAME}.json")
    gt = toolkit()
    labelmap = str(DATA / "task_1.pbtxt")
    ours = gt.construct_GT(str(out_dir), labelmap)
    theirs = gt.construct_GT(str(orig_dir), labelmap)
    assert ours == theirs
    assert len(theirs["./out/gt_group.txt"]) == 6  # 3 evaluated boxes in each key frame
    assert "0 15 3359 106 3595 472 7 1 1\r\n" in theirs["./out/gt_group.txt"]
    assert any(line.endswith(" 1\r\n") for line in theirs["./out/gt_action.txt"])
    doc = json.loads((out_dir / f"{NAME}.json").read_text())
    seven = next(e for e in doc["labels"]["000015.jpg"] if e["label_id"] == "pedestrian:7")
    original = json.loads(FIXTURE.read_text())["labels"]["000015.jpg"][1]
    assert {k: v for k, v in seven.items() if k not in ("HOI", "pose_label")} == original
    assert seven["pose_label"] == {"sitting": 1}
    assert seven["HOI"] == [
        {
            "pair": "cup:1",
            "box_pair": [3300, 300, 20, 30],
            "inter_labels": {"holding": 2, "looking at": 3},
        }
    ]


def test_a_fractional_difficulty_is_refused_in_one_line_and_stores_nothing(tmp_path, capsys):
    db = tmp_path / "project.reasonscope"
    open_project(db, create=True).close()
    activity = json.loads(FIXTURE.read_text())
    activity["labels"]["000016.jpg"][1]["social_activity"]["sitting"] = 1.5
    root = make_root(tmp_path, activity)
    before = info(db, capsys)
    assert main(["import", "jrdb", str(root), "--db", str(db)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    err = [line for line in lines if not line.lstrip().startswith(("0%", "100%"))]
    assert len(err) == 1 and err[0].startswith("reasonscope: error: "), lines
    path = root / L.LABELS_ACTIVITY / f"{NAME}.json"
    assert str(path) in err[0]
    assert 'labels["000016.jpg"][1].social_activity["sitting"]' in err[0] and "1.5" in err[0]
    assert info(db, capsys) == before


def test_a_labelled_person_outside_the_activity_file_is_written_no_eval(tmp_path):
    """A person with a 2D box but no JRDB-Act entry gets one made from the box, marked
    no_eval, so the toolkit's ground truth is still the original file's."""
    db = tmp_path / "project.reasonscope"
    open_project(db, create=True).close()
    box = {
        "label_id": "pedestrian:20",
        "file_id": "000015.jpg",
        "box": [500, 100, 50, 150],
        "attributes": {"occlusion": "Fully_visible", "no_eval": False},
    }
    root = make_root(tmp_path, json.loads(FIXTURE.read_text()), {"000015.jpg": box})
    assert main(["import", "jrdb", str(root), "--db", str(db)]) == 0
    with open_project(db) as p:
        seq = p.sequences.find(NAME)
        frame = next(f for f in p.sequences.frames(seq.id) if f.index == 15)
        person = next(e for e in p.sequences.entities(seq.id) if e.key == "pedestrian:20")
        p.hoi.add_label(
            frame_id=frame.id,
            subject_entity_id=person.id,
            object_entity_id=None,
            category="pose",
            predicate="walking",
            difficulty=2,
            annotator=p.annotators.sign_in("Ada"),
        )
    out_dir, orig_dir = tmp_path / "export", tmp_path / "original"
    out_dir.mkdir(), orig_dir.mkdir()
    export_labels(db, NAME, out_dir / f"{NAME}.json")
    shutil.copy(FIXTURE, orig_dir / f"{NAME}.json")
    doc = json.loads((out_dir / f"{NAME}.json").read_text())
    last = doc["labels"]["000015.jpg"][-1]
    assert last["label_id"] == "pedestrian:20" and last["attributes"]["no_eval"] is True
    assert last["box"] == [500, 100, 50, 150] and last["pose_label"] == {"walking": 2}
    gt, labelmap = toolkit(), str(DATA / "task_1.pbtxt")
    assert gt.construct_GT(str(out_dir), labelmap) == gt.construct_GT(str(orig_dir), labelmap)
