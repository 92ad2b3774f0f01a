"""Recording reference episodes, `run-agent --agent reference`, and replaying imported and
recorded bimanual episodes in sim (`replay_in_sim`, `reasonscope replay-in-sim`)."""

from __future__ import annotations

import json

import pytest
from bimanual_corpus import make_corpus

from app.cli import main
from app.io.bimanual import import_bimanual
from app.jobs.bimanual import record_reference_episode, reference_chunks, replay_in_sim
from store import open_project

SIZE = (160, 120)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "runs.reasonscope"
    open_project(path, create=True).close()
    return path


def cli(capsys, *args):
    code = main([*map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err.strip()


def test_a_reference_episode_is_stored_with_its_images(project):
    episode_id = record_reference_episode(project, "stack_blocks_two", 0, image_size=SIZE)
    episode = project.episodes.get(episode_id)
    steps = project.episodes.steps(episode_id)
    assert (episode.benchmark, episode.agent, episode.mode, episode.outcome) == (
        "bimanual",
        "reference",
        "manipulation",
        "success",
    )
    assert episode.header["bimanual"] == {
        "task": "stack_blocks_two",
        "seed": 0,
        "instruction": episode.header["bimanual"]["instruction"],
        "cameras": ["head"],
        "image_size": [160, 120],
        "max_steps": 2,
        "truncate": None,
        "example": None,
        "example_image": None,
        "randomization": False,
        "look": None,
        "source_episode": None,
    }
    assert [s.kind for s in steps] == ["observation", "action", "action"]
    assert [s.ok for s in steps] == [True, True, True] and steps[2].result["task_success"]
    assert steps[1].arguments["plan"][-1]["action_name"] == "back_to_origin"
    for step in steps:
        mime, data = project.images.get(step.image_sha256)
        assert mime == "image/png" and data[:4] == b"\x89PNG"
        assert step.state["bodies"]


def test_reference_chunks_end_where_an_arm_goes_home():
    plan = [{"action_name": n} for n in ("grasp_actor", "back_to_origin", "grasp_actor")]
    assert reference_chunks(plan) == [plan[:2], plan[2:]]


def test_run_agent_reference_records_episodes(capsys, db):
    code, out, err = cli(
        capsys,
        "run-agent",
        "--agent",
        "reference",
        "--benchmark",
        "bimanual",
        "--task",
        "grab_roller",
        "--episodes",
        "2",
        "--image-size",
        "96",
        "--json",
        "--db",
        db,
    )
    assert code == 0, err
    summary = json.loads(out)
    assert summary["episodes"] == 2 and summary["correct"] == 2
    with open_project(db) as project:
        seeds = [project.episodes.get(i).header["bimanual"]["seed"] for i in project.episodes.ids()]
    assert seeds == [0, 1]


def test_the_row16_reference_solves_the_task_with_rows_only(capsys, db):
    code, out, err = cli(
        capsys,
        "run-agent",
        "--benchmark",
        "bimanual",
        "--agent",
        "reference",
        "--task",
        "stack_blocks_two",
        "--tier",
        "row16",
        "--image-size",
        "160",
        "--json",
        "--db",
        db,
    )
    assert code == 0, err
    assert json.loads(out)["correct"] == 1
    with open_project(db) as project:
        episode = project.episodes.get(project.episodes.ids()[0])
        steps = project.episodes.steps(episode.id)
    assert episode.header["tier"] == "row16" and episode.outcome == "success"
    plans = [s.arguments["plan"] for s in steps[1:]]
    assert all("row" in item and len(item["row"]) == 16 for plan in plans for item in plan)
    assert sum(len(plan) for plan in plans) == 20  # every motion of the primitive plan, a row
    assert steps[-1].result["task_success"] and all(s.ok for s in steps[1:])


@pytest.mark.parametrize(
    "args, needle",
    [
        (
            ["--benchmark", "bimanual", "--agent", "reference", "--task", "no_such_task"],
            "no_such_task",
        ),
        (["--benchmark", "bimanual", "--agent", "reference"], "--task is required"),
        (["--benchmark", "bimanual", "--agent", "chance", "--task", "grab_roller"], "openai"),
        (["--agent", "chance"], "--mode is required"),
        (["--agent", "reference", "--mode", "direct"], "--benchmark bimanual"),
    ],
)
def test_run_agent_refuses_bad_bimanual_input_in_one_line(capsys, db, args, needle):
    code, out, err = cli(capsys, "run-agent", *args, "--db", db)
    assert code == 2 and needle in err and len(err.splitlines()) == 1
    with open_project(db) as project:
        assert project.episodes.ids() == []


def imported(tmp_path, db) -> None:
    import_bimanual(db, make_corpus(tmp_path) / "bimanibench", "bimanibench")


def test_replay_in_sim_of_an_imported_episode_is_stored_next_to_the_log(tmp_path, capsys, db):
    imported(tmp_path, db)
    code, out, err = cli(capsys, "replay-in-sim", "1", "--json", "--db", db)
    assert code == 0, err
    report = json.loads(out)
    assert (report["source_episode"], report["task"], report["seed"], report["tier"]) == (
        1,
        "handover_block",
        0,
        "primitive",
    )
    assert report["actor_aliases"] == {"block": "red_block"}
    # the harness's feedback: one line per action it executed (plans of 3, 4 and 1 actions)
    assert [s["recorded_feedback"] for s in report["steps"]] == [
        "\n".join(["Action succeeded."] * n) for n in (3, 4, 1)
    ]
    assert all(set(s["ee"]) == {"left", "right"} for s in report["steps"])
    assert all(s["our_feedback"] for s in report["steps"])
    with open_project(db) as project:
        replay = project.episodes.get(report["episode_id"])
        steps = project.episodes.steps(replay.id)
        original = project.episodes.steps(1)
    assert replay.agent == "replay-in-sim" and replay.header["bimanual"]["source_episode"] == 1
    assert replay.model == "gpt-5" and replay.task == "handover_block"
    assert [s.kind for s in steps] == ["observation"] + [s.kind for s in original]
    assert steps[1].raw_output == original[0].raw_output
    assert steps[1].result["recorded"]["feedback"] == "\n".join(["Action succeeded."] * 3)
    assert steps[1].arguments == original[0].arguments and steps[1].state is not None


def test_replay_in_sim_keeps_format_errors_and_can_leave_the_project_alone(tmp_path, capsys, db):
    imported(tmp_path, db)
    code, out, err = cli(capsys, "replay-in-sim", "2", "--no-save", "--seed", "4", "--db", db)
    assert code == 0, err
    assert "episode 2 (handover_block, seed 4, primitive) replayed in sim" in out
    assert "[format_error] same" in out and "stored as" not in out
    with open_project(db) as project:
        assert project.episodes.ids() == [1, 2]


def test_replaying_a_recorded_reference_episode_succeeds_again(project):
    episode_id = record_reference_episode(project, "grab_roller", 2, image_size=SIZE)
    report = replay_in_sim(project, episode_id)
    assert report.success and report.seed == 2 and report.episode_id is not None
    assert [(s.recorded_ok, s.our_ok) for s in report.steps] == [(True, True)]
    assert project.episodes.get(report.episode_id).header["bimanual"]["image_size"] == [160, 120]


def test_replay_in_sim_refuses_what_it_cannot_replay(capsys, db):
    with open_project(db) as project:
        project.episodes.add({"benchmark": "bimanual", "task": "no_such_task"}, [])
        project.episodes.add({"benchmark": "mgvqa", "task": "count"}, [])
    for episode_id, needle in ((1, "no_such_task"), (2, "mgvqa"), (9, "no episode")):
        code, out, err = cli(capsys, "replay-in-sim", episode_id, "--db", db)
        assert code == 2 and needle in err and len(err.splitlines()) == 1
