"""Files that are not (usable) projects: one-line errors naming the file, nothing touched."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest

from store import ProjectError, open_project

NOBODY = 65534


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int] | None]:
    """Every entry of `folder` with its bytes and mtime (None for directories)."""
    out = {}
    for entry in sorted(folder.iterdir()):
        st = entry.stat()
        out[entry.name] = None if entry.is_dir() else (entry.read_bytes(), st.st_mtime_ns)
    return out


def _assert_refused(path: Path, match: str, *, wal_file: bool = False, **kwargs) -> str:
    """open_project(path) raises a one-line ProjectError naming the file; nothing changes.

    A file already in WAL mode cannot be read without SQLite opening its -wal and
    -shm files; they are removed again when the connection closes, so for such files
    only the folder's mtime may change, never its contents.
    """
    folder = path.parent
    before = _snapshot(folder)
    folder_mtime = folder.stat().st_mtime_ns
    with pytest.raises(ProjectError) as info:
        open_project(path, **kwargs)
    message = str(info.value)
    assert "\n" not in message and "\r" not in message, message
    assert str(path) in message, message
    assert match in message, message
    after = _snapshot(folder)
    assert after == before, "the folder's files changed"
    assert not any(name.endswith(("-wal", "-shm", "-journal")) for name in after)
    if not wal_file:
        assert folder.stat().st_mtime_ns == folder_mtime, "something was created and removed"
    return message


def test_random_bytes(tmp_path):
    path = tmp_path / "noise.reasonscope"
    path.write_bytes(os.urandom(8192))
    _assert_refused(path, "not a SQLite database")


def test_text_file(tmp_path):
    path = tmp_path / "notes.reasonscope"
    path.write_text("questions:\n  - how many mugs?\n", encoding="utf-8")
    _assert_refused(path, "not a SQLite database")


@pytest.mark.parametrize("seed", range(8))
def test_sqlite_header_then_garbage(tmp_path, seed):
    path = tmp_path / "torn.reasonscope"
    path.write_bytes(b"SQLite format 3\x00" + random.Random(seed).randbytes(4096))
    _assert_refused(path, "not a usable SQLite database")


def test_damaged_header_saying_wal_creates_nothing(tmp_path):
    """Version bytes 2/2 (WAL) in an otherwise damaged header: refused before SQLite
    would open -wal and -shm files beside it (CI once caught random bytes doing this)."""
    head = bytearray(b"SQLite format 3\x00" + bytes(84))
    head[16:18] = (4096).to_bytes(2, "big")
    head[18:20] = b"\x02\x02"
    head[21:24] = b"\x00\x00\x00"
    path = tmp_path / "torn-wal.reasonscope"
    path.write_bytes(bytes(head) + random.Random(1).randbytes(4096))
    message = _assert_refused(path, "not a usable SQLite database")
    assert "damaged header" in message


@pytest.mark.parametrize("journal_mode", ["delete", "wal"])
def test_sqlite_database_that_is_not_a_project(tmp_path, journal_mode):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA journal_mode = {journal_mode}")
    conn.execute("CREATE TABLE songs (id INTEGER PRIMARY KEY, title TEXT)")
    conn.execute("INSERT INTO songs(title) VALUES ('So What')")
    conn.commit()
    conn.close()
    _assert_refused(path, "not a ReasonScope project", wal_file=journal_mode == "wal")


def _future_project(path: Path) -> Path:
    with open_project(path, create=True) as project:
        project.annotators.sign_in("Alice")
        with project.write():
            project.db.execute(
                "INSERT INTO _sqlite_migrations(migration_set, name, applied_at) "
                "VALUES ('reasonscope', '9999_from_the_future', '2099-01-01')"
            )
    return path


def test_project_from_a_newer_schema(tmp_path):
    path = _future_project(tmp_path / "future.reasonscope")
    message = _assert_refused(path, "newer ReasonScope", wal_file=True)
    assert "upgrade" in message


def test_project_from_a_newer_schema_opened_read_only(tmp_path):
    path = _future_project(tmp_path / "future.reasonscope")
    _assert_refused(path, "newer ReasonScope", wal_file=True, readonly=True)


def test_directory(tmp_path):
    path = tmp_path / "folder.reasonscope"
    path.mkdir()
    _assert_refused(path, "is a directory")
    _assert_refused(path, "is a directory", create=True)
    assert list(path.iterdir()) == []


def test_missing_file_without_create(tmp_path):
    path = tmp_path / "missing.reasonscope"
    _assert_refused(path, "no such project file")
    assert not path.exists()


def test_missing_folder_with_create(tmp_path):
    path = tmp_path / "nowhere" / "new.reasonscope"
    before = _snapshot(tmp_path)
    with pytest.raises(ProjectError, match="does not exist") as info:
        open_project(path, create=True)
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    assert _snapshot(tmp_path) == before


# -- read-only files ----------------------------------------------------------
#
# Root ignores file permissions: after chmod 0o444, os.access(path, W_OK) is still
# True for root, so the read-only check never fires and SQLite would happily write.
# When the tests run as root we therefore open the file from a forked child that
# has dropped to an unprivileged user, which is what a real person would be. (A
# fresh interpreter cannot be used: the venv's Python lives under root's 0700 home.)


def _try_opening(path: Path) -> dict:
    out: dict = {}
    try:
        open_project(path).close()
        out["writable_open"] = "opened"
    except ProjectError as exc:
        out["writable_open"] = str(exc)
    try:
        with open_project(path, readonly=True) as p:
            out["readonly_open"] = [a.name for a in p.annotators.list()]
            try:
                p.annotators.sign_in("Mallory")
                out["readonly_write"] = "written"
            except ProjectError as exc:
                out["readonly_write"] = str(exc)
    except ProjectError as exc:
        out["readonly_open"] = str(exc)
    return out


def _open_as_unprivileged(path: Path) -> dict:
    if os.geteuid() != 0:
        return _try_opening(path)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: drop to nobody, try, report, and leave without cleanup
        try:
            os.close(read_end)
            try:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            except OSError as exc:
                payload = {"cannot_drop": str(exc)}
            else:
                payload = {"euid": os.geteuid(), **_try_opening(path)}
        except BaseException as exc:  # report anything, even SystemExit, to the parent
            payload = {"child_error": f"{type(exc).__name__}: {exc}"}
        with os.fdopen(write_end, "w") as fh:
            fh.write(json.dumps(payload))
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as fh:
        payload = json.loads(fh.read() or '{"child_error": "no report"}')
    os.waitpid(pid, 0)
    if "cannot_drop" in payload:
        pytest.skip(f"running as root and cannot drop privileges: {payload['cannot_drop']}")
    assert "child_error" not in payload, payload["child_error"]
    assert payload["euid"] == NOBODY
    return payload


@pytest.fixture
def readonly_project():
    # Not tmp_path: its parents are mode 0700 and owned by root, so an unprivileged
    # child could not even reach the file.
    folder = Path(tempfile.mkdtemp(prefix="reasonscope-ro-"))
    folder.chmod(0o755)
    path = folder / "shared.reasonscope"
    with open_project(path, create=True) as project:
        project.annotators.sign_in("Alice")
    path.chmod(0o444)
    yield path
    shutil.rmtree(folder, ignore_errors=True)


def test_read_only_file(readonly_project):
    path = readonly_project
    if os.geteuid() == 0:
        assert os.access(path, os.W_OK), "root is expected to bypass file permissions"
    before = _snapshot(path.parent)
    folder_mtime = path.parent.stat().st_mtime_ns
    result = _open_as_unprivileged(path)
    message = result["writable_open"]
    assert message != "opened", "a read-only file was opened for writing"
    assert "\n" not in message and str(path) in message and "read-only" in message, message
    # Opening it read-only works and refuses changes.
    assert result["readonly_open"] == ["Alice"]
    assert "read-only" in result["readonly_write"] and str(path) in result["readonly_write"]
    assert _snapshot(path.parent) == before
    assert path.parent.stat().st_mtime_ns == folder_mtime
