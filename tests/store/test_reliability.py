"""Autosave under abuse: writers killed with SIGKILL, and writers racing each other.

Each writer is a real process running tests/store/writer_process.py, which prints
the index of every label after `project.hoi.add_label` has returned. Whatever a
writer printed before it died must be in the file, and the file must be intact.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from store import open_project

WRITER = Path(__file__).with_name("writer_process.py")
KILLS = 20
STREAM = 1_000


def _start(db: Path, n: int, tag: str, *, start_at: float | None = None) -> subprocess.Popen:
    env = dict(os.environ)
    if start_at is not None:
        env["WRITER_START_AT"] = repr(start_at)
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(db), str(n), tag],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def _indices(project, tag: str) -> list[int]:
    rows = project.db.execute(
        "SELECT predicate FROM hoi_labels WHERE predicate LIKE ? ORDER BY id", [f"{tag}-%"]
    ).fetchall()
    return [int(r[0].rsplit("-", 1)[1]) for r in rows]


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "autosave.reasonscope"
    open_project(path, create=True).close()
    return path


def test_killed_writers_lose_nothing_they_reported(db):
    rng = random.Random(20240607)
    completed = 0
    for run in range(KILLS):
        tag = f"kill{run}"
        target = rng.choice([1, rng.randint(2, 50), rng.randint(50, STREAM - 50)])
        writer = _start(db, STREAM, tag)
        printed: list[int] = []
        try:
            while len(printed) < target:
                line = writer.stdout.readline()
                if not line:
                    break
                printed.append(int(line))
            time.sleep(rng.uniform(0, 0.003))  # land somewhere inside a later write
            writer.send_signal(signal.SIGKILL)
            writer.wait(timeout=30)
        finally:
            if writer.poll() is None:
                writer.kill()
        # Lines already in the pipe were printed before the kill, so they count too.
        printed += [int(line) for line in writer.stdout.read().split()]
        stderr = writer.stderr.read().decode()
        writer.stdout.close()
        writer.stderr.close()
        assert len(printed) >= min(target, 1), f"run {run}: writer printed nothing\n{stderr}"
        assert writer.returncode in (-signal.SIGKILL, 0), stderr
        completed += writer.returncode == 0
        assert printed == list(range(len(printed)))

        with open_project(db) as project:
            assert project.integrity_ok(), f"run {run}: integrity_check failed"
            stored = _indices(project, tag)
        # Every reported write is there, in order, with at most one more that was
        # committed but not yet reported when the signal arrived.
        assert stored == list(range(len(stored))), f"run {run}: gaps or duplicates"
        assert len(printed) <= len(stored) <= len(printed) + 1, (run, len(printed), len(stored))
        if writer.returncode == 0:
            assert len(stored) == STREAM
    assert completed < KILLS // 2, "most writers finished before the kill; the test proves little"


def test_two_writers_at_once(db):
    start_at = time.time() + 1.0  # both open the file and start writing together
    writers = {tag: _start(db, 500, tag, start_at=start_at) for tag in ("left", "right")}
    results = {tag: w.communicate(timeout=120) for tag, w in writers.items()}
    for tag, w in writers.items():
        out, err = (stream.decode() for stream in results[tag])
        assert "database is locked" not in err, err
        assert w.returncode == 0, err
        assert [int(x) for x in out.split()] == list(range(500))
    with open_project(db) as project:
        assert project.integrity_ok()
        assert _indices(project, "left") == list(range(500))
        assert _indices(project, "right") == list(range(500))
        assert project.summary.summary().hoi_labels == 1_000
        names = {a.name for a in project.annotators.list()}
        assert names == {"writer left", "writer right"}


def test_two_writers_share_a_tag(db):
    """Same tag: the sequence is created once, both streams land in it."""
    start_at = time.time() + 1.0
    writers = [_start(db, 100, "shared", start_at=start_at) for _ in range(2)]
    for w in writers:
        _, err = w.communicate(timeout=120)
        assert w.returncode == 0, err.decode()
    with open_project(db) as project:
        stored = _indices(project, "shared")
        assert sorted(stored) == sorted(list(range(100)) * 2)
        s = project.summary.summary()
        assert (s.sequences, s.frames, s.entities, s.annotators) == (1, 1, 2, 1)


def test_two_writers_upgrade_an_unmigrated_file_at_once(tmp_path):
    """Both find migrations pending; one applies them, the other waits and sees them done."""
    path = tmp_path / "empty.reasonscope"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")  # an empty SQLite file, no schema yet
    conn.close()
    start_at = time.time() + 1.0
    writers = [_start(path, 50, tag, start_at=start_at) for tag in ("a", "b")]
    for w in writers:
        _, err = w.communicate(timeout=120)
        assert w.returncode == 0, err.decode()
    with open_project(path) as project:
        assert project.integrity_ok()
        assert sorted(_indices(project, "a") + _indices(project, "b")) == sorted(
            list(range(50)) * 2
        )
