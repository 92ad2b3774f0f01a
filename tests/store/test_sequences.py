"""The JRDB repository: import writes, a person's box edits (audited), relations, calibration."""

from __future__ import annotations

import pytest

from annotation.jrdb.geometry import GeometricRelation
from store import ProjectError, schema


@pytest.fixture
def seq(project):
    s = project.sequences.add("cafe_0", "/data/jrdb", {"source": "identity"})
    frame = project.sequences.add_frame(s.id, 0, "images/000000.jpg", timestamp=0.0)
    person = project.sequences.add_entity(s.id, "pedestrian:1", "human", "pedestrian")
    chair = project.sequences.add_entity(s.id, "chair:1", "object", "chair")
    return s, frame, person, chair


def test_the_jrdb_migration_is_registered():
    assert "0004_jrdb_import" in schema.known_migration_names()


def test_imported_boxes_and_labels_read_back(project, seq):
    s, frame, person, chair = seq
    repo = project.sequences
    repo.add_box_2d(person, frame.id, (3740.0, 100.0, 50.0, 120.0), {"occlusion": "Fully_visible"})
    repo.add_box_3d(person, frame.id, (-4.0, 0.0, -0.1, 0.5, 0.6, 1.7, -3.1))
    repo.add_person_label(frame.id, person, "action", "walking", 1)
    [record] = repo.box_records(frame.id, "2d")
    assert record.source == "import" and record.annotator_id is None
    assert record.box.x + record.box.w > 3760 and record.box.attributes["occlusion"]
    assert repo.boxes_3d(frame.id)[0].rot_z == -3.1
    assert repo.person_labels(frame.id) == [
        {
            "entity_id": person,
            "kind": "action",
            "label": "walking",
            "difficulty": 1,
            "other_entity_id": None,
        }
    ]
    assert repo.frame_times(s.id) == {0: 0.0}
    assert [e.key for e in repo.entities(s.id, "object")] == ["chair:1"]
    with pytest.raises(ValueError, match="person label kind"):
        repo.add_person_label(frame.id, person, "mood", "happy")
    with pytest.raises(ValueError, match="finite"):
        repo.add_box_2d(chair, frame.id, (0, 0, float("nan"), 1))


def test_a_person_draws_and_moves_an_object_box(project, seq, alice, bob):
    s, frame, person, _ = seq
    repo = project.sequences
    with pytest.raises(ProjectError, match="signed-in annotator"):
        repo.add_object(s.id, "laptop:1", "laptop", None)
    laptop = repo.add_object(s.id, "laptop:1", "laptop", alice)
    [entity] = [e for e in repo.entities(s.id) if e.id == laptop]
    assert entity.source == "annotator" and entity.kind == "object"
    box = repo.set_box_2d(laptop, frame.id, (10, 20, 30, 40), alice)
    assert (box.x, box.w) == (10.0, 30.0)
    repo.set_box_2d(laptop, frame.id, (12, 20, 30, 40), bob)
    [record] = [r for r in repo.box_records(frame.id, "2d") if r.box.entity_id == laptop]
    assert record.source == "annotator" and record.annotator_id == bob.id and record.updated_at
    box3 = repo.set_box_3d(laptop, frame.id, (1, 2, 0.7, 0.35, 0.25, 0.03, 0.2), alice)
    assert box3.h == 0.03
    with pytest.raises(ValueError):
        repo.set_box_3d(laptop, frame.id, (1, 2, 0.7, -0.35, 0.25, 0.03, 0.2), alice)
    audit = [(e.annotator, e.action, e.table) for e in project.audit.recent(10)]
    assert ("Bob", "update", "boxes_2d") in audit and ("Alice", "create", "boxes_2d") in audit
    assert ("Alice", "create", "boxes_3d") in audit and ("Alice", "create", "entities") in audit


def test_an_imported_person_box_adjusted_by_hand_becomes_the_annotators(project, seq, alice):
    _, frame, person, _ = seq
    repo = project.sequences
    repo.add_box_2d(person, frame.id, (1, 2, 3, 4), {"occlusion": "Mostly_visible"})
    repo.set_box_2d(person, frame.id, (1, 2, 5, 4), alice)
    [record] = repo.box_records(frame.id)
    assert record.source == "annotator" and record.box.w == 5.0
    assert record.box.attributes == {"occlusion": "Mostly_visible"}  # kept when not given
    entry = project.audit.recent(1)[0]
    assert entry.detail["box"] == [[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 5.0, 4.0]]


def test_relations_are_replaced_per_frame_and_atomically(project, seq):
    _, frame, person, chair = seq
    repo = project.sequences
    first = [
        GeometricRelation(0, person, None, "front", "up", "moderate", 4.1, "box_centre"),
        {
            "subject_entity_id": chair,
            "reference_entity_id": person,
            "direction": "left",
            "vertical": "down",
            "distance_bin": "close",
            "distance_m": 0.9,
            "method": "knn10_points",
        },
    ]
    assert repo.set_relations(frame.id, first) == 2
    got = repo.relations(frame.id)
    assert [(r.subject_entity_id, r.reference_entity_id, r.direction) for r in got] == [
        (person, None, "front"),
        (chair, person, "left"),
    ]
    assert got[1].vertical == "down" and got[1].frame_id == frame.id
    with pytest.raises(ValueError):  # a bad record: nothing replaced
        repo.set_relations(frame.id, [first[0], {"subject_entity_id": chair}])
    assert len(repo.relations(frame.id)) == 2
    repo.set_relations(frame.id, [first[0]])
    assert len(repo.relations(frame.id)) == 1
    assert repo.set_relations(frame.id, []) == 0 and repo.relations(frame.id) == []


