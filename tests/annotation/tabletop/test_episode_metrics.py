"""Episode metrics on hand-built episodes whose every figure is known in advance."""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import count

import pytest

from annotation.models import Episode, Step
from annotation.tabletop.episode_metrics import (
    EPISODE_SETTINGS,
    Recovery,
    as_number,
    classify_recovery,
    episode_metrics,
)

_ids = count(1)


def step(kind: str, name: str = "", ok: bool | None = True, **arguments) -> tuple:
    return (kind, name, ok, arguments)


def tool(name: str, ok: bool = True, **arguments) -> tuple:
    return step("tool", name, ok, **arguments)


def answer(value) -> tuple:
    return step("answer", "answer_question", True, answer=value)


def make(
    task: str,
    success: bool | None,
    specs: list[tuple] = (),
    *,
    model: str = "vlm-a",
    agent: str = "openai",
    mode: str = "manipulation",
    truth=None,
) -> tuple[Episode, list[Step]]:
    eid = next(_ids)
    header = {} if truth is None else {"question": {"text": "q", "answer": truth}}
    episode = Episode(
        id=eid,
        uid=f"ep-{eid}",
        benchmark="mg-vqa",
        model=model,
        agent=agent,
        mode=mode,
        task=task,
        question_id=None,
        scene_id=None,
        outcome="answered",
        success=success,
        score=None,
        header=header,
        created_at="2025-01-01T00:00:00Z",
    )
    steps = [Step(eid, 0, "observation", "observe", {}, {}, True, "", {}, "", None)]
    for i, (kind, name, ok, arguments) in enumerate(specs, start=1):
        result = {"replay": {}} if kind != "format_error" else None
        steps.append(Step(eid, i, kind, name, arguments, result, ok, "", {}, "", None))
    return episode, steps


def steps_of(*specs: tuple) -> list[Step]:
    return make("count", True, list(specs))[1]


def row(metrics, model="vlm-a", mode="manipulation", agent="openai"):
    (r,) = [
        r for r in metrics["rows"] if (r["model"], r["agent"], r["mode"]) == (model, agent, mode)
    ]
    return r


def test_success_per_task_and_macro_average_with_a_chance_row():
    episodes = [
        make("count", True),
        make("count", False),
        make("find", True),
        make("find", True),
        make("find", False),
        make("find", True),
        make("beneath", False),
        make("count", False, model="chance", agent="chance", mode="direct"),
        make("count", True, model="chance", agent="chance", mode="direct"),
        make("count", True, model="vlm-a", mode="direct"),
    ]
    m = episode_metrics(episodes)
    json.dumps(m)  # plain data all the way down
    assert m["n"] == 10
    assert m["tasks"] == ["count", "find", "beneath", "compare"]  # the benchmark's whole set
    assert m["modes"] == ["direct", "manipulation"]
    assert [(r["model"], r["mode"], r["baseline"]) for r in m["rows"]] == [
        ("chance", "direct", True),
        ("vlm-a", "direct", False),
        ("vlm-a", "manipulation", False),
    ]
    r = row(m)
    assert r["n"] == 7
    assert r["success"]["count"] == {"n": 2, "successes": 1, "success_pct": 50.0}
    assert r["success"]["find"]["success_pct"] == 75.0
    assert r["success"]["beneath"]["success_pct"] == 0.0
    # no Compare episodes: the row is incomplete and has no average (the paper's Avg. is
    # over all four tasks)
    assert r["average_pct"] is None and not r["complete"] and r["missing_tasks"] == ["compare"]
    chance = row(m, "chance", "direct", "chance")
    assert chance["success"]["count"]["success_pct"] == 50.0
    assert chance["success"]["find"] == {"n": 0, "successes": 0, "success_pct": None}
    assert chance["average_pct"] is None
    assert chance["missing_tasks"] == ["find", "beneath", "compare"]
    # mode means leave the baseline out
    assert m["mode_means"]["direct"]["count"] == 100.0
    assert m["mode_means"]["direct"]["find"] is None
    assert m["mode_means"]["manipulation"]["find"] == 75.0
    assert m["mode_means"]["manipulation"]["average"] is None
    assert "four tasks" in m["settings"]["tasks"] and "incomplete" in m["settings"]["average"]


