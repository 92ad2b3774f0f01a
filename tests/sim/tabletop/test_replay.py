"""Replay helpers on a recorded episode: exact seeks, what moved, what a grasp saw, re-simulation.

One short manipulation episode is recorded once for the module (find, push,
find, grasp, answer) on a three-object scene rebuilt from stored records, as a
project's scene is.
"""

from __future__ import annotations

import numpy as np
import pytest

from annotation.progress import Cancelled, Progress
from sim.camera import project_points
from sim.tabletop.replay import (
    EpisodeReplay,
    acted_body,
    episode_camera,
    failed_steps,
    gripper_glyph,
    lift_mask,
    pad_depth,
    state_at,
    step_mask,
    turn_deg,
    what_moved,
)
from sim.tabletop.resim import resimulate
from sim.tabletop.scenes import settle, world_from_records
from sim.tabletop.toolenv import ToolEnv
from sim.tabletop.world import TOP_DOWN, TabletopWorld

CAMERA = TOP_DOWN.with_size(256, 256)


class Question:
    task, answer, criteria = "count", 2, {}


def small_scene() -> tuple[list[dict], dict]:
    """Three boxes on the table, settled: body records and state, as a project stores them.

    The robot has the 2F-85 (the wide box is too wide for it); the records say so, and
    every world rebuilt from them has it too."""
    with TabletopWorld(gripper="2f85") as world:
        for key, half, pos, rgba in (
            ("red_box", 0.025, (-0.08, 0.05), (0.9, 0.2, 0.2, 1)),
            ("blue_box", 0.02, (0.08, 0.08), (0.2, 0.3, 0.9, 1)),
            ("wide_box", 0.06, (0.0, -0.10), (0.9, 0.8, 0.2, 1)),
        ):
            world.add_primitive(
                key, "box", (half, half, 0.02), (*pos, 0.645), rgba=rgba, mass=0.1, name=key
            )
        settle(world)
        return world.body_records(), world.capture_state()


def pixel_of(world, key: str) -> list[int]:
    position = world.client.getBasePositionAndOrientation(world.bodies[key].uid)[0]
    uv, _ = project_points(CAMERA, np.array([position]))
    return [int(uv[0, 0]), int(uv[0, 1])]


@pytest.fixture(scope="module")
def recorded():
    records, state = small_scene()
    world = world_from_records(records, state)
    env = ToolEnv(world, Question(), "manipulation", camera=CAMERA)
    env.call("find_object", {"point": pixel_of(world, "red_box")})
    env.call("push", {"mask_id": "mask_1", "direction": "left"})
    env.call("find_object", {"point": pixel_of(world, "blue_box")})
    env.call("grasp", {"mask_id": "mask_2"})
    env.call("find_object", {"point": pixel_of(world, "wide_box")})
    env.call("grasp", {"mask_id": "mask_3"})  # 12 cm across: no feasible grasp
    env.call("answer_question", {"answer": "2"})
    world.close()
    return records, state, env.steps


def test_seek_restores_exactly_the_recorded_state(recorded):
    records, state, steps = recorded
    world = world_from_records(records, state)
    replay = EpisodeReplay(world, steps, CAMERA, initial=state)
    try:
        for index in (4, 1, len(steps) - 1, 0, 2):
            assert replay.seek(index)
            now = world.capture_state()["bodies"]
            for key, body in steps[index]["state"]["bodies"].items():
                assert np.allclose(now[key]["com_position"], body["com_position"], atol=1e-9)
                assert np.allclose(now[key]["com_orientation"], body["com_orientation"], atol=1e-9)
                for joint, angle in body["joints"].items():
                    assert now[key]["joints"][joint] == pytest.approx(angle, abs=1e-9)
    finally:
        world.close()


def test_steps_read_what_moved_and_what_was_acted_on(recorded):
    _, state, steps = recorded
    names = [s["name"] for s in steps]
    assert names == [
        "observe",
        "find_object",
        "push",
        "find_object",
        "grasp",
        "find_object",
        "grasp",
        "answer_question",
    ]
    assert steps[4]["ok"] and not steps[6]["ok"]
    assert failed_steps(steps) == [6]
    assert acted_body(steps, 2) == "red_box" and acted_body(steps, 4) == "blue_box"
    assert acted_body(steps, 7) is None
    assert step_mask(steps, 4).shape == (256, 256) and step_mask(steps, 4).sum() > 50
    assert step_mask(steps, 0) is None
    pushed = what_moved(
        steps[1]["state"], steps[2]["state"], ["red_box", "blue_box", "wide_box"], acted="red_box"
    )
    assert pushed and pushed[0].key == "red_box" and pushed[0].acted_on
    assert pushed[0].after[0] < pushed[0].before[0] - 0.02  # pushed left: towards -x
    grasped = what_moved(steps[3]["state"], steps[4]["state"], acted="blue_box")
    assert grasped[0].key == "blue_box" and grasped[0].into_basket
    assert "robot_gripper" not in [m.key for m in grasped if m.acted_on]
    assert what_moved(steps[5]["state"], steps[6]["state"], ["red_box", "blue_box"]) == []
    assert state_at(steps, 3) is steps[3]["state"]
    assert state_at([{"state": {"time": 0}}], 0, state) is state  # a partial state is skipped
    assert turn_deg((0, 0, 0, 1), (0, 0, np.sin(np.pi / 8), np.cos(np.pi / 8))) == pytest.approx(45)


