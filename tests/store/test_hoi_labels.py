"""HOI labels in the store: review rounds and their rules, undo writes, trash, propagation,
queues and progress, on a small imported synthetic sequence."""

from __future__ import annotations

import sqlite3

import pytest
from hoi_fixtures import build_hoi_project, copy_of

from annotation.jrdb.hoi_review import ACCEPTED, HALF, RETURNED, UNREVIEWED, in_qc_sample
from store import ProjectError, open_project


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("hoi"))


@pytest.fixture
def hp(base, tmp_path):
    return copy_of(base, tmp_path)


@pytest.fixture
def project(hp):
    with open_project(hp.db) as p:
        yield p


@pytest.fixture
def people(project):
    return [project.annotators.sign_in(n) for n in ("Alice", "Bob", "Carol", "Dan")]


def _label(project, hp, who, frame=0, predicate="holding", target="bag:1", difficulty=2):
    return project.hoi.add_label(
        frame_id=hp.frame_ids[frame],
        subject_entity_id=hp.persons["pedestrian:2"],
        object_entity_id=hp.objects[target] if target else None,
        category="physical" if target else "pose",
        predicate=predicate,
        difficulty=difficulty,
        annotator=who,
        unique=True,
    )


def _count(project, table: str) -> int:
    return project.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_migration_adds_rounds_and_keeps_old_reviews(tmp_path):
    from sqlite_utils import Database

    from store import schema

    db = Database(tmp_path / "old.reasonscope")
    schema.migrations.apply(db, stop_before="0005_hoi_review_rounds")
    db.execute("INSERT INTO annotators(id, name, created_at) VALUES (1, 'A', 't'), (2, 'B', 't')")
    db.execute("INSERT INTO sequences(id, name, root, imported_at) VALUES (1, 's', '/', 't')")
    db.execute("INSERT INTO frames(id, sequence_id, frame_index) VALUES (1, 1, 0)")
    db.execute(
        "INSERT INTO entities(id, sequence_id, entity_key, kind) VALUES (1, 1, 'p:1', 'human')"
    )
    db.execute(
        "INSERT INTO hoi_labels(id, frame_id, subject_entity_id, category, predicate, difficulty, "
        "annotator_id, created_at, updated_at) VALUES (1, 1, 1, 'pose', 'walking', 3, 1, 't', 't')"
    )
    db.execute(
        "INSERT INTO hoi_reviews(label_id, reviewer_id, verdict, difficulty, created_at) "
        "VALUES (1, 2, 'accept', 2, 't')"
    )
    db.conn.commit()
    db.conn.close()
    with open_project(tmp_path / "old.reasonscope") as p:
        record = p.hoi.record(1)
        assert record.round == 1 and record.status == HALF
        (review,) = record.reviews
        assert (review.round, review.kind, review.label_difficulty) == (1, "review", 3)


def test_status_follows_reviews_and_rounds(project, hp, people):
    alice, bob, carol, dan = people
    label = _label(project, hp, alice)
    assert project.hoi.record(label.id).status == UNREVIEWED
    project.hoi.review(label.id, reviewer=bob, verdict="accept", difficulty=2)
    assert project.hoi.record(label.id).status == HALF
    project.hoi.review(label.id, reviewer=carol, verdict="reject", comment="a backpack")
    record = project.hoi.record(label.id)
    assert record.status == RETURNED
    assert [r.id for r in project.hoi.returned_queue(alice)] == [label.id]
    # The author changes it: a new round, the old reviews kept as history.
    record = project.hoi.update_label(label.id, alice, predicate="carrying")
    assert (record.round, record.status, len(record.reviews)) == (2, UNREVIEWED, 2)
    assert project.hoi.returned_queue(alice) == []
    # Round 2 takes two fresh reviews; the round-1 reviewers may give them.
    project.hoi.review(label.id, reviewer=carol, verdict="accept", difficulty=3)
    project.hoi.review(label.id, reviewer=dan, verdict="accept", difficulty=2)
    assert project.hoi.record(label.id).status == ACCEPTED
    # Changing a label nobody has reviewed keeps its round.
    fresh = _label(project, hp, alice, frame=1)
    assert project.hoi.update_label(fresh.id, alice, difficulty=3).round == 1


