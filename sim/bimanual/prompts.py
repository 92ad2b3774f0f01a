"""The planner prompts of ST-BiBench's two manipulation tiers, in our own words.

The protocol follows papers/003, appendices F.2 (Strategic Coordination
Planning: named primitives 2.2-2.9) and F.3 (Fine-Grained Action Control:
16-number end-effector rows). Each turn the model gets a system text (the task
and its goal, the dual-arm cautions, task hints, the frame, the actions or the row
format with their parameters and defaults, the reply format with its four fields,
an example reply and the arms' initial poses) and a user text (the current arm
poses and objects, the last three steps' plans and feedback, the instruction
again), with the camera images. The reply is one JSON object: visual_state_description,
reasoning_and_reflection, language_plan, executable_plan.
"""

from __future__ import annotations

import json
from typing import Any

from annotation.bimanual.actions import ACTIONS

HISTORY_STEPS = 3
TIER_NAMES = {"primitive": "named actions", "row16": "end-effector pose rows"}
DOWN = [0.5, -0.5, 0.5, 0.5]  # wire wxyz: gripper down, fingers opening along x

# Task hints ("assistant info"): the main steps and targets, per task. Positions are where
# an object's centre should end up (place_actor's target_pose), metres.
_PICK_PLACE = (
    "1. Grasp each object with the arm on its side of the table. 2. Lift it so it "
    "clears the other objects. 3. Place it at its target. 4. Lift the arm, then "
    "send it back to its origin. 5. Repeat for the next object."
)
TASK_HINTS: dict[str, str] = {
    "stack_blocks_two": _PICK_PLACE + " The stack stands at the table centre (x, y) = "
    "(0, -0.13). The bottom block's centre goes to z = 0.765 and the block above it to "
    "z = 0.815. Place red first, then green on it.",
    "stack_blocks_three": _PICK_PLACE + " The stack stands at the table centre (x, y) = "
    "(0, -0.13). Block centres go to z = 0.765 (red, bottom), 0.815 (green), 0.865 "
    "(blue, top), in that order.",
    "blocks_ranking_rgb": _PICK_PLACE + " The row lies along y = -0.1967: red at x = "
    "-0.0887, green at x = 0.0017, blue at x = 0.0827 (centre z = 0.765).",
    "blocks_ranking_size": _PICK_PLACE + " The row lies along y = -0.1967 with x = "
    "-0.0887 (largest), 0.0017 (middle), 0.0827 (smallest); block sizes differ, so judge "
    "them from the images and set each centre's z to the table (0.74) plus half its height.",
    "handover_block": "1. The left arm grasps the tall red block from above and lifts it. "
    "2. It holds the block near the middle, about (0, -0.08, 0.93), without opening "
    "(place_actor with is_open false). 3. The right arm grasps the block's lower part "
    "pointing forward, from the robot's side (grasp_actor with contact_point_id 3; 0 is "
    "the top-down grasp). 4. The left gripper opens, the left arm lifts and goes back to "
    "its origin. 5. The right arm places the block standing on the blue pad and opens.",
    "place_burger_fries": "1. The left arm grasps the hamburg and the right arm the "
    "frenchfries (both can work at once). 2. Lift both. 3. Place one on the tray while the "
    "other waits, then the other, each beside the other on the tray. 4. Lift each arm and "
    "send it back to its origin.",
    "stack_bowls_three": "1. Grasp each bowl by its rim with the arm on its side of the table "
    "(bowl1 is the largest, bowl3 the smallest). 2. Put the largest bowl down near (0, -0.08) "
    "on the table. 3. Lower the middle bowl, then the smallest, into the stack from above and "
    "let go of each just above the rim below; a bowl that rests inside another is stacked. "
    "4. Lift each arm after letting go and send it back to its origin.",
    "place_object_basket": "1. The arm on the target object's side (the bread or the mug) "
    "grasps it and puts it down in the middle of the basket, then opens, lifts and goes back "
    "to its origin. 2. The other arm grasps the basket by the end wall on its own side. "
    "3. It drags the basket about 10 cm further towards its side (move_by_displacement along "
    "x), opens, lifts and goes back to its origin.",
    "grab_roller": "1. Grasp the roller near its two ends, the left arm at the left end and "
    "the right arm at the right end (grasp_actor with contact_point_id 0 for the left and "
    "1 for the right). 2. Lift both arms together, by the same height, until the roller's "
    "centre is above z = 0.8.",
    "place_cans_plasticbox": "1. Both arms grasp the can on their own side from above "
    "(can_left, can_right) and lift them about 0.2 together. 2. The left arm places its can "
    "in the left half of the plastic box (its centre 5.5 cm left of the box's centre, "
    "constrain free), lifts and goes back to its origin while the right arm places its can "
    "in the right half. 3. The right arm lifts and goes back to its origin.",
    "blocks_cross_shape": _PICK_PLACE + " The cross is centred at (0, -0.15) with 12 cm arms; "
    "block centres go to z = 0.765: black (0, -0.15), green (0, -0.03), yellow (0, -0.27), "
    "red (-0.12, -0.15), blue (0.12, -0.15). Start each grasp well above the block "
    "(pre_grasp_dis 0.15) so the fingers clear its neighbours. Both grippers must end open.",
    "blocks_tower": "Block half edges: red 0.032, blue 0.028, yellow 0.024, green 0.020 "
    "(largest to smallest). 1. Each arm moves the top block of the pile on its side to its "
    "own spare place, the left arm to (-0.15, -0.175), the right arm to (0.15, -0.175) "
    "(centre z = 0.74 plus the half edge). 2. Build the tower at (0, -0.175), each block with "
    "the arm on its side: red at z 0.772, blue 0.832, yellow 0.884, green 0.928. 3. Lift "
    "each arm and send it back to its origin.",
    "handover_mic": "1. The arm on the microphone's side grasps its head from above "
    "(contact_point_id 0) and lifts it about 0.12. 2. It holds the microphone at the middle, "
    "its head at about (0, -0.05, 0.98), without opening (place_actor with is_open false). "
    "3. The other arm grasps the handle pointing forward (contact_point_id 1), closing only "
    "until it touches (gripper_pos 0.3). 4. The first arm opens and lifts; the second moves "
    "the microphone a few centimetres towards its own side. The head must stay above z 0.92.",
    "hanging_mug": "1. The left arm grasps the mug by its rim, puts it down at the middle "
    "of the table, (0, -0.15), with its handle turned to -x, lifts and goes back to its "
    "origin. 2. The right arm grasps the rim opposite the handle (contact_point_id 3) and "
    "lifts the mug about 0.1. 3. It slides the handle's loop along the rack's peg, from the "
    "peg's tip towards the post, and lets go: the mug must hang from the peg by its handle. "
    "4. The right arm lifts and goes back to its origin.",
    "place_bread_skillet": "1. The arm on the skillet's side grasps its handle from the "
    "handle's end, lifts it a little and holds the pan level near (0, -0.08), about 5 cm "
    "above the table, without letting go (place_actor with is_open false). 2. The other arm "
    "grasps the bread, lifts it and places it on the middle of the pan's floor (constrain "
    "free), opens, lifts and goes back to its origin.",
    "place_bread_skillet_vla": "1. Move the skillet to the centre of the table: grasp its "
    "handle from the handle's end and hold the pan level near (0, -0.08), about 5 cm above "
    "the table, without letting go. 2. The other arm grasps the bread, lifts it and puts it "
    "on the middle of the pan's floor, opens, lifts and goes back to its origin.",
    "put_bottles_dustbin": "The dustbin stands on the floor just left of the table, at about "
    "(-0.79, 0); only the left arm reaches it. 1. Bottles on the left: the left arm grasps a "
    "bottle by its body from the robot's side (contact_point_id 0), lifts it about 0.25 so it "
    "clears the other bottles, moves over the bin (move_to_pose [-0.79, -0.15, 0.95, 0.70711, "
    "0, 0, 0.70711]) and opens. 2. Bottles on the right: the right arm grasps one the same "
    "way, lifts it and holds it at (-0.05, -0.10) without opening; the left arm takes it by "
    "the cap from above (contact_point_id 1); the right arm opens, backs away to its side and "
    "goes back to its origin; the left arm drops the bottle into the bin.",
    "place_object_scale": "1. Grasp the object (the bell, mouse or stapler) with the arm on "
    "its side and lift it about 0.15. 2. Place it on the middle of the scale's platform "
    "(constrain free). 3. Open, lift and send the arm back to its origin; both grippers must "
    "end open.",
}
_GENERIC_HINT = (
    "Use the arm nearest each object. Lift what you carry before moving it across "
    "the table, and send an idle arm back to its origin."
)


