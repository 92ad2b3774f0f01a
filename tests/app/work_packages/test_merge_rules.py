"""The merge of a work package, rule by rule: what the report says, each refusal's words,
and what `apply_conflict` writes and refuses.

Written against the survivors of `make mutants` (docs/development.md, "Mutation testing
of the rules"): each assertion is on a value, a count or the exact line a user reads.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from hoi_fixtures import copy_of, labelled_hoi_project
from question_fixtures import add_mug_questions, build_study_project

from annotation.verification import Verdict
from app.work_packages.create import PackageRequest, create_package
from app.work_packages.merge import MergeReport, apply_conflict, merge_package
from store import ProjectError, open_project

NOW = "2026-01-01T00:00:00+00:00"


def _edit(pack: Path, sql: str, *params) -> None:
    """Change the package as anyone can with the sqlite3 shell, CHECK constraints off."""
    conn = sqlite3.connect(pack)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    assert conn.execute(sql, params).rowcount >= 1, sql
    conn.commit()
    conn.close()


# -- the report ---------------------------------------------------------------------------------
def _touching(p, frame_id: int, subject: int, target: int, annotator):
    """A physical 'touching' label, difficulty 1, added in the project or package `p`."""
    return p.hoi.add_label(
        frame_id=frame_id,
        subject_entity_id=subject,
        object_entity_id=target,
        category="physical",
        predicate="touching",
        difficulty=1,
        annotator=annotator,
    )


def test_the_report_as_a_dict():
    report = MergeReport(
        "0123456789abcdef",
        "ana",
        "verifier",
        merged={"verdicts": 2},
        conflicts=[{"kind": "question", "item_id": 3, "reason": "r"}],
        already=1,
        dry_run=True,
        notes=["a note"],
    )
    assert report.as_dict() == {
        "package_id": "0123456789abcdef",
        "person": "ana",
        "role": "verifier",
        "merged": {"verdicts": 2},
        "conflicts": [{"kind": "question", "item_id": 3, "reason": "r"}],
        "already_merged": 1,
        "dry_run": True,
        "notes": ["a note"],
    }


def test_the_report_lines_name_what_merged_in_the_singular_or_plural():
    report = MergeReport(
        "0123456789abcdef",
        "ana",
        "annotator",
        merged={"verdicts": 0, "boxes": 1, "entities": 2, "label edits": 1},
    )
    assert report.lines() == [
        "Merged ana's annotator package 01234567: 1 box, 2 entities, 1 label edit"
    ]


def test_the_report_lines_of_a_dry_run_with_rows_merged_before_conflicts_and_notes():
    report = MergeReport(
        "fedcba9876543210",
        "ben",
        "reviewer",
        merged={"reviews": 0},
        conflicts=[
            {"kind": "label", "item_id": 4, "reason": "hoi_reviews row 2: edited here"},
            {"kind": "frame", "item_id": 0, "reason": "boxes_2d row 7: size must be positive"},
        ],
        already=3,
        dry_run=True,
        notes=["entity 9 of the package is entity 12 here"],
    )
    assert report.lines() == [
        "Would merge ben's reviewer package fedcba98: nothing new",
        "3 rows were merged before (unchanged)",
        "conflict: label 4: hoi_reviews row 2: edited here (kept aside)",
        "conflict: frame 0: boxes_2d row 7: size must be positive (kept aside)",
        "entity 9 of the package is entity 12 here",
    ]
    assert report.changed
    assert not MergeReport("p", "ben", "reviewer", merged={"reviews": 0}).changed
    assert MergeReport("p", "ben", "reviewer", merged={"reviews": 1}).changed


# -- reviews and labels from packages -----------------------------------------------------------
@pytest.fixture(scope="module")
def hoi_base(tmp_path_factory):
    """A JRDB-layout project with ana's label on each of its two frames (labels 1 and 2)."""
    return labelled_hoi_project(tmp_path_factory.mktemp("merge_rules"))


@pytest.fixture
def reviewed(hoi_base, tmp_path):
    """A copy of the project and ben's reviewer package for label 1, with his review."""
    hoi = copy_of(hoi_base, tmp_path)
    pack = tmp_path / "ben.rspack"
    manifest = create_package(hoi.db, PackageRequest("ben", "reviewer", labels=[1]), pack)
    with open_project(pack) as p:
        review = p.hoi.review(
            1, reviewer=p.annotators.sign_in("ben"), verdict="fix", difficulty=3, comment="cup"
        )
    return hoi, pack, manifest["package_id"], review


def _reviews(db: Path) -> list[tuple]:
    with open_project(db) as p:
        return p.db.execute(
            "SELECT label_id, reviewer_id, round, kind, verdict, difficulty, comment, created_at "
            "FROM hoi_reviews ORDER BY id"
        ).fetchall()


def _conflict_reasons(db: Path) -> list[str]:
    with open_project(db) as p:
        return [c["reason"] for c in p.packages.conflicts()]


def test_a_review_merges_with_its_verdict_difficulty_comment_and_time(reviewed):
    hoi, pack, _package_id, review = reviewed
    report = merge_package(hoi.db, pack)
    assert report.merged["reviews"] == 1 and not report.conflicts
    with open_project(hoi.db) as p:
        ben = p.annotators.find("ben").id
    assert _reviews(hoi.db) == [(1, ben, 1, "review", "fix", 3, "cup", review.created_at)]


def test_a_review_of_a_label_edited_here_since_is_kept_aside(reviewed):
    hoi, pack, _package_id, _review = reviewed
    with open_project(hoi.db) as p:  # no review yet: the edit keeps round 1
        p.hoi.update_label(1, p.annotators.find("ana"), predicate="touching")
    report = merge_package(hoi.db, pack)
    reason = "hoi_reviews row 1: label 1 has been edited here since (round 1)"
    assert report.conflicts == [{"kind": "label", "item_id": 1, "reason": reason}]
    assert _conflict_reasons(hoi.db) == [reason] and _reviews(hoi.db) == []


def test_a_review_of_a_label_deleted_here_since_is_kept_aside(reviewed):
    hoi, pack, _package_id, _review = reviewed
    with open_project(hoi.db) as p:
        p.hoi.delete_label(1, p.annotators.find("ana"))
    report = merge_package(hoi.db, pack)
    reason = "hoi_reviews row 1: label 1 has been deleted here since"
    assert [c["reason"] for c in report.conflicts] == [reason]
    assert _reviews(hoi.db) == []


def test_a_review_of_a_label_the_package_did_not_hold_is_kept_aside(reviewed):
    hoi, pack, _package_id, _review = reviewed
    _edit(pack, "UPDATE hoi_reviews SET label_id = 2")
    report = merge_package(hoi.db, pack)
    reason = "hoi_reviews row 1: label 2 was not in this package for review"
    assert report.conflicts == [{"kind": "label", "item_id": 2, "reason": reason}]
    assert _reviews(hoi.db) == []


