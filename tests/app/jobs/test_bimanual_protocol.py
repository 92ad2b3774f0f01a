"""The ST-BiBench harness's protocol as the default of `run-agent --benchmark bimanual`:
per-task step limit and truncation, head + third-person views and the task's example
reply; flags override them; `--protocol paper` adds the paper's episode count and the
seeded randomized look; every header records what it ran with."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest
from model_server import serve

from annotation.bimanual.metrics import bimanual_run
from app.cli import main
from app.cli.run_agent import bimanual_episodes
from app.jobs.bimanual import bimanual_protocol
from sim.bimanual.protocol import paper_episodes, task_protocol
from sim.bimanual.tasks import TASKS
from store import open_project

# (action_limit, action_chunk_num) per task, read from BiManiBench (commit 3a85fbb) the way
# its harness reads them: script/myvlmEb_eval.py, eval_policy, json_data.get("action_limit",
# 10) and json_data.get("action_chunk_num", 6) on description/task_instruction/<task>.json.
# stack_blocks_two and place_object_scale have neither field (only *_vla ones), so they get
# the reader's defaults; stack_blocks_three and place_burger_fries have no action_chunk_num.
HARNESS = {
    "stack_blocks_two": (10, 6),
    "stack_blocks_three": (12, 6),
    "blocks_ranking_rgb": (10, 10),
    "blocks_ranking_size": (10, 8),
    "handover_block": (10, 8),
    "place_burger_fries": (10, 6),
    "grab_roller": (2, 5),
    "stack_bowls_three": (12, 5),
    "place_object_basket": (10, 8),
    "place_cans_plasticbox": (8, 5),
    "put_bottles_dustbin": (12, 15),
    "blocks_cross_shape": (10, 8),
    "blocks_tower": (12, 10),
    "handover_mic": (10, 8),
    "hanging_mug": (10, 8),
    "place_bread_skillet": (6, 5),
    "place_bread_skillet_vla": (10, 5),
    "place_object_scale": (10, 6),
}
# tasks whose file has a template_example (the reader's default {} is no example)
WITHOUT_EXAMPLE = {"stack_blocks_two", "place_bread_skillet_vla", "place_object_scale"}
TASK = "grab_roller"  # the harness's shortest: 2 steps


def completion(content: str) -> tuple[int, dict[str, Any]]:
    return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}


EMPTY = json.dumps(
    {
        "visual_state_description": "",
        "reasoning_and_reflection": "",
        "language_plan": "",
        "executable_plan": [],
    }
)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "runs.reasonscope"
    open_project(path, create=True).close()
    return path


def run_cli(db, monkeypatch, capsys, url, *flags):
    monkeypatch.setenv("REASONSCOPE_OPENAI_BASE_URL", url)
    monkeypatch.setenv("REASONSCOPE_OPENAI_MODEL", "fake-vlm")
    code = main(
        [
            "run-agent",
            "--agent",
            "openai",
            "--benchmark",
            "bimanual",
            "--image-size",
            "64",
            "--json",
            "--db",
            str(db),
            *flags,
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    summary = json.loads(out.out)
    with open_project(db) as project:
        episodes = [project.episodes.get(i) for i in summary["episode_ids"]]
        steps = [project.episodes.steps(e.id) for e in episodes]
    return episodes, steps


def test_the_shipped_values_are_the_harness_task_files():
    assert set(HARNESS) == set(TASKS)
    for task, (limit, chunk) in HARNESS.items():
        harness = task_protocol(task)
        assert (harness.max_steps, harness.truncate) == (limit, chunk), task
        assert (harness.example is None) == (task in WITHOUT_EXAMPLE), task
        env = bimanual_protocol(task)
        assert (env["max_steps"], env["truncate"], env["cameras"]) == (
            limit,
            chunk,
            ("head", "third"),
        )
    assert json.loads(task_protocol("blocks_tower").example)["executable_plan"][0][
        "action_name"
    ] == ("grasp_actor")


def test_a_default_run_records_the_harness_protocol_and_shows_both_views_and_the_example(
    db, monkeypatch, capsys
):
    with serve(lambda body, n: completion(EMPTY)) as (server, url):
        requests = server.requests
        (episode,), (steps,) = run_cli(db, monkeypatch, capsys, url, "--task", TASK)
    recorded = episode.header["bimanual"]
    limit, chunk = HARNESS[TASK]
    assert (recorded["max_steps"], recorded["truncate"]) == (limit, chunk)
    assert recorded["cameras"] == ["head", "third"] and recorded["example"] == "harness"
    assert recorded["randomization"] is False and recorded["look"] is None
    # the episode ran to the harness's step limit, one request a step
    assert len(steps) == 1 + limit and len(requests) == limit
    system, user = requests[0]["messages"]
    # the harness's order: head image, third-person image, the text; grab_roller has no
    # example picture, so nothing follows the text
    assert [p["type"] for p in user["content"]] == ["image_url", "image_url", "text"]
    assert "(head, third camera, in that order)" in user["content"][2]["text"]
    assert recorded["example_image"] is None
    example = task_protocol(TASK).example
    assert example and example in system["content"]
    assert f"Only the first {chunk} action(s)" in system["content"]
    assert bimanual_run(recorded) == (
        ("cameras", '["head","third"]'),
        ("image_size", "64x48"),
        ("max_steps", limit),
        ("truncate", chunk),
        ("example", "harness"),
    )


def test_flags_override_the_harness_protocol(db, monkeypatch, capsys):
    with serve(lambda body, n: completion(EMPTY)) as (server, url):
        requests = server.requests
        (episode,), _ = run_cli(
            db,
            monkeypatch,
            capsys,
            url,
            *("--task", "blocks_tower", "--max-steps", "1", "--truncate", "0"),
            *("--camera", "head", "--no-example"),
        )
    recorded = episode.header["bimanual"]
    assert (recorded["max_steps"], recorded["truncate"], recorded["cameras"]) == (1, None, ["head"])
    assert recorded["example"] is None and len(requests) == 1
    system, user = requests[0]["messages"]
    assert task_protocol("blocks_tower").example not in system["content"]
    assert "Only the first" not in system["content"]
    # blocks_tower has an example picture; --no-example sends none
    assert task_protocol("blocks_tower").example_image
    assert [p["type"] for p in user["content"]] == ["image_url", "text"]
    assert recorded["example_image"] is None


def test_the_row16_tier_keeps_its_own_defaults():
    env = bimanual_protocol("blocks_tower", tier="row16")
    assert (env["max_steps"], env["truncate"], env["cameras"], env["example"]) == (
        10,
        None,
        ("head",),
        None,
    )
    assert env["example_image"] is None  # the fine tier never shows the example picture


def test_protocol_paper_sets_the_episode_count_and_randomizes_from_the_seed(
    db, monkeypatch, capsys
):
    assert paper_episodes() == 100  # two rounds of 50 test episodes
    paper = argparse.Namespace(episodes=None, protocol="paper")
    assert bimanual_episodes(paper) == 100
    assert bimanual_episodes(argparse.Namespace(episodes=3, protocol="paper")) == 3
    assert bimanual_episodes(argparse.Namespace(episodes=None, protocol="harness")) == 1
    with serve(lambda body, n: completion(EMPTY)) as (server, url):
        episodes, _ = run_cli(
            db,
            monkeypatch,
            capsys,
            url,
            *("--task", TASK, "--protocol", "paper", "--episodes", "2", "--seed", "5"),
            *("--max-steps", "1"),
        )
    looks = [e.header["bimanual"]["look"] for e in episodes]
    assert [e.header["bimanual"]["randomization"] for e in episodes] == [True, True]
    assert [look["seed"] for look in looks] == [5, 6] and looks[0] != looks[1]
    assert bimanual_run(episodes[0].header["bimanual"])[-1] == ("randomization", "randomized")


def test_bad_protocol_input_is_refused_in_one_line(db, capsys):
    code = main(
        [
            *("run-agent", "--agent", "reference", "--benchmark", "bimanual"),
            *("--task", TASK, "--truncate", "-1", "--db", str(db)),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and "--truncate -1" in err and "\n" not in err
