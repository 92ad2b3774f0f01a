"""Verify questions on a Find question: the answer's point is marked in the Model view and
in the 3D verification view, and goes when the next question has no point."""

from __future__ import annotations

import numpy as np
import pytest
from gestures import open_as_ada, press_shortcut
from PySide6.QtCore import Qt

from sim.camera import project_points
from store import open_project


@pytest.fixture(scope="module")
def find_project(tmp_path_factory):
    from sim.tabletop.questions import Candidate, generate
    from sim.tabletop.scenes import scene_record

    path = tmp_path_factory.mktemp("verify_find") / "find.reasonscope"
    with open_project(path, create=True) as project:
        for seed in range(2, 40, 2):  # even seeds: the target is present
            candidate = generate("find", seed)  # the point in the 1024 px model image
            if isinstance(candidate, Candidate):
                break
        with project.write():
            sid = project.scenes.add(scene_record(candidate.scene))
            project.questions.add(candidate.question_record(sid))
        candidate.scene.world.close()
        project.questions.add(
            {
                "benchmark": "mgvqa",
                "task": "count",
                "text": "How many objects are there?",
                "answer": 3,
                "evidence_ids": [],
                "scene_id": sid,
            }
        )
    return path


def test_a_find_answers_point_is_marked_in_both_views(qtbot, find_project, tmp_path):
    def small_renders(w):
        w.mode("verify").image_size = 256

    window = open_as_ada(qtbot, find_project, "verify", copy_to=tmp_path, prepare=small_renders)
    verify = window.mode("verify")
    question = verify.state.current
    assert question.task == "find" and question.answer["point"]
    qtbot.waitUntil(lambda: verify.loaded is not None, timeout=30000)
    u, v = question.answer["point"]
    assert verify.image.marker_point == pytest.approx((u / 4, v / 4))
    assert verify.image.marker.isVisible()
    hit = verify.viewport.marked_point
    assert hit is not None
    # the marked point is where the model's camera sees that pixel
    seen, _ = project_points(verify.loaded.view.camera, [hit])
    assert seen[0] == pytest.approx((u / 4, v / 4), abs=0.6)
    shot = verify.viewport.snapshot()
    at, depth = project_points(verify.viewport.camera_spec(), [hit])
    x, y = (int(c) for c in at[0])
    assert depth[0] > 0 and 0 <= x < shot.shape[1] and 0 <= y < shot.shape[0]
    patch = shot[y - 1 : y + 2, x - 1 : x + 2].astype(int)
    assert np.all((patch[..., 0] > 200) & (patch[..., 1] < 90) & (patch[..., 2] > 170))
    press_shortcut(qtbot, window, Qt.Key.Key_J)  # the Count question on the same scene
    assert verify.state.current.task == "count"
    assert verify.image.marker_point is None and verify.viewport.marked_point is None
    window.close()
