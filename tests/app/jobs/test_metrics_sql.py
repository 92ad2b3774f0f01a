"""`metrics` adds episodes up in SQL (`project.episode_queries`): on a mixed project of
stored episodes (every success fallback, Find and Count truths of every shape, recoveries,
format errors, dual-arm tiers, replays in sim, labels, and NaN in JSON that SQLite cannot
read) it gives what loading every episode into Python gave, plus the per-model section."""

from __future__ import annotations

import json
import math
import random

import pytest

from annotation.bimanual.metrics import bimanual_metrics, is_bimanual
from annotation.tabletop.episode_metrics import episode_metrics
from app.cli import main
from app.jobs.metrics import project_bimanual_metrics, project_episode_metrics
from store import open_project

CALLS = ("perceive_scene", "find_object", "grasp", "push", "observe_scene")
TRUTHS = ("yes", "no", "Yes ", {"answer": "no"}, 3, "4", 2.0, "two", None, True, [1])
GIVEN = ("3", 4, "4.0", 2.5, "many", None, True)


def _tool(rng, name, usage=True):
    ok = rng.choice((True, False, None)) if name in ("grasp", "push") else True
    step = {"kind": "tool", "name": name, "arguments": {}, "result": {"ok": ok}, "ok": ok}
    if usage and rng.random() < 0.8:
        step.update(latency_s=rng.uniform(0.1, 3), tokens_in=rng.randint(10, 900))
        if rng.random() < 0.7:
            step["tokens_out"] = rng.randint(1, 90)
    return step


def _mgvqa(rng, i):
    model = rng.choice(("vlm-a", "vlm-b", "", "chance"))
    agent = "chance" if model == "chance" else rng.choice(("openai", "search"))
    task = rng.choice(("count", "find", "beneath", "compare", "vg"))
    header = {
        "benchmark": rng.choice(("mgvqa", "jrdb")),
        "model": model,
        "agent": agent,
        "mode": rng.choice(("direct", "perception", "manipulation", "")),
        "task": task,
        "success": rng.choice((True, False, None, None)),
    }
    if rng.random() < 0.85:
        header["question"] = {"text": "q", "answer": rng.choice(TRUTHS)}
    elif rng.random() < 0.5:
        header["question"] = "not a dict"
    runs = random.Random(i)  # the run's settings: rows split on each (its own stream)
    for key, values in (
        ("prompt_variant", ("plain", "search", "multiview", None, "")),
        ("camera", ({"width": 1024, "height": 1024}, {"width": 512, "height": 512}, None)),
        ("gripper", ("2f140", "2f85", None)),
        ("perceiver", ("oracle", "vlm", None, None)),
        ("max_steps", (30, 12, None, None)),
    ):
        value = runs.choice(values)
        if value is not None:
            header[key] = value
    if i % 23 == 0:
        header["score"] = math.nan  # JSON SQLite cannot read
    steps = [{"kind": "observation", "name": "observe", "ok": True}]
    for _ in range(rng.randint(0, 7)):
        if rng.random() < 0.1:
            steps.append({"kind": "format_error", "raw_output": "??", "ok": False})
        else:
            steps.append(_tool(rng, rng.choice(CALLS), usage=model != "chance"))
    for _ in range(rng.choice((0, 1, 1, 2))):
        result = rng.choice(
            (
                {"replay": {"correct": True}},
                {"replay": {"correct": False}},
                {"replay": {"correct": 1}},
                {"replay": "x"},
                None,
                ["x"],
                {"replay": {"correct": True, "score": math.nan}},
                # long text is stored compressed: read in Python, not SQL
                {"replay": {"correct": False, "trace": "t" * 400}},
                {"replay": {"correct": True, "trace": "t" * 400}},
            )
        )
        arguments = {"answer": rng.choice(GIVEN)}
        if rng.random() < 0.3:
            arguments["reasoning"] = "because " * 60
        steps.append(
            {
                "kind": "answer",
                "name": "answer_question",
                "ok": True,
                "arguments": arguments,
                "result": result,
                "latency_s": 0.5,
                "tokens_in": 100,
                "tokens_out": 5,
            }
        )
    return header, steps


