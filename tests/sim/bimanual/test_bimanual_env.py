"""BimanualEnv: the recorded observation, plans executed per tier, feedback, format errors,
truncation and the step budget, on the real dual-arm world."""

from __future__ import annotations

import hashlib
import io
import json

import pytest
from PIL import Image

from sim.bimanual.env import BimanualEnv, executable_items

SIZE = (160, 120)
STEP_KEYS = {
    "kind",
    "name",
    "arguments",
    "model_text",
    "raw_output",
    "result",
    "feedback",
    "ok",
    "state",
    "image_sha256",
}


def reply(plan, **fields) -> str:
    return json.dumps(
        {
            "visual_state_description": "two blocks",
            "reasoning_and_reflection": "",
            "language_plan": "go",
            "executable_plan": plan,
            **fields,
        }
    )


def pose(arm: str) -> dict:
    return {"action_id": "2.9", "action_name": "get_arm_pose", "parameters": {"arm_tag": arm}}


@pytest.fixture
def env():
    e = BimanualEnv("stack_blocks_two", 0, image_size=SIZE, max_steps=4)
    yield e
    e.close()


def test_step_zero_is_the_observed_start(env):
    (step,) = env.steps
    assert step["kind"] == "observation" and step["name"] == "observe" and step["ok"] is True
    ee = step["result"]["ee"]
    assert set(ee) == {"left", "right"} and len(ee["left"]["pose"]) == 7
    assert ee["left"]["pose"][:3] == pytest.approx([-0.3495, -0.2523, 0.9405], abs=1e-3)
    assert ee["right"]["grip"] == pytest.approx(1.0, abs=1e-3)
    png = env.images[0]["head"]
    assert step["image_sha256"] == step["result"]["images"]["head"]
    assert hashlib.sha256(png).hexdigest() == step["image_sha256"]
    assert Image.open(io.BytesIO(png)).size == SIZE
    assert step["state"]["bodies"] and not env.done and not env.success
    assert set(env.objects()) == {"red_block", "green_block"}


def test_the_reference_plan_solves_the_task_in_one_step(env):
    plan = env.task.reference_plan(env.world)
    feedback = env.run_plan(plan)
    assert feedback == "Action succeeded." and env.success and env.done
    step = env.steps[1]
    assert STEP_KEYS <= set(step) and step["kind"] == "action" and step["ok"] is True
    assert (
        step["arguments"]["tier"] == "primitive" and step["arguments"]["pose_order"] == "xyz_wxyz"
    )
    assert [a["action_name"] for a in step["arguments"]["plan"]] == [a["action_name"] for a in plan]
    result = step["result"]
    assert result["executed"] == len(plan) and result["task_success"] is True
    assert all(a["ok"] for a in result["actions"]) and result["actions"][0]["arm"] == "left"
    assert result["parse"]["ok"] and step["image_sha256"] == result["images"]["head"]
    assert len(env.image_store()) == 2
    with pytest.raises(RuntimeError):
        env.step(reply([]))


def test_the_allocation_guard_refuses_the_far_arm_and_the_rest_waits(env):
    far = {
        "action_id": "2.2",
        "action_name": "grasp_actor",
        "parameters": {"actor": "red_block", "arm_tag": "right"},
    }
    feedback = env.step(reply([far, pose("left")]))
    assert "target red_block is too far, right arm can not finish this 'grasp' action!" in feedback
    assert feedback.startswith("Action failed: Action Failed:") and "action 1 of 2" in feedback
    step = env.steps[-1]
    assert step["ok"] is False and step["result"]["executed"] == 1
    assert [a["ok"] for a in step["result"]["actions"]] == [False, None]
    assert not env.done


def test_a_reply_that_cannot_be_read_is_a_format_error_and_the_episode_goes_on(env):
    feedback = env.step("use (LEFT OR RIGHT) arm")
    step = env.steps[-1]
    assert step["kind"] == "format_error" and step["ok"] is False
    assert feedback.startswith("Format error") and step["raw_output"] == "use (LEFT OR RIGHT) arm"
    assert step["arguments"]["plan"] == [] and step["state"] is not None
    assert not env.done
    assert env.step(reply([])) == "Action is empty, no action taken."
    assert env.steps[-1]["ok"] is None and env.steps[-1]["kind"] == "action"


def test_repaired_json_truncation_and_get_arm_pose():
    env = BimanualEnv("stack_blocks_two", 0, image_size=SIZE, truncate=1)
    try:
        text = (
            "```json\n{'visual_state_description': 'ok', 'language_plan': 'look',"
            "'executable_plan': [{'action_name': 'get_arm_pose', 'parameters': "
            "{'arm_tag': 'left'}}, {'action_name': 'get_arm_pose', 'parameters': "
            "{'arm_tag': 'right'}},],}\n```"
        )
        feedback = env.step(text, model_text={"reasoning": "thought"})
        step = env.steps[-1]
        assert step["kind"] == "action" and step["ok"] is True
        assert {"code_fence", "single_quotes"} <= set(step["result"]["parse"]["repairs"])
        assert step["result"]["executed"] == 1 and "Only the first 1 of the 2" in feedback
        assert "The left arm pose is [-0.3495" in feedback
        assert step["model_text"]["reasoning"] == "thought"
    finally:
        env.close()


def test_values_the_executor_cannot_use_are_feedback_not_crashes(env):
    bad = {"action_name": "move_by_displacement", "parameters": {"arm_tag": "left", "z": "up"}}
    feedback = env.step(reply([bad]))
    assert feedback.startswith("Action failed") and env.steps[-1]["ok"] is False


def test_row16_rows_move_both_arms_and_named_actions_are_refused():
    env = BimanualEnv("stack_blocks_two", 0, tier="row16", image_size=SIZE, max_steps=2)
    try:
        start = env.executor.ee_row()
        up = list(start)
        up[2] += 0.05
        up[10] += 0.05
        feedback = env.run_plan([[round(v, 5) for v in up]])
        step = env.steps[-1]
        assert feedback == "Action succeeded." and step["arguments"]["tier"] == "row16"
        assert step["arguments"]["plan"][0]["row"][2] == pytest.approx(start[2] + 0.05, abs=1e-4)
        assert step["result"]["actions"] == [
            {
                "index": 0,
                "action_name": "ee_pose",
                "arm": "both",
                "ok": True,
                "feedback": "Action succeeded.",
            }
        ]
        ee = step["result"]["ee"]
        assert ee["left"]["pose"][2] == pytest.approx(start[2] + 0.05, abs=0.01)
        assert ee["right"]["pose"][2] == pytest.approx(start[10] + 0.05, abs=0.01)
        feedback = env.step(reply([pose("left")]))
        assert "not named actions" in feedback and env.steps[-1]["result"]["executed"] == 0
        assert env.done and not env.success
    finally:
        env.close()


def test_executable_items_picks_the_tier():
    plan = [{"row": [0.0] * 16, "left": {}}, {"action_name": "back_to_origin"}]
    assert executable_items(plan[:1], "row16") == ([[0.0] * 16], "")
    assert executable_items(plan[1:], "primitive") == (plan[1:], "")
    assert executable_items(plan, "primitive")[0] == []


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="no_such_task"):
        BimanualEnv("no_such_task", 0)
    with pytest.raises(ValueError, match="tier"):
        BimanualEnv("stack_blocks_two", 0, tier="joints")
