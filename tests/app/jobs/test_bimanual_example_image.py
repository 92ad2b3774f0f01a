"""The task's example picture, sent as the ST-BiBench harness sends it: the shipped files
are BiManiBench's bytes (sha256 in harness_protocol.json), the planning tier's request ends
with the picture after the text in the harness's order, and --no-example and the row16
tier send none."""

from __future__ import annotations

import base64
import hashlib
import json
from mimetypes import guess_type
from typing import Any

import pytest
from model_server import serve

from annotation.bimanual.metrics import bimanual_run
from annotation.runs import run_label
from app.jobs.bimanual import bimanual_protocol
from sim.assets import resolve_asset
from sim.bimanual.agent import BimanualOpenAIAgent
from sim.bimanual.env import BimanualEnv
from sim.bimanual.protocol import PROTOCOL_FILE, task_protocol
from sim.llm import OpenAIConfig

TASK = "blocks_ranking_rgb"  # one of the 14 tasks with an example picture
SIZE = (64, 48)  # small enough that our camera images are sent unscaled, as the harness's
EXAMPLE_DIR = PROTOCOL_FILE.parent / "example_img"
EMPTY = json.dumps(
    {
        "visual_state_description": "",
        "reasoning_and_reflection": "",
        "language_plan": "",
        "executable_plan": [],
    }
)


def local_image_to_data_url(image_path):
    """BiManiBench's `local_image_to_data_url` (script/planner_utils.py), as written."""
    mime_type, _ = guess_type(image_path)
    if mime_type is None:
        mime_type = "application/octet-stream"
    with open(image_path, "rb") as image_file:
        base64_encoded_data = base64.b64encode(image_file.read()).decode("utf-8")
    return f"data:{mime_type};base64,{base64_encoded_data}"


@pytest.fixture
def harness_get_message():
    """The harness's request message, built by following `VLMPlanner.get_message`
    (BiManiBench script/vlmplanner.py, commit 3a85fbb) line by line: the head image, each
    assistant image (the third-person view), the prompt text, then the example picture.
    Images are given as file paths, the branch `VLMPlanner.act` takes for its observations."""

    def get_message(image, prompt, example_image_path, messages=(), assitantImage=None):
        image_path = image  # type(image) == str
        data_url = local_image_to_data_url(image_path=image_path)
        if assitantImage is not None:
            content = [{"type": "image_url", "image_url": {"url": data_url}}]
            for assitantImage_path in assitantImage:
                assitant_data_url = local_image_to_data_url(image_path=assitantImage_path)
                content.append({"type": "image_url", "image_url": {"url": assitant_data_url}})
            content.append({"type": "text", "text": prompt})
            if example_image_path is not None:
                example_data_url = local_image_to_data_url(image_path=example_image_path)
                content.append({"type": "image_url", "image_url": {"url": example_data_url}})
        else:
            content = [
                {"type": "image_url", "image_url": {"url": data_url}},
                {"type": "text", "text": prompt},
            ]
            if example_image_path is not None:
                example_data_url = local_image_to_data_url(image_path=example_image_path)
                content.append({"type": "image_url", "image_url": {"url": example_data_url}})
        return [*messages, {"role": "user", "content": content}]

    return get_message


def first_request(env: BimanualEnv) -> dict[str, Any]:
    """The body of the agent's first request for `env` (one step, an empty plan)."""
    reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": EMPTY}}]}
    with serve(lambda body, n: (200, reply)) as (server, url):
        BimanualOpenAIAgent(OpenAIConfig(base_url=url, model="fake-vlm")).run(env)
        return server.requests[0]


def test_the_shipped_pictures_are_the_harness_files():
    tasks = json.loads(PROTOCOL_FILE.read_text(encoding="utf-8"))["tasks"]
    shipped = {}
    for task, entry in tasks.items():
        if entry["example_image"] is None:
            assert entry["example_image_sha256"] is None and entry["example_image_ref"] is None
            continue
        assert entry["example_image"] == f"script/example_img/{task}.png"
        data = resolve_asset(entry["example_image_ref"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["example_image_sha256"], task
        assert task_protocol(task).example_image_sha256 == entry["example_image_sha256"]
        shipped[task] = entry["example_image_ref"]
    assert len(shipped) == 14
    assert {p.name for p in EXAMPLE_DIR.glob("*.png")} == {f"{t}.png" for t in shipped}
    licence = (EXAMPLE_DIR / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Copyright (c) 2026 bimanibench" in licence


def test_the_planning_request_is_laid_out_as_the_harness_s(harness_get_message, tmp_path):
    harness = task_protocol(TASK)
    with BimanualEnv(
        TASK, 0, image_size=SIZE, **{**bimanual_protocol(TASK), "max_steps": 1}
    ) as env:
        body = first_request(env)
        header = env.header(agent="openai")["bimanual"]
        shots = env.images[0]  # what the first request showed
    ours = body["messages"][1]["content"]
    text = next(p["text"] for p in ours if p["type"] == "text")
    assert "The image after this text is this task's example" in text
    for name, png in shots.items():
        (tmp_path / f"{name}.png").write_bytes(png)
    expected = harness_get_message(
        str(tmp_path / "head.png"),
        assitantImage=[str(tmp_path / "third.png")],
        prompt=text,
        example_image_path=str(resolve_asset(harness.example_image)),
    )
    assert [p["type"] for p in ours] == ["image_url", "image_url", "text", "image_url"]
    assert ours == expected[-1]["content"]  # same parts, same order, same bytes
    sent = base64.b64decode(ours[-1]["image_url"]["url"].split(",", 1)[1])
    assert ours[-1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert hashlib.sha256(sent).hexdigest() == harness.example_image_sha256
    # recorded, and grouped on with the example: apart from runs without the picture
    assert header["example_image"] == harness.example_image_sha256
    assert header["example"] == "harness+picture"
    run = bimanual_run(header)
    assert ("example", "harness+picture") in run and "harness example + picture" in run_label(run)


def test_no_example_and_the_row16_tier_send_no_picture():
    assert bimanual_protocol(TASK, example=False)["example_image"] is None
    assert bimanual_protocol(TASK, tier="row16")["example_image"] is None
    # the fine tier never shows it, even when given one
    with BimanualEnv(
        TASK,
        0,
        tier="row16",
        image_size=SIZE,
        max_steps=1,
        example_image=task_protocol(TASK).example_image,
    ) as env:
        body = first_request(env)
        header = env.header(agent="openai")["bimanual"]
    assert [p["type"] for p in body["messages"][1]["content"]] == ["image_url", "text"]
    assert header["example_image"] is None and header["example"] is None
