"""Work read back from a package is new input: each rule of work given in the app, broken
once with plain sqlite3 in a returned package, keeps that row out of the project (kept
aside with the rule, naming the table and row) while the package's other work merges.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hoi_fixtures import labelled_hoi_project
from question_fixtures import add_mug_questions, build_study_project

from annotation.verification import Verdict
from app.work_packages.create import PackageRequest, create_package
from app.work_packages.merge import apply_conflict, merge_package
from store import ProjectError, open_project

REJECT = Verdict(True, False, True, "reject", reason="the mug is visible from the start")
APPROVE = Verdict(True, True, True, "approve")


def _edit(pack: Path, sql: str, *params) -> None:
    """Change the package as anyone can with the sqlite3 shell, CHECK constraints off."""
    conn = sqlite3.connect(pack)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    assert conn.execute(sql, params).rowcount >= 1, sql
    conn.commit()
    conn.close()


def _rows(db: Path, table: str) -> list[tuple]:
    with open_project(db) as p:
        return p.db.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()


def _merged_aside(db: Path, pack: Path, table: str, rule: str):
    """Merge; the project's `table` gains only the rows that meet the rules, and exactly
    one row is kept aside, its reason naming the package table and the rule."""
    before = _rows(db, table)
    report = merge_package(db, pack)
    [conflict] = report.conflicts
    assert rule in conflict["reason"], conflict["reason"]
    assert conflict["reason"].split(" row ")[0] in (table, "boxes_2d", "hoi_label_trash")
    with open_project(db) as p:
        [kept] = p.packages.conflicts()
        assert rule in kept["reason"]
    return report, before, _rows(db, table)


@pytest.fixture(scope="module")
def verifier_base(tmp_path_factory):
    path = tmp_path_factory.mktemp("rules") / "project.reasonscope"
    with open_project(path, create=True) as p:
        add_mug_questions(p, 2)
    return path


@pytest.fixture
def verdicts(verifier_base, tmp_path):
    """A copy of the project and Ana's verifier package with a reject (question 1) and an
    approve (question 2) in it."""
    db = tmp_path / "project.reasonscope"
    db.write_bytes(verifier_base.read_bytes())
    pack = tmp_path / "ana.rspack"
    create_package(db, PackageRequest("ana", "verifier", "pending"), pack)
    with open_project(pack) as p:
        ana = p.annotators.sign_in("ana")
        p.verifications.submit(1, ana, REJECT, 3.0)
        p.verifications.submit(2, ana, APPROVE, 2.0)
    return db, pack


VERDICT_RULES = {
    "an approve the criteria forbid": (
        "UPDATE verifications SET decision = 'approve' WHERE question_id = 1",
        "'approve' contradicts the criteria; allowed: reject",
    ),
    "a reject without its reason": (
        "UPDATE verifications SET reason = '  ' WHERE question_id = 1",
        "a reject needs a reason",
    ),
    "a time that is no time": (
        "UPDATE verifications SET created_at = 'yesterday-ish' WHERE question_id = 1",
        "created_at 'yesterday-ish' is not an ISO 8601 time",
    ),
    "a time in the future": (
        "UPDATE verifications SET created_at = '2999-01-01T00:00:00+00:00' WHERE question_id = 1",
        "is in the future",
    ),
    "a criterion neither yes nor no": (
        "UPDATE verifications SET unambiguous = 2 WHERE question_id = 1",
        "unambiguous must be 0 or 1, not 2",
    ),
    "a criterion as text": (
        "UPDATE verifications SET evidence_withheld = 'yes' WHERE question_id = 1",
        "evidence_withheld must be 0 or 1, not 'yes'",
    ),
    "negative time on task": (
        "UPDATE verifications SET seconds_on_task = -4 WHERE question_id = 1",
        "seconds_on_task must be a finite number >= 0",
    ),
    "a correction that corrects nothing": (
        "UPDATE verifications SET decision = 'correct', reason = '' WHERE question_id = 1",
        "a correction needs at least one edited field",
    ),
    "corrections on a reject": (
        "UPDATE verifications SET corrections = '{\"answer\": 2}' WHERE question_id = 1",
        "only a correction carries edits, not 'reject'",
    ),
    "a reason of 200,000 characters": (
        "UPDATE verifications SET reason = printf('%.200000c', 'x') WHERE question_id = 1",
        "reason must be a text of at most 20,000 characters",
    ),
    "criterion 4 on a question that is not Compare": (
        "UPDATE verifications SET volumes_distinct = 1 WHERE question_id = 1",
        "criterion 4 (volumes distinct) is asked only for a Compare question",
    ),
    "criterion 4 neither yes nor no": (
        "UPDATE verifications SET volumes_distinct = 2 WHERE question_id = 1",
        "volumes_distinct must be 0, 1 or empty (criterion 4: Compare only), not 2",
    ),
    "a question id as text": (
        "UPDATE verifications SET question_id = 'one' WHERE question_id = 1",
        "question_id must be a question id, not 'one'",
    ),
}


@pytest.mark.parametrize("broken", list(VERDICT_RULES))
def test_a_verdict_breaking_a_rule_is_kept_aside(verdicts, broken):
    db, pack = verdicts
    sql, rule = VERDICT_RULES[broken]
    _edit(pack, sql)
    report, before, after = _merged_aside(db, pack, "verifications", rule)
    assert report.merged["verdicts"] == 1  # question 2's approve
    with open_project(db) as p:
        ana = p.annotators.find("ana").id
        assert p.questions.get(1).status == "pending"
    assert [r[1:3] for r in after] == [r[1:3] for r in before] + [(2, ana)]  # question 2
    with open_project(db) as p:
        [kept] = p.packages.conflicts()
    with pytest.raises(ProjectError) as refused:  # applying it meets the rules too
        apply_conflict(db, kept["id"])
    assert rule in str(refused.value) or "question 0 was not" in str(refused.value)
    assert _rows(db, "verifications") == after


@pytest.fixture(scope="module")
def hoi_base(tmp_path_factory):
    return labelled_hoi_project(tmp_path_factory.mktemp("hoi_rules"))


def _copy(base_db: Path, tmp_path: Path) -> Path:
    db = tmp_path / "hoi.reasonscope"
    db.write_bytes(base_db.read_bytes())
    return db


REVIEW_RULES = {
    "a verdict no review has": ("UPDATE hoi_reviews SET verdict = 'maybe'", "verdict must be"),
    "a difficulty of 7": ("UPDATE hoi_reviews SET difficulty = 7", "difficulty must be 1"),
    "a reject without a comment": (
        "UPDATE hoi_reviews SET verdict = 'reject', comment = ''",
        "a reject needs a comment",
    ),
    "a time with no zone": (
        "UPDATE hoi_reviews SET created_at = '2026-01-01 10:00:00'",
        "has no time zone",
    ),
}


@pytest.mark.parametrize("broken", list(REVIEW_RULES))
def test_a_review_breaking_a_rule_is_kept_aside(hoi_base, tmp_path, broken):
    db = _copy(hoi_base.db, tmp_path)
    pack = tmp_path / "ben.rspack"
    create_package(db, PackageRequest("ben", "reviewer", labels=[1]), pack)
    with open_project(pack) as p:
        p.hoi.review(1, reviewer=p.annotators.sign_in("ben"), verdict="accept", difficulty=2)
    sql, rule = REVIEW_RULES[broken]
    _edit(pack, sql)
    _report, before, after = _merged_aside(db, pack, "hoi_reviews", rule)
    assert after == before


LABEL_RULES = {
    "a label the taxonomy lacks": ("UPDATE hoi_labels SET predicate = 'juggling'", "unknown HOI"),
    "a label of another kind": ("UPDATE hoi_labels SET category = 'pose'", "is a physical label"),
    "a difficulty of 4": ("UPDATE hoi_labels SET difficulty = 4", "difficulty must be 1"),
    "a pose label with a target": (
        "UPDATE hoi_labels SET predicate = 'sitting', category = 'pose'",
        "takes no target",
    ),
}


@pytest.mark.parametrize("broken", list(LABEL_RULES))
def test_an_annotators_label_breaking_a_rule_is_kept_aside(hoi_base, tmp_path, broken):
    db = _copy(hoi_base.db, tmp_path)
    pack = tmp_path / "fay.rspack"
    create_package(db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack)
    person, thing = list(hoi_base.persons.values())[1], list(hoi_base.objects.values())[1]
    with open_project(pack) as p:
        label = p.hoi.add_label(
            frame_id=hoi_base.frame_ids[0],
            subject_entity_id=person,
            object_entity_id=thing,
            category="physical",
            predicate="touching",
            difficulty=1,
            annotator=p.annotators.sign_in("fay"),
        )
    sql, rule = LABEL_RULES[broken]
    _edit(pack, sql + " WHERE id = ?", label.id)
    _report, before, after = _merged_aside(db, pack, "hoi_labels", rule)
    assert after == before


def test_a_box_breaking_a_rule_is_kept_aside(hoi_base, tmp_path):
    db = _copy(hoi_base.db, tmp_path)
    pack = tmp_path / "fay.rspack"
    create_package(db, PackageRequest("fay", "annotator", sequence="synthetic-cafe_0"), pack)
    person = list(hoi_base.persons.values())[0]
    with open_project(pack) as p:
        p.sequences.set_box_2d(
            person, hoi_base.frame_ids[0], (10, 20, 30, 40), p.annotators.sign_in("fay")
        )
    _edit(pack, "UPDATE boxes_2d SET w = -30 WHERE source = 'annotator'")
    _report, before, after = _merged_aside(db, pack, "boxes_2d", "size must be positive")
    assert after == before


def test_a_rating_breaking_a_rule_is_kept_aside(tmp_path):
    db = build_study_project(tmp_path)
    pack = tmp_path / "ann.rspack"
    create_package(db, PackageRequest("ann", "rater", questions=[2, 3]), pack)
    with open_project(pack) as p:
        ann = p.annotators.sign_in("ann")
        p.reasoning.rate(2, ann, 3)
        p.reasoning.rate(3, ann, 2)
    _edit(pack, "UPDATE difficulty_ratings SET rating = 9 WHERE question_id = 2")
    report, before, after = _merged_aside(db, pack, "difficulty_ratings", "1 (easy) to 5 (hard)")
    assert report.merged["ratings"] == 1
    assert [r[1:4] for r in after if r not in before] == [(3, 2, 2)]  # question 3, ann, 2
