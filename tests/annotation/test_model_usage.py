"""Per-model usage (episodes, success, requests, latency, tokens) on hand-built steps."""

from __future__ import annotations

import pytest

from annotation.model_usage import PER_MODEL_SETTINGS, ModelUsage, model_name, per_model_rows
from annotation.models import Step


def step(index: int, latency_s=None, tokens_in=None, tokens_out=None) -> Step:
    return Step(
        1,
        index,
        "tool",
        "grasp",
        {},
        {},
        True,
        "",
        {},
        "",
        None,
        None,
        latency_s,
        tokens_in,
        tokens_out,
    )


def test_an_episode_adds_its_requests_latency_and_tokens():
    usage = ModelUsage()
    usage.add_episode(True, [step(0), step(1, 2.0, 100, 10), step(2, 4.0, 50)])
    usage.add_episode(False, [step(0, 3.0)])
    row = usage.as_dict("vlm-a")
    assert row == {
        "model": "vlm-a",
        "episodes": 2,
        "succeeded": 1,
        "success_pct": 50.0,
        "requests": 3,
        "mean_latency_s": pytest.approx(3.0),
        "tokens_in": 150,
        "tokens_out": 10,
        "mean_tokens_in": 75.0,
        "mean_tokens_out": 5.0,
    }


def test_no_requests_and_no_tokens_are_null_not_zero():
    usage = ModelUsage()
    usage.add_episode(False, [step(0)])
    row = usage.as_dict("chance")
    assert row["requests"] == 0 and row["mean_latency_s"] is None
    assert row["tokens_in"] is None and row["mean_tokens_out"] is None
    assert ModelUsage().as_dict("none")["success_pct"] is None


def test_grouped_counts_add_up_as_single_episodes():
    grouped = ModelUsage()
    grouped.add(2, 1, 3, 9.0, 150, None)
    single = ModelUsage()
    single.add_episode(True, [step(0, 2.0, 100), step(1, 4.0, 50)])
    single.add_episode(False, [step(0, 3.0)])
    assert grouped == single


def test_rows_by_name_and_who_a_model_is():
    usage = {name: ModelUsage(episodes=1) for name in ("b", "A", "a")}
    assert [r["model"] for r in per_model_rows(usage)] == ["A", "a", "b"]
    assert model_name("gpt-4o", "openai") == "gpt-4o"
    assert model_name("", "openai") == "openai"
    assert model_name("", "") == "unknown"
    assert "model" in PER_MODEL_SETTINGS
