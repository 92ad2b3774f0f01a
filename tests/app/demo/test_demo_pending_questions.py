"""The demo leaves tabletop questions for a new verifier, and its scripted agent's grasps
on them fail with the fingers closed (the planned vs actual comparison in Replay)."""

from __future__ import annotations

from demo_failed_grasps import closed_grasps, pending_demo  # noqa: F401 (a fixture)

import app.demo as demo
from annotation.progress import Progress
from store import open_project


def test_a_new_verifier_has_tabletop_questions_to_take(tmp_path, monkeypatch):
    """A freshly built demo (its annotator and question parts): Dana, signing in for the
    first time, finds MG-VQA questions in her queue; the verified ones keep their verdicts,
    so Results still has agreement numbers."""
    monkeypatch.setattr(demo, "DEMO_QUESTION_TASKS", ("count",))
    skipped = {
        "scenes",
        "episodes",
        "jrdb",
        "hoi",
        "reasoning",
        "reasoning_results",
        "bimanual",
        "spatial",
        "team",
    }  # (team: one question goes out)
    monkeypatch.setattr(demo, "DEMO_PARTS", [p for p in demo.DEMO_PARTS if p[0] not in skipped])
    path = tmp_path / "demo.reasonscope"
    demo.build_demo(path, Progress())
    with open_project(path) as project:
        dana = project.annotators.sign_in("Dana")
        tabletop = [q for q in project.verifications.queue(dana) if q.benchmark == "mgvqa"]
        assert tabletop, "no tabletop question for a new verifier"
        for q in tabletop:
            assert q.status == "pending"
            assert project.verifications.visible_verdicts(q.id, dana) == []
        assert len(tabletop) == len(demo.DEMO_PENDING_QUESTIONS)
        assert project.verifications.agreement("mgvqa")["n"] >= 1  # the verified question


def test_an_older_demo_gets_episodes_for_its_new_pending_questions(tmp_path, monkeypatch):
    """A demo built before the pending questions existed has run its episodes part: the
    new part records the demo's runs on its own questions."""
    monkeypatch.setattr(demo, "DEMO_QUESTION_TASKS", ("count",))
    monkeypatch.setattr(demo, "DEMO_PENDING_QUESTIONS", (("count", 11),))
    monkeypatch.setattr(demo, "DEMO_RUNS", (("chance", "direct"),))
    path = tmp_path / "old.reasonscope"
    with open_project(path, create=True) as project:
        for name, _part in demo.DEMO_PARTS:
            if name != "pending_questions":
                project.meta_append("demo_parts", name)
    assert demo.build_demo(path, Progress()) == ["pending_questions"]
    with open_project(path) as project:
        (question,) = project.questions.page(benchmark="mgvqa").rows
        (episode_id,) = project.episodes.ids()
        assert project.episodes.get(episode_id).question_id == question.id


def test_the_demo_grasps_fail_with_the_fingers_closed(pending_demo):  # noqa: F811
    """Recorded by the simulator (inverse kinematics, joint motion, friction): in a
    pending question a grasp closes on its object and the object slips at lift, with
    other candidates tried after it (since the grasp planner learned leaning slabs and
    balls, one of the demo's questions still shows it, where two did). Each step records where tool0 was when the fingers closed, next
    to the plan, every attempt with how far the object rose, and the planner's
    candidates; the feedback says why, listing the attempts when there were several."""
    with open_project(pending_demo, readonly=True) as project:
        failed = closed_grasps(project)
        assert len({episode for episode, _step in failed}) >= 1
        most = 0
        for _episode_id, step in failed:
            replay = step.result["replay"]
            assert len(replay["tool_at_close"]) == 3 and replay["plan"]["feasible"]
            assert replay["reason"] == "slipped" and replay["gripper"] == "2f140"
            tried = replay["attempts"]
            assert tried and replay["plan"]["candidates"] and tried[-1]["outcome"] == "slipped"
            slipped = [a for a in tried if a["outcome"] == "slipped"]  # others: e.g. unreachable
            assert all(a["rose_m"] < 0.075 for a in slipped)
            if len(tried) > 1:
                assert step.feedback.startswith(
                    f"Action failed: slipped: {len(tried)} grasps tried: 1) across"
                )
            else:
                assert step.feedback.startswith("Action failed: slipped: ")
            assert "the object slipped at lift (it rose" in step.feedback
            most = max(most, len(tried))
        assert most >= 2  # one grasp was tried again with another candidate
