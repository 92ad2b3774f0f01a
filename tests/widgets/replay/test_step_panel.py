"""The Replay step panel: its title line and text for recorded steps, what moved (measured by
`what_moved` between two stored states), a grasp's inspection, a re-simulation, and the
`StepPanel` widget that shows them."""

from __future__ import annotations

import numpy as np
from recorded_steps import STEPS

from sim.tabletop.replay import GraspInspection, what_moved
from sim.tabletop.resim import ResimReport, ResimStep
from sim.tabletop.world import BASKET_CENTRE
from widgets.replay.step_panel import (
    FAIL_STYLE,
    MAX_TEXT,
    StepPanel,
    grasp_html,
    motion_html,
    resim_report_html,
    step_html,
    step_title,
)

UPRIGHT = [0.0, 0.0, 0.0, 1.0]
NAMES = {"red_box": "red box", "blue_box": "blue box"}


def _state(**positions):
    return {
        "bodies": {
            key: {"com_position": list(p), "com_orientation": UPRIGHT}
            for key, p in positions.items()
        }
    }


def test_the_title_says_which_step_and_whether_it_worked():
    titles = [step_title(i, len(STEPS) - 1, s) for i, s in enumerate(STEPS)]
    assert titles == [
        "Step 0 of 5 · initial observation",
        "Step 1 of 5 · perceive_scene · ✓ ok",
        "Step 2 of 5 · find_object · ✓ ok",
        "Step 3 of 5 · grasp · ✗ failed",
        "Step 4 of 5 · format error · ✗ failed",
        "Step 5 of 5 · answer_question · ✓ ok",
    ]


def test_the_text_of_a_tool_call_an_observation_and_an_unreadable_reply():
    perceive = step_html(STEPS[1], [], NAMES)
    assert "<p><b>reasoning:</b> I look first.</p>" in perceive
    assert "perceive_scene({})" in perceive
    assert "&quot;objects&quot;: 3" in perceive and "replay" not in perceive  # not its replay data
    assert "Scene perceived." in perceive and "Nothing moved more than 5 mm or 5°." in perceive
    observation = step_html(STEPS[0], [], NAMES, note="No stored state at this step.")
    assert observation.startswith("<p style='color: #8a6d00'>No stored state at this step.</p>")
    assert "Tool call" not in observation and "What moved" not in observation
    unreadable = step_html(STEPS[4], [], NAMES)
    assert "I think the answer is &lt;three&gt;" in unreadable and "Tool call" not in unreadable
    assert f"<p style='{FAIL_STYLE}'>Format error: no tool call found</p>" in unreadable
    long = {**STEPS[4], "raw_output": "x" * (MAX_TEXT + 10)}
    assert f"… ({MAX_TEXT + 10} characters)" in step_html(long, [], NAMES)


def test_what_moved_between_two_states_is_listed():
    into = (*BASKET_CENTRE, 0.66)
    before = _state(red_box=(0.0, 0.0, 0.65), blue_box=(0.1, 0.1, 0.65), wide_box=(0, -0.1, 0.65))
    after = _state(red_box=into, blue_box=(0.1, 0.13, 0.65), wide_box=(0, -0.101, 0.65))
    motion = what_moved(before, after, acted="red_box")
    assert [m.key for m in motion] == ["red_box", "blue_box"]  # 1 mm is not a move
    html = motion_html(motion, NAMES)
    assert "red box (<b>acted on</b>): moved " in html and ", into the basket</li>" in html
    assert "blue box (collateral): moved 30 mm, turned 0°</li>" in html
    assert "What moved" in step_html(STEPS[3], motion, NAMES)


def test_a_grasp_inspection_and_a_resimulation_in_words():
    plan = {"centre": [0.0, -0.1, 0.66], "top_z": 0.66, "yaw": 0.0, "width": 0.12}
    plan.update(feasible=False, considered=12, rejected={"too wide": 12})
    never = GraspInspection(
        3,
        np.zeros((4, 4), bool),
        np.zeros((40, 3)),
        np.zeros((40, 3)),
        plan,
        np.zeros(3),
        None,
        "too wide",
        "wide_box",
        None,
    )
    text = grasp_html(never, {"wide_box": "wide box"})
    assert text.startswith("Target: wide box; 40 masked pixels lifted to 3D")
    assert "width 12.0 cm, not feasible." in text
    assert "<b>Planned only</b>: no actual gripper pose to compare." in text
    assert "considered 12 grasps (rejected: 12 too wide)" in text
    same = ResimStep(1, "push", True, True, "Pushed.", "Pushed.", {"red_box": 0.001}, ())
    off = ResimStep(3, "grasp", False, True, "failed", "Grasped.", {"blue_box": 0.02}, ())
    report = resim_report_html(ResimReport(1, (same, off)), NAMES)
    assert "1 differ, first at step 3 (grasp)" in report
    assert "ok: recorded False, re-simulated True" in report
    assert "blue box: 20.0 mm off its recorded place" in report
    assert "✓ Matches the recording" in step_html(STEPS[1], [], NAMES, resim=same)


def test_the_panel_shows_a_step_and_clears(qtbot):
    panel = StepPanel()
    qtbot.addWidget(panel)
    assert panel.text == "No episode open\n"
    title = step_title(3, 5, STEPS[3])
    panel.show_step(title, step_html(STEPS[3], [], NAMES), failed=True)
    assert panel.title.styleSheet() == FAIL_STYLE
    lines = panel.text.splitlines()
    assert lines[0] == "Step 3 of 5 · grasp · ✗ failed"
    assert "Action failed: the object is wider than the gripper opens" in lines
    panel.show_step(step_title(1, 5, STEPS[1]), step_html(STEPS[1], [], NAMES))
    assert panel.title.styleSheet() == ""
    panel.clear("Restoring the episode…")
    assert panel.text == "Restoring the episode…\n"
