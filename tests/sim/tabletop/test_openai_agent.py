"""The OpenAI-compatible agent against a scripted local server: the loop, requests, retries."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from model_server import serve

from sim.llm import ModelError, OpenAIConfig, RetryPolicy
from sim.tabletop import prompts
from sim.tabletop.openai_agent import OpenAIAgent, tool_call_from_text
from sim.tabletop.toolenv import ToolEnv
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

CAM = TOP_DOWN.with_size(256, 256)
KEY = "sk-test-123"


def completion(content: str | None = None, calls: list[tuple[str, str]] = ()) -> dict[str, Any]:
    """A chat-completion body; `calls` are (tool name, arguments string)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(calls)
        ]
    return {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": message}]}


def last_tool_result(body: dict[str, Any]) -> dict[str, Any]:
    tool = [m for m in body["messages"] if m["role"] == "tool"][-1]
    return json.loads(tool["content"])


def images_of(message: dict[str, Any]) -> list[str]:
    content = message["content"] if isinstance(message["content"], list) else []
    return [p["image_url"]["url"] for p in content if p["type"] == "image_url"]


def text_of(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p["type"] == "text")


# -- a small scene ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def world() -> Iterator[TabletopWorld]:
    x, y = WORKSPACE_CENTRE
    with TabletopWorld(with_robot=False) as w:
        for i, dx in enumerate((-0.08, 0.08)):
            w.add_primitive(
                f"box{i}",
                "box",
                (0.03, 0.03, 0.03),
                (x + dx, y, TABLE_TOP_Z + 0.03),
                rgba=(0.9, 0.1, 0.1, 1),
                mass=0.2,
                name="red box",
            )
        w.step(30)
        yield w


def question(task: str = "count") -> SimpleNamespace:
    return SimpleNamespace(
        task=task, text="How many red boxes are on the table?", options=None, answer=2, criteria={}
    )


FAST = RetryPolicy(retries=2, base=0.01, jitter=0)  # 3 tries, waits of 0.01 and 0.02 s


def agent(url: str, variant: str = "plain", max_turns: int = 10) -> OpenAIAgent:
    return OpenAIAgent(OpenAIConfig(url, "fake-model", KEY), variant, max_turns, retry=FAST)


# -- the loop ----------------------------------------------------------------------------------
def test_perceive_find_answer_episode(world):
    def script(body, n):
        if n == 1:
            return 200, completion("Let me look.", [("perceive_scene", "{}")])
        if n == 2:
            point = last_tool_result(body)["objects"][0]["point"]
            return 200, completion(None, [("find_object", json.dumps({"point": point}))])
        assert last_tool_result(body)["mask_id"] == "mask_1"
        return 200, completion("Two boxes.", [("answer_question", '{"answer": "2"}')])

    env = ToolEnv(world, question(), "perception", camera=CAM)
    with serve(script) as (fake, url):
        agent(url).run(env)
    assert env.done and env.correct is True and env.outcome == "answered"
    kinds = [(s["kind"], s["name"]) for s in env.steps]
    assert kinds == [
        ("observation", "observe"),
        ("tool", "perceive_scene"),
        ("tool", "find_object"),
        ("answer", "answer_question"),
    ]
    assert all(s["ok"] for s in env.steps)
    assert env.steps[1]["model_text"]["content"] == "Let me look."
    assert json.loads(env.steps[3]["raw_output"])["tool_calls"][0]["function"]["name"] == (
        "answer_question"
    )
    # every request after a tool result ends with a fresh image in a user message
    for body in fake.requests[1:]:
        assert body["messages"][-1]["role"] == "user" and images_of(body["messages"][-1])
        assert body["messages"][-2]["role"] == "tool"


def test_broken_arguments_are_a_format_error_and_the_episode_goes_on(world):
    def script(body, n):
        if n == 1:
            return 200, completion(None, [("find_object", '{"point": [12, 40}')])
        if n == 2:
            assert "Format error" in last_tool_result(body)["feedback"]
            return 200, completion("I think there are three.")
        assert "did not contain a usable tool call" in text_of(body["messages"][-1])
        return 200, completion('Answer: {"tool": "answer_question", "arguments": {"answer": "3"}}')

    env = ToolEnv(world, question(), "perception", camera=CAM)
    with serve(script) as (fake, url):
        agent(url).run(env)
    kinds = [s["kind"] for s in env.steps]
    assert kinds == ["observation", "format_error", "format_error", "answer"]
    assert "find_object" in env.steps[1]["feedback"] and "[12, 40}" in env.steps[1]["raw_output"]
    assert env.answer["answer"] == "3" and env.correct is False
    assert len(fake.requests) == 3


def test_max_turns_stops_a_model_that_never_answers(world):
    env = ToolEnv(world, question(), "perception", camera=CAM)
    with serve(lambda body, n: (200, completion(None, [("perceive_scene", "")]))) as (fake, url):
        agent(url, max_turns=3).run(env)
    assert len(fake.requests) == 3 and not env.done and env.tool_calls == 3


def test_tool_call_written_as_text():
    assert tool_call_from_text('```json\n{"tool": "push", "arguments": {"mask_id": "m"}}\n```') == (
        "push",
        {"mask_id": "m"},
    )
    assert tool_call_from_text('{"name": "perceive_scene", "arguments": "{}"}') == (
        "perceive_scene",
        {},
    )
    assert tool_call_from_text("The answer is 2.") is None
    assert tool_call_from_text('{"tool": "fly", "arguments": {}}') is None


# -- what the requests carry ---------------------------------------------------------------------
def test_direct_mode_request_has_only_answer_tool_bearer_and_data_url_image(world):
    env = ToolEnv(world, question(), "direct", camera=CAM)
    answer = completion(None, [("answer_question", '{"answer": "2"}')])
    with serve(lambda body, n: (200, answer)) as (fake, url):
        agent(url).run(env)
    body, headers = fake.requests[0], fake.headers[0]
    assert [t["function"]["name"] for t in body["tools"]] == ["answer_question"]
    assert body["tools"][0]["type"] == "function" and body["tool_choice"] == "auto"
    assert body["model"] == "fake-model" and body["temperature"] == 0
    assert headers["Authorization"] == f"Bearer {KEY}"
    system, user = body["messages"]
    assert system["role"] == "system" and "grasp" not in system["content"]
    assert "How many red boxes" in text_of(user)
    (url_,) = images_of(user)
    assert url_.startswith("data:image/png;base64,")
    assert env.correct is True


def _two_turns(world, variant: str, mode: str = "manipulation") -> list[dict[str, Any]]:
    def script(body, n):
        if n < 3:
            return 200, completion(None, [("perceive_scene", "{}")])
        return 200, completion(None, [("answer_question", '{"answer": "2"}')])

    env = ToolEnv(world, question(), mode, camera=CAM)
    with serve(script) as (fake, url):
        agent(url, variant).run(env)
    assert env.done
    return fake.requests[-1]["messages"]


def test_multiview_sends_two_images_every_turn(world):
    users = [m for m in _two_turns(world, "multiview") if m["role"] == "user"]
    assert len(users) == 3
    for m in users:
        top, oblique = images_of(m)
        assert top != oblique and oblique.startswith("data:image/png;base64,")
    plain_users = [m for m in _two_turns(world, "plain") if m["role"] == "user"]
    assert all(len(images_of(m)) == 1 for m in plain_users)


def test_search_guidance_once_or_every_turn(world):
    guidance = prompts.search_guidance("count", "manipulation")
    assert "grasp" in guidance
    once = [text_of(m) for m in _two_turns(world, "search") if m["role"] == "user"]
    assert guidance in once[0] and not any(guidance in t for t in once[1:])
    every = [text_of(m) for m in _two_turns(world, "search-persistent") if m["role"] == "user"]
    assert len(every) == 3 and all(guidance in t for t in every)
    plain = [text_of(m) for m in _two_turns(world, "plain") if m["role"] == "user"]
    assert not any(guidance in t for t in plain)


def test_prompts_name_the_mode_tools_and_hide_the_answer():
    q = SimpleNamespace(
        task="beneath",
        text="What is beneath the bowl?",
        options=["apple", "pear", "None of the above"],
        answer="pear",
        criteria={"cover": "bowl_3"},
    )
    system = prompts.system_prompt("perception")
    assert "- find_object:" in system and "- grasp:" not in system and "- push:" not in system
    assert "- grasp:" in prompts.system_prompt("manipulation")
    first = prompts.first_user_text(q, "search", "manipulation")
    assert "- None of the above" in first and "bowl_3" not in first
    assert prompts.search_guidance("beneath", "manipulation") in first
    assert "oblique" in prompts.system_prompt("manipulation", variant="multiview")
    with pytest.raises(ValueError, match="prompt variant"):
        prompts.check_variant("loud")


# -- configuration -------------------------------------------------------------------------------
def test_config_from_env_then_file(tmp_path):
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"model": "file-model", "api_key": "file-key", "timeout": 5}))
    env = {"REASONSCOPE_OPENAI_MODEL": "env-model", "OPENAI_BASE_URL": "http://localhost:8000/v1/"}
    cfg = OpenAIConfig.load(path, env=env)
    assert (cfg.model, cfg.api_key, cfg.base_url, cfg.timeout) == (
        "env-model",
        "file-key",
        "http://localhost:8000/v1",
        5.0,
    )
    assert "file-key" not in repr(cfg)
    cfg = OpenAIConfig.load(env={"REASONSCOPE_OPENAI_MODEL": "m", "OPENAI_API_KEY": "k"})
    assert cfg.base_url == "https://api.openai.com/v1" and cfg.api_key == "k"
    env = {"REASONSCOPE_OPENAI_CONFIG": str(path), "REASONSCOPE_OPENAI_API_KEY": "env-key"}
    assert OpenAIConfig.load(env=env).api_key == "env-key"