def test_review_rules_are_enforced(project, hp, people):
    alice, bob, carol, dan = people
    label = _label(project, hp, alice)
    with pytest.raises(ProjectError, match="own label"):
        project.hoi.review(label.id, reviewer=alice, verdict="accept")
    with pytest.raises(ValueError, match="comment"):
        project.hoi.review(label.id, reviewer=bob, verdict="reject")
    first = project.hoi.review(label.id, reviewer=bob, verdict="accept", difficulty=1)
    again = project.hoi.review(label.id, reviewer=bob, verdict="reject", comment="no bag")
    assert again.id == first.id  # one review per reviewer and round: changing it replaces it
    project.hoi.review(label.id, reviewer=carol, verdict="accept", difficulty=2)
    with pytest.raises(ProjectError, match="two reviews"):
        project.hoi.review(label.id, reviewer=dan, verdict="accept")
    assert _count(project, "hoi_reviews") == 2
    # The triggers hold even for SQL that skips the repository.
    with pytest.raises(sqlite3.IntegrityError, match="two reviews"):
        project.db.execute(
            "INSERT INTO hoi_reviews(label_id, reviewer_id, verdict, created_at) "
            "VALUES (?, ?, 'accept', 't')",
            [label.id, dan.id],
        )
    with pytest.raises(sqlite3.IntegrityError, match="own label"):
        project.db.execute(
            "INSERT INTO hoi_reviews(label_id, reviewer_id, kind, verdict, created_at) "
            "VALUES (?, ?, 'qc', 'accept', 't')",
            [label.id, alice.id],
        )


def test_quality_check_needs_a_third_person_after_two_accepts(project, hp, people):
    alice, bob, carol, dan = people
    label = _label(project, hp, alice)
    with pytest.raises(ProjectError, match="two reviews before"):
        project.hoi.review(label.id, reviewer=dan, verdict="accept", kind="qc")
    project.hoi.review(label.id, reviewer=bob, verdict="accept", difficulty=2)
    project.hoi.review(label.id, reviewer=carol, verdict="accept", difficulty=2)
    with pytest.raises(ProjectError, match="quality-check"):
        project.hoi.review(label.id, reviewer=bob, verdict="accept", kind="qc")
    project.hoi.review(label.id, reviewer=dan, verdict="reject", comment="wrong bag", kind="qc")
    assert project.hoi.record(label.id).status == RETURNED


def test_qc_queue_holds_the_seeded_sample(project, hp, people):
    alice, bob, carol, dan = people
    labels = [
        _label(project, hp, alice, frame=f, predicate=p, target=t)
        for f in range(6)
        for p, t in (("holding", "bag:1"), ("touching", "chair:1"), ("walking", None))
    ]
    for label in labels:
        project.hoi.review(label.id, reviewer=bob, verdict="accept", difficulty=1)
        project.hoi.review(label.id, reviewer=carol, verdict="accept", difficulty=1)
    with project.write():
        project.db.execute(
            "INSERT INTO project_meta(key, value) VALUES ('hoi_qc_rate', '0.5'), "
            "('hoi_qc_seed', '7')"
        )
    expected = [label.id for label in labels if in_qc_sample(label.id, 7, 0.5)]
    assert 0 < len(expected) < len(labels)
    assert [r.id for r in project.hoi.qc_queue(dan)] == expected
    assert project.hoi.qc_queue(bob) == []  # a reviewer does not check their own round
    assert project.hoi.qc_queue(alice) == []