def test_calibration_changes_need_an_annotator_and_are_audited(project, seq, alice):
    s, *_ = seq
    with pytest.raises(ProjectError):
        project.sequences.set_calibration(s.id, {"source": "x"}, None)
    updated = project.sequences.set_calibration(s.id, {"source": "adjusted"}, alice)
    assert updated.calibration == {"source": "adjusted"}
    entry = project.audit.recent(1)[0]
    assert entry.annotator == "Alice" and entry.table == "sequences"
    assert entry.detail["calibration"] == [{"source": "identity"}, {"source": "adjusted"}]


def test_the_imported_box_is_kept_on_a_persons_first_change(project, seq, alice, bob):
    """The first change of an imported box keeps the dataset's values in `original`; later
    changes keep that first original; a box a person drew has none."""
    s, frame, person, chair = seq
    repo = project.sequences
    repo.add_box_2d(person, frame.id, (100.0, 50.0, 40.0, 120.0))
    repo.add_box_3d(person, frame.id, (4.0, 1.0, -0.2, 0.5, 0.6, 1.7, 0.3))
    repo.set_box_2d(person, frame.id, (110, 50, 40, 120), alice)
    repo.set_box_2d(person, frame.id, (120, 55, 40, 120), bob)
    repo.set_box_3d(person, frame.id, (4.2, 1.0, -0.2, 0.5, 0.6, 1.7, 0.5), alice)
    repo.set_box_2d(chair, frame.id, (7, 8, 9, 10), alice)
    boxes = {r.box.entity_id: r for r in repo.box_records(frame.id, "2d")}
    assert boxes[person].original == (100.0, 50.0, 40.0, 120.0)
    assert (boxes[person].box.x, boxes[person].annotator_id) == (120.0, bob.id)
    assert boxes[chair].original is None
    [box3d] = repo.box_records(frame.id, "3d")
    assert box3d.original == (4.0, 1.0, -0.2, 0.5, 0.6, 1.7, 0.3)
    assert box3d.box.cx == 4.2


def test_drawn_entities_get_keys_the_sequence_does_not_have(project, seq, alice):
    s, frame, person, chair = seq
    repo = project.sequences
    repo.add_entity(s.id, "pedestrian:30", "human", "pedestrian")
    assert repo.next_key(s.id, "pedestrian") == "pedestrian:31"
    assert repo.next_key(s.id, "chair") == "chair:2"
    assert repo.next_key(s.id, "Bag") == "bag:1"
    someone = repo.add_drawn_entity(s.id, "human", "person", alice)
    cup = repo.add_drawn_entity(s.id, "object", "Cup", alice)
    keys = {e.id: (e.key, e.kind, e.category, e.source) for e in repo.entities(s.id)}
    assert keys[someone] == ("pedestrian:31", "human", "pedestrian", "annotator")
    assert keys[cup] == ("cup:1", "object", "cup", "annotator")
    count = len(keys)
    with pytest.raises(ProjectError, match="already has chair:1"):
        repo.add_drawn_entity(s.id, "object", "chair", alice, key="chair:1")
    with pytest.raises(ValueError, match="one of human, object"):
        repo.add_drawn_entity(s.id, "robot", "jackrabbot", alice)
    with pytest.raises(ValueError, match="names a human"):
        repo.add_drawn_entity(s.id, "object", "chair", alice, key="pedestrian:99")
    assert len(repo.entities(s.id)) == count
    audit = project.db.execute(
        "SELECT count(*) FROM audit_log WHERE table_name = 'entities' AND annotator_id = ?",
        [alice.id],
    ).fetchone()[0]
    assert audit == 2


def test_an_entity_removed_from_a_frame_and_restored(project, seq, alice, bob):
    s, frame, person, chair = seq
    repo = project.sequences
    repo.add_box_2d(person, frame.id, (100.0, 50.0, 40.0, 120.0), {"occlusion": "Fully_visible"})
    repo.add_box_3d(person, frame.id, (4.0, 1.0, -0.2, 0.5, 0.6, 1.7, 0.3))
    repo.set_box_2d(chair, frame.id, (7, 8, 9, 10), alice)
    repo.set_relations(
        frame.id, [GeometricRelation(frame.id, person, None, "front", "up", "close", 4.1, "3d")]
    )
    label = project.hoi.add_label(
        frame_id=frame.id,
        subject_entity_id=person,
        object_entity_id=chair,
        category="physical",
        predicate="touching",
        difficulty=1,
        annotator=alice,
    )
    with pytest.raises(ProjectError, match="has 1 HOI label.*delete them first"):
        repo.remove_entity(chair, frame.id, bob)
    project.hoi.delete_label(label.id, alice)
    before = repo.box_records(frame.id, "2d") + repo.box_records(frame.id, "3d")
    repo.remove_entity(person, frame.id, bob)
    assert [b.entity_id for b in repo.boxes_2d(frame.id)] == [chair]
    assert repo.boxes_3d(frame.id) == [] and repo.relations(frame.id) == []
    [removal] = repo.removals(s.id)
    assert (removal["key"], removal["annotator_id"]) == ("pedestrian:1", bob.id)
    assert removal["boxes"]["2d"]["values"] == [100.0, 50.0, 40.0, 120.0]
    with pytest.raises(ProjectError, match="no box in frame 0"):
        repo.remove_entity(person, frame.id, bob)
    repo.restore_entity(person, frame.id, bob)
    after = repo.box_records(frame.id, "2d") + repo.box_records(frame.id, "3d")
    assert sorted(after, key=repr) == sorted(before, key=repr)  # source, attributes too
    assert repo.removals(s.id) == []
    with pytest.raises(ProjectError, match="was not removed"):
        repo.restore_entity(person, frame.id, bob)
