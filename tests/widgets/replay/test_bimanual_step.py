"""The dual-arm step panel and observation panel, on steps recorded in our dual-arm world:
each action's outcome (one that never ran after a failure says so), both end effectors,
the model's text, the parse report; the stored views decoded, one tab each."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from widgets.replay.bimanual_images import ObservationPanel
from widgets.replay.bimanual_step import (
    BimanualStepPanel,
    arm_poses,
    bimanual_step_title,
    model_plan,
    plan_items,
)

PLAN = [
    {
        "action_name": "place_actor",
        "parameters": {"actor": "red_block", "arm_tag": "left", "target_pose": [0, -0.13, 0.77]},
    },
    {"action_name": "back_to_origin", "parameters": {"arm_tag": "left"}},
]


@pytest.fixture(scope="module")
def recorded():
    """A stack_blocks_two episode whose one step places a block it never grasped."""
    from sim.bimanual.env import BimanualEnv

    with BimanualEnv("stack_blocks_two", 0, cameras=("head", "third"), image_size=(64, 48)) as env:
        env.run_plan(PLAN, language_plan="Place the red block, then go home.")
        return [dict(s) for s in env.steps], env.images, env.world.ee_wire_pose("left")


def test_each_action_has_its_outcome_and_the_arms_their_pose(recorded):
    steps, _images, left_pose = recorded
    step = steps[1]
    items = plan_items(step)
    assert [(i.index, i.arm, i.ok, i.ran) for i in items] == [
        (0, "left", False, True),
        (1, "left", None, False),
    ]
    assert items[0].feedback == "Action failed: red_block is not in the left gripper"
    assert items[0].text.startswith("place_actor(actor=red_block, arm_tag=left, target_pose=")
    assert items[1].feedback == "not run"
    assert (
        bimanual_step_title(1, 1, step) == "Step 1 of 1 · plan of 2 actions · ✗ failed at action 0"
    )
    poses, source = arm_poses(step)
    assert source == "after the step, in our simulator"
    assert (poses["left"].x, poses["left"].y, poses["left"].z) == pytest.approx(
        left_pose[:3], abs=1e-5
    )
    assert poses["left"].gripper == "open" and poses["right"].gripper == "open"
    assert model_plan(step)[0] == {"action_id": "2.3", **PLAN[0]}  # without converted poses
    assert bimanual_step_title(0, 1, steps[0]) == "Step 0 of 1 · initial observation"
    assert plan_items(steps[0]) == [] and arm_poses(steps[0])[0]  # the start: arms, no plan


def test_the_panel_shows_the_step_as_text(qtbot, recorded):
    steps, _images, _pose = recorded
    panel = BimanualStepPanel()
    qtbot.addWidget(panel)
    panel.show_bimanual_step(
        1,
        1,
        steps[1],
        comparison={
            "recorded_ok": True,
            "recorded_feedback": "Action succeeded.",
            "our_ok": False,
            "our_feedback": steps[1]["feedback"],
            "task_success": False,
        },
    )
    text = panel.text.replace("\n", "\t")
    assert panel.title.styleSheet()  # a failed step's title is red
    for expected in (
        "Feedback\tAction failed: red_block is not in the left gripper",
        "✗\tleft\tplace_actor(",
        "–\tleft\tback_to_origin(arm_tag=left)\tnot run",
        "Replayed in our world\tDiffers from the record.",
        "Task not done after this step.",
        "Language plan: Place the red block, then go home.",
        "Executable plan:",
        "Valid JSON as written: no repairs.",
    ):
        assert expected in text, expected
    assert '"action_name": "back_to_origin"' in text


def test_the_observation_panel_decodes_the_views_and_switches_with_its_tabs(qtbot, recorded):
    _steps, images, _pose = recorded
    panel = ObservationPanel()
    qtbot.addWidget(panel)
    panel.resize(400, 360)
    panel.show()
    panel.set_views(images[1], "After step 1")
    assert panel.views == ["head", "third"] and panel.current_view == "head"
    assert (panel.canvas.image.width(), panel.canvas.image.height()) == (64, 48)
    assert panel.caption.text() == "After step 1 · Head view, 64 × 48"
    seen = []
    panel.view_changed.connect(seen.append)
    qtbot.mouseClick(panel.tabs, Qt.MouseButton.LeftButton, pos=panel.tabs.tabRect(1).center())
    assert panel.current_view == "third" and seen == ["third"]
    assert panel.caption.text() == "After step 1 · Third person view, 64 × 48"
    assert panel.canvas.image_rect().width() > 64  # scaled up to the panel
    panel.set_views({"head": b"not an image"}, "Broken")
    assert panel.canvas.image.isNull() and panel.canvas.message == "Cannot read the head image"
    panel.set_views({}, "Nothing")
    assert panel.canvas.message == "No image stored for this step." and not panel.tabs.isVisible()