def _num(v: float) -> float:
    return round(float(v), 5) + 0.0  # + 0.0 turns -0.0 into 0.0


def _pose(values: list[float]) -> str:
    return json.dumps([_num(v) for v in values])


def _default(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, tuple):
        value = list(value)
    return json.dumps(value)


def action_list_text() -> str:
    """The primitives 2.2-2.9 with their parameters and defaults, from the one action table."""
    lines = [
        "Actions (action_id: action_name(parameters)); a parameter without a default must be given:"
    ]
    for spec in ACTIONS:
        lines.append(f"- {spec.id}: {spec.name} - {spec.description}")
        for p in spec.params:
            default = "required" if p.required else f"default {_default(p.default)}"
            lines.append(f"    {p.name} ({default}): {p.description}")
        if spec.kwargs:
            lines.append(
                '    kwargs (optional object of alignment options, e.g. {"constrain": "align"}):'
            )
            for p in spec.kwargs:
                lines.append(f"      {p.name} (default {_default(p.default)}): {p.description}")
    lines.append(
        "arm_tag is 'left' or 'right'. target_pose is where the held object's centre "
        "should go: [x, y, z] or [x, y, z, qw, qx, qy, qz]. The gripper keeps its "
        "orientation while placing."
    )
    return "\n".join(lines)