def _bimanual(rng):
    header = {
        "benchmark": "bimanual",
        "model": rng.choice(("gpt-5", "qwen", "")),
        "agent": rng.choice(("openai", "reference", "replay-in-sim")),
        "task": rng.choice(("handover_block", "place_bread_skillet", "stack_blocks_two")),
        "success": rng.choice((True, False, None)),
        "tier": rng.choice(("primitive", "row16", "low_level", None, 7)),
    }
    if rng.random() < 0.2:
        del header["tier"]
    runs = random.Random(len(header["model"]) * 7 + len(header["task"]))  # its own stream
    for key, values in (
        ("cameras", (["head"], ["head", "third"], None)),
        ("image_size", ([640, 480], [320, 240], None)),
        ("max_steps", (10, 12, None)),
        ("truncate", (None, 8)),
    ):
        value = runs.choice(values)
        if value is not None:
            header[key] = value
    steps = []
    for k in range(rng.randint(0, 4)):
        kind = "format_error" if rng.random() < 0.2 else "action"
        step = {"kind": kind, "name": f"a{k}", "ok": kind == "action"}
        if rng.random() < 0.7:
            step.update(latency_s=rng.uniform(1, 9), tokens_in=1000, tokens_out=rng.randint(5, 50))
        steps.append(step)
    return header, steps


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("mixed") / "mixed.reasonscope"
    rng = random.Random(7)
    with open_project(path, create=True) as project:
        with project.write():
            for i in range(260):
                project.episodes.add(*(_bimanual(rng) if i % 4 == 3 else _mgvqa(rng, i)))
        ada, ben = project.annotators.sign_in("Ada"), project.annotators.sign_in("Ben")
        dual = [e for e in project.episodes.list() if is_bimanual(e) and e.step_count]
        for e in dual[:12]:
            for who in (ada, ben):  # the same kind on a step by two annotators counts once
                project.episodes.add_label(
                    e.id, 0, "perceptual_reasoning", "state_estimation", "", who
                )
            project.episodes.add_label(e.id, None, "format", "", "", ada)
            project.episodes.add_label(e.id, 0, "evidence_gathering", "premature_answer", "", ben)
    return path


def _reference(project):
    """The metrics as computed before: every episode and its steps loaded into Python."""
    repo = project.episodes
    pairs = [(e, repo.steps(e.id)) for e in (repo.get(i) for i in repo.ids())]
    labels = [label for e, _ in pairs if is_bimanual(e) for label in repo.labels(e.id)]
    plain = episode_metrics((e, s) for e, s in pairs if not is_bimanual(e))
    dual = bimanual_metrics([(e, s) for e, s in pairs if is_bimanual(e)], labels)
    return plain, dual, pairs


def _without_per_model(metrics):
    return {k: v for k, v in metrics.items() if k not in ("per_model", "per_model_settings", "tag")}


def _as_json(value):
    return json.loads(json.dumps(value))


def test_sql_metrics_equal_the_python_computation(db):
    with open_project(db) as project:
        plain, dual, _ = _reference(project)
        sql_plain = project_episode_metrics(project)
        sql_dual = project_bimanual_metrics(project)
    assert plain["n"] > 150 and dual["episodes"] > 20 and dual["replays_in_sim"] > 0
    assert sum(r["recovery"]["failed_grasp_episodes"] for r in plain["rows"]) > 10
    assert sum(r["count"]["n"] for r in plain["rows"]) >= 5
    assert sum(dual["errors"].values()) and dual["other_errors"]
    assert sum(m["labels"] for m in dual["errors_by_model"].values()) > 5
    assert _as_json(_without_per_model(sql_plain)) == _as_json(plain)
    sql_dual = {k: v for k, v in sql_dual.items() if k != "spatial"}
    assert _as_json(_without_per_model(sql_dual)) == _as_json(dual)


