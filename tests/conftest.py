"""Shared fixtures. GUI tests run under Xvfb (pytest-xvfb) on Qt's xcb platform."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Qt's offscreen platform has no OpenGL; pytest-xvfb gives us a real X display.
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# fixtures that tests in several folders share (a test module is never imported by another)
pytest_plugins = ["episode_fixtures"]


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory, monkeypatch):
    """Never touch the real user's settings, demo project or logs."""
    base = tmp_path_factory.mktemp("userdirs")
    monkeypatch.setenv("REASONSCOPE_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("REASONSCOPE_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("REASONSCOPE_LOG_DIR", str(base / "logs"))
    yield


@pytest.fixture(autouse=True)
def _mutants_end_within_a_minute():
    """Under `make mutants` (mutmut sets MUTANT_UNDER_TEST), a test still running after a
    minute is a mutant's loop that never ends (a paging loop that reads the first page
    again and again): it fails, and the mutant counts as killed, instead of running into
    mutmut's CPU limit minutes later and counting as a timeout. The suite's own runs have
    no deadline: they assert on no clock."""
    if not os.environ.get("MUTANT_UNDER_TEST"):
        yield
        return
    from hang_guard import StillRunning, deadline

    with deadline(60, lambda: StillRunning("still running after 60 s under make mutants")):
        yield


@pytest.fixture
def project(tmp_path):
    from store import open_project

    p = open_project(tmp_path / "project.reasonscope", create=True)
    yield p
    p.close()


@pytest.fixture
def alice(project):
    return project.annotators.sign_in("Alice")


@pytest.fixture
def bob(project):
    return project.annotators.sign_in("Bob")


@pytest.fixture(autouse=True)
def _small_demo(monkeypatch):
    """Demos built inside the test process stay small (one scene, one question, two episodes);
    the CLI test builds the full demo in a subprocess."""
    import app.demo as demo

    monkeypatch.setattr(demo, "DEMO_SCENE_SEEDS", range(1))
    monkeypatch.setattr(demo, "DEMO_QUESTION_TASKS", ("find",))
    # episodes without grasps: a manipulation episode costs seconds of physics
    monkeypatch.setattr(demo, "DEMO_RUNS", (("chance", "direct"), ("search", "perception")))
    # no dual-arm physics either (tests/app/demo/test_demo_bimanual.py builds that part on its own)
    monkeypatch.setattr(demo, "DEMO_BIMANUAL_LOGS", ())
    monkeypatch.setattr(demo, "DEMO_BIMANUAL_REFERENCES", ())
    monkeypatch.setattr(demo, "DEMO_BIMANUAL_REPLAY", False)
    monkeypatch.setattr(demo, "DEMO_SPATIAL_ITEMS", 1)


@pytest.fixture(scope="session")
def ray_local():
    """One local Ray with 2 CPUs for the whole test run (starting one takes ~5 s), shut
    down at the end. Batch code started with workers > 1 joins it."""
    from app.jobs.batch import start_ray

    start_ray(2, None)
    yield
    import ray

    ray.shutdown()


@pytest.fixture
def make_window(qtbot):
    """Make main windows on screen (`gestures.shown_window`); all closed after the test."""
    from gestures import shown_window

    made = []

    def make():
        made.append(shown_window(qtbot))
        return made[-1]

    yield make
    for w in made:
        w.close()
