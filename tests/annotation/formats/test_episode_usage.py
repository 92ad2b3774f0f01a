"""reasonscope-episode/1 steps' latency and token usage: optional, checked, written when known."""

from __future__ import annotations

import pytest

from annotation.formats.episode import EpisodeFormatError, episode_record, validate_episode
from annotation.models import Episode, Step


def _line(**step_extra) -> dict:
    return {
        "format": "reasonscope-episode/1",
        "id": "ep-1",
        "benchmark": "bimanual",
        "steps": [
            {"kind": "observation", "name": "observe"},
            {"kind": "action", "arguments": {"plan": []}, **step_extra},
        ],
    }


def test_usage_is_read_when_given_and_none_when_absent():
    record = validate_episode(_line(latency_s=1.25, tokens_in=812, tokens_out=64))
    observe, action = record["steps"]
    assert (action["latency_s"], action["tokens_in"], action["tokens_out"]) == (1.25, 812, 64)
    assert (observe["latency_s"], observe["tokens_in"], observe["tokens_out"]) == (None,) * 3
    assert validate_episode(_line(latency_s=2, tokens_in=None))["steps"][1]["latency_s"] == 2


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "latency_s",
            "1.2",
            r"steps\[1\]\.latency_s must be a number of seconds >= 0 or null, not '1\.2'",
        ),
        ("latency_s", -0.5, r"steps\[1\]\.latency_s must be a number"),
        ("latency_s", float("nan"), r"steps\[1\]\.latency_s must be a number"),
        (
            "tokens_in",
            12.5,
            r"steps\[1\]\.tokens_in must be a whole number >= 0 or null, not 12\.5",
        ),
        ("tokens_out", True, r"steps\[1\]\.tokens_out must be a whole number"),
        ("tokens_out", -3, r"steps\[1\]\.tokens_out must be a whole number"),
    ],
)
def test_bad_usage_names_the_step_and_the_field(key, value, message):
    with pytest.raises(EpisodeFormatError, match=message):
        validate_episode(_line(**{key: value}))


def test_export_writes_usage_only_where_known():
    episode = Episode(
        id=1,
        uid="ep-1",
        benchmark="bimanual",
        model="m",
        agent="openai",
        mode="",
        task="t",
        question_id=None,
        scene_id=None,
        outcome="success",
        success=True,
        score=1.0,
        header={},
        created_at="2026-01-01",
        step_count=2,
    )
    common = dict(
        episode_id=1,
        kind="action",
        name="",
        arguments={},
        result=None,
        ok=True,
        feedback="",
        model_text={},
        raw_output="",
        state=None,
    )
    steps = [
        Step(index=0, **common),
        Step(index=1, **common, latency_s=0.75, tokens_in=900, tokens_out=40),
    ]
    first, second = episode_record(episode, steps)["steps"]
    assert "latency_s" not in first and "tokens_in" not in first
    assert (second["latency_s"], second["tokens_in"], second["tokens_out"]) == (0.75, 900, 40)
    # what is written reads back the same
    again = validate_episode(episode_record(episode, steps))["steps"][1]
    assert (again["latency_s"], again["tokens_in"], again["tokens_out"]) == (0.75, 900, 40)