def _expected_per_model(pairs, success):
    """Per model, straight from the stored steps."""
    out = {}
    for e, steps in pairs:
        row = out.setdefault(
            e.model or e.agent or "unknown",
            {"episodes": 0, "succeeded": 0, "latency": [], "tokens_in": [], "tokens_out": []},
        )
        row["episodes"] += 1
        row["succeeded"] += bool(success(e, steps))
        row["latency"] += [s.latency_s for s in steps if s.latency_s is not None]
        row["tokens_in"] += [s.tokens_in for s in steps if s.tokens_in is not None]
        row["tokens_out"] += [s.tokens_out for s in steps if s.tokens_out is not None]
    return out


def _check_per_model(rows, expected):
    assert [r["model"] for r in rows] == sorted(expected, key=str.lower)
    for r in rows:
        x = expected[r["model"]]
        assert (r["episodes"], r["succeeded"], r["requests"]) == (
            x["episodes"],
            x["succeeded"],
            len(x["latency"]),
        )
        assert r["success_pct"] == pytest.approx(100 * x["succeeded"] / x["episodes"])
        if x["latency"]:
            assert r["mean_latency_s"] == pytest.approx(sum(x["latency"]) / len(x["latency"]))
        else:
            assert r["mean_latency_s"] is None
        for key in ("tokens_in", "tokens_out"):
            total = sum(x[key]) if x[key] else None
            assert r[key] == total
            mean = r[f"mean_{key}"]
            assert mean == (None if total is None else pytest.approx(total / x["episodes"]))


def test_per_model_episodes_success_latency_and_tokens(db):
    from annotation.tabletop.episode_metrics import episode_success

    with open_project(db) as project:
        _, _, pairs = _reference(project)
        plain = project_episode_metrics(project)
        dual = project_bimanual_metrics(project)
    mgvqa = [(e, s) for e, s in pairs if not is_bimanual(e)]
    _check_per_model(plain["per_model"], _expected_per_model(mgvqa, episode_success))
    own = [(e, s) for e, s in pairs if is_bimanual(e) and e.agent != "replay-in-sim"]
    _check_per_model(dual["per_model"], _expected_per_model(own, lambda e, _s: e.success))
    chance = next(r for r in plain["per_model"] if r["model"] == "chance")
    assert chance["requests"] > 0 or chance["mean_latency_s"] is None
    assert plain["per_model_settings"]["requests"].startswith("steps that record")


