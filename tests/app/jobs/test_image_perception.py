"""Perception from the image alone (issue 35): the perception model is sent the agent's image
and a fixed prompt and nothing else; its unusable replies are tool errors the episode
records; find_object segments the rendered RGB and depth; the oracle names no object the
question construction counts as withheld; each episode records how it perceived."""

from __future__ import annotations

import json

import numpy as np
import pytest
from model_server import serve

from app.cli import main
from app.jobs.endpoints import answer_reply, text_reply, tool_reply
from app.perf.endpoints import fake_scene_graph
from sim.render import render, visibility
from sim.tabletop.perception import WITHHELD_VISIBILITY, OraclePerceiver
from sim.tabletop.questions import MAX_VISIBILITY, TASKS, Candidate, generate
from sim.tabletop.scenes import generate_scene, scene_record
from sim.tabletop.segment import NoObject, iou, segment_at
from sim.tabletop.vlm_perception import SCENE_GRAPH_PROMPT, PerceptionError, read_scene_graph
from sim.tabletop.world import TOP_DOWN
from store import open_project

SIZE = 256


@pytest.fixture(scope="module")
def scene() -> dict:
    generated = generate_scene(5, objects=(3, 4))
    try:
        return scene_record(generated)
    finally:
        generated.world.close()


@pytest.fixture
def db(tmp_path, scene):
    path = tmp_path / "perceive.reasonscope"
    with open_project(path, create=True) as project, project.write():
        sid = project.scenes.add(scene)
        project.questions.add(
            {
                "benchmark": "mgvqa",
                "task": "count",
                "text": "How many green cubes are on the table?",
                "options": None,
                "answer": 1,
                "criteria": {},
                "scene_id": sid,
            }
        )
    return path


def perception_requests(server) -> list[dict]:
    return [b for b in server.requests if b["messages"][0].get("content") == SCENE_GRAPH_PROMPT]


def run_episode(capsys, db, url, monkeypatch, *extra) -> tuple[int, str]:
    monkeypatch.setenv("REASONSCOPE_OPENAI_BASE_URL", url)
    monkeypatch.setenv("REASONSCOPE_OPENAI_MODEL", "agent-model")
    code = main(
        [
            "run-agent",
            *("--agent", "openai", "--mode", "perception", "--questions", "any"),
            *("--image-size", str(SIZE), "--db", str(db), *map(str, extra)),
        ]
    )
    out, err = capsys.readouterr()
    return code, err


def steps_of(db):
    with open_project(db) as project:
        (episode,) = project.episodes.list(limit=10)
        return episode, project.episodes.steps(episode.id)


def agent_then(perceive):
    """A fake endpoint: as the perception model, `perceive(body)`; as the agent, perceive
    once, find the object the scene graph named first, then answer."""

    def script(body, n):
        messages = body["messages"]
        if messages[0].get("content") == SCENE_GRAPH_PROMPT:
            return perceive(messages)
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        if turn == 0:
            return tool_reply("perceive_scene", {})
        if turn == 1:
            seen = json.loads(messages[-2]["content"] if messages[-1]["role"] == "user" else "{}")
            objects = seen.get("objects") or [{"point": [0, 0]}]
            return tool_reply("find_object", {"point": objects[0]["point"]})
        return answer_reply("1")

    return script


