"""answer_question scoring, Find's point checked against the live view."""

from __future__ import annotations

from annotation.models import Question
from sim.tabletop.scoring import score_answer
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

CAM = TOP_DOWN.with_size(256, 256)


def question(task, answer, criteria=None):
    return Question(
        1,
        "u",
        1,
        "mgvqa",
        task,
        "?",
        None,
        answer,
        [],
        [],
        None,
        criteria or {},
        "approved",
        True,
        None,
        None,
        0,
        "",
        None,
    )


def test_count_beneath_compare():
    assert score_answer(question("count", 3), "3").correct
    assert not score_answer(question("count", 3), "2").correct
    assert not score_answer(question("count", 3), "three").correct
    assert score_answer(question("beneath", "red mug"), " Red  Mug").correct
    assert not score_answer(question("compare", "B"), "C").correct


def test_find_needs_the_point_on_the_object():
    from sim.camera import project_points

    x, y = WORKSPACE_CENTRE
    with TabletopWorld(with_robot=False) as world:
        world.add_primitive(
            "mug", "box", (0.03, 0.03, 0.03), (x, y, TABLE_TOP_Z + 0.03), name="red mug"
        )
        q = question("find", {"answer": "yes", "point": None}, {"measured": {"target": "red mug"}})
        uv, _ = project_points(CAM, [(x, y, TABLE_TOP_Z + 0.06)])
        u, v = uv[0]
        assert score_answer(q, "yes", (u, v), world=world, camera=CAM).correct
        assert not score_answer(q, "yes", (3, 3), world=world, camera=CAM).correct
        assert not score_answer(q, "yes").correct
        assert not score_answer(q, "no").correct
    absent = question("find", {"answer": "no", "point": None})
    assert score_answer(absent, "No").correct