def test_metrics_json_and_text_report_per_model(tmp_path, capsys):
    path = tmp_path / "two.reasonscope"
    with open_project(path, create=True) as project:
        for model, ok, usage in (
            ("vlm-a", True, (1.5, 100, 10)),
            ("vlm-a", False, (2.5, 300, 30)),
            ("vlm-b", True, None),
        ):
            step = {"kind": "answer", "name": "answer_question", "arguments": {"answer": "1"}}
            if usage:
                step.update(latency_s=usage[0], tokens_in=usage[1], tokens_out=usage[2])
            project.episodes.add(
                {
                    "benchmark": "mgvqa",
                    "model": model,
                    "agent": "openai",
                    "task": "count",
                    "mode": "direct",
                    "success": ok,
                },
                [step],
            )
        project.episodes.add(
            {"benchmark": "bimanual", "model": "gpt-5", "task": "handover_block", "success": True},
            [{"kind": "action", "latency_s": 4.0, "tokens_in": 2000, "tokens_out": 40}],
        )
    assert main(["metrics", "--json", "--db", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["episodes"]["per_model"] == [
        {
            "model": "vlm-a",
            "episodes": 2,
            "succeeded": 1,
            "success_pct": 50.0,
            "requests": 2,
            "mean_latency_s": 2.0,
            "tokens_in": 400,
            "tokens_out": 40,
            "mean_tokens_in": 200.0,
            "mean_tokens_out": 20.0,
        },
        {
            "model": "vlm-b",
            "episodes": 1,
            "succeeded": 1,
            "success_pct": 100.0,
            "requests": 0,
            "mean_latency_s": None,
            "tokens_in": None,
            "tokens_out": None,
            "mean_tokens_in": None,
            "mean_tokens_out": None,
        },
    ]
    assert out["bimanual"]["per_model"][0] == {
        "model": "gpt-5",
        "episodes": 1,
        "succeeded": 1,
        "success_pct": 100.0,
        "requests": 1,
        "mean_latency_s": 4.0,
        "tokens_in": 2000,
        "tokens_out": 40,
        "mean_tokens_in": 2000.0,
        "mean_tokens_out": 40.0,
    }
    assert main(["metrics", "--db", str(path)]) == 0
    text = capsys.readouterr().out
    lines = [line.split() for line in text.splitlines()]
    assert ["vlm-a", "2", "1", "(50.0", "%)", "2", "2.00", "s", "400", "40"] in lines
    assert ["vlm-b", "1", "1", "(100.0", "%)", "0", "-", "-", "-"] in lines
    assert ["gpt-5", "1", "1", "(100.0", "%)", "1", "4.00", "s", "2,000", "40"] in lines


def test_runs_with_different_settings_are_never_added_up(tmp_path, capsys):
    """One model, one mode, one task: a plain and a Search run, and the plain one again at
    another image size, are three rows, each printed with its settings."""
    path = tmp_path / "runs.reasonscope"
    with open_project(path, create=True) as project, project.write():
        for variant, width, success in (
            ("plain", 1024, True),
            ("plain", 1024, True),
            ("search", 1024, False),
            ("plain", 512, False),
        ):
            header = {
                "benchmark": "mgvqa",
                "model": "vlm-a",
                "agent": "openai",
                "mode": "direct",
                "task": "count",
                "success": success,
                "prompt_variant": variant,
                "camera": {"width": width, "height": width},
                "gripper": "2f140",
            }
            project.episodes.add(header, [{"kind": "observation", "name": "observe"}])
    with open_project(path) as project:
        m = project_episode_metrics(project)
    rows = {r["run_label"]: r for r in m["rows"]}
    assert set(rows) == {
        "plain, 1024x1024 px, 2f140",
        "search, 1024x1024 px, 2f140",
        "plain, 512x512 px, 2f140",
    }
    assert rows["plain, 1024x1024 px, 2f140"]["success"]["count"]["success_pct"] == 100.0
    assert rows["search, 1024x1024 px, 2f140"]["success"]["count"]["success_pct"] == 0.0
    assert rows["search, 1024x1024 px, 2f140"]["run"]["prompt_variant"] == "search"
    assert set(m["mode_means"]) == {f"direct, {label}" for label in rows}
    assert main(["metrics", "--db", str(path)]) == 0
    printed = capsys.readouterr().out
    assert all(label in printed for label in rows)


def test_dual_arm_runs_of_one_model_are_rows_of_their_own(tmp_path):
    """The head camera alone and head + third view: two rows, named with their cameras."""
    path = tmp_path / "views.reasonscope"
    with open_project(path, create=True) as project, project.write():
        for cameras, success in ((["head"], False), (["head", "third"], True)):
            header = {
                "benchmark": "bimanual",
                "model": "vlm-a",
                "agent": "openai",
                "task": "place_object_basket",
                "success": success,
                "tier": "primitive",
                "cameras": cameras,
                "image_size": [640, 480],
                "max_steps": 10,
            }
            project.episodes.add(header, [{"kind": "action", "name": "grasp", "ok": True}])
    with open_project(path) as project:
        m = project_bimanual_metrics(project)
    base = "vlm-a (head camera, 640x480 px, max 10 steps)"
    third = "vlm-a (head + third cameras, 640x480 px, max 10 steps)"
    assert sorted(m["models"]) == sorted([base, third])
    assert m["success_by_task"][base]["place_object_basket"]["rate"] == 0.0
    assert m["success_by_task"][third]["place_object_basket"]["rate"] == 1.0
    assert m["runs"][third]["cameras"] == '["head","third"]'