def test_an_annotators_label_merges_with_its_fields(hoi_base, tmp_path):
    hoi = copy_of(hoi_base, tmp_path)
    pack = tmp_path / "fay.rspack"
    create_package(hoi.db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack)
    person, thing = list(hoi.persons.values())[1], list(hoi.objects.values())[1]
    with open_project(pack) as p:
        _touching(p, hoi.frame_ids[1], person, thing, p.annotators.sign_in("fay"))
    report = merge_package(hoi.db, pack)
    assert report.merged["labels"] == 1 and not report.conflicts
    with open_project(hoi.db) as p:
        fay = p.annotators.find("fay").id
        [label] = [lab for lab in p.hoi.labels_for_frame(hoi.frame_ids[1]) if lab.id > 2]
    assert (
        label.frame_id,
        label.subject_entity_id,
        label.object_entity_id,
        label.category,
        label.predicate,
        label.difficulty,
        label.annotator_id,
    ) == (hoi.frame_ids[1], person, thing, "physical", "touching", 1, fay)


def test_an_annotators_label_on_a_frame_the_package_did_not_hold_is_kept_aside(hoi_base, tmp_path):
    hoi = copy_of(hoi_base, tmp_path)
    pack = tmp_path / "fay.rspack"
    create_package(hoi.db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack)
    person, thing = list(hoi.persons.values())[1], list(hoi.objects.values())[1]
    with open_project(pack) as p:
        label = _touching(p, hoi.frame_ids[0], person, thing, p.annotators.sign_in("fay"))
    _edit(pack, "UPDATE hoi_labels SET frame_id = 999 WHERE id = ?", label.id)
    report = merge_package(hoi.db, pack)
    reason = f"hoi_labels row {label.id}: frame 999 was not in this package"
    assert report.conflicts == [{"kind": "frame", "item_id": 999, "reason": reason}]


# -- deciding a conflict --------------------------------------------------------------------------
def test_a_review_kept_aside_is_applied_to_the_labels_current_round_and_audited(reviewed):
    hoi, pack, package_id, review = reviewed
    with open_project(hoi.db) as p:
        p.hoi.update_label(1, p.annotators.find("ana"), predicate="touching")
    merge_package(hoi.db, pack)
    with open_project(hoi.db) as p:
        [conflict] = p.packages.conflicts()
        ben = p.annotators.find("ben").id
        audited = p.db.execute("SELECT max(id) FROM audit_log").fetchone()[0]
    target = apply_conflict(hoi.db, conflict["id"])
    assert _reviews(hoi.db) == [(1, ben, 1, "review", "fix", 3, "cup", review.created_at)]
    with open_project(hoi.db) as p:
        assert p.packages.conflicts() == []
        [resolved] = p.packages.conflicts(open_only=False)
        assert resolved["resolution"] == "applied"
        rows = p.db.execute(
            "SELECT annotator_id, action, table_name, row_id, detail FROM audit_log "
            "WHERE id > ? ORDER BY id",
            [audited],
        ).fetchall()
    detail = f'{{"package":"{package_id}","conflict":{conflict["id"]}}}'
    # the review itself is not audited a second time: the entry names the conflict
    assert rows == [
        (None, "conflict_applied", "package_conflicts", str(conflict["id"]), "{}"),
        (ben, "conflict_applied", "labels", str(target), detail),
    ]


def test_applying_a_conflict_refuses_with_the_reason(reviewed):
    hoi, pack, _package_id, _review = reviewed
    with pytest.raises(ProjectError) as refused:
        apply_conflict(hoi.db, 99)
    assert str(refused.value) == f"{hoi.db}: no open conflict #99"
    _edit(pack, "UPDATE hoi_reviews SET label_id = 2")  # a label the package did not hold
    merge_package(hoi.db, pack)
    with open_project(hoi.db) as p:
        [conflict] = p.packages.conflicts()
    with pytest.raises(ProjectError) as refused:
        apply_conflict(hoi.db, conflict["id"])
    assert str(refused.value) == (
        f"{hoi.db}: conflict #{conflict['id']}: label 2 was not (or is no longer) in the "
        "package; its work cannot be applied"
    )
    assert _reviews(hoi.db) == []


# -- verdicts from packages -------------------------------------------------------------------
APPROVE = Verdict(True, True, True, "approve")


@pytest.fixture(scope="module")
def verifier_base(tmp_path_factory):
    path = tmp_path_factory.mktemp("merge_verdicts") / "project.reasonscope"
    with open_project(path, create=True) as p:
        add_mug_questions(p, 2)
        for name in ("ben", "cy"):
            p.annotators.sign_in(name)
    return path


@pytest.fixture
def verdict_pack(verifier_base, tmp_path):
    """A copy of the project and ana's verifier package for question 1, approved."""
    db = tmp_path / "project.reasonscope"
    db.write_bytes(verifier_base.read_bytes())
    pack = tmp_path / "ana.rspack"
    create_package(db, PackageRequest("ana", "verifier", questions=[1]), pack)
    with open_project(pack) as p:
        p.verifications.submit(1, p.annotators.sign_in("ana"), APPROVE, 3.0)
    return db, pack


def _verdicts(db: Path) -> list[tuple]:
    with open_project(db) as p:
        return p.db.execute(
            "SELECT question_id, annotator_id, round, decision FROM verifications ORDER BY id"
        ).fetchall()


def test_a_verdict_on_a_question_the_package_did_not_hold_is_kept_aside(verdict_pack):
    db, pack = verdict_pack
    _edit(pack, "UPDATE verifications SET question_id = 2")
    report = merge_package(db, pack)
    reason = "verifications row 1: question 2 was not in this package"
    assert report.conflicts == [{"kind": "question", "item_id": 2, "reason": reason}]
    assert _verdicts(db) == []


def test_a_verdict_on_a_question_with_two_first_round_verdicts_here_is_kept_aside(verdict_pack):
    db, pack = verdict_pack
    conn = sqlite3.connect(db)  # two others filled the first round here meanwhile
    for annotator in (1, 2):  # ben and cy
        conn.execute(
            "INSERT INTO verifications(question_id, annotator_id, round, unambiguous, "
            "evidence_withheld, evidence_recoverable, decision, reason, corrections, "
            "seconds_on_task, created_at) VALUES (1, ?, 'first', 1, 1, 1, 'approve', '', '{}', "
            "1.0, '2026-01-01T00:00:00+00:00')",
            [annotator],
        )
    conn.commit()
    conn.close()
    before = _verdicts(db)
    report = merge_package(db, pack)
    reason = "verifications row 1: question 1 got its two first-round verdicts here meanwhile"
    assert report.conflicts == [{"kind": "question", "item_id": 1, "reason": reason}]
    assert _verdicts(db) == before


def test_a_verdict_merges_with_its_time_on_task_even_zero(verdict_pack):
    db, pack = verdict_pack
    _edit(pack, "UPDATE verifications SET seconds_on_task = 0")
    assert merge_package(db, pack).merged["verdicts"] == 1
    with open_project(db) as p:
        assert p.db.execute("SELECT seconds_on_task FROM verifications").fetchall() == [(0.0,)]


def test_a_verdict_for_a_round_the_question_is_not_in_here_is_kept_aside(verdict_pack):
    db, pack = verdict_pack
    _edit(pack, "UPDATE verifications SET round = 'adjudication'")
    report = merge_package(db, pack)
    reason = "verifications row 1: question 1: its adjudication slot is gone here"
    assert report.conflicts == [{"kind": "question", "item_id": 1, "reason": reason}]
    assert _verdicts(db) == []
    with open_project(db) as p:  # kept aside: it became no row here, and its audit entry
        # still names the package's row
        assert p.db.execute(
            "SELECT kind, target_id FROM package_work ORDER BY kind"
        ).fetchall() == [("audit", None), ("verdict", None)]
        assert p.db.execute(
            "SELECT table_name, row_id FROM audit_log WHERE action = 'verdict'"
        ).fetchall() == [("verifications", "1")]