def row_format_text() -> str:
    """How the 16-number rows of the fine-grained tier are written and executed."""
    return "\n".join(
        [
            "Each item of executable_plan is one row of 16 numbers:",
            "[left x, left y, left z, left qw, left qx, left qy, left qz, left grip, "
            "right x, right y, right z, right qw, right qx, right qy, right qz, right grip]",
            "Per row, both end-effectors travel in straight lines to the row's poses at the same "
            "time; then each gripper goes to the row's grip value (0 fully closed, 1 fully open, "
            "0.5 half open). Grasping an object is therefore three rows: above it, lowered onto "
            "it, then the same pose with the grip at 0.",
            "The orientation is a unit quaternion written w first (qw, qx, qy, qz); rotations "
            "are right-handed (seen from +z looking down, a positive turn about z is "
            f"counter-clockwise). {DOWN} points a gripper straight down with its fingers opening "
            "along x; [0.70711, 0, 0, 0.70711] points it forward (+y), as at the origin.",
            "The end-effector point lies 0.162 m above the lowest point of the open fingertips: "
            "for fingertips at height h, write z = h + 0.162. Give computed numbers (0.9), "
            "never expressions (0.738+0.162), with at most 5 decimals.",
        ]
    )


def output_example(tier: str) -> str:
    """A well-formed reply for the tier (made-up content)."""
    if tier == "row16":
        plan: list[Any] = [
            [-0.2, -0.05, 0.98, *DOWN, 1.0, 0.3505, -0.2523, 0.94049, 0.70711, 0, 0, 0.70711, 1.0],
            [-0.2, -0.05, 0.9, *DOWN, 1.0, 0.3505, -0.2523, 0.94049, 0.70711, 0, 0, 0.70711, 1.0],
            [-0.2, -0.05, 0.9, *DOWN, 0.0, 0.3505, -0.2523, 0.94049, 0.70711, 0, 0, 0.70711, 1.0],
        ]
        lines = ",\n    ".join(json.dumps(row) for row in plan)
        plan_text = f"[\n    {lines}\n  ]"
    else:
        plan = [
            {
                "action_id": "2.2",
                "action_name": "grasp_actor",
                "parameters": {"actor": "red_block", "arm_tag": "left", "pre_grasp_dis": 0.1},
            },
            {
                "action_id": "2.4",
                "action_name": "move_by_displacement",
                "parameters": {"arm_tag": "left", "z": 0.1, "move_axis": "world"},
            },
        ]
        plan_text = "[\n    " + ",\n    ".join(json.dumps(a) for a in plan) + "\n  ]"
    return "\n".join(
        [
            "{",
            '  "visual_state_description": "WHAT THE IMAGES SHOW: objects, where they are, what '
            'each gripper holds and whether it is open",',
            '  "reasoning_and_reflection": "WHAT HAS HAPPENED SO FAR, WHY THE LAST PLAN DID NOT '
            'FINISH THE TASK, WHICH ARM SHOULD HANDLE WHICH OBJECT",',
            '  "language_plan": "THE NEXT ACTIONS IN WORDS",',
            f'  "executable_plan": {plan_text}',
            "}",
        ]
    )


