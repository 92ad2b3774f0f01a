"""A returned package is a crafted file until proven otherwise: whatever SQLite would run
or read from it beyond a package of this build is refused in one line naming the file,
and the project is left exactly as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from PIL import Image

from annotation.verification import Verdict
from app.cli import main
from app.work_packages.create import PackageRequest, create_package
from store import open_project
from store.package_io import MAX_CELL, MAX_ROWS

REJECT = Verdict(True, False, True, "reject", reason="the mug is visible from the start")
BODY = {
    "id": "mug_1",
    "name": "red mug",
    "asset": "mug.urdf",
    "position": [0, 0, 0.8],
    "orientation": [0, 0, 0, 1],
}


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    folder = tmp_path_factory.mktemp("crafted")
    db = folder / "project.reasonscope"
    with open_project(db, create=True) as p:
        scene = p.scenes.add({"name": "table 1", "seed": 1, "bodies": [BODY]})
        p.questions.add(
            {
                "benchmark": "mgvqa",
                "task": "count",
                "text": "How many mugs?",
                "answer": 1,
                "evidence_ids": ["mug_1"],
                "scene_id": scene,
            }
        )
    pack = folder / "ana.rspack"
    create_package(db, PackageRequest("ana", "verifier", "pending"), pack)
    with open_project(pack) as p:
        p.verifications.submit(1, p.annotators.sign_in("ana"), REJECT, 3.0)
    return db, pack


def _dump(db: Path) -> dict[str, list]:
    conn = sqlite3.connect(db)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: conn.execute(f'SELECT * FROM "{t}" ORDER BY 1').fetchall() for t in tables}
    finally:
        conn.close()


def _craft(pack: Path, *statements: str) -> None:
    conn = sqlite3.connect(pack)
    for sql in statements:
        conn.execute(sql)
    conn.commit()
    conn.close()


CRAFTED = {
    "a trigger": (
        ["CREATE TRIGGER t AFTER INSERT ON verifications BEGIN DELETE FROM questions; END"],
        "holds a trigger 't' that a work package does not have",
    ),
    "a view in place of a table": (
        ["DROP TABLE error_labels", "CREATE VIEW error_labels AS SELECT * FROM verifications"],
        "holds a view 'error_labels'",
    ),
    "a virtual table": (
        ["CREATE VIRTUAL TABLE notes USING fts4(body)"],
        "holds a virtual table 'notes'",
    ),
    "a table a package lacks": (["CREATE TABLE extra(x)"], "holds a table 'extra'"),
    "a column a package lacks": (
        ["ALTER TABLE verifications ADD COLUMN payload TEXT"],
        "its table 'verifications' has columns ['payload']",
    ),
    "another schema version": (
        [
            "DELETE FROM _sqlite_migrations WHERE rowid = (SELECT max(rowid) FROM _sqlite_migrations)"
        ],
        "schema version",
    ),
    "another application id": (["PRAGMA application_id = 7"], "application id 7"),
    "a text of over 8 million characters": (
        [f"UPDATE verifications SET reason = printf('%.{MAX_CELL + 1}c', 'x')"],
        f"verifications.reason holds a text of {MAX_CELL + 1:,} characters",
    ),
    "a table of over 200,000 rows": (
        [
            "INSERT INTO audit_log(at, action, table_name, row_id, detail) "
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
            f"WHERE i <= {MAX_ROWS}) SELECT '2026-01-01T00:00:00+00:00', 'x', 'y', i, '{{}}' "
            "FROM n"
        ],
        f"its table 'audit_log' has {MAX_ROWS + 2:,} rows",  # and ana's verdict's entry
    ),
}


def _refused(capsys, db: Path, pack: Path, message: str) -> None:
    before = _dump(db)
    capsys.readouterr()
    assert main(["pack", "merge", str(pack), "--db", str(db)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and str(pack) in lines[0] and message in lines[0], lines
    assert _dump(db) == before


@pytest.mark.parametrize("crafted", list(CRAFTED))
def test_a_crafted_package_is_refused_and_changes_nothing(base, tmp_path, capsys, crafted):
    db, sent = tmp_path / "project.reasonscope", tmp_path / "ana.rspack"
    db.write_bytes(base[0].read_bytes())
    sent.write_bytes(base[1].read_bytes())
    statements, message = CRAFTED[crafted]
    _craft(sent, *statements)
    _refused(capsys, db, sent, message)


def test_files_that_are_no_package_are_refused(base, tmp_path, capsys):
    db = tmp_path / "project.reasonscope"
    db.write_bytes(base[0].read_bytes())
    empty = tmp_path / "empty.rspack"
    empty.write_bytes(b"")
    _refused(capsys, db, empty, "an empty file, not a work package")
    photo = tmp_path / "photo.rspack"
    Image.new("RGB", (8, 8)).save(photo, format="JPEG")
    _refused(capsys, db, photo, "not a work package (not a SQLite file)")
    project = tmp_path / "other.rspack"
    project.write_bytes(base[0].read_bytes())
    _refused(capsys, db, project, "a project file, not a work package")


def test_the_package_as_sent_still_merges(base, tmp_path, capsys):
    """The checks refuse what is crafted, not what this build writes."""
    db, sent = tmp_path / "project.reasonscope", tmp_path / "ana.rspack"
    db.write_bytes(base[0].read_bytes())
    sent.write_bytes(base[1].read_bytes())
    assert main(["pack", "merge", str(sent), "--db", str(db)]) == 0
    with open_project(db) as p:
        ana = p.annotators.find("ana")
        assert [r.decision for r in p.verifications.visible_verdicts(1, ana)] == ["reject"]


def test_an_audit_entry_with_a_bad_time_refuses_the_package(base, tmp_path, capsys):
    db, sent = tmp_path / "project.reasonscope", tmp_path / "ana.rspack"
    db.write_bytes(base[0].read_bytes())
    sent.write_bytes(base[1].read_bytes())
    _craft(sent, "UPDATE audit_log SET at = 'soon'")
    _refused(capsys, db, sent, "audit_log row 1: audit time 'soon' is not an ISO 8601 time")


def test_unreadable_json_in_the_work_refuses_the_package(base, tmp_path, capsys):
    db, sent = tmp_path / "project.reasonscope", tmp_path / "ana.rspack"
    db.write_bytes(base[0].read_bytes())
    sent.write_bytes(base[1].read_bytes())
    _craft(sent, "UPDATE verifications SET corrections = '{not json'")
    _refused(capsys, db, sent, "unreadable work in the package")
