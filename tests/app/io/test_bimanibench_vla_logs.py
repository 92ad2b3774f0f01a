"""BiManiBench's fine-control (low_level) runs: written by `write_bimanibench_vla_run`
(tests/bimanual_corpus.py, which follows script/myvlmEb_eval_vla.py eval_policy line by
line), imported from the command line, read as that harness ran them (16-number rows,
the planner's chunk, take_action_by_dict_vla's reading and failures), counted as
fine-control results and replayed in sim as rows."""

from __future__ import annotations

import json
import math

import pytest
from bimanual_corpus import WRITERS, _parse_action_sequence, write_bimanibench_vla_run

from app.cli import main
from store import open_project

SPEC = WRITERS / "bimanibench_vla_run.json"
TASK = "grab_roller"


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "fresh.reasonscope"
    open_project(path, create=True).close()
    return path


@pytest.fixture
def vla_run(tmp_path):
    return write_bimanibench_vla_run(tmp_path / "vla")


def _import(capsys, path, db):
    code = main(["import", "episodes", str(path), "--format", "bimanibench", "--db", str(db)])
    out = capsys.readouterr()
    return code, out.out.strip(), out.err.strip()


def _episodes(db):
    with open_project(db) as project:
        out = {}
        for i in project.episodes.ids():
            e = project.episodes.get(i)
            out[f"{e.header['round']}/{e.header['episode']}"] = (e, project.episodes.steps(i))
        return out


def _harness_reading(item):
    """The numbers take_action_by_dict_vla hands to take_action, NaN where it read none."""
    return [float(v) for v in _parse_action_sequence(item)]


def test_a_vla_run_imports_what_the_harness_did(capsys, vla_run, db):
    save_dir, did = vla_run
    code, out, err = _import(capsys, save_dir, db)
    assert (code, err) == (0, ""), err
    unreadable = sum(k in ("decode", "other") for *_, kinds, _ in did.values() for k in kinds)
    assert unreadable == 1 and f"Imported {len(did)} episodes" in out
    assert f"({unreadable} format-error steps recorded)" in out
    got = _episodes(db)
    assert set(got) == set(did)
    for key, (feedbacks, success, kinds, taken) in did.items():
        episode, steps = got[key]
        assert (episode.task, episode.model, episode.header["tier"]) == (
            TASK,
            "qwen2.5-vl-72b",
            "low_level",
        )
        assert episode.success is success
        assert episode.outcome == ("success" if success else "failure")
        assert [s.feedback for s in steps] == [f.removesuffix("\n") for f in feedbacks]
        assert [s.kind for s in steps] == [
            "format_error" if k in ("decode", "other") else "action" for k in kinds
        ]
        for step, action_list, feedback in zip(steps, taken, feedbacks, strict=True):
            ran = feedback.count("Action succeeded.") + feedback.count("Action failed:")
            if step.kind == "format_error":
                assert step.arguments == {} and action_list == {}
                continue
            assert step.result["executed"] == list(range(ran))
            plan = step.arguments["plan"]
            assert len(plan) == (0 if action_list == {} else len(action_list))
            assert step.arguments["tier"] == ("row16" if plan else "")
            for item, written in zip(plan, action_list or [], strict=True):
                if "unread" in item:
                    continue
                read = _harness_reading(written)
                stored = [math.nan if isinstance(v, str) else v for v in item["row"]]
                assert len(stored) == len(read)
                assert all(
                    a == b or (math.isnan(a) and math.isnan(b))
                    for a, b in zip(stored, read, strict=True)
                )
            assert step.ok is (False if "Action failed:" in feedback else (True if ran else None))
        if success:  # the view after the winning step is the episode's last image
            assert episode.header["final_image_sha256"]


