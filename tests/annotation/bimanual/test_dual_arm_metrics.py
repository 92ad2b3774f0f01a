"""Dual-arm (ST-BiBench) metrics on hand-built episodes whose every figure is known in
advance. (`tests/app/jobs/test_bimanual_metrics.py` checks the same key on imported logs.)"""

from __future__ import annotations

import json
from collections import Counter
from itertools import count
from types import SimpleNamespace

from annotation.bimanual.metrics import (
    BIMANUAL_CATEGORIES,
    BIMANUAL_ERROR_KINDS,
    BIMANUAL_SETTINGS,
    REPLAY_IN_SIM_AGENT,
    BimanualFacts,
    bimanual_metrics,
    error_key,
    is_bimanual,
    summarize_bimanual,
)
from annotation.models import Episode, Step

_ids = count(1)


def make(
    task: str,
    success: bool | None,
    *,
    model: str = "vlm-a",
    agent: str = "bimanual",
    benchmark: str = "bimanual",
    format_errors: int = 0,
    tier: str | None = None,
) -> tuple[Episode, list[Step]]:
    eid = next(_ids)
    episode = Episode(
        id=eid,
        uid=f"ep-{eid}",
        benchmark=benchmark,
        model=model,
        agent=agent,
        mode="",
        task=task,
        question_id=None,
        scene_id=None,
        outcome="done",
        success=success,
        score=None,
        header={} if tier is None else {"tier": tier},
        created_at="2025-01-01T00:00:00Z",
    )
    steps = [Step(eid, 0, "action", "move", {}, {}, True, "", {}, "", None)]
    steps += [
        Step(eid, i, "format_error", "", {}, None, False, "", {}, "", None)
        for i in range(1, format_errors + 1)
    ]
    return episode, steps


def label(episode_id: int, step: int, category: str, subcategory: str = ""):
    return SimpleNamespace(
        episode_id=episode_id, step_index=step, category=category, subcategory=subcategory
    )


def test_success_per_model_and_task_and_the_full_average():
    episodes = [
        make("handover_block", True),
        make("handover_block", False),
        make("handover_block", None),  # outcome not recorded: not a success
        make("stack_blocks_three", True),
        make("stack_blocks_three", True, model="", agent="vla-b"),  # no model: its agent
        make("count", True, benchmark="mg-vqa"),  # another benchmark: skipped
    ]
    m = bimanual_metrics(episodes)
    json.dumps(m)  # plain data all the way down
    assert m["episodes"] == 5
    assert m["models"] == ["vla-b", "vlm-a"]
    assert m["tasks"] == ["handover_block", "stack_blocks_three"]
    assert m["success_by_task"]["vlm-a"]["handover_block"] == {
        "success": 1,
        "episodes": 3,
        "rate": 1 / 3,
        "unknown": 1,
    }
    assert m["average_by_model"]["vlm-a"] == {"rate": (1 / 3 + 1.0) / 2, "missing": []}
    # vla-b has no handover episodes: no average, the task listed as missing
    assert m["average_by_model"]["vla-b"] == {"rate": None, "missing": ["handover_block"]}
    assert m["settings"] == BIMANUAL_SETTINGS


def test_replays_in_sim_count_apart_and_their_labels_still_count():
    own = make("handover_block", False)
    replay = make("handover_block", True, agent=REPLAY_IN_SIM_AGENT)
    m = bimanual_metrics([own, replay], [label(replay[0].id, 1, "format")])
    assert m["episodes"] == 1 and m["replays_in_sim"] == 1
    assert m["success_by_task"]["vlm-a"]["handover_block"]["success"] == 0
    assert m["errors"]["format"] == 1  # a label on a replay is still a dual-arm label


def test_error_labels_count_once_per_step_and_kind_and_format_errors_come_from_steps():
    a, steps_a = make("handover_block", False, format_errors=2)
    b, steps_b = make("handover_block", False, model="vlm-b", format_errors=1)
    foreign, _ = make("count", False, benchmark="mg-vqa")
    labels = [
        label(a.id, 1, "perceptual_reasoning", "state_estimation"),
        label(a.id, 1, "perceptual_reasoning", "state_estimation"),  # a second annotator
        label(a.id, 2, "perceptual_reasoning", "state_estimation"),
        label(b.id, 1, "strategic_planning", "bimanual_conflict"),
        label(b.id, 1, "evidence_gathering", "premature_answer"),  # not a dual-arm kind
        label(foreign.id, 1, "format"),  # not a dual-arm episode
    ]
    m = bimanual_metrics([(a, steps_a), (b, steps_b), (foreign, [])], labels)
    assert list(m["errors"]) == [error_key(c, s) for c, s in BIMANUAL_ERROR_KINDS]
    assert m["errors"]["state_estimation"] == 2
    assert m["errors"]["bimanual_conflict"] == 1
    assert sum(m["errors"].values()) == 3
    assert m["other_errors"] == {"premature_answer": 1}
    assert m["format_error_steps"] == 3
    assert m["format_error_by_model"] == {"vlm-a": 2, "vlm-b": 1}


def test_grouped_facts_add_up_as_single_episodes():
    one_by_one = [make("handover_block", True) for _ in range(3)]
    one_by_one += [make("handover_block", False, format_errors=1) for _ in range(2)]
    grouped = [
        BimanualFacts("vlm-a", "handover_block", True, n=3),
        BimanualFacts("vlm-a", "handover_block", False, format_error_steps=2, n=2),
    ]
    assert summarize_bimanual(grouped, Counter()) == bimanual_metrics(one_by_one)


def test_no_episodes():
    m = bimanual_metrics([])
    assert (m["episodes"], m["models"], m["tasks"], m["replays_in_sim"]) == (0, [], [], 0)
    assert set(m["errors"].values()) == {0} and m["other_errors"] == {}


def test_kinds_and_categories():
    assert error_key("format") == "format"
    assert error_key("environment", "execution_flaw") == "execution_flaw"
    assert BIMANUAL_CATEGORIES == (
        "environment",
        "perceptual_reasoning",
        "strategic_planning",
        "format",
    )
    assert is_bimanual(make("t", True)[0])
    assert not is_bimanual(make("count", True, benchmark="mg-vqa")[0])
