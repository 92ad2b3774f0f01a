"""MG-VQA-style tool-calling transcripts, turned into reasonscope-episode/1 records.

A transcript is what a tool-calling evaluation harness typically logs for one
question: the question and its ground truth, the model and mode, and the chat
as OpenAI-style messages (docs/mgvqa-transcripts.md). `transcript_records`
converts parsed JSON (one transcript object or a list of them) into records
that `annotation.formats.episode.validate_episode` accepts.

Two kinds of problem are kept apart. A model's tool-call arguments that cannot
be read are data: that call becomes a format-error step that keeps the raw
text. A transcript whose structure is wrong (a missing key, a tool reply for a
call that never happened) raises `TranscriptError` naming the key.
"""

from __future__ import annotations

import json
from typing import Any

from annotation.formats import json_text
from annotation.formats.episode import FORMAT, EpisodeFormatError, validate_episode
from annotation.formats.json_text import brief
from annotation.model_output import parse_model_output

MODES = ("direct", "perception", "manipulation")
ROLES = ("system", "user", "assistant", "tool")
ANSWER_TOOL = "answer_question"
DEFAULT_BENCHMARK = "mgvqa"
DEFAULT_AGENT = "transcript"


class TranscriptError(ValueError):
    """A transcript whose structure is wrong; the message names the key."""


def _text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a part list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return json.dumps(content)