def test_an_annotators_frames_are_done_once_work_on_them_merges(hoi_base, tmp_path):
    hoi = copy_of(hoi_base, tmp_path)
    pack = tmp_path / "fay.rspack"
    manifest = create_package(
        hoi.db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack
    )
    person, thing = list(hoi.persons.values())[1], list(hoi.objects.values())[1]
    with open_project(pack) as p:
        _touching(p, hoi.frame_ids[0], person, thing, p.annotators.sign_in("fay"))
    with open_project(hoi.db) as p:
        assert [i["done_at"] for i in p.packages.assignments(manifest["package_id"])] == [
            None,
            None,
        ]
    merge_package(hoi.db, pack)
    with open_project(hoi.db) as p:
        items = p.packages.assignments(manifest["package_id"])
    assert [(i["kind"], i["item_id"]) for i in items] == [("frame", f) for f in hoi.frame_ids]
    assert all(i["done_at"] is not None for i in items)


def test_a_box_kept_aside_is_applied_over_the_box_drawn_here(hoi_base, tmp_path):
    hoi = copy_of(hoi_base, tmp_path)
    pack = tmp_path / "fay.rspack"
    create_package(hoi.db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack)
    person, frame = list(hoi.persons.values())[0], hoi.frame_ids[0]
    with open_project(pack) as p:
        p.sequences.set_box_2d(person, frame, (10, 20, 30, 40), p.annotators.sign_in("fay"))
    with open_project(hoi.db) as p:  # meanwhile, bea draws it here
        p.sequences.set_box_2d(person, frame, (50, 60, 30, 40), p.annotators.sign_in("bea"))
    report = merge_package(hoi.db, pack)
    [conflict] = report.conflicts
    assert conflict["reason"].startswith("boxes_2d row ")
    assert conflict["reason"].endswith("has been changed here since the package went out")
    with open_project(hoi.db) as p:
        [kept] = p.packages.conflicts()
        assert kept["work"]["work_kind"] == "box"
        # no work on its frames merged: they are not done (a frame is done with its work)
        items = p.packages.assignments(p.packages.list()[0]["package_id"])
        assert [i["done_at"] for i in items if i["kind"] == "frame"] == [None, None]
    apply_conflict(hoi.db, kept["id"])
    with open_project(hoi.db) as p:
        record = p.sequences.box_record(person, frame)
        fay = p.annotators.find("fay").id
        assert (record.box.x, record.box.y, record.annotator_id) == (10.0, 20.0, fay)
        assert p.packages.conflicts() == []


# -- ratings and answers ----------------------------------------------------------------------
def test_a_rating_and_an_answer_kept_aside_apply_to_the_questions_current_version(tmp_path):
    db = build_study_project(tmp_path)  # question 2: a JRDB vqa-count
    rater, answerer = tmp_path / "ada.rspack", tmp_path / "ben.rspack"
    create_package(db, PackageRequest("Ada", "rater", questions=[2]), rater)
    create_package(db, PackageRequest("Ben", "human-baseline", questions=[2]), answerer)
    with open_project(rater) as p:
        p.reasoning.rate(2, p.annotators.sign_in("Ada"), 4)
    with open_project(answerer) as p:
        p.reasoning.answer(2, p.annotators.sign_in("Ben"), 3)
    with open_project(db) as p:
        p.questions.correct(2, {"text": "How many people stand?"}, p.annotators.sign_in("Olga"))
        [current] = [q for q in p.questions.versions(p.questions.get(2).uid) if q.is_current]
    merge_package(db, rater)
    merge_package(db, answerer)
    with open_project(db) as p:
        kept = {c["kind"]: c["id"] for c in p.packages.conflicts()}
    assert sorted(kept) == ["answer", "rating"]
    rating_id = apply_conflict(db, kept["rating"])
    answer_id = apply_conflict(db, kept["answer"])
    with open_project(db) as p:
        [rating] = p.reasoning.ratings(current.id, annotator=p.annotators.find("Ada"))
        [answer] = p.reasoning.human_answers(annotator=p.annotators.find("Ben"))
        assert p.packages.conflicts() == []
    assert (rating.id, rating.question_id, rating.rating) == (rating_id, current.id, 4)
    assert (answer.id, answer.question_id, answer.answer) == (answer_id, current.id, 3)


def test_a_merge_is_audited_with_its_person_counts_and_conflicts(verdict_pack):
    db, pack = verdict_pack
    with open_project(pack) as p:
        package_id = p.packages.manifest()["package_id"]
    merge_package(db, pack)
    with open_project(db) as p:
        at, who, action, table, row, detail = p.db.execute(
            "SELECT at, annotator_id, action, table_name, row_id, detail FROM audit_log "
            "ORDER BY id DESC LIMIT 1"
        ).fetchone()
    assert (who, action, table, row) == (None, "package_merge", "packages", package_id)
    counts = dict.fromkeys(
        [
            "verdicts",
            "reviews",
            "entities",
            "boxes",
            "removals",
            "restorations",
            "track ends",
            "labels",
        ]
        + ["label edits", "label deletions", "error labels", "ratings", "answers"],
        0,
    )
    assert json.loads(detail) == {
        "person": "ana",
        **counts,
        "verdicts": 1,
        "audit entries": 1,
        "conflicts": 0,
    }


@pytest.mark.parametrize("stored_before_work_kind", [False, True])
def test_a_verdict_kept_aside_is_applied_to_the_questions_current_version_by_its_rules(
    verdict_pack, stored_before_work_kind
):
    db, pack = verdict_pack
    with open_project(db) as p:
        p.questions.correct(1, {"text": "How many mugs now?"}, p.annotators.sign_in("olga"))
        [current] = [q for q in p.questions.versions(p.questions.get(1).uid) if q.is_current]
    report = merge_package(db, pack)
    [conflict] = report.conflicts
    assert conflict["reason"] == (
        "verifications row 1: question 1 has been corrected here since (no longer current)"
    )
    if stored_before_work_kind:  # a row kept aside by an older build: its kind from the item
        conn = sqlite3.connect(db)
        conn.execute("UPDATE package_conflicts SET work = json_remove(work, '$.work_kind')")
        conn.commit()
        conn.close()
    with open_project(db) as p:
        [kept] = p.packages.conflicts()
    assert ("work_kind" in kept["work"]) is not stored_before_work_kind
    with pytest.raises(ProjectError) as refused:  # a corrected version is not verified
        apply_conflict(db, kept["id"])
    assert str(refused.value) == (
        f"{db}: question {current.id}: is corrected already; nothing to verify"
    )
    assert _verdicts(db) == []
    with open_project(db) as p:
        assert [c["id"] for c in p.packages.conflicts()] == [kept["id"]]


# -- signatures -------------------------------------------------------------------------------
def test_a_verdict_signed_by_anyone_else_refuses_the_package_naming_the_signer(verdict_pack):
    db, pack = verdict_pack
    conn = sqlite3.connect(pack)
    conn.execute("INSERT INTO annotators(id, name, created_at) VALUES (77, 'mallory', ?)", [NOW])
    conn.commit()
    conn.close()
    for signer, shown in (
        (77, "mallory"),
        (999, "annotator 999"),
        ("'x' || 'y'", "annotator 'xy'"),
    ):
        _edit(pack, f"UPDATE verifications SET annotator_id = {signer}")
        with pytest.raises(ProjectError) as refused:
            merge_package(db, pack)
        assert str(refused.value) == (
            f"{pack}: verdict 1 is signed by {shown}, not by ana whose package it is"
        )
    assert _verdicts(db) == []


