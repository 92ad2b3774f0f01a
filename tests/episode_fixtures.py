"""A small project of two MG-VQA episodes recorded with `ToolEnv` on a three-box scene
(256 px images): one manipulation episode of model "alpha" (find and push the red box,
grasp the blue box into the basket, then a grasp on the wide box that cannot work) and a
short perception episode of model "beta". Shared by the Replay and graph-dock tests."""

from __future__ import annotations

import numpy as np
import pytest

from store import open_project


def record_episode(project, question, scene_id, model, calls, mode="manipulation"):
    from sim.camera import project_points
    from sim.tabletop.scenes import world_from_records
    from sim.tabletop.toolenv import ToolEnv
    from sim.tabletop.world import TOP_DOWN

    scene = project.scenes.get(scene_id)
    world = world_from_records([b.as_record() for b in scene.bodies], scene.state)
    camera = TOP_DOWN.with_size(256, 256)
    env = ToolEnv(world, question, mode, camera=camera)
    for name, arguments in calls:
        if "at" in arguments:  # the pixel of a body, as the agent would read it off the image
            key = arguments.pop("at")
            position = world.client.getBasePositionAndOrientation(world.bodies[key].uid)[0]
            uv, _ = project_points(camera, np.array([position]))
            arguments = {"point": [int(uv[0, 0]), int(uv[0, 1])]}
        env.call(name, arguments, model_text={"reasoning": f"I call {name}."})
    world.close()
    header = {
        "benchmark": "mgvqa",
        "model": model,
        "agent": "test",
        "mode": mode,
        "task": question.task,
        "question_id": question.id,
        "scene_id": scene_id,
        "outcome": env.outcome,
        "success": env.correct,
        "camera": {"width": 256, "height": 256},
    }
    return project.episodes.add(header, env.steps).id


def small_scene():
    """Three boxes on the table, settled: body records and state, as a project stores them.
    The robot has the 2F-85, which the 12 cm wide box is too wide for."""
    from sim.tabletop.scenes import settle
    from sim.tabletop.world import TabletopWorld

    with TabletopWorld(gripper="2f85") as world:
        for key, half, pos in (
            ("red_box", 0.025, (-0.08, 0.05)),
            ("blue_box", 0.02, (0.08, 0.08)),
            ("wide_box", 0.06, (0.0, -0.10)),
        ):
            world.add_primitive(key, "box", (half, half, 0.02), (*pos, 0.645), mass=0.1, name=key)
        settle(world)
        return world.body_records(), world.capture_state()


@pytest.fixture(scope="module")
def episode_project(tmp_path_factory):
    path = tmp_path_factory.mktemp("replay") / "episodes.reasonscope"
    records, state = small_scene()
    with open_project(path, create=True) as project:
        sid = project.scenes.add(
            {"name": "three boxes", "camera": {}, "state": state, "bodies": records}
        )
        count = project.questions.add(
            {
                "benchmark": "mgvqa",
                "task": "count",
                "scene_id": sid,
                "text": "How many boxes?",
                "answer": 3,
            }
        )
        find = project.questions.add(
            {
                "benchmark": "mgvqa",
                "task": "find",
                "scene_id": sid,
                "text": "Is there a mug?",
                "answer": {"answer": "no"},
            }
        )
        record_episode(
            project,
            count,
            sid,
            "alpha",
            [
                ("find_object", {"at": "red_box"}),
                ("push", {"mask_id": "mask_1", "direction": "left"}),
                ("find_object", {"at": "blue_box"}),
                ("grasp", {"mask_id": "mask_2"}),
                ("find_object", {"at": "wide_box"}),
                ("grasp", {"mask_id": "mask_3"}),
                ("answer_question", {"answer": "3"}),
            ],
        )
        record_episode(
            project,
            find,
            sid,
            "beta",
            [("perceive_scene", {}), ("answer_question", {"answer": "no"})],
            "perception",
        )
    return path