def system_text(
    *,
    task_name: str,
    instruction: str,
    tier: str,
    initial_ee: dict[str, dict[str, Any]],
    truncate: int | None = None,
    example: str | None = None,
) -> str:
    """The standing part of the prompt: task, cautions, hints, frame, actions, format, and
    the task's own example reply when one is given (planning tier only)."""
    if tier == "row16":
        role = (
            "You steer a dual-arm robot by end-effector pose control: you write the poses "
            "both grippers should go to, one row per motion."
        )
        actions = row_format_text()
        plan_field = (
            "executable_plan: a JSON list of rows of 16 numbers (see above); "
            "output a few rows at a time, not the whole task."
        )
    else:
        role = (
            "You plan for a dual-arm robot in a simulator by choosing from a fixed set of "
            "actions with parameters."
        )
        actions = action_list_text()
        plan_field = (
            'executable_plan: a JSON list of actions, each {"action_id": "2.x", '
            '"action_name": ..., "parameters": {...}}, to run in order.'
        )
    parts = [
        f"Task: {task_name}. Goal: {instruction}",
        role + " Each turn you see the current camera image(s) and the feedback on your recent "
        "plans; you answer with the next part of the plan. Look at the images carefully: "
        "they show where the objects are and what the grippers hold. Keep working until the "
        "goal is reached.",
        "Two arms, left and right, share the table and can hit each other. When an arm is "
        "not needed, lift it and send it back to its origin so that it is out of the other "
        "arm's way. Lift a carried object before moving it sideways; do not lift so high "
        "that the motion fails.",
        "Task hints (important): " + TASK_HINTS.get(task_name, _GENERIC_HINT),
        "Choose the arm that can reach the object: an action out of an arm's reach is "
        "refused before it moves, and the feedback asks you to use the other arm.",
        "Coordinates are in metres: +x is to the robot's right, +y away from the robot, +z "
        "up; the table top is at z = 0.74. Poses are written [x, y, z, qw, qx, qy, qz].",
        actions,
        "Your reply is one JSON object with four fields:",
        "1. visual_state_description: what you see in the images now, the grippers included.",
        "2. reasoning_and_reflection: a summary of the steps so far and their feedback, and "
        "your reasoning about why the last plan failed or has not yet finished the task.",
        "3. language_plan: the next actions, in words.",
        "4. " + plan_field,
        "Write only the JSON object: no Markdown code fence and no text before or after it. "
        "Inside string values do not use double quotation marks and do not use apostrophes "
        "(write do not, it is), so that the JSON stays valid. Keep the reply under about "
        "3000 tokens or it will be cut off.",
        "An example of a well-formed reply:\n" + output_example(tier),
    ]
    if example and tier != "row16":
        # The harness's example for this task, as its VLMPlanner.act appends it after the
        # reply template (text from json.dumps(template_example, indent=4), which is what
        # VLMPlanner.set_template_example receives in myvlmEb_eval.eval_policy).
        parts.append(
            "The example reply for this task (follow its structure; the words in capitals "
            "say what to write there):\n" + example
        )
    parts += [
        "The arms start at their origin poses: left "
        f"{_pose(initial_ee['left']['pose'])} and right {_pose(initial_ee['right']['pose'])}, "
        "both grippers open (1). back_to_origin returns an arm there.",
    ]
    if truncate:
        parts.append(
            f"Only the first {truncate} action(s) of each plan are executed; then "
            "you observe the result and plan again."
        )
    return "\n\n".join(parts)