def test_a_review_signed_by_anyone_else_refuses_the_package(reviewed):
    hoi, pack, _package_id, _review = reviewed
    _edit(pack, "UPDATE hoi_reviews SET reviewer_id = 999")
    with pytest.raises(ProjectError) as refused:
        merge_package(hoi.db, pack)
    assert str(refused.value) == (
        f"{pack}: review 1 is signed by annotator 999, not by ben whose package it is"
    )


def test_a_quality_check_from_a_package_is_judged_as_one(reviewed):
    hoi, pack, _package_id, _review = reviewed
    _edit(pack, "UPDATE hoi_reviews SET kind = 'qc'")
    report = merge_package(hoi.db, pack)
    [conflict] = report.conflicts
    assert conflict["reason"].startswith("hoi_reviews row 1: ")
    assert conflict["reason"].endswith("label #1 needs its two reviews before a quality check")
    assert _reviews(hoi.db) == []


def _fays_package(hoi, tmp_path) -> tuple[Path, dict[str, int]]:
    """fay's annotator package: a label and a 2D box of hers, a person taken out of frame
    1, the track of a person she drew ended, a label of hers copied from home deleted;
    (package, ids: label, box, audit, removal, track, deleted)."""
    persons, frame0, frame1 = list(hoi.persons.values()), hoi.frame_ids[0], hoi.frame_ids[1]
    thing = list(hoi.objects.values())[1]
    with open_project(hoi.db) as p:
        mine = _touching(p, frame0, persons[0], thing, p.annotators.sign_in("fay"))
    pack = tmp_path / "fay.rspack"
    create_package(hoi.db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack)
    with open_project(pack) as p:
        fay = p.annotators.sign_in("fay")
        label = _touching(p, frame0, persons[1], thing, fay)
        p.sequences.set_box_2d(persons[1], frame0, (10, 20, 30, 40), fay)
        p.sequences.remove_entity(persons[2], frame1, fay)
        drawn = p.sequences.add_drawn_entity(hoi.sequence_id, "human", "person", fay)
        p.sequences.set_box_2d(drawn, frame0, (100, 100, 50, 120), fay)
        p.sequences.end_track(drawn, frame1, fay)
        p.hoi.delete_label(mine.id, fay)
        one = "SELECT {} FROM {} WHERE {}"
        ids = {
            key: p.db.execute(one.format(*query)).fetchone()[0]
            for key, query in {
                "box": ("id", "boxes_2d", f"source = 'annotator' AND entity_id = {persons[1]}"),
                "audit": ("max(id)", "audit_log", "annotator_id IS NOT NULL"),
                "removal": ("id", "entity_removals", "1"),
            }.items()
        }
    return pack, {**ids, "label": label.id, "track": drawn, "deleted": mine.id}


@pytest.mark.parametrize(
    ("sql", "what"),
    [
        ("UPDATE hoi_labels SET annotator_id = 999 WHERE id = {label}", "label {label}"),
        ("UPDATE boxes_2d SET annotator_id = 999 WHERE id = {box}", "2d box {box}"),
        ("UPDATE audit_log SET annotator_id = 999 WHERE id = {audit}", "audit entry {audit}"),
        ("UPDATE entity_removals SET annotator_id = 999", "removal {removal}"),
        ("UPDATE track_ends SET annotator_id = 999", "track end {track}"),
        ("UPDATE hoi_label_trash SET deleted_by = 999", "deletion of label {deleted}"),
    ],
)
def test_annotator_work_signed_by_anyone_else_refuses_the_package(hoi_base, tmp_path, sql, what):
    hoi = copy_of(hoi_base, tmp_path)
    pack, ids = _fays_package(hoi, tmp_path)
    _edit(pack, sql.format(**ids))
    with pytest.raises(ProjectError) as refused:
        merge_package(hoi.db, pack)
    assert str(refused.value) == (
        f"{pack}: {what.format(**ids)} is signed by annotator 999, not by fay whose package it is"
    )


def test_annotator_work_signed_by_fay_merges(hoi_base, tmp_path):
    hoi = copy_of(hoi_base, tmp_path)
    pack, _ids = _fays_package(hoi, tmp_path)
    report = merge_package(hoi.db, pack)
    assert report.conflicts == []
    counts = ("labels", "boxes", "removals", "track ends", "label deletions")
    assert [report.merged[k] for k in counts] == [1, 2, 1, 1, 1]


@pytest.mark.parametrize(
    ("role", "table", "what"),
    [("rater", "difficulty_ratings", "rating"), ("human-baseline", "human_answers", "answer")],
)
def test_a_rating_or_answer_signed_by_anyone_else_refuses_the_package(tmp_path, role, table, what):
    db = build_study_project(tmp_path)
    pack = tmp_path / "ada.rspack"
    create_package(db, PackageRequest("Ada", role, questions=[2]), pack)
    with open_project(pack) as p:
        ada = p.annotators.sign_in("Ada")
        if role == "rater":
            p.reasoning.rate(2, ada, 4)
        else:
            p.reasoning.answer(2, ada, 3)
    _edit(pack, f"UPDATE {table} SET annotator_id = 999")
    with pytest.raises(ProjectError) as refused:
        merge_package(db, pack)
    signed = rf"^{re.escape(str(pack))}: {what} \d+ is signed by annotator 999, not by Ada whose"
    assert re.match(signed + " package it is$", str(refused.value)), str(refused.value)


# -- error labels from an episode package -----------------------------------------------------
@pytest.fixture
def episode_pack(verifier_base, tmp_path):
    """A copy of the project with a failed episode, and eve's package with her error label."""
    db = tmp_path / "project.reasonscope"
    db.write_bytes(verifier_base.read_bytes())
    steps = [{"kind": "observation", "name": "observe", "ok": True, "state": {"t": 0}}]
    steps.append(
        {"kind": "tool", "name": "grasp", "arguments": {}, "ok": False, "feedback": ""}
        | {"state": {"t": 1}}
    )
    with open_project(db) as p:
        episode = p.episodes.add(
            {"model": "m1", "task": "find", "success": False, "scene_id": 1}, steps
        ).id
    pack = tmp_path / "eve.rspack"
    create_package(db, PackageRequest("eve", "annotator", episodes=[episode]), pack)
    with open_project(pack) as p:
        p.episodes.add_label(
            episode,
            1,
            "evidence_gathering",
            "failed_grasp_recovery",
            "grasped it again",
            p.annotators.sign_in("eve"),
        )
    return db, pack, episode


def test_an_error_label_merges_with_its_note(episode_pack):
    db, pack, episode = episode_pack
    assert merge_package(db, pack).merged["error labels"] == 1
    with open_project(db) as p:
        [label] = p.episodes.labels(episode)
    assert (label.step_index, label.category, label.subcategory, label.note) == (
        1,
        "evidence_gathering",
        "failed_grasp_recovery",
        "grasped it again",
    )


def test_an_error_label_on_an_episode_the_package_did_not_hold_is_kept_aside(episode_pack):
    db, pack, _episode = episode_pack
    _edit(pack, "UPDATE error_labels SET episode_id = 999")
    report = merge_package(db, pack)
    reason = "error_labels row 1: episode 999 was not in this package"
    assert report.conflicts == [{"kind": "episode", "item_id": 999, "reason": reason}]