def _full_row(model: str, rates: dict[str, tuple[int, int]]) -> list:
    """Episodes of one model: task -> (successes, episodes)."""
    out = []
    for task, (wins, n) in rates.items():
        out += [make(task, i < wins, model=model) for i in range(n)]
    return out


def test_a_row_with_one_task_does_not_outrank_a_full_row():
    # Find alone at 100 % against all four tasks at 75 %: only the full row has an average.
    episodes = _full_row("find-only", {"find": (2, 2)}) + _full_row(
        "full", {t: (3, 4) for t in ("count", "find", "beneath", "compare")}
    )
    m = episode_metrics(episodes)
    only, full = row(m, "find-only"), row(m, "full")
    assert full["average_pct"] == 75.0 and full["complete"]
    assert only["average_pct"] is None and not only["complete"]
    assert only["missing_tasks"] == ["count", "beneath", "compare"]


def test_the_mode_average_is_the_mean_of_its_columns():
    # Two models in one mode: A has all four tasks (100, 100, 50, 50: average 75), B only
    # Count at 100. Task columns: count 100, find 100, beneath 50, compare 50 -> 75. (The
    # old mean of the rows' own averages gave (75 + 100) / 2 = 87.5.)
    episodes = _full_row(
        "a", {"count": (1, 1), "find": (1, 1), "beneath": (1, 2), "compare": (1, 2)}
    ) + _full_row("b", {"count": (1, 1)})
    means = episode_metrics(episodes)["mode_means"]["manipulation"]
    columns = [means[t] for t in ("count", "find", "beneath", "compare")]
    assert columns == [100.0, 100.0, 50.0, 50.0]
    assert means["average"] == pytest.approx(sum(columns) / 4) == 75.0


def test_success_falls_back_to_the_scored_answer_step():
    episode, steps = make("count", None, [answer("3")])
    scored = replace(steps[-1], result={"replay": {"correct": True}})
    m = episode_metrics([(episode, [*steps[:-1], scored]), make("count", None, [answer("2")])])
    assert row(m)["success"]["count"]["successes"] == 1


def test_manipulation_calls_mean_median_and_acted_episodes():
    episodes = [
        make("count", True, [tool("perceive_scene"), tool("grasp"), tool("push"), tool("push")]),
        make("count", True, [tool("find_object"), tool("grasp", ok=False), answer("1")]),
        make("find", False, [tool("perceive_scene"), answer("no")]),
        make("find", False, [answer("no")]),
    ]
    r = row(episode_metrics(episodes))
    assert r["manipulation"]["mean_calls"] == 1.0  # (3 + 1 + 0 + 0) / 4
    assert r["manipulation"]["median_calls"] == 0.5
    assert r["manipulation"]["acted_episodes"] == 2
    assert r["manipulation"]["by_task"]["count"] == {"mean_calls": 2.0, "median_calls": 2.0}
    assert r["manipulation"]["by_task"]["find"]["mean_calls"] == 0.0
    turns = r["turns"]
    assert (turns["mean_turns"], turns["median_turns"]) == (2.5, 2.5)  # 4, 3, 2, 1
    assert turns["by_task"]["count"] == {"mean_turns": 3.5, "median_turns": 3.5}  # 4, 3
    assert turns["by_task"]["find"] == {"mean_turns": 1.5, "median_turns": 1.5}  # 2, 1
    assert turns["by_task"]["beneath"] == {"mean_turns": None, "median_turns": None}


def test_find_present_and_absent_success():
    episodes = [
        make("find", True, truth={"answer": "yes", "point": [1, 2]}),
        make("find", False, truth={"answer": "yes", "point": [3, 4]}),
        make("find", False, truth={"answer": "yes", "point": [3, 4]}),
        make("find", True, truth={"answer": "no", "point": None}),
        make("find", True),  # no question stored
    ]
    find = row(episode_metrics(episodes))["find"]
    assert find["present"]["n"] == 3 and find["present"]["successes"] == 1
    assert find["present"]["success_pct"] == pytest.approx(100 / 3)
    assert find["absent"] == {"n": 1, "successes": 1, "success_pct": 100.0}
    assert find["unknown"] == 1