def _require(obj: dict[str, Any], key: str, kinds: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise TranscriptError(f"missing key '{where}{key}'")
    value = obj[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _tuple(kinds)):
        raise TranscriptError(f"key '{where}{key}' has the wrong type ({type(value).__name__})")
    return value


def _tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _tool_reply(content: Any) -> tuple[Any, bool, str]:
    """(result, ok, feedback) from what a tool sent back to the model."""
    if isinstance(content, (dict, list)) and not (
        isinstance(content, list) and all(isinstance(p, dict) and "type" in p for p in content)
    ):
        parsed: Any = content
        text = json.dumps(content)
    else:
        text = _text(content)
        try:
            parsed = json_text.loads(text)
        except ValueError:
            parsed = None
    result = parsed if isinstance(parsed, dict) else {"text": text}
    if isinstance(result.get("success"), bool):
        ok = result["success"]
    elif isinstance(result.get("ok"), bool):
        ok = result["ok"]
    elif "error" in result:
        ok = False
    else:
        lowered = text.lstrip().lower()
        ok = not lowered.startswith(("error", "action failed", "format error"))
    feedback = result.get("feedback") if isinstance(result.get("feedback"), str) else text
    return result, ok, feedback


def _call_step(call: Any, where: str, model_text: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(tool_call id, step) for one entry of an assistant message's tool_calls."""
    if not isinstance(call, dict):
        raise TranscriptError(f"key '{where}' is not an object")
    call_id = _require(call, "id", str, where + ".")
    function = _require(call, "function", dict, where + ".")
    name = _require(function, "name", str, where + ".function.")
    raw = function.get("arguments", "")
    if isinstance(raw, dict):
        arguments, raw_text, why = raw, json.dumps(raw), None
    elif isinstance(raw, str):
        raw_text = raw
        if not raw.strip():
            arguments, why = {}, None  # a tool without parameters
        else:
            parsed, why = parse_model_output(raw)
            arguments = parsed if isinstance(parsed, dict) else None
            if parsed is not None and arguments is None:
                why = "arguments are not a JSON object"
    else:
        raise TranscriptError(f"key '{where}.function.arguments' must be a string or an object")
    step: dict[str, Any] = {
        "kind": "tool",
        "name": name,
        "arguments": arguments,
        "result": None,
        "ok": None,
        "feedback": "",
        "model_text": model_text,
        "raw_output": raw_text,
        "state": None,
    }
    if arguments is None:
        step.update(kind="format_error", arguments={}, ok=False, feedback=f"Format error: {why}")
    elif name == ANSWER_TOOL:
        step["kind"] = "answer"
    return call_id, step


def _reply_step(content: str, model_text: dict[str, Any]) -> dict[str, Any]:
    """An assistant reply without tool calls: a tool call written as text, or a format error."""
    parsed, why = parse_model_output(content)
    name = ""
    if isinstance(parsed, dict):
        name = str(parsed.get("tool") or parsed.get("name") or parsed.get("action") or "")
    step = {
        "kind": "tool",
        "name": name,
        "arguments": {},
        "result": None,
        "ok": None,
        "feedback": "",
        "model_text": model_text,
        "raw_output": content,
        "state": None,
    }
    if not name:
        why = why or "no tool call in the reply"
        return {**step, "kind": "format_error", "ok": False, "feedback": f"Format error: {why}"}
    args = parsed.get("arguments", parsed.get("args", parsed.get("parameters", {})))
    step["arguments"] = args if isinstance(args, dict) else {"value": args}
    step["kind"] = "answer" if name == ANSWER_TOOL else "tool"
    return step


def _steps(messages: list[Any]) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    by_call: dict[str, dict[str, Any]] = {}
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            raise TranscriptError(f"key '{where}' is not an object")
        role = _require(message, "role", str, where + ".")
        if role not in ROLES:
            raise TranscriptError(f"key '{where}.role' is {brief(role)}, not one of {ROLES}")
        if role == "assistant":
            model_text = {"content": _text(message.get("content"))}
            for key in ("reasoning", "reasoning_content"):
                if isinstance(message.get(key), str):
                    model_text["reasoning"] = message[key]
            model_text = {k: v for k, v in model_text.items() if v}
            calls = message.get("tool_calls") or []
            if not isinstance(calls, list):
                raise TranscriptError(f"key '{where}.tool_calls' must be a list")
            if not calls:
                steps.append(_reply_step(model_text.get("content", ""), model_text))
            for j, call in enumerate(calls):
                call_id, step = _call_step(call, f"{where}.tool_calls[{j}]", model_text)
                if call_id in by_call:
                    raise TranscriptError(
                        f"key '{where}.tool_calls[{j}].id' repeats {brief(call_id)}"
                    )
                by_call[call_id] = step
                steps.append(step)
                model_text = {}  # the reply's text belongs to its first call
        elif role == "tool":
            call_id = _require(message, "tool_call_id", str, where + ".")
            step = by_call.get(call_id)
            if step is None:
                raise TranscriptError(
                    f"key '{where}.tool_call_id' {brief(call_id)} answers no earlier tool call"
                )
            result, ok, feedback = _tool_reply(message.get("content"))
            step["result"] = result
            if step["kind"] != "format_error":  # a format error's feedback keeps the reason
                step.update(ok=ok, feedback=feedback)
                if step["kind"] == "answer" and not ok:
                    step["kind"] = "tool"  # a refused answer, as the simulator records it
    return steps


def transcript_record(data: Any) -> dict[str, Any]:
    """One transcript object as a validated reasonscope-episode/1 record."""
    if not isinstance(data, dict):
        raise TranscriptError("a transcript must be a JSON object")
    question_id = _require(data, "question_id", (str, int), "")
    task = _require(data, "task", str, "")
    model = _require(data, "model", str, "")
    mode = _require(data, "mode", str, "")
    if mode not in MODES:
        raise TranscriptError(f"key 'mode' is {brief(mode)}, not one of {MODES}")
    messages = _require(data, "messages", list, "")
    success = data.get("success")
    if success is not None and not isinstance(success, bool):
        raise TranscriptError("key 'success' must be true, false or null")
    options = data.get("options")
    if options is not None and not isinstance(options, list):
        raise TranscriptError("key 'options' must be a list or null")
    variant = str(data.get("prompt_variant") or "")
    steps = _steps(messages)
    answers = [s for s in steps if s["kind"] == "answer"]
    final = data.get("final_answer")
    if not answers and final is not None:
        answers.append(
            {
                "kind": "answer",
                "name": ANSWER_TOOL,
                "arguments": {"answer": final},
                "result": None,
                "ok": True,
                "feedback": "",
                "model_text": {},
                "raw_output": "",
                "state": None,
            }
        )
        steps.append(answers[-1])
    if answers and isinstance(success, bool):
        last = answers[-1]
        result = dict(last["result"]) if isinstance(last["result"], dict) else {}
        result["replay"] = {**result.get("replay", {}), "correct": success}
        last["result"] = result
    uid = data.get("episode_id") or f"mgvqa:{model}:{mode}:{variant or 'plain'}:{question_id}"
    record = {
        "format": FORMAT,
        "id": str(uid),
        "benchmark": str(data.get("benchmark") or DEFAULT_BENCHMARK),
        "model": model,
        "agent": str(data.get("agent") or DEFAULT_AGENT),
        "mode": mode,
        "task": task,
        "prompt_variant": variant,
        "question": {
            "uid": str(question_id),
            "text": str(data.get("question") or ""),
            "options": options,
            "answer": data.get("gt_answer"),
            "criteria": data.get("criteria") or {},
        },
        "scene": data.get("scene"),
        "outcome": "answered" if answers else "no answer",
        "success": success,
        "score": None if success is None else float(success),
        "steps": [{"index": i, **s} for i, s in enumerate(steps)],
    }
    try:
        return validate_episode(record)
    except EpisodeFormatError as exc:  # a value the episode format refuses
        raise TranscriptError(str(exc)) from None


def transcript_records(data: Any) -> list[dict[str, Any]]:
    """Records for one parsed transcript file: an object, or a list of objects.

    An error inside a list names the entry: ``[2]: missing key 'model'``.
    """
    if isinstance(data, list):
        out = []
        for i, item in enumerate(data):
            try:
                out.append(transcript_record(item))
            except TranscriptError as exc:
                raise TranscriptError(f"[{i}]: {exc}") from None
        return out
    return [transcript_record(data)]
