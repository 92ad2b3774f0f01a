"""A short MG-VQA episode's steps as `ToolEnv` records them (no physics: no stored states),
for the Replay widget tests: the first view, a perception call, a found object, a grasp that
failed, a reply that could not be read, and the answer."""

from __future__ import annotations

from typing import Any


def _step(kind: str, name: str, ok: bool | None, feedback: str, **more: Any) -> dict[str, Any]:
    return {
        "kind": kind,
        "name": name,
        "arguments": more.pop("arguments", {}),
        "result": more.pop("result", None),
        "ok": ok,
        "feedback": feedback,
        "model_text": more.pop("model_text", {}),
        "raw_output": more.pop("raw_output", ""),
        "state": None,
    }


STEPS: list[dict[str, Any]] = [
    _step("observation", "", None, ""),
    _step(
        "tool",
        "perceive_scene",
        True,
        "Scene perceived.",
        model_text={"reasoning": "I look first."},
        result={"objects": 3, "replay": {"body_keys": {"1": "red_box"}}},
    ),
    _step(
        "tool",
        "find_object",
        True,
        "Found mask_1.",
        arguments={"point": [120, 88]},
        result={"mask_id": "mask_1"},
    ),
    _step(
        "tool",
        "grasp",
        False,
        "Action failed: the object is wider than the gripper opens",
        arguments={"mask_id": "mask_1"},
        result={"error": "too wide"},
    ),
    _step(
        "format_error",
        "",
        False,
        "Format error: no tool call found",
        raw_output="I think the answer is <three>",
    ),
    _step("answer", "answer_question", True, "Answer recorded.", arguments={"answer": "3"}),
]
FAILED = [3, 4]  # the grasp and the unreadable reply


def add_episode(project, *, model: str = "alpha", benchmark: str = "mgvqa", steps=None) -> int:
    """Store an episode of `steps` (default `STEPS`); its id."""
    header = {
        "benchmark": benchmark,
        "model": model,
        "agent": "test",
        "mode": "manipulation",
        "task": "count",
        "outcome": "answered",
        "success": True,
    }
    return project.episodes.add(header, STEPS if steps is None else steps).id
