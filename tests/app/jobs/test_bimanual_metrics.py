"""`reasonscope metrics --json` reports dual-arm episodes under `bimanual`: success per model
and task, labelled steps per error category of the dual-arm paper, format-error steps. The
episodes are the test corpus imported with the real importer, labelled through the store,
plus a replay in sim (which does not count as a model's try)."""

from __future__ import annotations

import json

import pytest
from bimanual_corpus import imported_project

from app.cli import main
from app.jobs.metrics import bimanual_lines, project_metrics
from store import open_project

LOST = "bimanibench:handover_block:gpt-5:2025-06-01_120000:round0:episode1"


@pytest.fixture
def db(tmp_path):
    path = imported_project(tmp_path, "runs.reasonscope")
    return path


def _labels(project):
    ada, ben = project.annotators.sign_in("Ada"), project.annotators.sign_in("Ben")
    lost = project.episodes.find(LOST).id
    steps = project.episodes.steps(lost)
    add = project.episodes.add_label
    add(lost, 1, "perceptual_reasoning", "end_effector_allocation", "", ada)
    add(lost, 1, "perceptual_reasoning", "end_effector_allocation", "", ben)  # same step: once
    add(lost, 2, "format", "", "", ada)
    add(lost, 3, "strategic_planning", "action_parameters", "", ada)
    add(lost, 4, "evidence_gathering", "premature_answer", "", ben)  # not a dual-arm kind
    return lost, steps


def test_metrics_json_has_a_bimanual_key(capsys, db):
    with open_project(db) as project:
        _labels(project)
    capsys.readouterr()
    assert main(["metrics", "--json", "--db", str(db)]) == 0
    out = json.loads(capsys.readouterr().out)
    m = out["bimanual"]
    assert m["success_by_task"] == {
        "gpt-5": {"handover_block": {"success": 1, "episodes": 2, "rate": 0.5, "unknown": 0}},
        "gpt-5_base": {
            "stack_blocks_two": {"success": 1, "episodes": 2, "rate": 0.5, "unknown": 0}
        },
    }
    assert m["errors"] == {
        "execution_flaw": 0,
        "scene_randomization": 0,
        "state_estimation": 0,
        "end_effector_allocation": 1,
        "physical_attribute": 0,
        "action_sequencing": 0,
        "bimanual_conflict": 0,
        "action_parameters": 1,
        "format": 1,
    }
    assert m["other_errors"] == {"premature_answer": 1}
    assert m["format_error_steps"] == 2 and m["format_error_by_model"] == {
        "gpt-5": 1,
        "gpt-5_base": 1,
    }
    assert (m["episodes"], m["models"], m["tasks"], m["replays_in_sim"]) == (
        4,
        ["gpt-5", "gpt-5_base"],
        ["handover_block", "stack_blocks_two"],
        0,
    )
    assert m["average_by_model"] == {
        "gpt-5": {"rate": None, "missing": ["stack_blocks_two"]},
        "gpt-5_base": {"rate": None, "missing": ["handover_block"]},
    }
    assert out["episodes"]["n"] == 0  # dual-arm episodes are not MG-VQA rows


def test_a_replay_in_sim_is_not_a_try_and_the_text_report_lists_the_table(db):
    from app.jobs.bimanual import replay_in_sim

    with open_project(db) as project:
        lost, _steps = _labels(project)
        report = replay_in_sim(project, lost, save=True)
        project.episodes.add_label(
            report.episode_id,
            1,
            "environment",
            "execution_flaw",
            "",
            project.annotators.sign_in("Ada"),
        )
    m = project_metrics(db)["bimanual"]
    assert m["replays_in_sim"] == 1 and m["episodes"] == 4
    assert m["success_by_task"]["gpt-5"]["handover_block"]["episodes"] == 2
    assert m["format_error_steps"] == 2  # the replay's copy of the unreadable reply not again
    assert m["errors"]["execution_flaw"] == 1  # labels on a replay in sim do count
    lines = bimanual_lines(m)
    assert lines[0] == "bimanual: 4 episodes, 2 format-error steps, 1 replays in sim"
    assert lines[1].split() == ["model", "handover_block", "stack_blocks_two"]
    assert lines[2].split() == ["gpt-5", "1/2", "(50", "%)", "-"]
    assert lines[4].startswith(
        "  paper Table 1 (planning) gpt-5: Independent Parallel "
        "incomplete, Sequential Collaborative incomplete; total incomplete"
    )
    assert lines[5].startswith("  error labels: execution_flaw 1, end_effector_allocation 1")
    assert lines[5].endswith("premature_answer 1")


def test_an_empty_project_has_an_empty_bimanual_key(tmp_path):
    path = tmp_path / "empty.reasonscope"
    open_project(path, create=True).close()
    m = project_metrics(path)["bimanual"]
    assert (m["episodes"], m["success_by_task"], m["format_error_steps"]) == (0, {}, 0)
    assert set(m["errors"].values()) == {0}
    assert bimanual_lines(m) == ["bimanual: 0 episodes, 0 format-error steps, 0 replays in sim"]
