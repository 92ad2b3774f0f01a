"""Replay in sim without a project: seeds, tiers, actor names, and a recorded episode's
plans executed again from step dicts."""

from __future__ import annotations

import pytest

from sim.bimanual.env import BimanualEnv
from sim.bimanual.resim import actor_aliases, episode_seed, episode_tier, resimulate


def test_the_seed_comes_from_the_argument_the_header_or_the_episode_number():
    header = {"bimanual": {"seed": 5}, "episode": 2}
    assert episode_seed(header, 7) == 7
    assert episode_seed(header) == 5
    assert episode_seed({"episode": 2}) == 2
    assert episode_seed({}) == 0


def test_the_tier_comes_from_the_header_or_the_plans():
    assert episode_tier({"tier": "low_level"}, []) == "row16"
    assert episode_tier({"tier": "high_level"}, []) == "primitive"
    assert episode_tier({}, [{"arguments": {"tier": "row16"}}]) == "row16"
    assert episode_tier({}, [{"arguments": {}}]) == "primitive"


def test_log_actor_names_map_to_the_one_matching_object():
    plan = [{"parameters": {"actor": "block"}}, {"parameters": {"actor": "roller"}}]
    assert actor_aliases([plan], ["red_block", "blue_pad"]) == {"block": "red_block"}
    assert actor_aliases([plan], ["red_block", "green_block"]) == {}


def test_a_recorded_episode_replays_step_by_step():
    with BimanualEnv("stack_blocks_two", 1, image_size=(96, 72), max_steps=3) as env:
        plan = env.task.reference_plan(env.world)
        env.step("not a plan")
        env.run_plan(plan[:5])
        env.run_plan(plan[5:])
        header = env.header(agent="reference")
        steps = [dict(s, index=i) for i, s in enumerate(env.steps)]
    assert header["outcome"] == "success"
    report = resimulate(header, steps, source_episode=12)
    assert report.success and report.seed == 1 and report.tier == "primitive"
    assert [s.kind for s in report.steps] == ["format_error", "action", "action"]
    assert [(s.recorded_ok, s.our_ok) for s in report.steps] == [
        (False, False),
        (True, True),
        (True, True),
    ]
    assert report.steps[0].our_feedback == steps[1]["feedback"]
    assert report.header["agent"] == "replay-in-sim"
    assert report.header["bimanual"]["source_episode"] == 12
    assert [s["kind"] for s in report.episode_steps][0] == "observation"
    assert len(report.episode_steps) == 4 and report.images
    assert report.as_dict()["steps"][2]["task_success"] is True


def test_an_unknown_task_is_named():
    with pytest.raises(ValueError, match="no_such_task"):
        resimulate({"task": "no_such_task"}, [])
    with pytest.raises(ValueError, match="names no task"):
        resimulate({}, [])
