"""ToolEnv: modes decide the tools, refusals are recorded steps, every step carries its state."""

from __future__ import annotations

import numpy as np
import pytest

from sim.tabletop.masks import decode_mask, encode_mask
from sim.tabletop.toolenv import MODES, ToolEnv
from sim.tabletop.world import TOP_DOWN
from tests.sim.tabletop.tabletop_cases import covered_cube_world, find_question

CAM = TOP_DOWN.with_size(256, 256)


@pytest.fixture
def world():
    w = covered_cube_world()
    yield w
    w.close()


def test_direct_mode_allows_only_the_answer_and_records_refusals(world):
    env = ToolEnv(world, find_question(), "direct", camera=CAM)
    assert env.tools == MODES["direct"] == ("answer_question",)
    seen = env.call("perceive_scene")
    assert "not available in direct mode" in seen["error"]
    assert env.steps[-1]["ok"] is False and env.steps[-1]["kind"] == "tool"
    env.call("answer_question", {"answer": "no"})
    assert env.done and env.correct is False and env.outcome == "answered"
    assert [s["kind"] for s in env.steps] == ["observation", "tool", "answer"]
    assert all(s["state"]["format"] == "reasonscope-state/1" for s in env.steps)


def test_perception_sees_only_visible_objects_and_masks_round_trip(world):
    env = ToolEnv(world, find_question(), "perception", camera=CAM)
    seen = env.call("perceive_scene")
    names = [o["name"] for o in seen["objects"]]
    assert "red cube" not in names and "blue box" in names  # the cube is under the box
    assert "replay" not in seen and "body_keys" not in str(seen)  # nothing private leaks
    box = next(o for o in seen["objects"] if o["name"] == "blue box")
    found = env.call("find_object", {"point": box["point"]})
    assert found["mask_id"] == "mask_1" and found["area_px"] > 100
    replay = env.steps[-1]["result"]["replay"]
    assert replay["body_key"] == "cover"
    assert np.array_equal(decode_mask(replay["mask"]), env.masks["mask_1"])
    bad = env.call("find_object", {"point": [2, 2]})
    assert "no object at (2, 2)" in bad["error"]
    refused = env.call("grasp", {"mask_id": "mask_1"})
    assert "not available in perception mode" in refused["error"]


def test_manipulation_reveals_the_hidden_cube_and_a_pointed_yes_is_correct(world):
    env = ToolEnv(world, find_question(), "manipulation", camera=CAM)
    box = next(o for o in env.call("perceive_scene")["objects"] if o["name"] == "blue box")
    env.call("find_object", {"point": box["point"]})
    assert env.call("grasp", {"mask_id": "mask_1"})["success"]
    cube = next(o for o in env.call("perceive_scene")["objects"] if o["name"] == "red cube")
    env.call("answer_question", {"answer": "yes", "point": cube["point"]})
    assert env.correct is True
    # the state after the grasp differs from the one before it: the box went to the basket
    before, after = env.steps[2]["state"], env.steps[3]["state"]
    moved = np.subtract(
        after["bodies"]["cover"]["com_position"], before["bodies"]["cover"]["com_position"]
    )
    assert np.linalg.norm(moved) > 0.2


def test_unknown_masks_and_arguments_are_refused_with_reasons(world):
    env = ToolEnv(world, find_question(), "manipulation", camera=CAM)
    assert (
        "call find_object first" in env.call("push", {"mask_id": "m9", "direction": "up"})["error"]
    )
    assert "pixel coordinates" in env.call("find_object", {"point": "middle"})["error"]
    assert "unknown tool" in env.call("teleport", {})["error"]
    env.record_format_error("{'tool': grasp", "unbalanced braces")
    assert env.steps[-1]["kind"] == "format_error" and env.steps[-1]["raw_output"]
    with pytest.raises(ValueError, match="mode must be one of"):
        ToolEnv(world, find_question(), "telepathy", camera=CAM)


def test_run_lengths_survive_edge_cases():
    for mask in (np.zeros((3, 4), bool), np.ones((3, 4), bool), np.eye(4, dtype=bool)):
        assert np.array_equal(decode_mask(encode_mask(mask)), mask)
    with pytest.raises(ValueError, match="add up"):
        decode_mask({"shape": [2, 2], "runs": [1, 1]})
