"""A BiManiBench log of each of the eight tasks added for the full ST-BiBench set imports,
replays in our world against the right objects and counts under its task's paper column.

Each run is written by `write_bimanibench_run` (tests/bimanual_corpus.py, which follows
BiManiBench's script/myvlmEb_eval.py eval_policy line by line). Round 0's reply is the
task's reference plan from the seeded start of episode 0, with each actor written the
way the harness also accepts it when the task has other spellings (its aliases), and
the harness's results say it succeeded; round 1's reply is unreadable (a failure).
"""

from __future__ import annotations

import json

import pytest
from bimanual_corpus import write_bimanibench_run

from annotation.bimanual.paper_tables import PLANNING_GROUPS, paper_ids
from app.cli import main
from app.demo.bimanual import as_reply_action
from app.jobs.bimanual import replay_in_sim
from app.jobs.metrics import project_bimanual_metrics
from sim.bimanual.tasks import TASKS
from sim.bimanual.world import DualArmWorld
from store import open_project

NEW_TASKS = (
    "place_cans_plasticbox",
    "blocks_cross_shape",
    "handover_mic",
    "hanging_mug",
    "place_bread_skillet",
    "blocks_tower",
    "put_bottles_dustbin",
    "place_object_scale",
)
MODEL = "vlm-x"
PLANNING_IDS = {tid for _, columns in PLANNING_GROUPS for tid, _ in columns}


def _spelled_as_the_harness_may(plan: list[dict], aliases) -> list[dict]:
    """The plan with each actor in another spelling the harness accepts, where there is one."""
    other = {}
    for spelling, key in aliases.items():
        other.setdefault(key, spelling)
    out = []
    for item in plan:
        params = dict(item["parameters"])
        if params.get("actor") in other:
            params["actor"] = other[params["actor"]]
        out.append({**item, "parameters": params})
    return out


def _spec(tmp_path, task: str) -> tuple[object, list[dict]]:
    spec_task = TASKS[task]
    with DualArmWorld() as world:
        spec_task.setup(world, 0)
        plan = spec_task.reference_plan(world)
    plan = _spelled_as_the_harness_may(plan, spec_task.aliases)
    reply = json.dumps(
        {
            "visual_state_description": "The objects are at their starting places.",
            "reasoning_and_reflection": "Nothing is done yet; the whole task in one plan.",
            "language_plan": "Carry out the task step by step.",
            "executable_plan": [as_reply_action(a) for a in plan],
        }
    )
    spec = {
        "_follows": "tests/bimanual_corpus.py write_bimanibench_run",
        "task_name": task,
        "model_name": MODEL,
        "run": f"high_level/{task}/vlmpolicy/demo_clean/2025-09-01 10:00:00",
        "test_num": 1,
        "action_limit": 1,
        "episodes": {
            "0/0": [{"out": reply, "results": [True] * (len(plan) - 1) + ["done"]}],
            "1/0": [{"out": "I would grasp the first object.", "results": []}],
        },
    }
    path = tmp_path / f"{task}.json"
    path.write_text(json.dumps(spec))
    return path, plan


@pytest.mark.parametrize("task", NEW_TASKS)
def test_a_logged_run_imports_replays_and_counts(tmp_path, capsys, task):
    spec_file, plan = _spec(tmp_path, task)
    save_dir, _did = write_bimanibench_run(tmp_path / "log", spec_file)
    db = tmp_path / "runs.reasonscope"
    open_project(db, create=True).close()
    code = main(["import", "episodes", str(save_dir), "--format", "bimanibench", "--db", str(db)])
    assert code == 0, capsys.readouterr().err
    with open_project(db) as project:
        episodes = {}
        for i in project.episodes.ids():
            episode = project.episodes.get(i)
            episodes[episode.header["round"]] = episode
        assert episodes[0].task == task and episodes[0].success is True
        assert episodes[1].success is False
        (step,) = project.episodes.steps(episodes[0].id)
        assert [a["parameters"].get("actor") for a in step.arguments["plan"]] == [
            a["parameters"].get("actor") for a in plan
        ]
        report = replay_in_sim(project, episodes[0].id, save=False)
        assert report.task == task and report.seed == 0
        assert report.success, [s.our_feedback for s in report.steps]
        objects = set(TASKS[task].aliases.values())
        assert set(report.actor_aliases.values()) <= objects
        metrics = project_bimanual_metrics(project)
    assert metrics["success_by_task"][MODEL][task]["episodes"] == 2
    assert metrics["success_by_task"][MODEL][task]["success"] == 1
    # a high-level log is the planning tier: its Table 1 column, if the task has one
    planning = [i for i in paper_ids(task) if i in PLANNING_IDS]
    rows = metrics["paper"]["planning"]["rows"]
    if planning:
        (row,) = rows
        cell = row["cells"][planning[0]]
        assert (cell["task"], cell["success"], cell["episodes"]) == (task, 1, 2)
    else:  # place_object_scale is a fine-control task (Place8) only
        assert rows == []
