"""`reasonscope run-agent`: agents answer stored questions; every step is stored and exportable."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from store import open_project
from tests.sim.tabletop.tabletop_cases import covered_cube_world, scene_record_of


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "agents.reasonscope"
    with open_project(path, create=True) as project, covered_cube_world() as world:
        with project.write():
            sid = project.scenes.add(scene_record_of(world))
            project.questions.add(
                {
                    "benchmark": "mgvqa",
                    "task": "find",
                    "text": "Is there a red cube on the table? If so, point to it.",
                    "options": ["yes", "no"],
                    "answer": {"answer": "yes"},
                    "criteria": {"measured": {"target": "red cube"}},
                    "scene_id": sid,
                }
            )
    return path


def test_search_and_chance_runs_are_recorded_step_by_step(db, tmp_path, capsys):
    args = ["--db", str(db), "--questions", "any", "--image-size", "256", "--json"]
    assert main(["run-agent", "--agent", "search", "--mode", "manipulation", *args]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["episodes"] == 1 and report["correct"] == 1
    assert main(["run-agent", "--agent", "chance", "--mode", "direct", *args]) == 0
    assert json.loads(capsys.readouterr().out)["correct"] == 0
    with open_project(db) as project:
        search, chance = (project.episodes.get(i) for i in project.episodes.ids())
        assert (search.agent, search.mode, search.success) == ("search", "manipulation", True)
        assert (chance.agent, chance.mode, chance.outcome) == ("chance", "direct", "answered")
        steps = project.episodes.steps(search.id)
        assert steps[0].kind == "observation" and steps[-1].kind == "answer"
        assert all(s.state and s.state["bodies"] for s in steps)
        assert any(s.name == "grasp" and s.ok for s in steps)
        assert search.header["camera"] == {"width": 256, "height": 256}
    out = tmp_path / "episodes.jsonl"
    assert main(["export", "episodes", "--db", str(db), "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    grasp = next(s for s in lines[0]["steps"] if s["name"] == "grasp")
    assert grasp["result"]["replay"]["plan"]["feasible"] and grasp["state"]["bodies"]
    # and back into another project, step for step
    other = tmp_path / "other.reasonscope"
    open_project(other, create=True).close()
    assert (
        main(["import", "episodes", str(out), "--format", "reasonscope", "--db", str(other)]) == 0
    )
    with open_project(db) as a, open_project(other) as b:
        first = a.episodes.ids()[0]
        copy = b.episodes.find(a.episodes.get(first).uid)
        assert copy.header["camera"] == {"width": 256, "height": 256}
        assert [s.state for s in b.episodes.steps(copy.id)] == [
            s.state for s in a.episodes.steps(first)
        ]


def test_bad_requests_fail_in_one_line_and_record_nothing(db, capsys):
    base = ["run-agent", "--db", str(db), "--mode", "direct"]
    assert main([*base, "--agent", "chance"]) == 2  # no approved questions yet
    assert "no approved MG-VQA questions" in capsys.readouterr().err
    assert main([*base, "--agent", "chance", "--limit", "0"]) == 2
    assert "--limit 0" in capsys.readouterr().err
    assert main([*base, "--agent", "openai", "--questions", "any"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "openai agent" in err
    with open_project(db) as project:
        assert project.episodes.ids() == []


def test_a_failing_model_endpoint_is_recorded_as_an_error_episode(db):
    from app.jobs.agents import run_episode
    from sim.llm import ModelError

    class Unreachable:
        name, model, prompt_variant = "openai", "some-vlm", "plain"

        def run(self, env):
            env.call("perceive_scene")
            raise ModelError("cannot reach http://127.0.0.1:9/v1: connection refused")

    with open_project(db) as project:
        question = project.questions.page(limit=1).rows[0]
        episode = project.episodes.get(run_episode(project, question, Unreachable(), "perception"))
        assert episode.outcome == "error" and episode.success is False
        assert "connection refused" in episode.header["error"]
        assert [s.name for s in project.episodes.steps(episode.id)] == ["observe", "perceive_scene"]
