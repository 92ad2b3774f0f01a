"""Reviewer and annotator packages on an imported JRDB-layout sequence: the review rules
across packages, conflicts on labels edited meanwhile, frames carried with their files."""

from __future__ import annotations

import sqlite3

import pytest
from hoi_fixtures import build_hoi_project

from app.work_packages.create import PackageRequest, create_package
from app.work_packages.files import unpack_files
from app.work_packages.merge import apply_conflict, merge_package
from store import ProjectError, open_project


@pytest.fixture
def hoi(tmp_path):
    base = build_hoi_project(tmp_path)
    persons, objects = list(base.persons.values()), list(base.objects.values())
    with open_project(base.db) as p:
        ana = p.annotators.sign_in("ana")
        for frame in base.frame_ids[:2]:
            p.hoi.add_label(
                frame_id=frame,
                subject_entity_id=persons[0],
                object_entity_id=objects[0],
                category="human-object",
                predicate="holding",
                difficulty=2,
                annotator=ana,
            )
    return base


def _review(pack, name, verdicts):
    with open_project(pack) as p:
        me = p.annotators.sign_in(name)
        for label_id, verdict in verdicts.items():
            comment = "" if verdict == "accept" else "the cup is on the table"
            p.hoi.review(label_id, reviewer=me, verdict=verdict, comment=comment)


def test_two_reviewers_packages_and_the_rules_across_packages(hoi, tmp_path):
    def pack(name, **kw):
        request = PackageRequest(name, "reviewer", labels=kw.pop("labels", True), **kw)
        return create_package(hoi.db, request, tmp_path / f"{name}.rspack")

    with pytest.raises(ProjectError, match="no one reviews their own label"):
        pack("ana", labels=[1])
    assert [i["id"] for i in pack("ben")["items"]] == [1, 2]
    assert [i["version"] for i in pack("cy")["items"]] == ["r1", "r1"]
    with pytest.raises(ProjectError, match="nothing to hand to dan"):
        pack("dan")  # both labels have their two reviewers out
    conn = sqlite3.connect(tmp_path / "cy.rspack")
    assert conn.execute("SELECT count(*) FROM hoi_reviews").fetchone()[0] == 0
    conn.close()
    _review(tmp_path / "ben.rspack", "ben", {1: "accept", 2: "accept"})
    _review(tmp_path / "cy.rspack", "cy", {1: "accept", 2: "reject"})
    with open_project(hoi.db) as p:  # ana edits label 2 meanwhile (before cy's is merged)
        assert merge_package(hoi.db, tmp_path / "ben.rspack").merged["reviews"] == 2
        p.hoi.update_label(2, p.annotators.find("ana"), difficulty=3)
    report = merge_package(hoi.db, tmp_path / "cy.rspack")
    assert report.merged["reviews"] == 1
    assert [(c["item_id"], "edited here since" in c["reason"]) for c in report.conflicts] == [
        (2, True)
    ]
    with open_project(hoi.db) as p:
        assert p.hoi.record(1).status == "accepted"
        assert len(p.hoi.record(2).current("review")) == 0  # a new round: ben's was round 1
        assert p.packages.conflicts()[0]["work"]["verdict"] == "reject"
        team = {row["person"]: row for row in p.packages.team()}
        assert (team["ben"]["assigned"], team["ben"]["merged"]) == (2, 2)
        # returned: its kept-aside review no longer holds the label's slot
        assert (team["cy"]["merged"], team["cy"]["outstanding"]) == (2, 0)
        conflict = p.packages.conflicts()[0]["id"]
    # the owner decides cy's reject still holds for the edited label: it joins round 2
    apply_conflict(hoi.db, conflict)
    with open_project(hoi.db) as p:
        [review] = p.hoi.record(2).current("review")
        assert (review.verdict, review.round, p.packages.conflicts()) == ("reject", 2, [])