def test_count_under_exact_over_invalid_and_unanswered():
    episodes = [
        make("count", False, [answer("2")], truth=4),
        make("count", False, [answer(1)], truth=4),
        make("count", True, [answer("4")], truth=4),
        make("count", False, [answer("7")], truth=4),
        make("count", False, [answer("several")], truth=4),
        make("count", False, [tool("perceive_scene")], truth=4),
        make("count", False, [answer("3")]),  # no truth: not compared
    ]
    c = row(episode_metrics(episodes))["count"]
    assert (c["under"], c["exact"], c["over"], c["invalid"], c["unanswered"]) == (2, 1, 1, 1, 1)
    assert c["n"] == 6 and c["skipped"] == 1
    assert c["under_pct"] == pytest.approx(100 * 2 / 6)


def test_numbers_are_read_leniently_but_not_guessed():
    assert [as_number(v) for v in ("3", " 4 ", 5, 6.0, "7.0", "2.5", True, None, "two")] == [
        3,
        4,
        5,
        6,
        7,
        None,
        None,
        None,
        None,
    ]


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        ([tool("perceive_scene"), tool("grasp"), answer("1")], None),
        ([tool("grasp", ok=False), answer("1")], Recovery("none")),
        ([tool("grasp", ok=False), tool("find_object"), tool("grasp")], Recovery("grasp")),
        (
            [tool("grasp", ok=False), tool("perceive_scene"), tool("find_object"), tool("push")],
            Recovery("push", "scene_and_seg"),
        ),
        (
            [tool("perceive_scene"), tool("grasp", ok=False), tool("find_object"), tool("push")],
            Recovery("push", "seg_only"),
        ),
        # a perceive_scene after the segmentation does not re-ground it
        (
            [tool("grasp", ok=False), tool("find_object"), tool("perceive_scene"), tool("push")],
            Recovery("push", "seg_only"),
        ),
        ([tool("find_object"), tool("grasp", ok=False), tool("push")], Recovery("push", "no_seg")),
        # only the first failure matters; a later one does not restart the clock
        (
            [
                tool("grasp", ok=False),
                tool("find_object"),
                tool("push"),
                tool("grasp", ok=False),
                tool("perceive_scene"),
                tool("find_object"),
                tool("push"),
            ],
            Recovery("push", "seg_only"),
        ),
        # format errors and answers in between are not manipulations
        (
            [tool("grasp", ok=False), step("format_error", ok=False), answer("no")],
            Recovery("none"),
        ),
    ],
)
def test_recovery_after_the_first_failed_grasp(specs, expected):
    assert classify_recovery(steps_of(*specs)) == expected


def test_recovery_counts_and_shares_per_row():
    failed = tool("grasp", ok=False)
    episodes = [
        make("count", False, [failed, tool("perceive_scene"), tool("find_object"), tool("push")]),
        make("count", False, [failed, tool("perceive_scene"), tool("find_object"), tool("push")]),
        make("count", False, [failed, tool("find_object"), tool("push")]),
        make("count", False, [failed, answer("0")]),
        make("count", True, [tool("grasp"), answer("1")]),
    ]
    rec = row(episode_metrics(episodes))["recovery"]
    assert rec["failed_grasp_episodes"] == 4
    assert rec["next"] == {"push": 3, "grasp": 0, "none": 1}
    assert rec["next_pct"] == {"push": 75.0, "grasp": 0.0, "none": 25.0}
    assert rec["regrounding"] == {"scene_and_seg": 2, "seg_only": 1, "no_seg": 0}
    assert rec["regrounding_pct"]["scene_and_seg"] == pytest.approx(200 / 3)


def test_format_errors_per_model():
    bad = step("format_error", ok=False)
    episodes = [
        make("count", False, [bad, bad, answer("1")]),
        make("count", False, [answer("1")], mode="perception"),
        make("find", False, [bad], model="vlm-b"),
    ]
    m = episode_metrics(episodes)
    assert m["format_errors"] == [
        {
            "model": "vlm-a",
            "agent": "openai",
            "episodes": 2,
            "steps": 6,
            "format_error_steps": 2,
            "episodes_with_format_errors": 1,
        },
        {
            "model": "vlm-b",
            "agent": "openai",
            "episodes": 1,
            "steps": 2,
            "format_error_steps": 1,
            "episodes_with_format_errors": 1,
        },
    ]
    assert row(m)["format_error_steps"] == 2


def test_no_episodes():
    m = episode_metrics([])
    assert m == {
        "n": 0,
        "tasks": [],
        "modes": [],
        "rows": [],
        "mode_means": {},
        "settings": EPISODE_SETTINGS,
        "format_errors": [],
    }