def test_review_queue(project, hp, people):
    alice, bob, carol, dan = people
    one = _label(project, hp, alice)
    two = _label(project, hp, bob, frame=1)
    assert [r.id for r in project.hoi.review_queue(carol)] == [one.id, two.id]
    assert [r.id for r in project.hoi.review_queue(alice)] == [two.id]
    project.hoi.review(one.id, reviewer=carol, verdict="accept", difficulty=2)
    assert [r.id for r in project.hoi.review_queue(carol)] == [two.id]
    project.hoi.review(one.id, reviewer=dan, verdict="accept", difficulty=2)
    assert [r.id for r in project.hoi.review_queue(bob)] == []


def test_delete_restore_keeps_ids_and_reviews(project, hp, people):
    alice, bob, *_ = people
    label = _label(project, hp, alice)
    project.hoi.review(label.id, reviewer=bob, verdict="accept", difficulty=3)
    before = project.hoi.record(label.id)
    project.hoi.delete_label(label.id, alice)
    assert project.hoi.record(label.id) is None and _count(project, "hoi_reviews") == 0
    newer = _label(project, hp, alice, frame=2)
    assert newer.id > label.id  # a deleted label's id is never given out again
    restored = project.hoi.restore_label(label.id, alice)
    assert restored.content() == before.content()
    actions = [(e.action, e.row_id) for e in project.audit.recent(10) if e.table == "hoi_labels"]
    assert ("delete", str(label.id)) in actions and ("restore", str(label.id)) in actions


def test_put_label_refuses_when_the_label_changed_since(project, hp, people):
    alice, bob, *_ = people
    label = _label(project, hp, alice)
    seen = project.hoi.record(label.id)
    project.hoi.review(label.id, reviewer=bob, verdict="accept", difficulty=2)
    with pytest.raises(ProjectError, match="changed since"):
        project.hoi.put_label(label.id, None, alice, expect=seen)
    assert project.hoi.record(label.id) is not None
    now = project.hoi.record(label.id)
    assert project.hoi.put_label(label.id, None, alice, expect=now) is None


def test_duplicates_are_refused_when_asked(project, hp, people):
    alice = people[0]
    _label(project, hp, alice)
    with pytest.raises(ProjectError, match="already has"):
        _label(project, hp, alice)
    _label(project, hp, alice, target="chair:1")  # another target is another label


def test_propagate_follows_the_track(project, hp, people):
    alice = people[0]
    label = _label(project, hp, alice, frame=1)
    _label(project, hp, alice, frame=3)  # already there: skipped
    bag = hp.objects["bag:1"]
    with project.write():  # the bag leaves the view in the last frame
        project.db.execute(
            "DELETE FROM boxes_2d WHERE entity_id = ? AND frame_id = ?", [bag, hp.frame_ids[5]]
        )
        project.db.execute(
            "DELETE FROM boxes_3d WHERE entity_id = ? AND frame_id = ?", [bag, hp.frame_ids[5]]
        )
    created, plan = project.hoi.propagate(label.id, alice, count=10, direction=1)
    assert [c.frame_id for c in created] == [hp.frame_ids[2], hp.frame_ids[4]]
    assert plan.skipped == {"already labelled": 1, "target not in frame": 1}
    assert {(c.predicate, c.difficulty, c.object_entity_id) for c in created} == {
        ("holding", 2, bag)
    }
    back, plan = project.hoi.propagate(label.id, alice, count=1, direction=-1)
    assert [c.frame_id for c in back] == [hp.frame_ids[0]]


def test_progress_counts_person_frames_and_reviews(project, hp, people):
    alice, bob, carol, _ = people
    one = _label(project, hp, alice)
    _label(project, hp, alice, predicate="walking", target=None)  # same person and frame
    project.hoi.review(one.id, reviewer=bob, verdict="accept", difficulty=2)
    project.hoi.review(one.id, reviewer=carol, verdict="accept", difficulty=2)
    progress = project.hoi.progress(hp.sequence_id)
    assert progress.person_frames == 3 * 6
    assert progress.labelled_person_frames == 1
    assert (progress.labels, progress.reviewed_twice, progress.accepted) == (2, 1, 1)