def test_an_annotators_frames_go_out_with_their_files_and_labels_come_back(hoi, tmp_path):
    out = tmp_path / "fay.rspack"
    request = PackageRequest("fay", "annotator", sequence="synthetic-cafe_0", frames=(0, 2))
    manifest = create_package(hoi.db, request, out)
    assert [i["kind"] for i in manifest["items"]] == ["frame"] * 3 and not manifest["notes"]
    with pytest.raises(ProjectError, match="frame 2 of synthetic-cafe_0 is out with fay"):
        create_package(
            hoi.db,
            PackageRequest("gil", "annotator", sequence="synthetic-cafe_0", frames=(2, 3)),
            tmp_path / "gil.rspack",
        )
    laptop = tmp_path / "laptop"
    laptop.mkdir()
    moved = laptop / "fay.rspack"
    out.rename(moved)
    with open_project(moved) as p:
        folder = unpack_files(p)
        sequence = p.sequences.list()[0]
        frames = p.sequences.frames(sequence.id)
        assert len(frames) == 3 and sequence.root.startswith(str(folder))
        for frame in frames:
            assert (folder / sequence.name / frame.image_path).is_file()
            assert all((folder / sequence.name / c).is_file() for c in frame.pointcloud_paths)
        fay = p.annotators.sign_in("fay")
        persons = [e.id for e in p.sequences.entities(sequence.id, "human")]
        p.hoi.add_label(
            frame_id=frames[2].id,
            subject_entity_id=persons[1],
            object_entity_id=None,
            category="pose",
            predicate="sitting",
            difficulty=1,
            annotator=fay,
        )
        drawn = p.sequences.add_entity(sequence.id, "cup:99", "object", "cup", source="annotator")
        p.hoi.add_label(
            frame_id=frames[2].id,
            subject_entity_id=persons[1],
            object_entity_id=drawn,
            category="physical",
            predicate="holding",
            difficulty=2,
            annotator=fay,
        )
    report = merge_package(hoi.db, moved)
    assert report.merged["labels"] == 1
    assert [c["reason"].split(": ", 1)[1] for c in report.conflicts] == [
        f"entity {drawn} of the package was not merged (drawn there without a box)"
    ]
    with open_project(hoi.db) as p:
        merged = [r for r in p.hoi.records() if r.label.predicate == "sitting"]
        assert [(r.label.frame_id, r.author_name) for r in merged] == [(frames[2].id, "fay")]
    assert not merge_package(hoi.db, moved).changed


def test_a_carried_file_changed_is_tampering(hoi, tmp_path):
    out = tmp_path / "fay.rspack"
    create_package(
        hoi.db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0", frames=(0, 0)), out
    )
    conn = sqlite3.connect(out)
    conn.execute("UPDATE package_files SET data = x'00', sha256 = 'x' WHERE rowid = 1")
    conn.commit()
    conn.close()
    with pytest.raises(ProjectError, match="tampered"):
        merge_package(hoi.db, out)


def test_review_slots_out_in_packages_are_not_offered_in_the_project(hoi, tmp_path):
    create_package(hoi.db, PackageRequest("ben", "reviewer", labels=[1]), tmp_path / "b.rspack")
    create_package(hoi.db, PackageRequest("cy", "reviewer", labels=[1]), tmp_path / "c.rspack")
    with open_project(hoi.db) as p:
        ben, dan = p.annotators.sign_in("ben"), p.annotators.sign_in("dan")
        assert [r.id for r in p.hoi.review_queue(dan)] == [2]
        assert [r.id for r in p.hoi.review_queue(ben)] == [2]
        assert [r.id for r in p.hoi.queues(dan)["review"]] == [2]


def test_a_review_given_in_the_project_cannot_take_a_slot_out_in_a_package(hoi, tmp_path):
    create_package(hoi.db, PackageRequest("ben", "reviewer", labels=[1]), tmp_path / "b.rspack")
    create_package(hoi.db, PackageRequest("cy", "reviewer", labels=[1]), tmp_path / "c.rspack")
    with open_project(hoi.db) as p:
        dan, ben = p.annotators.sign_in("dan"), p.annotators.find("ben")
        with pytest.raises(ProjectError, match="review slots are out in work packages"):
            p.hoi.review(1, reviewer=dan, verdict="accept")
        with pytest.raises(ProjectError, match="is out with ben in a work package"):
            p.hoi.review(1, reviewer=ben, verdict="accept")
        p.hoi.review(2, reviewer=dan, verdict="accept")


def test_a_frame_goes_to_an_annotator_once(hoi, tmp_path):
    out = tmp_path / "fay.rspack"
    request = PackageRequest("fay", "annotator", sequence="synthetic-cafe_0", frames=(0, 0))
    create_package(hoi.db, request, out)
    with open_project(out) as p:
        fay = p.annotators.sign_in("fay")
        person = p.sequences.entities(p.sequences.list()[0].id, "human")[0].id
        p.hoi.add_label(
            frame_id=p.sequences.frames(p.sequences.list()[0].id)[0].id,
            subject_entity_id=person,
            object_entity_id=None,
            category="pose",
            predicate="sitting",
            difficulty=1,
            annotator=fay,
        )
    merge_package(hoi.db, out)
    with pytest.raises(ProjectError, match="frame 0 of synthetic-cafe_0 is out with fay already"):
        create_package(hoi.db, request, tmp_path / "again.rspack")
    other = PackageRequest("gil", "annotator", sequence="synthetic-cafe_0", frames=(0, 0))
    assert len(create_package(hoi.db, other, tmp_path / "gil.rspack")["items"]) == 1