def test_the_perception_request_holds_the_image_and_the_prompt_only(capsys, db, scene, monkeypatch):
    with serve(agent_then(fake_scene_graph)) as (server, url):
        code, err = run_episode(capsys, db, url, monkeypatch, "--perception-model", "eyes")
        assert code == 0, err
        (request,) = perception_requests(server)
        agent_first = next(b for b in server.requests if b is not request)
    system, user = request["messages"]
    assert system == {"role": "system", "content": SCENE_GRAPH_PROMPT}
    assert [p["type"] for p in user["content"]] == ["text", "image_url"]
    assert "tools" not in request and request["model"] == "eyes"
    text = json.dumps(request)
    assert "green cubes" not in text  # not the question
    for body in scene["bodies"]:  # no name the simulator knows
        if body.get("role") == "object":
            assert body["name"] not in text
    # the image is the agent's own first view, byte for byte
    agent_image = agent_first["messages"][1]["content"][1]["image_url"]["url"]
    assert user["content"][1]["image_url"]["url"] == agent_image
    episode, steps = steps_of(db)
    assert episode.header["perceiver"] == "vlm" and episode.header["perception_model"] == "eyes"
    assert episode.header["segmenter"] == "rgbd"
    names = [s.name for s in steps]
    assert names == ["observe", "perceive_scene", "find_object", "answer_question"]
    perceived, found = steps[1], steps[2]
    assert perceived.ok and perceived.result["objects"][0]["name"] == "object"
    assert found.ok and found.result["area_px"] > 25  # the region the image shows there


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("I can see a green cube and a mug.", "the reply is not a JSON object"),
        (json.dumps({"objects": [{"name": "mug", "point": [SIZE + 5, 3]}]}), "outside the"),
        (json.dumps({"objects": [{"name": "mug"}]}), "is not [u, v]"),
        (json.dumps({"description": "a table"}), "no 'objects' list"),
    ],
)
def test_an_unusable_perception_reply_is_a_tool_error(capsys, db, monkeypatch, reply, why):
    def perceive(messages):
        return text_reply(reply, usage=None)

    with serve(agent_then(perceive)) as (_, url):
        code, err = run_episode(capsys, db, url, monkeypatch)
    assert code == 0, err
    episode, steps = steps_of(db)
    perceived = steps[1]
    assert perceived.name == "perceive_scene" and perceived.ok is False
    assert why in perceived.feedback and "perception failed" in perceived.feedback
    assert episode.outcome == "answered"  # the episode went on


def test_scene_graph_replies_read_strictly():
    graph = read_scene_graph(
        'Here it is: {"objects": [{"name": "red mug", "point": [10.4, 20]}], '
        '"relations": [{"subject": 0, "predicate": "on", "object": 0}]}',
        (64, 64),
    )
    assert graph.objects[0].point == (10, 20) and graph.relations == [(0, "on", 0)]
    assert graph.description.startswith("1 objects can be seen")
    with pytest.raises(PerceptionError, match="names an object that is not listed"):
        read_scene_graph(
            '{"objects": [], "relations": [{"subject": 0, "predicate": "on", "object": 1}]}',
            (64, 64),
        )


def test_the_segmenter_finds_objects_from_rgb_and_depth(scene):
    """Against the simulator's own mask of each visible object (never given to it)."""
    from sim.tabletop.perception import on_object_point
    from sim.tabletop.scenes import world_from_records

    world = world_from_records(scene["bodies"], scene["state"])
    try:
        view = render(world, TOP_DOWN.with_size(512, 512))
        scores = []
        for body in world.objects():
            truth = view.segmentation == body.uid
            if truth.sum() < 25:
                continue
            scores.append(iou(segment_at(view.rgb, view.depth_m, on_object_point(truth)), truth))
        table = np.argwhere(view.segmentation == world.bodies["table"].uid)[0]
        with pytest.raises(NoObject, match="table"):
            segment_at(view.rgb, view.depth_m, (int(table[1]), int(table[0])))
    finally:
        world.close()
    assert len(scores) >= 3 and float(np.median(scores)) >= 0.8


@pytest.mark.parametrize("task", TASKS)
def test_the_oracle_never_names_a_withheld_object(task):
    """On a generated question of each task, every object the oracle lists shows more of
    itself than the construction's threshold; the answer-critical hidden ones are absent."""
    assert WITHHELD_VISIBILITY == MAX_VISIBILITY  # one number, read by both
    camera = TOP_DOWN.with_size(SIZE, SIZE)
    for seed in range(40):
        result = generate(task, seed, image_size=SIZE)
        if isinstance(result, Candidate):
            break
    else:
        pytest.fail(f"no {task} question in 40 seeds")
    world = result.scene.world
    try:
        perception = OraclePerceiver().perceive(world, camera)
        listed = set(perception.body_keys.values())
        fractions = visibility(world, camera)
        assert all(fractions[k].fraction > WITHHELD_VISIBILITY for k in listed)
        hidden = {k for k, v in fractions.items() if v.fraction <= WITHHELD_VISIBILITY}
        assert not listed & hidden
    finally:
        world.close()
