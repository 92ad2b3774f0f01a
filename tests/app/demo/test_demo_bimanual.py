"""The demo's dual-arm part: a BiManiBench-style log written by running scripted replies in
our world, imported with the real reader, labelled; reference plans recorded; a replay in
sim of the logged handover that used the wrong arm."""

from __future__ import annotations

import json

from app import demo
from app.demo.bimanual import DEMO_LOGS, add_bimanual_demo, write_demo_log
from app.jobs.metrics import project_bimanual_metrics
from store import open_project


def test_the_log_is_laid_out_as_a_bimanibench_run(tmp_path):
    handover = DEMO_LOGS[1]
    (run,) = write_demo_log(tmp_path, (handover,))
    assert run.relative_to(tmp_path).parts[:3] == ("eval_result", "high_level", "handover_block")
    assert (run / "model_name.txt").read_text() == "Model used: vlm-large\n"
    failed = (run / "failed_record.txt").read_text()
    assert failed.startswith("Task handover_block failed at round 0, episode 1, action count 0")
    assert "right arm can not finish this 'grasp' action! Please use another arm!" in failed
    episode = run / "obsimg" / "round0" / "episode1"
    names = sorted(p.name for p in episode.iterdir())
    assert names[:2] == ["obsimg_0000.jpg", "obsimg_0001.jpg"] and "vlmout.txt" in names
    assert "obsimg_third_0000.jpg" in names
    assert (episode / "obsimg_0000.jpg").read_bytes()[:2] == b"\xff\xd8"
    assert (episode / "vlmout.txt").read_text().count("***************") == 2


def test_the_part_adds_labelled_logs_references_and_a_replay_in_sim(tmp_path):
    assert ("bimanual", demo._part_bimanual) in demo.DEMO_PARTS
    with open_project(tmp_path / "demo.reasonscope", create=True) as project:
        added = add_bimanual_demo(
            project, logs=DEMO_LOGS[1:3], references=(("stack_blocks_two", 2),)
        )
        wrong_arm, small = (project.episodes.get(i) for i in added["imported"])
        assert (wrong_arm.model, wrong_arm.task, wrong_arm.agent, wrong_arm.outcome) == (
            "vlm-large",
            "handover_block",
            "bimanibench",
            "failure",
        )
        steps = project.episodes.steps(small.id)
        assert [s.kind for s in steps] == ["format_error", "action", "action", "action"]
        assert [s.ok for s in steps] == [False, False, True, False]
        # the reply with missing commas is logged as the harness logs it, after fix_json
        assert json.loads(steps[2].raw_output)["executable_plan"]
        assert steps[2].result["parse"]["repairs"] == []
        assert set(steps[0].result["images"]) == {"head", "third"}
        labels = [
            (lab.step_index, lab.subcategory or lab.category)
            for lab in project.episodes.labels(small.id)
        ]
        assert labels == [(0, "format"), (1, "action_sequencing"), (3, "action_parameters")]
        (reference,) = (project.episodes.get(i) for i in added["reference"])
        assert (reference.agent, reference.success) == ("reference", True)
        (run,) = (project.episodes.get(i) for i in added["replay_in_sim"])
        assert run.header["bimanual"]["source_episode"] == wrong_arm.id
        run_steps = project.episodes.steps(run.id)
        assert run_steps[0].kind == "observation" and run_steps[0].state is not None
        assert run_steps[1].ok is False and "Please use another arm!" in run_steps[1].feedback
        metrics = project_bimanual_metrics(project)
    assert metrics["errors"]["end_effector_allocation"] == 1
    assert metrics["format_error_steps"] == 1 and metrics["replays_in_sim"] == 1
    assert metrics["success_by_task"]["reference"]["stack_blocks_two"]["rate"] == 1.0
