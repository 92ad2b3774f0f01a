"""The chance baseline and the scripted search agent, acting through ToolEnv."""

from __future__ import annotations

from types import SimpleNamespace

from sim.tabletop.agents import ChanceAgent, SearchAgent
from sim.tabletop.toolenv import ToolEnv
from sim.tabletop.world import TOP_DOWN
from tests.sim.tabletop.tabletop_cases import covered_cube_world, find_question

CAM = TOP_DOWN.with_size(256, 256)


def test_chance_answers_as_the_paper_baseline():
    answers = {}
    with covered_cube_world() as world:
        for task, options, truth in (
            ("count", None, 2),
            ("find", ["yes", "no"], {"answer": "no"}),
            ("beneath", ["a", "b", "None of the above"], "a"),
            ("compare", ["A", "B", "C"], "B"),
        ):
            q = SimpleNamespace(task=task, text="?", options=options, answer=truth, criteria={})
            env = ToolEnv(world, q, "direct", camera=CAM)
            ChanceAgent(seed=3).run(env)
            answers[task] = env.answer["answer"]
            assert len(env.steps) == 2 and env.steps[-1]["kind"] == "answer"
    assert answers["count"] == "0" and answers["find"] == "no"
    assert answers["beneath"] == "None of the above" and answers["compare"] in "ABC"


def test_search_agent_lifts_the_cover_and_points_at_the_hidden_cube():
    with covered_cube_world() as world:
        env = ToolEnv(world, find_question(), "manipulation", camera=CAM)
        SearchAgent().run(env)
        names = [s["name"] for s in env.steps]
        assert "grasp" in names
        assert env.answer["answer"] == "yes" and env.correct is True
        # it looked again after acting, before answering
        assert names[names.index("grasp") + 1] == "perceive_scene"


def test_search_agent_without_manipulation_answers_from_what_it_sees():
    with covered_cube_world() as world:
        env = ToolEnv(world, find_question(), "perception", camera=CAM)
        SearchAgent().run(env)
        assert env.answer["answer"] == "no" and env.correct is False  # the cube stays hidden
        assert {s["name"] for s in env.steps} <= {"observe", "perceive_scene", "answer_question"}
