"""Verify restores the next question's scene ahead, so it opens at once."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def two_scenes_db(tmp_path_factory):
    from app.jobs.questions import generate_questions
    from store import open_project

    path = tmp_path_factory.mktemp("prefetch") / "two.reasonscope"
    open_project(path, create=True).close()
    generate_questions(path, tasks=["count"], n=2, seed=1, image_size=128)
    return path


def test_the_next_question_is_restored_ahead_and_opens_at_once(qtbot, two_scenes_db, tmp_path):
    from gestures import open_as_ada, press_shortcut
    from PySide6.QtCore import Qt

    def small(w):
        w.mode("verify").image_size = 128

    window = open_as_ada(qtbot, two_scenes_db, "verify", copy_to=tmp_path, prepare=small)
    verify = window.mode("verify")
    first, second = verify.state.questions[:2]
    assert first.scene_id != second.scene_id
    qtbot.waitUntil(lambda: verify.loaded is not None, timeout=30_000)
    # while the first is read, the next one's scene is restored in the background
    qtbot.waitUntil(lambda: second.scene_id in verify.prefetch.kept, timeout=30_000)
    press_shortcut(qtbot, window, Qt.Key.Key_J)
    # shown at once: no busy page, no restore started
    assert verify.loaded is not None and verify.loaded.scene.id == second.scene_id
    assert verify.central.currentWidget() is verify.viewport and verify.task is None
    press_shortcut(qtbot, window, Qt.Key.Key_K)  # and back again, also at once
    assert verify.loaded.scene.id == first.scene_id and verify.task is None
    assert second.scene_id in verify.prefetch.kept
    window.close()
    assert verify.prefetch.kept == {}  # the worlds are closed with the window
