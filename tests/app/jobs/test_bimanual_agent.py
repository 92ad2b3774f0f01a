"""The bimanual planner agent against a scripted OpenAI-compatible server on 127.0.0.1 (it
stands for the remote model): both tiers solving stack_blocks_two, repaired and unreadable
replies, the three-step history and the allocation guard's feedback in the next request,
transport failures recorded as errors, and `run-agent --benchmark bimanual`."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from model_server import serve

from app.cli import main
from app.jobs.bimanual import run_bimanual
from sim.bimanual.agent import BimanualOpenAIAgent
from sim.bimanual.env import BimanualEnv
from sim.llm import OpenAIConfig, RetryPolicy
from store import open_project

SIZE = (160, 120)
TASK = "stack_blocks_two"
HEADER_KEYS = {
    "uid",
    "benchmark",
    "mode",
    "agent",
    "model",
    "task",
    "outcome",
    "success",
    "score",
    "tier",
    "bimanual",
    "error",
}


def completion(content: str) -> tuple[int, dict[str, Any]]:
    message = {"role": "assistant", "content": content}
    return 200, {"choices": [{"index": 0, "message": message}]}


def answer(plan: list[Any]) -> str:
    return json.dumps(
        {
            "visual_state_description": "two blocks on the table",
            "reasoning_and_reflection": "start",
            "language_plan": "stack them",
            "executable_plan": plan,
        }
    )


def user_text(body: dict[str, Any]) -> str:
    return next(p["text"] for p in body["messages"][1]["content"] if p["type"] == "text")


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "runs.reasonscope"
    open_project(path, create=True).close()
    return path


def run(
    db, url: str, *, tier: str = "primitive", max_steps: int = 3, seed: int = 0, truncate: int = 0
):
    def factory():
        fast = RetryPolicy(retries=2, base=0.01, jitter=0)
        return BimanualOpenAIAgent(OpenAIConfig(base_url=url, model="fake-vlm"), retry=fast)

    summary = run_bimanual(
        db,
        "openai",
        TASK,
        seed=seed,
        tier=tier,
        max_steps=max_steps,
        truncate=truncate,  # 0: whole plans, so one reply can carry the reference plan
        image_size=SIZE,
        agent_factory=factory,
    )
    with open_project(db) as project:
        (episode_id,) = summary.episode_ids
        return project.episodes.get(episode_id), project.episodes.steps(episode_id)


def test_the_primitive_tier_solves_the_task_with_the_reference_plan(db):
    with BimanualEnv(TASK, 0, image_size=SIZE) as scratch:
        plan = scratch.task.reference_plan(scratch.world)
    with serve(lambda body, n: completion(answer(plan))) as (server, url):
        requests = server.requests
        episode, steps = run(db, url)
    assert (episode.outcome, episode.success, episode.score) == ("success", True, 1.0)
    assert set(episode.header) == HEADER_KEYS and episode.model == "fake-vlm"
    assert episode.header["bimanual"]["image_size"] == list(SIZE)
    assert [s.kind for s in steps] == ["observation", "action"] and steps[1].ok is True
    assert steps[1].model_text["language_plan"] == "stack them"
    assert len(requests) == 1
    body = requests[0]
    system, user = body["messages"]
    assert body["model"] == "fake-vlm" and system["role"] == "system"
    assert "stack the blocks" in system["content"] and "2.2: grasp_actor" in system["content"]
    image = next(p for p in user["content"] if p["type"] == "image_url")
    assert image["image_url"]["url"].startswith("data:image/png;base64,")
    assert "oldest first" not in user_text(body)


DOWN = [0.5, -0.5, 0.5, 0.5]


def _grasp_quat(yaw: float) -> list[float]:
    """Wire wxyz of the downward gripper turned by yaw about z."""
    c, s = math.cos(yaw / 2), math.sin(yaw / 2)
    w, x, y, z = DOWN
    return [c * w - s * z, c * x - s * y, c * y + s * x, c * z + s * w]


def stacking_rows(env: BimanualEnv) -> list[list[list[float]]]:
    """Two replies of 16-number rows: the left arm puts red at the centre, the right puts
    green on it; each arm goes home afterwards."""
    import pybullet

    ee = env.steps[0]["result"]["ee"]
    home = {arm: ee[arm]["pose"] for arm in ("left", "right")}
    replies = []
    for arm, key, z in (("left", "red_block", 0.928), ("right", "green_block", 0.978)):
        x, y, _ = env.objects()[key]
        q = _grasp_quat(pybullet.getEulerFromQuaternion(env.world.body_pose(key)[1])[2])
        moves = [
            ([x, y, 1.0, *q], 1),
            ([x, y, 0.924, *q], 1),
            ([x, y, 0.924, *q], 0),
            ([x, y, 1.05, *q], 0),
            ([0, -0.13, 1.05, *DOWN], 0),
            ([0, -0.13, z, *DOWN], 0),
            ([0, -0.13, z, *DOWN], 1),
            ([0, -0.13, 1.08, *DOWN], 1),
            (home[arm], 1),
        ]
        other = "right" if arm == "left" else "left"
        rows = []
        for pose, grip in moves:
            part = {arm: [*pose, grip], other: [*home[other], 1]}
            rows.append([round(v, 5) for v in part["left"] + part["right"]])
        replies.append(rows)
    return replies


def test_the_row16_tier_solves_the_task_with_rows_and_sees_its_history(db):
    with BimanualEnv(TASK, 0, tier="row16", image_size=SIZE) as scratch:
        replies = stacking_rows(scratch)
    with serve(lambda body, n: completion(answer(replies[min(n, 2) - 1]))) as (server, url):
        requests = server.requests
        episode, steps = run(db, url, tier="row16")
    assert episode.outcome == "success" and episode.header["tier"] == "row16"
    assert [s.ok for s in steps[1:]] == [True, True] and steps[2].result["task_success"]
    assert len(steps[1].arguments["plan"]) == 9 and "row" in steps[1].arguments["plan"][0]
    second = user_text(requests[1])
    assert "Step 1, actions [[" in second and "feedback: Action succeeded." in second
    assert "16 numbers" in requests[1]["messages"][0]["content"]


FAR = {
    "action_id": "2.2",
    "action_name": "grasp_actor",
    "parameters": {"actor": "red_block", "arm_tag": "right"},
}


def test_broken_and_unreadable_replies_history_and_the_allocation_guard(db):
    broken = (
        "{'visual_state_description': 'red on the left', 'language_plan': 'grab it',"
        "'executable_plan': [{'action_id': '2.2', 'action_name': 'grasp_actor', "
        "'parameters': {'actor': 'red_block', 'arm_tag': 'right',},},],}"
    )
    pose = {"action_name": "get_arm_pose", "parameters": {"arm_tag": "left"}}
    script = [broken, "I would use (LEFT OR RIGHT)", answer([pose]), answer([]), answer([pose])]
    with serve(lambda body, n: completion(script[n - 1])) as (server, url):
        requests = server.requests
        episode, steps = run(db, url, max_steps=5)
    assert len(requests) == 5 and episode.outcome == "failure" and episode.step_count == 6
    assert [s.kind for s in steps] == [
        "observation",
        "action",
        "format_error",
        "action",
        "action",
        "action",
    ]
    first = steps[1]
    assert "single_quotes" in first.result["parse"]["repairs"] and first.ok is False
    guard = "target red_block is too far, right arm can not finish this 'grasp' action!"
    assert guard in first.feedback and guard in user_text(requests[1])
    assert steps[2].feedback.startswith("Format error") and steps[2].raw_output.startswith("I")
    last = user_text(requests[4])
    assert "Step 1," not in last and all(f"Step {i}," in last for i in (2, 3, 4))
    assert "Step 2, actions (none: the reply could not be read)" in last
    assert "feedback: Action is empty, no action taken." in last
    assert steps[5].state is not None and steps[5].image_sha256


def test_a_failing_endpoint_is_recorded_as_an_error(db):
    with serve(lambda body, n: (503, {"error": {"message": "overloaded"}})) as (server, url):
        requests = server.requests
        episode, steps = run(db, url)
    assert len(requests) == 3 and episode.outcome == "error" and episode.success is False
    assert "HTTP 503" in episode.header["error"] and [s.kind for s in steps] == ["observation"]


def test_run_agent_cli_runs_the_model_on_a_bimanual_task(db, monkeypatch, capsys):
    with serve(lambda body, n: completion(answer([]))) as (server, url):
        requests = server.requests
        monkeypatch.setenv("REASONSCOPE_OPENAI_BASE_URL", url)
        monkeypatch.setenv("REASONSCOPE_OPENAI_MODEL", "fake-vlm")
        code = main(
            [
                "run-agent",
                "--agent",
                "openai",
                "--benchmark",
                "bimanual",
                "--task",
                TASK,
                "--max-steps",
                "1",
                "--image-size",
                "96",
                "--seed",
                "3",
                "--json",
                "--db",
                str(db),
            ]
        )
    out = capsys.readouterr()
    assert code == 0, out.err
    summary = json.loads(out.out)
    assert summary["episodes"] == 1 and summary["correct"] == 0 and len(requests) == 1
    with open_project(db) as project:
        episode = project.episodes.get(summary["episode_ids"][0])
    assert episode.header["bimanual"]["seed"] == 3 and episode.header["bimanual"]["image_size"] == [
        96,
        72,
    ]