def test_config_errors_name_what_is_missing(tmp_path):
    with pytest.raises(ValueError, match="no model"):
        OpenAIConfig.load(env={"OPENAI_API_KEY": "k"})
    with pytest.raises(ValueError, match="no API key"):
        OpenAIConfig.load(env={"REASONSCOPE_OPENAI_MODEL": "m"})
    # a local server needs no key
    local = {"REASONSCOPE_OPENAI_MODEL": "m", "REASONSCOPE_OPENAI_BASE_URL": "http://h:1/v1"}
    assert OpenAIConfig.load(env=local).api_key == ""
    with pytest.raises(ValueError, match="not found"):
        OpenAIConfig.load(tmp_path / "missing.json", env={})
    bad = tmp_path / "bad.json"
    bad.write_text("{model: ")
    with pytest.raises(ValueError, match="cannot read"):
        OpenAIConfig.load(bad, env={})
    with pytest.raises(ValueError, match="prompt variant"):
        OpenAIAgent(OpenAIConfig("http://h", "m"), "loud")


# -- failures ------------------------------------------------------------------------------------
def test_server_error_then_success_is_retried(world):
    def script(body, n):
        if n == 1:
            return 500, {"error": {"message": "overloaded"}}
        if n == 2:
            return 200, b"<html>bad gateway</html>"
        return 200, completion(None, [("answer_question", '{"answer": "2"}')])

    env = ToolEnv(world, question(), "direct", camera=CAM)
    with serve(script) as (fake, url):
        agent(url).run(env)
    assert len(fake.requests) == 3 and env.correct is True
    assert [s["kind"] for s in env.steps] == ["observation", "answer"]


def test_a_server_that_always_fails_raises_model_error(world):
    env = ToolEnv(world, question(), "direct", camera=CAM)
    with serve(lambda body, n: (503, {"error": {"message": "down"}})) as (fake, url):
        a = agent(url)
        with pytest.raises(ModelError, match="after 3 attempt.*HTTP 503.*down"):
            a.run(env)
    assert len(fake.requests) == 3
    assert [s["kind"] for s in env.steps] == ["observation"]  # no format error recorded


def test_unauthorised_is_not_retried_and_unreachable_fails(world):
    env = ToolEnv(world, question(), "direct", camera=CAM)
    with serve(lambda body, n: (401, {"error": {"message": "bad key"}})) as (fake, url):
        with pytest.raises(ModelError, match="HTTP 401"):
            agent(url).run(env)
    assert len(fake.requests) == 1
    with serve(lambda body, n: (200, {})) as (fake, url):
        pass  # the port is closed now
    with pytest.raises(ModelError, match="cannot reach"):
        agent(url).run(env)