def test_rows_are_read_and_cut_as_the_harness_did(capsys, vla_run, db):
    save_dir, _ = vla_run
    assert _import(capsys, save_dir, db)[0] == 0
    got = _episodes(db)
    _, lost = got["0/1"]
    cut = lost[0]  # cut short by the length limit; fix_json's "]}" did not save it
    assert cut.kind == "format_error" and cut.result["format_error"].startswith("json.loads")
    assert cut.feedback.startswith("Action is empty, no action taken.")
    assert cut.result["suggestion"]["arguments"]["tier"] == "row16"
    short = lost[1]  # a row of 15 numbers: refused, and the step's last row never ran
    assert short.feedback.splitlines() == [
        "Action succeeded.",
        "Action failed: Invalid action length: 15. Must be a list or tuple of 16 numbers.",
    ]
    assert len(short.arguments["plan"][1]["row"]) == 15 and short.result["executed"] == [0, 1]
    assert "16 numbers" in short.result["pose_notes"][0]
    arithmetic = lost[2]  # "0.758+0.144" is computed, as safe_eval does
    assert arithmetic.ok is True and arithmetic.arguments["plan"][0]["row"][2] == 0.902
    assert arithmetic.arguments["plan"][0]["left"]["position"] == [-0.21, -0.12, 0.902]
    assert arithmetic.result["parse"]["repairs"] == ["row_arithmetic"]
    chunked = lost[3]  # eight rows, of which act() handed on six
    assert len(chunked.arguments["plan"]) == 6 and chunked.result["dropped"] == 2
    assert chunked.result["executed"] == list(range(6))
    empty = lost[4]  # the fifth step is ceil(1.5 * action_limit_vla): the loop ends
    assert empty.kind == "action" and empty.ok is None and empty.arguments["plan"] == []
    _, stopped = got["1/1"]  # 14 rows ran in 3 steps (> 12): the loop ends after step 2
    assert len(stopped) == 3 and stopped[0].result["parse"]["repairs"] == ["row_number_text"]
    numpy_row = stopped[2].arguments["plan"][2]["row"]  # spaces only: one value, NaN
    assert len(numpy_row) == 1 and isinstance(numpy_row[0], str)
    assert stopped[2].feedback.endswith(
        "Invalid action length: 1. Must be a list or tuple of 16 numbers."
    )


def test_vla_episodes_count_as_fine_control_results(capsys, vla_run, db):
    from app.jobs.metrics import project_bimanual_metrics

    assert _import(capsys, vla_run[0], db)[0] == 0
    with open_project(db) as project:
        metrics = project_bimanual_metrics(project)
    cell = metrics["success_by_task"]["qwen2.5-vl-72b"][TASK]
    assert (cell["success"], cell["episodes"]) == (2, 4)
    (row,) = metrics["paper"]["fine"]["rows"]
    assert (row["cells"]["Grab1"]["success"], row["cells"]["Grab1"]["episodes"]) == (2, 4)
    assert metrics["paper"]["planning"]["rows"] == []


def _broken(save_dir, episode: str, step: int, reply: str) -> None:
    vlmout = save_dir / "obsimg" / episode / "vlmout.txt"
    blocks = vlmout.read_text().split("step ")
    head, _, _ = blocks[step + 1].partition("\n")
    blocks[step + 1] = f"{head}\n{reply}\n"
    vlmout.write_text("step ".join(blocks))


@pytest.mark.parametrize(
    ("breakage", "needle"),
    [
        (
            lambda d: _broken(
                d, "round1/episode0", 0, json.dumps({"executable_plan": {"row": [0.1] * 16}})
            ),
            "round1/episode0/vlmout.txt:2: step 0: executable_plan is a JSON dict",
        ),
        (
            lambda d: _broken(d, "round0/episode1", 3, json.dumps({"executable_plan": 0.5})),
            "round0/episode1/vlmout.txt:8: step 3: executable_plan is a JSON float",
        ),
        (
            lambda d: (d / "failed_record.txt").write_text(
                (d / "failed_record.txt").read_text().replace("action it:1:", "action it:7:")
            ),
            "failed_record.txt:1: step 1 action 7 is not an action",
        ),
    ],
)
def test_a_vla_log_the_harness_cannot_have_written_refuses(capsys, vla_run, db, breakage, needle):
    save_dir, _ = vla_run
    breakage(save_dir)
    code, out, err = _import(capsys, save_dir, db)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and needle in err, err
    with open_project(db) as project:
        assert project.episodes.ids() == []