# -- the package as a whole -------------------------------------------------------------------
def _set_manifest(pack: Path, path: str, value: str) -> None:
    _edit(
        pack,
        "UPDATE project_meta SET value = json_set(value, ?, ?) WHERE key = 'package'",
        path,
        value,
    )


@pytest.mark.parametrize(
    ("path", "value", "refusal"),
    [
        ("$.format", "x", "{pack}: not a ReasonScope work package (format 'x')"),
        (
            "$.project_id",
            "elsewhere",
            "{pack}: a package of another project (elsewhere), not of {db.name} ({own})",
        ),
        ("$.package_id", "nope", "{pack}: package nope was never sent from {db.name}"),
        ("$.person", "mallory", "{pack}: tampered: its manifest differs from the one sent"),
    ],
)
def test_a_package_whose_manifest_is_not_the_one_sent_is_refused(
    verdict_pack, path, value, refusal
):
    db, pack = verdict_pack
    with open_project(db) as p:
        own = p.packages.project_id()
    _set_manifest(pack, path, value)
    with pytest.raises(ProjectError) as refused:
        merge_package(db, pack)
    assert str(refused.value) == refusal.format(pack=pack, db=db, own=own)
    assert _verdicts(db) == []


def test_a_refusal_names_the_package_by_its_full_path(verdict_pack, monkeypatch):
    db, pack = verdict_pack
    _set_manifest(pack, "$.format", "x")
    monkeypatch.chdir(pack.parent)
    with pytest.raises(ProjectError) as refused:
        merge_package(db, Path(pack.name))
    assert str(refused.value) == f"{pack}: not a ReasonScope work package (format 'x')"


def test_a_package_whose_content_changed_is_refused_with_both_hashes(verdict_pack):
    db, pack = verdict_pack
    with open_project(pack) as p:
        package_id = p.packages.manifest()["package_id"]
    with open_project(db) as p:
        sent = p.packages.get(package_id)["content_sha256"]
    _edit(pack, "UPDATE questions SET answer = '7'")
    with pytest.raises(ProjectError) as refused:
        merge_package(db, pack)
    found = re.fullmatch(
        rf"{re.escape(str(pack))}: tampered: its content hash is ([0-9a-f]{{16}}), "
        rf"the package was sent with {sent[:16]}",
        str(refused.value),
    )
    assert found and found.group(1) != sent[:16], str(refused.value)


def test_a_dry_run_reports_what_would_merge_and_writes_nothing(verdict_pack):
    db, pack = verdict_pack
    with open_project(db) as p:
        audit = p.db.execute("SELECT count(*) FROM audit_log").fetchone()
    report = merge_package(db, pack, dry_run=True)
    assert report.dry_run and report.merged["verdicts"] == 1
    assert report.lines()[0].startswith("Would merge ana's verifier package ")
    assert _verdicts(db) == []
    with open_project(db) as p:
        assert p.db.execute("SELECT count(*) FROM audit_log").fetchone() == audit
        assert p.db.execute("SELECT count(*) FROM package_work").fetchone() == (0,)
    assert not merge_package(db, pack).dry_run
    assert len(_verdicts(db)) == 1


def test_progress_is_told_after_each_row_of_work(episode_pack):
    db, pack, episode = episode_pack
    with open_project(pack) as p:
        p.episodes.add_label(episode, 0, "environment", "", "", p.annotators.find("eve"))
    told = []
    report = merge_package(db, pack, progress=lambda done, total: told.append((done, total)))
    assert told == [(1, 2), (2, 2)]
    assert (report.merged["error labels"], report.merged["audit entries"]) == (2, 2)
    again = merge_package(db, pack)  # both labels and their two audit entries
    assert (again.already, again.changed) == (4, False)


def test_a_merge_marks_its_items_done_and_a_second_counts_what_was_merged_before(verdict_pack):
    db, pack = verdict_pack
    with open_project(pack) as p:
        package_id = p.packages.manifest()["package_id"]
    merge_package(db, pack)
    with open_project(db) as p:
        [item] = p.packages.assignments(package_id)
        merged_at = p.packages.get(package_id)["merged_at"]
        audited = p.db.execute("SELECT count(*) FROM audit_log").fetchone()
        work = p.db.execute("SELECT kind, target_id FROM package_work ORDER BY kind").fetchall()
        [(verdict,)] = p.db.execute("SELECT id FROM verifications").fetchall()
    assert (item["kind"], item["item_id"]) == ("question", 1)
    assert item["done_at"] is not None and merged_at == item["done_at"]
    assert work == [("audit", None), ("verdict", verdict)]  # the row each became here
    again = merge_package(db, pack)
    assert (again.already, again.changed) == (2, False)  # the verdict and its audit entry
    assert again.lines()[1] == "2 rows were merged before (unchanged)"
    with open_project(db) as p:  # nothing new: not audited again
        assert p.db.execute("SELECT count(*) FROM audit_log").fetchone() == audited
        assert p.packages.get(package_id)["merged_at"] == merged_at


def test_work_changed_in_the_package_after_its_merge_is_kept_aside(verdict_pack):
    db, pack = verdict_pack
    merge_package(db, pack)
    _edit(pack, "UPDATE verifications SET seconds_on_task = 5")
    report = merge_package(db, pack)
    reason = "verifications row 1: its verdict was changed in the package after a merge"
    assert report.conflicts == [{"kind": "question", "item_id": 1, "reason": reason}]


def test_a_blob_in_work_is_kept_aside_shown_by_its_size(verdict_pack):
    db, pack = verdict_pack
    _edit(pack, "UPDATE verifications SET reason = x'00ff'")
    report = merge_package(db, pack)
    reason = "verifications row 1: reason holds bytes (a BLOB), not a value of this build"
    assert report.conflicts == [{"kind": "question", "item_id": 1, "reason": reason}]
    with open_project(db) as p:
        [kept] = p.packages.conflicts()
    assert (kept["work"]["reason"], kept["work"]["work_kind"]) == ("<2 bytes>", "verdict")


def test_work_on_a_crafted_item_id_is_kept_aside_under_item_0(verdict_pack):
    db, pack = verdict_pack
    _edit(pack, "UPDATE verifications SET question_id = 'one'")
    [conflict] = merge_package(db, pack).conflicts
    assert (conflict["kind"], conflict["item_id"]) == ("question", 0)


# -- audit entries ----------------------------------------------------------------------------
def test_an_audit_entry_comes_over_naming_the_package_and_the_row_it_became(verdict_pack):
    db, pack = verdict_pack
    with open_project(db) as p:  # a verdict here first: ana's becomes row 2
        p.verifications.submit(2, p.annotators.find("ben"), APPROVE, 1.0)
    with open_project(pack) as p:
        package_id = p.packages.manifest()["package_id"]
    report = merge_package(db, pack)
    assert report.merged["audit entries"] == 1
    with open_project(db) as p:
        ana = p.annotators.find("ana").id
        rows = p.db.execute(
            "SELECT annotator_id, action, table_name, row_id, detail FROM audit_log "
            "WHERE annotator_id = ? AND action = 'verdict'",
            [ana],
        ).fetchall()
    [(who, action, table, row, detail)] = rows
    assert (who, action, table, row) == (ana, "verdict", "verifications", "2")
    assert json.loads(detail)["package"] == package_id