def history_text(history: list[dict[str, Any]]) -> str:
    """The last steps' plans and the feedback each got (empty before the first step)."""
    if not history:
        return ""
    lines = [f"Your last {len(history)} step(s), oldest first:"]
    for h in history:
        if h["kind"] == "format_error":
            actions = "(none: the reply could not be read)"
        else:
            actions = json.dumps(
                [[_num(v) for v in item] if isinstance(item, list) else item for item in h["plan"]],
                ensure_ascii=False,
            )
        lines.append(f"Step {h['step']}, actions {actions}, feedback: {h['feedback']}")
    return "\n".join(lines)


def turn_text(
    *,
    instruction: str,
    tier: str,
    history: list[dict[str, Any]],
    current_ee: dict[str, dict[str, Any]],
    objects: dict[str, list[float]],
    cameras: list[str],
    example_image: bool = False,
) -> str:
    """The user text of one turn: the current state, the recent history, the request. The
    camera images come before it and the task's example picture (`example_image`) after
    it, in the order of the ST-BiBench harness's request."""
    parts = []
    past = history_text(history[-HISTORY_STEPS:])
    if past:
        parts.append(past)
    arms = "; ".join(
        f"{arm} arm pose {_pose(current_ee[arm]['pose'])}, gripper {current_ee[arm]['grip']:.2f}"
        for arm in ("left", "right")
    )
    parts.append(f"Now: {arms} (1 open, 0 closed).")
    if objects:
        where = "; ".join(f"{k} at {_pose(v)}" for k, v in sorted(objects.items()))
        parts.append(f"Objects (use these names as actor; centre positions): {where}.")
    views = ", ".join(cameras)
    if example_image:
        parts.append(
            "The image after this text is this task's example from the benchmark: the "
            "instruction, the scene at the start and when the task is done (in the "
            "benchmark's own simulator, which looks different from yours) and an example "
            "reply. Check it carefully and follow how it solves the task."
        )
    parts.append(
        f"The image(s) before this text show the scene now ({views} camera, in that order). "
        "Considering the history "
        f"above and these images, work towards the instruction.\nInstruction: {instruction}\n"
        "Answer with the JSON object: describe the scene, reflect on the history and feedback "
        "(why the task is not done yet), give the plan in words, and end with executable_plan "
        f"({TIER_NAMES.get(tier, tier)})."
    )
    return "\n\n".join(parts)


def prompt_for(env) -> tuple[str, str]:
    """(system text, user text) for a `BimanualEnv`'s next turn."""
    system = system_text(
        task_name=env.task_name,
        instruction=env.instruction,
        tier=env.tier,
        initial_ee=env.initial_ee,
        truncate=env.truncate,
        example=getattr(env, "example", None),
    )
    user = turn_text(
        instruction=env.instruction,
        tier=env.tier,
        history=env.history(HISTORY_STEPS),
        current_ee=env.steps[-1]["result"]["ee"],
        objects=env.objects(),
        cameras=list(env.cameras),
        example_image=getattr(env, "example_png", None) is not None,
    )
    return system, user