def test_a_grasp_step_shows_its_mask_points_and_plan(recorded):
    records, state, steps = recorded
    world = world_from_records(records, state)
    replay = EpisodeReplay(world, steps, CAMERA, initial=state)
    try:
        seen = replay.inspect(4)
        assert replay.inspect(2) is None
        target = np.array(steps[3]["state"]["bodies"]["blue_box"]["com_position"])
        # the points are the blue box's top and a visible side, as the camera saw it before
        assert len(seen.points) == seen.mask.sum() > 50
        assert np.all(np.abs(seen.points - target) <= [0.023, 0.023, 0.023])
        assert np.median(seen.points[:, 2]) == pytest.approx(target[2] + 0.02, abs=0.002)
        assert seen.colours.shape == seen.points.shape and seen.colours[:, 2].mean() > 0.5
        assert seen.target == "blue_box" and seen.held == "blue_box" and seen.reason == ""
        assert seen.plan["feasible"] and seen.offset_m < 0.02
        assert np.allclose(seen.planned_tool[:2], seen.plan["centre"][:2], atol=2e-4)
        assert seen.planned_glyph().shape[1] == 3 and len(seen.planned_glyph()) % 2 == 0
        # the planner's ranked candidates and the one tried, each drawn at its closing pose
        assert seen.attempts and seen.attempts[0]["outcome"] == "held"
        assert seen.candidates[0]["score"] >= seen.candidates[-1]["score"]
        assert len(seen.candidate_glyphs()) == len(seen.candidates)
        failed = replay.inspect(6)
        assert failed.actual_tool is None and failed.actual_glyph() is None
        assert failed.reason == "no feasible grasp" and not failed.plan["feasible"]
        # the world is left where the last restore put it: callers seek again
        assert replay.seek(4)
    finally:
        world.close()


def test_lifting_and_glyph_helpers():
    camera = TOP_DOWN.with_size(64, 64)
    depth = np.full((64, 64), 0.85)
    mask = np.zeros((64, 64), bool)
    mask[32, 32] = True
    (point,) = lift_mask(camera, depth, mask)
    # just off the image centre by half a pixel; 0.85 m below the eye: the table top
    assert point[2] == pytest.approx(TOP_DOWN.eye[2] - 0.85)
    assert np.allclose(point[:2], TOP_DOWN.target[:2], atol=0.01)
    glyph = gripper_glyph((0, 0, 1.0), 0.0, 0.04)
    assert glyph[:, 2].min() == pytest.approx(1.0 - pad_depth(0.04))
    assert glyph[:, 0].max() == pytest.approx(0.02 + 0.012)
    assert episode_camera(None, {"camera": {"width": 256, "height": 256}}).width == 256
    assert episode_camera(None, {}).width == 1024
    assert episode_camera(TOP_DOWN.as_dict(), None).fov_deg == TOP_DOWN.fov_deg


def test_resimulation_from_the_push_matches_the_recording(recorded):
    records, state, steps = recorded
    world = world_from_records(records, state)
    messages = []
    try:
        report = resimulate(
            world,
            Question(),
            "manipulation",
            CAMERA,
            steps,
            2,
            progress=Progress(lambda d, t, m: messages.append((d, t))),
        )
    finally:
        world.close()
    assert report.from_index == 2 and [s.index for s in report.steps] == [2, 3, 4, 5, 6, 7]
    assert report.matches, [s.diff() for s in report.steps]
    assert report.steps[2].ok and not report.steps[4].ok  # the grasp, then the infeasible one
    grasp = report.steps[2]
    assert grasp.in_basket == ("blue_box",) and grasp.deviations["blue_box"] < 0.005
    assert report.steps[0].in_basket == () and report.steps[0].worst_m < 0.005
    assert "all match" in report.summary()
    assert messages[-1] == (6, 6)


def test_resimulation_from_the_start_reproduces_the_recording_exactly(recorded):
    records, state, steps = recorded
    world = world_from_records(records, state)
    try:  # a fresh world is already in the first state: nothing to restore, nothing perturbed
        report = resimulate(world, Question(), "manipulation", CAMERA, steps, 0, initial=state)
    finally:
        world.close()
    assert report.from_index == 1 and len(report.steps) == len(steps) - 1
    assert report.matches and all(d == 0.0 for s in report.steps for d in s.deviations.values())


def test_resimulation_reports_a_diff_and_can_be_cancelled(recorded):
    records, state, steps = recorded
    changed = [dict(s) for s in steps]
    changed[5] = {**steps[5], "feedback": "Found something else."}
    moved = {k: dict(v) for k, v in steps[5]["state"]["bodies"].items()}
    moved["red_box"] = {**moved["red_box"], "com_position": [0.3, 0.3, 0.64]}
    changed[5]["state"] = {**steps[5]["state"], "bodies": moved}
    world = world_from_records(records, state)
    try:
        report = resimulate(world, Question(), "manipulation", CAMERA, changed, 5)
        assert not report.matches and report.first_mismatch.index == 5
        diff = "\n".join(report.first_mismatch.diff())
        assert "feedback: recorded 'Found something else.'" in diff and "red_box:" in diff
        assert report.steps[1].matches  # the infeasible grasp still matches
        progress = Progress()
        progress.cancel()
        with pytest.raises(Cancelled):
            resimulate(world, Question(), "manipulation", CAMERA, steps, 1, progress=progress)
    finally:
        world.close()
