"""`reasonscope export labels`: one sequence's HOI labels in the JRDB-Act style."""

from __future__ import annotations

import json

import pytest
from hoi_fixtures import build_hoi_project

from app.cli import main
from app.io.hoi_labels import FORMAT, export_labels
from store import open_project


@pytest.fixture(scope="module")
def hp(tmp_path_factory):
    hp = build_hoi_project(tmp_path_factory.mktemp("hoi_export"))
    with open_project(hp.db) as p:
        alice, bob, carol = (p.annotators.sign_in(n) for n in ("Alice", "Bob", "Carol"))
        person, bag = hp.persons["pedestrian:2"], hp.objects["bag:1"]

        def add(frame, predicate, target, difficulty, category="physical"):
            return p.hoi.add_label(
                frame_id=hp.frame_ids[frame],
                subject_entity_id=person,
                object_entity_id=target,
                category=category,
                predicate=predicate,
                difficulty=difficulty,
                annotator=alice,
            )

        walking = add(0, "walking", None, 1, "pose")
        add(0, "carrying", bag, 2)
        add(0, "looking_at", bag, 3, "observational")
        add(0, "touching", hp.objects["chair:1"], 1)
        add(1, "carrying", bag, 2)
        for who in (bob, carol):
            p.hoi.review(walking.id, reviewer=who, verdict="accept", difficulty=1)
    return hp


def test_export_groups_labels_by_person_and_target(hp, tmp_path):
    out = tmp_path / "labels.json"
    assert export_labels(hp.db, "synthetic-cafe_0", out) == 5
    doc = json.loads(out.read_text())
    assert doc["format"] == FORMAT and doc["sequence"] == "synthetic-cafe_0"
    assert list(doc["labels"]) == [f"{i:06d}.jpg" for i in range(6)]
    people = {e["label_id"]: e for e in doc["labels"]["000000.jpg"]}
    entry = people["pedestrian:2"]
    # the imported activity/social entry, whole, with our labels beside it
    for field in (
        "box",
        "attributes",
        "action_label",
        "social_group",
        "social_activity",
        "demographics_info",
        "H-interaction",
        "group_info",
    ):
        assert field in entry, field
    assert entry["pose_label"] == {"walking": 1}
    assert [(g["pair"], g["inter_labels"]) for g in entry["HOI"]] == [
        ("bag:1", {"carrying": 2, "looking at": 3}),
        ("chair:1", {"touching": 1}),
    ]
    assert all(len(g["box_pair"]) == 4 for g in entry["HOI"])
    others = [e for k, e in people.items() if k != "pedestrian:2"]
    assert others and not any("HOI" in e or "pose_label" in e for e in others)
    assert all("HOI" not in e for e in doc["labels"]["000005.jpg"])
    assert doc["categories"]["looking at"] == "observational"
    assert doc["difficulty"] == {"1": "easy", "2": "medium", "3": "hard"}


def test_accepted_only_and_the_command_line(hp, tmp_path, capsys):
    out = tmp_path / "accepted.json"
    code = main(
        [
            "export",
            "labels",
            "--db",
            str(hp.db),
            "--sequence",
            "synthetic-cafe_0",
            "--out",
            str(out),
            "--status",
            "accepted",
            "--json",
        ]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out)["labels"] == 1
    doc = json.loads(out.read_text())
    assert doc["status"] == "accepted"
    (mine,) = [e for e in doc["labels"]["000000.jpg"] if "pose_label" in e]
    assert mine["label_id"] == "pedestrian:2" and mine["pose_label"] == {"walking": 1}
    assert not any("HOI" in e or "pose_label" in e for e in doc["labels"]["000001.jpg"])


def test_unknown_sequence_is_one_line_and_writes_nothing(hp, tmp_path, capsys):
    out = tmp_path / "none.json"
    code = main(["export", "labels", "--db", str(hp.db), "--sequence", "nope", "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no sequence 'nope'" in err[0] and "synthetic-cafe_0" in err[0]
    assert not out.exists()
