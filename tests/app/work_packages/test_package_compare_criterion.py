"""Criterion 4 (volumes distinct, Compare only) through work packages: a Compare verdict
merges with it; one without it is kept aside as new input breaking the rule; a package
made before the criterion existed is refused, naming the file and why (docs/work-packages.md).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from annotation.verification import Verdict
from app.work_packages.create import PackageRequest, create_package
from app.work_packages.merge import apply_conflict, merge_package
from store import ProjectError, open_project, schema
from store.package_io import content_hash

BODY = {
    "id": "box_1",
    "name": "cereal box",
    "asset": "primitive:box",
    "position": [0, 0, 0.8],
    "orientation": [0, 0, 0, 1],
}
DISTINCT = Verdict(True, True, True, "approve", volumes_distinct=True)
ALIKE = Verdict(True, True, True, "reject", reason="two of one size", volumes_distinct=False)
CRITERION_4 = "0013_compare_volumes_distinct"


@pytest.fixture
def sent(tmp_path):
    """A project with a Compare and a Count question, both out in Ana's verifier package."""
    db = tmp_path / "project.reasonscope"
    with open_project(db, create=True) as p:
        scene = p.scenes.add({"name": "table 1", "seed": 1, "bodies": [BODY]})
        common = {"benchmark": "mgvqa", "evidence_ids": ["box_1"], "scene_id": scene}
        p.questions.add({**common, "task": "compare", "text": "Which is largest?", "answer": "A"})
        p.questions.add({**common, "task": "count", "text": "How many boxes?", "answer": 1})
    pack = tmp_path / "ana.rspack"
    manifest = create_package(db, PackageRequest("ana", "verifier", "pending"), pack)
    return db, pack, manifest


def _give(pack: Path, compare: Verdict) -> None:
    with open_project(pack) as p:
        ana = p.annotators.sign_in("ana")
        p.verifications.submit(1, ana, compare, 3.0)
        p.verifications.submit(2, ana, Verdict(True, True, True, "approve"), 2.0)


def _stored(db: Path) -> list[tuple]:
    with open_project(db) as p:
        return p.db.execute(
            "SELECT question_id, decision, volumes_distinct FROM verifications ORDER BY 1"
        ).fetchall()


def test_compare_verdicts_round_trip_with_criterion_4(sent):
    db, pack, _ = sent
    _give(pack, ALIKE)
    report = merge_package(db, pack)
    assert report.merged["verdicts"] == 2 and report.conflicts == []
    assert _stored(db) == [(1, "reject", 0), (2, "approve", None)]
    with open_project(db) as p:
        ana = p.annotators.find("ana")
        [record] = p.verifications.visible_verdicts(1, ana)
        assert record.verdict == ALIKE
    assert merge_package(db, pack).lines()[0].endswith("nothing new")  # idempotent


def test_a_compare_verdict_without_criterion_4_is_kept_aside(sent):
    """A package's verdict is new input: edited to leave criterion 4 out, it is not stored."""
    db, pack, _ = sent
    _give(pack, DISTINCT)
    conn = sqlite3.connect(pack)
    conn.execute("UPDATE verifications SET volumes_distinct = NULL WHERE question_id = 1")
    conn.commit()
    conn.close()
    report = merge_package(db, pack)
    [conflict] = report.conflicts
    assert conflict["reason"].startswith("verifications row ")
    assert conflict["reason"].endswith(
        "criterion 4 (volumes distinct) must be answered for a Compare question"
    )
    assert report.merged["verdicts"] == 1
    assert _stored(db) == [(2, "approve", None)]
    # kept aside as work from before criterion 4 was (no key at all), applying it is
    # refused by the same rule, not by a crash
    with open_project(db) as p, p.write():
        p.db.execute("UPDATE package_conflicts SET work = json_remove(work, '$.volumes_distinct')")
    [kept] = _open_conflicts(db)
    assert "volumes_distinct" not in kept["work"]
    with pytest.raises(ProjectError, match=r"criterion 4 \(volumes distinct\) must be answered"):
        apply_conflict(db, kept["id"])
    assert _stored(db) == [(2, "approve", None)]


def _open_conflicts(db: Path) -> list[dict]:
    with open_project(db) as p:
        return p.packages.conflicts()


def _columns(conn: sqlite3.Connection) -> dict[str, list[str]]:
    tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {t: [r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')] for (t,) in tables}


def _as_if_older(pack: Path) -> None:
    """Make the package what a build from before criterion 4 wrote: the schema of the
    migrations before 0013 (no volumes_distinct column), which it records."""
    older = Database(memory=True)
    schema.migrations.apply(older, stop_before=CRITERION_4)
    old_columns = _columns(older.conn)
    conn = sqlite3.connect(pack)
    for table, columns in _columns(conn).items():
        if table not in old_columns:
            conn.execute(f'DROP TABLE "{table}"')
            continue
        for column in set(columns) - set(old_columns[table]):
            conn.execute(f'ALTER TABLE "{table}" DROP COLUMN "{column}"')
    assert "volumes_distinct" not in _columns(conn)["verifications"]
    (first_new,) = conn.execute(
        "SELECT rowid FROM _sqlite_migrations WHERE name = ?", [CRITERION_4]
    ).fetchone()
    conn.execute("DELETE FROM _sqlite_migrations WHERE rowid >= ?", [first_new])
    conn.commit()
    conn.close()


def test_a_package_from_before_criterion_4_is_refused_naming_the_file(sent):
    db, pack, _ = sent
    _as_if_older(pack)
    before = _stored(db)
    with pytest.raises(ProjectError) as refused:
        merge_package(db, pack)
    line = str(refused.value)
    assert "\n" not in line and line.startswith(f"{pack}: refused as a work package: ")
    assert "made by an older ReasonScope (schema version 12;" in line
    assert CRITERION_4 in line and "send the work out again" in line
    assert _stored(db) == before == []


def test_an_old_package_opened_by_this_build_is_refused_too(sent):
    """The old build hashed the package without the new column; opening it here migrated it,
    so its hash changed: refused as upgraded, not as tampered."""
    db, pack, manifest = sent
    _as_if_older(pack)
    hashed = {t: ids for t, ids in manifest["copied"].items() if t in manifest["hashed"]}
    old_hash = content_hash(pack, hashed)  # what the old build recorded when it sent it
    with open_project(db) as p, p.write():
        p.db.execute("UPDATE packages SET content_sha256 = ?", [old_hash])
    _give(pack, DISTINCT)  # opened here (migrated to this build's schema) and worked in
    with open_project(pack) as p:
        assert p.schema_version == schema.SCHEMA_VERSION
    with pytest.raises(ProjectError) as refused:
        merge_package(db, pack)
    line = str(refused.value)
    assert "\n" not in line and line.startswith(f"{pack}: made by an older ReasonScope")
    assert CRITERION_4 in line and "tampered" not in line
    assert _stored(db) == []
