"""Object tracks in the store: keyframes stored, the rest derived; track ends; the rules."""

from __future__ import annotations

import math

import pytest

from annotation.jrdb.tracks import TrackError
from store import schema


@pytest.fixture
def track(project, alice):
    """A sequence of 10 frames and a bag drawn by Alice (no boxes yet)."""
    repo = project.sequences
    s = repo.add("cafe_0", "/data/jrdb", {"source": "identity"})
    frames = [repo.add_frame(s.id, i, f"images/{i:06d}.jpg") for i in range(10)]
    bag = repo.add_drawn_entity(s.id, "object", "bag", alice)
    person = repo.add_entity(s.id, "pedestrian:1", "human", "pedestrian")
    return repo, frames, bag, person


def test_the_track_migration_is_registered():
    assert "0017_track_ends" in schema.known_migration_names()


def test_between_keyframes_boxes_are_interpolated_and_not_stored(project, track, alice):
    repo, frames, bag, _ = track
    repo.set_box_2d(bag, frames[0].id, (100, 50, 20, 40), alice)
    repo.set_box_2d(bag, frames[2].id, (140, 50, 20, 40), alice)
    repo.set_box_3d(bag, frames[0].id, (2, 0, 0, 1, 1, 1, math.radians(170)), alice)
    repo.set_box_3d(bag, frames[2].id, (4, 0, 0, 1, 1, 1, math.radians(-170)), alice)
    [mid] = repo.box_records(frames[1].id, "2d")
    assert mid.source == "interpolated" and mid.box.attributes["interpolated"] is True
    assert (mid.box.x, mid.box.w) == (120, 20)
    [solid] = repo.box_records(frames[1].id, "3d")
    assert solid.box.cx == 3 and abs(abs(solid.box.rot_z) - math.pi) < 1e-9
    assert repo.box_record(bag, frames[0].id).source == "annotator"  # a keyframe
    carried = repo.box_record(bag, frames[9].id)  # after the last keyframe: carried forward
    assert (carried.box.x, carried.source) == (140, "interpolated")
    assert project.db.execute("SELECT count(*) FROM boxes_2d").fetchone()[0] == 2
    assert repo.box_records(frames[1].id, "2d", derived=False) == []


def test_moving_an_interpolated_box_makes_it_a_keyframe(track, alice):
    repo, frames, bag, _ = track
    repo.set_box_2d(bag, frames[0].id, (100, 50, 20, 40), alice)
    repo.set_box_2d(bag, frames[4].id, (140, 50, 20, 40), alice)
    repo.set_box_2d(bag, frames[2].id, (200, 50, 20, 40), alice)
    assert repo.box_record(bag, frames[2].id).source == "annotator"
    assert repo.box_record(bag, frames[1].id).box.x == 150
    assert sorted(repo.keyframes(bag, "2d")) == [0, 2, 4]
    repo.delete_keyframe(bag, frames[2].id, "2d", alice)  # the undo of it
    assert repo.box_record(bag, frames[2].id).box.x == 120


def test_an_ended_track_has_no_box_and_cannot_be_extended_by_mistake(project, track, alice):
    repo, frames, bag, person = track
    repo.set_box_2d(bag, frames[0].id, (100, 50, 20, 40), alice)
    repo.set_box_2d(bag, frames[3].id, (130, 50, 20, 40), alice)
    with pytest.raises(TrackError, match="keyframe in frame 3"):
        repo.end_track(bag, frames[2].id, alice)
    assert repo.end_track(bag, frames[6].id, alice) is None
    assert repo.box_record(bag, frames[5].id) is not None
    assert repo.box_record(bag, frames[6].id) is None
    with pytest.raises(TrackError, match="ended at frame 6"):
        repo.set_box_2d(bag, frames[7].id, (100, 50, 20, 40), alice)
    repo.set_track_end(bag, None, alice)  # reopened
    repo.set_box_2d(bag, frames[7].id, (100, 50, 20, 40), alice)
    with pytest.raises(TrackError, match="boxed by the dataset"):
        repo.end_track(person, frames[6].id, alice)
    actions = [
        r[0]
        for r in project.db.execute(
            "SELECT table_name FROM audit_log WHERE table_name = 'track_ends'"
        )
    ]
    assert actions == ["track_ends", "track_ends"]


def test_bad_keyframes_are_refused_and_nothing_is_written(project, track, alice):
    repo, frames, bag, person = track
    with pytest.raises(TrackError, match="size must be positive"):
        repo.set_box_2d(bag, frames[0].id, (100, 50, 0, 40), alice)
    with pytest.raises(TrackError, match="yaw"):
        repo.set_box_3d(bag, frames[0].id, (1, 1, 0, 1, 1, 1, float("nan")), alice)
    assert project.db.execute("SELECT count(*) FROM boxes_2d").fetchone()[0] == 0


def test_imported_people_are_never_interpolated(track):
    repo, frames, _bag, person = track
    repo.add_box_2d(person, frames[0].id, (10, 10, 10, 10))
    repo.add_box_2d(person, frames[5].id, (20, 10, 10, 10))
    assert repo.box_records(frames[2].id, "2d") == []


def test_copy_along_the_track_reaches_every_frame_the_target_has_a_box(project, track, alice):
    repo, frames, bag, person = track
    for f in frames:
        repo.add_box_2d(person, f.id, (10, 10, 10, 10))
    repo.set_box_2d(bag, frames[0].id, (100, 50, 20, 40), alice)
    repo.set_box_2d(bag, frames[4].id, (140, 50, 20, 40), alice)
    repo.end_track(bag, frames[8].id, alice)
    label = project.hoi.add_label(
        frame_id=frames[0].id,
        subject_entity_id=person,
        object_entity_id=bag,
        category="holding",
        predicate="holding",
        difficulty=1,
        annotator=alice,
    )
    created, _plan = project.hoi.propagate(label.id, alice, 9)
    assert sorted(c.frame_id for c in created) == [f.id for f in frames[1:8]]


def test_a_reopening_is_kept_as_work_with_its_author_and_the_end_it_undid(project, track, alice):
    """Reopened, a track keeps a row with no end and the end it had, so that the
    reopening has an author and a time (a work package carries it home); reopening a
    track with no end, or an imported person's, changes nothing or is refused."""
    repo, frames, bag, person = track
    repo.set_box_2d(bag, frames[0].id, (100, 50, 20, 40), alice)
    assert repo.reopen_track(bag, alice) is None  # nothing to reopen: no row written
    assert project.db.execute("SELECT count(*) FROM track_ends").fetchone() == (0,)
    repo.end_track(bag, frames[4].id, alice)
    assert repo.reopen_track(bag, alice) == 4
    row = project.db.execute(
        "SELECT end_frame, reopened_from, annotator_id FROM track_ends WHERE entity_id = ?",
        [bag],
    ).fetchone()
    assert row == (None, 4, alice.id)
    assert repo.track_end(bag) is None and repo.box_record(bag, frames[9].id) is not None
    assert repo.end_track(bag, frames[6].id, alice) is None  # ended again: a plain end
    assert project.db.execute(
        "SELECT end_frame, reopened_from FROM track_ends WHERE entity_id = ?", [bag]
    ).fetchone() == (6, None)
    with pytest.raises(TrackError, match="boxed by the dataset"):
        repo.reopen_track(person, alice)
    assert "0018_track_reopenings" in schema.known_migration_names()
