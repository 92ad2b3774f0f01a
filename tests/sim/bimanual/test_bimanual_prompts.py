"""The planner prompts of both tiers: actions with defaults, the four-field reply format, a
parseable example, the initial poses and the last three steps of history."""

from __future__ import annotations

from types import SimpleNamespace

from annotation.bimanual.actions import ACTIONS
from annotation.bimanual.reply import parse_reply
from sim.bimanual import prompts as bp

EE = {
    "left": {"pose": [-0.3495, -0.2523, 0.94049, 0.70711, 0, 0, 0.70711], "grip": 1.0},
    "right": {"pose": [0.3505, -0.2523, 0.94049, 0.70711, 0, 0, 0.70711], "grip": 0.25},
}
FIELDS = (
    "visual_state_description",
    "reasoning_and_reflection",
    "language_plan",
    "executable_plan",
)


def system(tier: str, **kw) -> str:
    return bp.system_text(
        task_name="stack_blocks_two",
        instruction="Stack the blocks.",
        tier=tier,
        initial_ee=EE,
        **kw,
    )


def test_the_action_list_comes_from_the_table_with_defaults():
    text = bp.action_list_text()
    for spec in ACTIONS:
        assert f"{spec.id}: {spec.name}" in text
    assert "pre_grasp_dis (default 0.1)" in text and "actor (required)" in text
    assert "pos (default 1.0)" in text and 'constrain (default "auto")' in text


def test_the_primitive_prompt_carries_task_format_example_and_poses():
    text = system("primitive", truncate=2)
    assert "Task: stack_blocks_two. Goal: Stack the blocks." in text
    assert all(f in text for f in FIELDS) and "2.8: back_to_origin" in text
    assert "(0, -0.13)" in text  # the task hint
    assert "[-0.3495, -0.2523, 0.94049, 0.70711, 0.0, 0.0, 0.70711]" in text
    assert "first 2 action(s)" in text
    reply = parse_reply(bp.output_example("primitive"))
    assert reply.ok and reply.tier == "primitive" and not reply.problems


def test_the_row16_prompt_explains_rows_and_its_example_parses():
    text = system("row16")
    assert "16 numbers" in text and "0.162" in text and "qw, qx, qy, qz" in text
    assert "2.2: grasp_actor" not in text
    reply = parse_reply(bp.output_example("row16"))
    assert reply.ok and reply.tier == "row16" and all(len(r) == 16 for r in reply.executable_plan)


def test_unknown_tasks_get_generic_hints():
    text = bp.system_text(
        task_name="new_task", instruction="Do it.", tier="primitive", initial_ee=EE
    )
    assert "send an idle arm back to its origin" in text


def history(n: int) -> list[dict]:
    return [
        {
            "step": i,
            "kind": "action",
            "feedback": f"feedback {i}",
            "plan": [{"action_name": "back_to_origin", "parameters": {"arm_tag": "left"}}],
        }
        for i in range(1, n + 1)
    ]


def test_the_turn_text_holds_the_last_three_steps_and_the_current_state():
    steps = history(5)
    steps[3] = {"step": 4, "kind": "format_error", "plan": [], "feedback": "Format error: x"}
    text = bp.turn_text(
        instruction="Stack the blocks.",
        tier="primitive",
        history=steps,
        current_ee=EE,
        objects={"red_block": [0.1, 0.0, 0.765]},
        cameras=["head"],
    )
    assert "Step 1," not in text and "Step 2," not in text
    assert 'Step 3, actions [{"action_name": "back_to_origin"' in text
    assert "Step 4, actions (none: the reply could not be read), feedback: Format error: x" in text
    assert "feedback: feedback 5" in text and "gripper 0.25" in text
    assert "red_block at [0.1, 0.0, 0.765]" in text and "Instruction: Stack the blocks.\n" in text
    first = bp.turn_text(
        instruction="x", tier="row16", history=[], current_ee=EE, objects={}, cameras=["head"]
    )
    assert "oldest first" not in first and "end-effector pose rows" in first


def test_rows_in_history_are_rounded_to_five_decimals():
    text = bp.history_text(
        [{"step": 1, "kind": "action", "feedback": "ok", "plan": [[0.1234567] * 16]}]
    )
    assert "[0.12346, 0.12346" in text


def test_prompt_for_reads_the_env():
    env = SimpleNamespace(
        task_name="grab_roller",
        instruction="Lift the roller.",
        tier="primitive",
        initial_ee=EE,
        truncate=None,
        cameras={"head": None, "front": None},
        steps=[{"result": {"ee": EE}}],
        objects=lambda: {"roller": [0, 0, 0.76]},
        history=lambda n: history(1),
    )
    system_text, user = bp.prompt_for(env)
    assert "contact_point_id 0" in system_text and "Lift the roller." in system_text
    assert "Step 1, actions" in user and "head, front camera" in user