def test_an_audit_entry_that_is_none_of_reasonscope_refuses_the_package(verdict_pack):
    db, pack = verdict_pack
    conn = sqlite3.connect(pack)
    [(entry,)] = conn.execute("SELECT id FROM audit_log WHERE action = 'verdict'").fetchall()
    conn.close()
    _edit(pack, "UPDATE audit_log SET detail = '[1]' WHERE id = ?", entry)
    with pytest.raises(ProjectError) as refused:
        merge_package(db, pack)
    assert str(refused.value) == (
        f"{pack}: audit_log row {entry}: not an audit entry of ReasonScope"
    )
    assert _verdicts(db) == []


def test_a_package_upgraded_since_it_was_sent_is_refused_naming_the_migrations(verdict_pack):
    db, pack = verdict_pack
    conn = sqlite3.connect(pack)
    names = [r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations ORDER BY rowid")]
    conn.close()
    # as if a newer build had applied its last two migrations on opening the package
    _edit(
        pack,
        "UPDATE _sqlite_migrations SET applied_at = '2999-01-01T00:00:00+00:00' WHERE name IN (?, ?)",
        *names[-2:],
    )
    _edit(pack, "UPDATE questions SET answer = '7'")
    with pytest.raises(ProjectError) as refused:
        merge_package(db, pack)
    assert str(refused.value) == (
        f"{pack}: made by an older ReasonScope and upgraded since it was sent "
        f"({names[-2]}, {names[-1]}), so it no longer matches what was sent; "
        "recall it (reasonscope pack recall) and send the work out again"
    )


def test_an_entity_drawn_in_the_package_whose_key_was_taken_here_comes_under_the_next_key(
    hoi_base, tmp_path
):
    hoi = copy_of(hoi_base, tmp_path)
    pack = tmp_path / "fay.rspack"
    create_package(hoi.db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack)
    frame, thing = hoi.frame_ids[0], list(hoi.objects.values())[0]
    with open_project(pack) as p:
        fay = p.annotators.sign_in("fay")
        drawn = p.sequences.add_drawn_entity(hoi.sequence_id, "human", "person", fay)
        p.sequences.set_box_2d(drawn, frame, (100, 100, 50, 120), fay)
        key = next(k for k, i in p.sequences.entity_ids(hoi.sequence_id).items() if i == drawn)
        _touching(p, frame, drawn, thing, fay)
    with open_project(hoi.db) as p:  # meanwhile bea draws one here, taking that key
        bea = p.annotators.sign_in("bea")
        taken = p.sequences.add_drawn_entity(hoi.sequence_id, "human", "person", bea)
        assert p.sequences.entity_ids(hoi.sequence_id)[key] == taken
    report = merge_package(hoi.db, pack)
    assert not report.conflicts
    assert report.merged["entities"] == 1 and report.merged["labels"] == 1
    with open_project(hoi.db) as p:
        ids = p.sequences.entity_ids(hoi.sequence_id)
        [(new, here)] = [
            (k, i)
            for k, i in ids.items()
            if i not in (taken, *hoi.persons.values()) and i not in hoi.objects.values()
        ]
        [label] = [lab for lab in p.hoi.labels_for_frame(frame) if lab.annotator_id != 1]
    assert report.notes == [f"{key} drawn in the package is {new} here ({key} was taken)"]
    assert report.lines()[-1] == report.notes[0]
    assert label.subject_entity_id == here  # the label followed the entity to its new id


def test_a_verdict_merges_with_its_criteria_decision_reason_and_time(verifier_base, tmp_path):
    db = tmp_path / "project.reasonscope"
    db.write_bytes(verifier_base.read_bytes())
    pack = tmp_path / "ana.rspack"
    create_package(db, PackageRequest("ana", "verifier", questions=[1]), pack)
    reject = Verdict(True, False, True, "reject", reason="the mug shows from the start")
    with open_project(pack) as p:
        given = p.verifications.submit(1, p.annotators.sign_in("ana"), reject, 4.5)
    assert merge_package(db, pack).merged["verdicts"] == 1
    with open_project(db) as p:
        assert p.db.execute(
            "SELECT question_id, round, unambiguous, evidence_withheld, evidence_recoverable, "
            "volumes_distinct, decision, reason, corrections, seconds_on_task, created_at "
            "FROM verifications"
        ).fetchall() == [
            (1, "first", 1, 0, 1, None, "reject", "the mug shows from the start", "{}", 4.5)
            + (given.created_at,)
        ]


def test_a_review_kept_aside_on_a_label_gone_here_is_refused(reviewed):
    hoi, pack, _package_id, _review = reviewed
    with open_project(hoi.db) as p:
        p.hoi.update_label(1, p.annotators.find("ana"), predicate="touching")
    merge_package(hoi.db, pack)
    with open_project(hoi.db) as p:
        [kept] = p.packages.conflicts()
    conn = sqlite3.connect(hoi.db)  # gone for good, as no one can do in the app
    conn.execute("DELETE FROM hoi_labels WHERE id = 1")
    conn.commit()
    conn.close()
    with pytest.raises(ProjectError) as refused:
        apply_conflict(hoi.db, kept["id"])
    assert str(refused.value) == f"{hoi.db}: label 1 is deleted"


def test_a_rating_kept_aside_on_a_question_with_no_current_version_is_refused(tmp_path):
    db = build_study_project(tmp_path)
    rater = tmp_path / "ada.rspack"
    create_package(db, PackageRequest("Ada", "rater", questions=[2]), rater)
    with open_project(rater) as p:
        p.reasoning.rate(2, p.annotators.sign_in("Ada"), 4)
    with open_project(db) as p:
        p.questions.correct(2, {"text": "How many people stand?"}, p.annotators.sign_in("Olga"))
        uid = p.questions.get(2).uid
    merge_package(db, rater)
    with open_project(db) as p:
        [kept] = p.packages.conflicts()
    conn = sqlite3.connect(db)  # as no one can do in the app: no version is current
    conn.execute("UPDATE questions SET is_current = 0 WHERE uid = ?", [uid])
    conn.commit()
    conn.close()
    with pytest.raises(ProjectError) as refused:
        apply_conflict(db, kept["id"])
    assert str(refused.value) == f"{db}: question 2 has no current version"


def test_an_entity_changed_in_the_package_after_its_merge_applies_under_a_new_key(
    hoi_base, tmp_path
):
    hoi = copy_of(hoi_base, tmp_path)
    pack = tmp_path / "fay.rspack"
    create_package(hoi.db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack)
    with open_project(pack) as p:
        fay = p.annotators.sign_in("fay")
        drawn = p.sequences.add_drawn_entity(hoi.sequence_id, "human", "person", fay)
        p.sequences.set_box_2d(drawn, hoi.frame_ids[0], (100, 100, 50, 120), fay)
    assert merge_package(hoi.db, pack).merged["entities"] == 1
    _edit(pack, "UPDATE entities SET category = 'child' WHERE id = ?", drawn)
    [conflict] = merge_package(hoi.db, pack).conflicts
    assert conflict["reason"].endswith("its entity was changed in the package after a merge")
    with open_project(hoi.db) as p:
        [kept] = p.packages.conflicts()
        before = p.sequences.entity_ids(hoi.sequence_id)
    target = apply_conflict(hoi.db, kept["id"])  # its key is taken (by itself): the next one
    with open_project(hoi.db) as p:
        after = p.sequences.entity_ids(hoi.sequence_id)
    assert target not in before.values() and set(after) - set(before) == {
        k for k, i in after.items() if i == target
    }


def test_a_package_of_frames_and_episodes_has_both_done_once_their_work_merges(hoi_base, tmp_path):
    hoi = copy_of(hoi_base, tmp_path)
    steps = [{"kind": "observation", "name": "observe", "ok": True, "state": {"t": 0}}]
    with open_project(hoi.db) as p:
        episode = p.episodes.add({"model": "m1", "task": "find", "success": False}, steps).id
    pack = tmp_path / "fay.rspack"
    request = PackageRequest("fay", "annotator", sequence="synthetic-cafe_0", episodes=[episode])
    manifest = create_package(hoi.db, request, pack)
    person, thing = list(hoi.persons.values())[1], list(hoi.objects.values())[1]
    with open_project(pack) as p:
        fay = p.annotators.sign_in("fay")
        p.episodes.add_label(episode, 0, "environment", "", "", fay)
        _touching(p, hoi.frame_ids[0], person, thing, fay)
    merge_package(hoi.db, pack)
    with open_project(hoi.db) as p:
        items = p.packages.assignments(manifest["package_id"])
    assert sorted((i["kind"], i["done_at"] is not None) for i in items) == [
        ("episode", True),
        ("frame", True),
        ("frame", True),
    ]


def test_a_compare_verdict_merges_with_criterion_4(tmp_path):
    db = tmp_path / "project.reasonscope"
    with open_project(db, create=True) as p:
        scene = add_mug_questions(p, 0)  # the mug's scene, no Count question
        p.questions.add(
            {
                "benchmark": "mgvqa",
                "task": "compare",
                "text": "Which is largest?",
                "answer": "A",
                "evidence_ids": ["mug_1"],
                "scene_id": scene,
            }
        )
    pack = tmp_path / "ana.rspack"
    create_package(db, PackageRequest("ana", "verifier", questions=[1]), pack)
    distinct = Verdict(True, True, True, "approve", volumes_distinct=True)
    with open_project(pack) as p:
        p.verifications.submit(1, p.annotators.sign_in("ana"), distinct, 2.0)
    assert merge_package(db, pack).merged["verdicts"] == 1
    with open_project(db) as p:
        assert p.db.execute("SELECT volumes_distinct FROM verifications").fetchall() == [(1,)]


def test_a_reason_kept_aside_drops_the_project_path_even_one_with_spaces(verifier_base, tmp_path):
    folder = tmp_path / "our projects" / "table top"
    folder.mkdir(parents=True)
    db = folder / "project.reasonscope"
    db.write_bytes(verifier_base.read_bytes())
    pack = tmp_path / "ana.rspack"
    create_package(db, PackageRequest("ana", "verifier", questions=[1]), pack)
    with open_project(pack) as p:
        p.verifications.submit(1, p.annotators.sign_in("ana"), APPROVE, 3.0)
    _edit(pack, "UPDATE verifications SET volumes_distinct = 1")  # asked of Compare only
    report = merge_package(db, pack)
    assert report.conflicts == [
        {
            "kind": "question",
            "item_id": 1,
            "reason": "verifications row 1: question 1: criterion 4 (volumes distinct) is "
            "asked only for a Compare question, not for a 'count' one",
        }
    ]


def test_an_audit_entry_naming_no_row_id_comes_over_as_it_is(verdict_pack):
    db, pack = verdict_pack
    _edit(pack, "UPDATE audit_log SET row_id = 'first' WHERE action = 'verdict'")
    report = merge_package(db, pack)
    assert report.merged["audit entries"] == 1 and not report.conflicts
    with open_project(db) as p:
        assert p.db.execute(
            "SELECT table_name, row_id FROM audit_log WHERE action = 'verdict'"
        ).fetchall() == [("verifications", "first")]


def _drawn_and_merged(hoi, tmp_path) -> tuple[Path, int, int, int]:
    """fay's package in which she drew a person and boxed it in frame 0, merged once
    after bea took the next key here: (package, frame id, its id there, its id here)."""
    pack = tmp_path / "fay.rspack"
    create_package(hoi.db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack)
    frame = hoi.frame_ids[0]
    with open_project(hoi.db) as p:  # bea takes the next key here first: the ids part
        p.sequences.add_drawn_entity(
            hoi.sequence_id, "human", "person", p.annotators.sign_in("bea")
        )
    with open_project(pack) as p:
        fay = p.annotators.sign_in("fay")
        drawn = p.sequences.add_drawn_entity(hoi.sequence_id, "human", "person", fay)
        p.sequences.set_box_2d(drawn, frame, (100, 100, 50, 120), fay)
    merge_package(hoi.db, pack)
    with open_project(hoi.db) as p:
        [(_source, here)] = p.db.execute(
            "SELECT source_id, target_id FROM package_work WHERE kind = 'entity'"
        ).fetchall()
    return pack, frame, drawn, here


def test_work_on_an_entity_drawn_in_an_earlier_merge_of_the_package_follows_it(hoi_base, tmp_path):
    hoi = copy_of(hoi_base, tmp_path)
    pack, frame, drawn, here = _drawn_and_merged(hoi, tmp_path)
    thing = list(hoi.objects.values())[0]
    with open_project(pack) as p:  # she goes on working in the package
        _touching(p, frame, drawn, thing, p.annotators.find("fay"))
    report = merge_package(hoi.db, pack)
    assert report.merged["labels"] == 1 and not report.conflicts
    with open_project(hoi.db) as p:
        [label] = [lab for lab in p.hoi.labels_for_frame(frame) if lab.predicate == "touching"]
    assert label.subject_entity_id == here != drawn


def test_a_removal_and_a_track_end_come_back_from_a_package(hoi_base, tmp_path):
    hoi = copy_of(hoi_base, tmp_path)
    pack = tmp_path / "fay.rspack"
    create_package(hoi.db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack)
    persons = list(hoi.persons.values())
    with open_project(pack) as p:
        fay = p.annotators.sign_in("fay")
        p.sequences.remove_entity(persons[2], hoi.frame_ids[1], fay)
        drawn = p.sequences.add_drawn_entity(hoi.sequence_id, "human", "person", fay)
        p.sequences.set_box_2d(drawn, hoi.frame_ids[0], (100, 100, 50, 120), fay)
        p.sequences.end_track(drawn, hoi.frame_ids[1], fay)
        ended = p.sequences.track_end(drawn)
    report = merge_package(hoi.db, pack)
    assert (report.merged["removals"], report.merged["track ends"]) == (1, 1)
    assert not report.conflicts
    with open_project(hoi.db) as p:
        removed = p.db.execute("SELECT entity_id, frame_id FROM entity_removals").fetchall()
        assert removed == [(persons[2], hoi.frame_ids[1])]
        assert p.sequences.track_end(drawn) == ended is not None


def test_a_label_edit_and_a_label_deletion_come_back_from_a_package(hoi_base, tmp_path):
    hoi = copy_of(hoi_base, tmp_path)
    pack = tmp_path / "ana.rspack"
    create_package(hoi.db, PackageRequest("ana", "annotator", sequence="synthetic-cafe_0"), pack)
    with open_project(pack) as p:  # her own labels 1 and 2, copied into the package
        ana = p.annotators.sign_in("ana")
        p.hoi.set_difficulty(1, 3, ana)
        p.hoi.delete_label(2, ana)
    report = merge_package(hoi.db, pack)
    assert (report.merged["label edits"], report.merged["label deletions"]) == (1, 1)
    assert not report.conflicts
    with open_project(hoi.db) as p:
        assert p.hoi.get_label(1).difficulty == 3
        assert p.hoi.record(2) is None  # gone (to the trash)


def test_a_box_kept_aside_on_an_entity_drawn_in_the_package_is_applied_to_it_here(
    hoi_base, tmp_path
):
    hoi = copy_of(hoi_base, tmp_path)
    pack, frame, drawn, here = _drawn_and_merged(hoi, tmp_path)
    with open_project(hoi.db) as p:
        p.sequences.set_box_2d(here, frame, (300, 100, 50, 120), p.annotators.find("bea"))
    with open_project(pack) as p:  # she moves it in the package, bea moved it here
        p.sequences.set_box_2d(drawn, frame, (200, 100, 50, 120), p.annotators.find("fay"))
    [conflict] = merge_package(hoi.db, pack).conflicts
    assert conflict["reason"].endswith(": its box was changed in the package after a merge")
    with open_project(hoi.db) as p:
        [kept] = p.packages.conflicts()
    apply_conflict(hoi.db, kept["id"])
    with open_project(hoi.db) as p:
        record = p.sequences.box_record(here, frame)
        assert (record.box.x, record.annotator_id) == (200.0, p.annotators.find("fay").id)
        assert p.sequences.box_record(drawn, frame) is None
        assert p.packages.conflicts() == []


def _put_back_in_package(hoi, tmp_path) -> tuple[Path, int, int]:
    """bea took a person out of frame 1 here; fay put it back in her package, which
    leaves no row of it there: (package, the person's id, the frame's id)."""
    person, frame = list(hoi.persons.values())[2], hoi.frame_ids[1]
    with open_project(hoi.db) as p:
        p.sequences.remove_entity(person, frame, p.annotators.sign_in("bea"))
    pack = tmp_path / "fay.rspack"
    create_package(hoi.db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack)
    with open_project(pack) as p:
        p.sequences.restore_entity(person, frame, p.annotators.sign_in("fay"))
    return pack, person, frame


def test_an_entity_put_back_in_a_package_is_put_back_here(hoi_base, tmp_path):
    hoi = copy_of(hoi_base, tmp_path)
    with open_project(hoi.db) as p:
        before = {
            person: p.sequences.box_record(person, hoi.frame_ids[1])
            for person in hoi.persons.values()
        }
    pack, person, frame = _put_back_in_package(hoi, tmp_path)
    report = merge_package(hoi.db, pack)
    assert (report.merged["restorations"], report.conflicts) == (1, [])
    assert "1 restoration" in " ".join(report.lines())
    with open_project(hoi.db) as p:
        assert p.db.execute("SELECT count(*) FROM entity_removals").fetchone()[0] == 0
        assert p.sequences.box_record(person, frame) == before[person] is not None
        [entry] = p.db.execute(
            "SELECT annotator_id FROM audit_log WHERE action = 'restore'"
        ).fetchall()
        assert entry[0] == p.annotators.find("fay").id
    assert merge_package(hoi.db, pack).merged["restorations"] == 0  # once


def test_an_entity_put_back_in_a_package_and_here_is_kept_aside(hoi_base, tmp_path):
    hoi = copy_of(hoi_base, tmp_path)
    pack, person, frame = _put_back_in_package(hoi, tmp_path)
    with open_project(hoi.db) as p:  # bea puts it back and takes it out again meanwhile
        bea = p.annotators.find("bea")
        p.sequences.restore_entity(person, frame, bea)
        p.sequences.remove_entity(person, frame, bea)
    [conflict] = merge_package(hoi.db, pack).conflicts
    assert conflict["reason"].startswith("entity_removals row 1: ")
    assert conflict["reason"].endswith(
        "in frame 1 has been put back or taken out anew here since the package went out"
    )
    with open_project(hoi.db) as p:
        assert p.sequences.box_record(person, frame) is None


def test_putting_back_signed_by_anyone_else_refuses_the_package(hoi_base, tmp_path):
    hoi = copy_of(hoi_base, tmp_path)
    pack, person, frame = _put_back_in_package(hoi, tmp_path)
    _edit(pack, "DELETE FROM audit_log WHERE action = 'restore'")
    with pytest.raises(ProjectError, match=r"putting back of removal 1 is signed by annotator "):
        merge_package(hoi.db, pack)


def test_an_error_label_signed_by_anyone_else_refuses_the_package(episode_pack):
    db, pack, _episode = episode_pack
    _edit(pack, "UPDATE error_labels SET annotator_id = 999")
    with sqlite3.connect(pack) as conn:
        [(error,)] = conn.execute("SELECT id FROM error_labels").fetchall()
    with pytest.raises(ProjectError) as refused:
        merge_package(db, pack)
    assert str(refused.value) == (
        f"{pack}: error label {error} is signed by annotator 999, not by eve whose package it is"
    )


def test_a_refusal_names_a_signer_in_at_most_60_characters_and_a_crafted_id_in_20(
    hoi_base, tmp_path
):
    hoi = copy_of(hoi_base, tmp_path)
    pack, _ids = _fays_package(hoi, tmp_path)
    long_name = "b" * 59 + "cd"  # 61 characters: the refusal shows 60
    _edit(pack, "INSERT INTO annotators(id, name, created_at) VALUES (998, ?, ?)", long_name, NOW)
    _edit(pack, "UPDATE boxes_2d SET annotator_id = 998 WHERE source = 'annotator'")
    with pytest.raises(ProjectError, match=rf"is signed by {'b' * 59}c, not by fay "):
        merge_package(hoi.db, pack)
    crafted = "x" * 20 + "yz"  # an id that is no id: 20 characters of it, quoted
    _edit(pack, "UPDATE boxes_2d SET annotator_id = ? WHERE source = 'annotator'", crafted)
    with pytest.raises(ProjectError, match=rf"is signed by annotator '{'x' * 20}', not by fay "):
        merge_package(hoi.db, pack)


def test_a_track_reopened_and_keyed_after_its_old_end_merges_without_a_conflict(hoi_base, tmp_path):
    """The reopening is applied before the package's keyframes: the keyframe in frame 1,
    at the old end, is then accepted (after them it would be refused)."""
    hoi = copy_of(hoi_base, tmp_path)
    frame0, frame1 = hoi.frame_ids
    with open_project(hoi.db) as p:
        bea = p.annotators.sign_in("bea")
        drawn = p.sequences.add_drawn_entity(hoi.sequence_id, "human", "person", bea)
        p.sequences.set_box_2d(drawn, frame0, (100, 100, 50, 120), bea)
        p.sequences.end_track(drawn, frame1, bea)
    pack = tmp_path / "fay.rspack"
    create_package(hoi.db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack)
    with open_project(pack) as p:
        fay = p.annotators.sign_in("fay")
        p.sequences.reopen_track(drawn, fay)
        p.sequences.set_box_2d(drawn, frame1, (120, 100, 50, 120), fay)
    report = merge_package(hoi.db, pack)
    assert (report.conflicts, report.merged["track ends"], report.merged["boxes"]) == ([], 1, 1)
    with open_project(hoi.db) as p:
        assert p.sequences.track_end(drawn) is None
        assert p.sequences.box_record(drawn, frame1).box.x == 120.0