def test_reference_rows_logged_by_the_harness_replay_in_sim_as_rows(capsys, tmp_path, db):
    """Round 1, episode 0 is our own row reference for its seed (the episode number): the
    model sends all 8 rows, the harness takes 6 (the chunk) and the task is not done; the
    next reply sends the last 2 and the harness's check succeeds. Replayed in sim, the
    steps run as rows, 6 then 2, and the roller is lifted."""
    from app.jobs.bimanual import replay_in_sim
    from sim.bimanual.rows import row_reference

    rows, solved = row_reference(TASK, 0)
    assert solved and len(rows) == 8
    spec = json.loads(SPEC.read_text())
    text = {
        "visual_state_description": "The roller lies on the table.",
        "reasoning_and_reflection": "Grasp both ends, then lift.",
        "language_plan": "Above the ends, down, close, lift.",
    }
    as_text = ["[" + ", ".join(map(str, r)) + "]" for r in rows]
    spec["episodes"]["1/0"] = [
        {"out": json.dumps({**text, "executable_plan": as_text}), "success": False},
        {"out": json.dumps({**text, "executable_plan": rows[6:]}), "success": True},
    ]
    spec_file = tmp_path / "reference_rows.json"
    spec_file.write_text(json.dumps(spec))
    save_dir, did = write_bimanibench_vla_run(tmp_path / "log", spec_file)
    assert did["1/0"][1] is True
    code, _, err = _import(capsys, save_dir / "obsimg" / "round1" / "episode0", db)
    assert code == 0, err
    with open_project(db) as project:
        (episode_id,) = project.episodes.ids()
        episode = project.episodes.get(episode_id)
        steps = project.episodes.steps(episode_id)
        assert episode.header["tier"] == "low_level" and episode.success is True
        assert [len(s.arguments["plan"]) for s in steps] == [6, 2]
        assert steps[0].result["dropped"] == 2
        report = replay_in_sim(project, episode_id, save=False, image_size=(160, 120))
    assert (report.task, report.seed, report.tier) == (TASK, 0, "row16")
    assert report.success, [s.our_feedback for s in report.steps]
    replayed = [s for s in report.episode_steps if s["kind"] != "observation"]
    assert [s["result"]["executed"] for s in replayed] == [6, 2]
    assert all(a["action_name"] == "ee_pose" for s in replayed for a in s["result"]["actions"])
    assert [s.our_ok for s in report.steps] == [True, True]
    assert report.steps[-1].task_success


@pytest.mark.parametrize("task", ["place_object_scale", "place_bread_skillet_vla"])
def test_the_new_fine_control_tasks_logged_replay_and_count(capsys, tmp_path, db, task):
    """Place8 and Place10 as the fine-control harness logs them: our row reference for the
    seed, sent a chunk a reply, succeeds; round 1's three unreadable replies fail. Imported,
    replayed in sim as rows against the task's objects, counted in its Table 3 column."""
    from annotation.bimanual.logs import vla_chunk
    from annotation.bimanual.paper_tables import paper_ids
    from app.jobs.bimanual import replay_in_sim
    from app.jobs.metrics import project_bimanual_metrics
    from sim.bimanual.rows import row_reference

    rows, solved = row_reference(task, 0)
    assert solved
    chunk = vla_chunk(task)
    parts = [rows[i : i + chunk] for i in range(0, len(rows), chunk)]
    text = {
        "visual_state_description": "The objects are at their starting places.",
        "reasoning_and_reflection": "Move step by step.",
        "language_plan": "Rows.",
    }
    spec = {
        "_follows": "tests/bimanual_corpus.py write_bimanibench_vla_run",
        "task_name": task,
        "model_name": "vlm-rows",
        "test_num": 1,
        "run": f"low_level/{task}/vlmpolicy/config_franka_0_7/2025-09-02 14:30:00",
        "action_limit": len(parts),
        "action_chunk_num": chunk,
        "episodes": {
            "0/0": [
                {"out": json.dumps({**text, "executable_plan": p}), "success": i == len(parts) - 1}
                for i, p in enumerate(parts)
            ],
            "1/0": [{"out": "rows follow", "success": False}] * math.ceil(1.5 * len(parts)),
        },
    }
    spec_file = tmp_path / f"{task}.json"
    spec_file.write_text(json.dumps(spec))
    save_dir, _did = write_bimanibench_vla_run(tmp_path / "log", spec_file)
    code, _, err = _import(capsys, save_dir, db)
    assert code == 0, err
    got = _episodes(db)
    ok_episode, _steps = got["0/0"]
    assert ok_episode.task == task and ok_episode.success is True
    assert got["1/0"][0].success is False
    with open_project(db) as project:
        report = replay_in_sim(project, ok_episode.id, save=False, image_size=(160, 120))
        metrics = project_bimanual_metrics(project)
    assert (report.task, report.tier) == (task, "row16")
    assert report.success, [s.our_feedback for s in report.steps]
    (row,) = metrics["paper"]["fine"]["rows"]
    cell = row["cells"][paper_ids(task)[0]]
    assert (cell["task"], cell["success"], cell["episodes"]) == (task, 1, 2)
