"""The reasonscope-episode/1 interchange format: one episode a line, its steps inside.

Validation names the field; model replies that cannot be read are kept as
format-error steps (see `normalise_step`), never raised.
"""

from __future__ import annotations

from typing import Any

from annotation.model_output import parse_model_output
from annotation.models import STEP_KINDS

FORMAT = "reasonscope-episode/1"
MODES = ("direct", "perception", "manipulation", "")


class EpisodeFormatError(ValueError):
    """An episode line that does not follow the format; the message names the field."""


def episode_record(episode, steps) -> dict[str, Any]:
    """One exported line for an `Episode` and its `Step`s (annotation.models)."""
    header = dict(episode.header)
    return {
        "format": FORMAT,
        "id": episode.uid,
        "benchmark": episode.benchmark,
        "model": episode.model,
        "agent": episode.agent,
        "mode": episode.mode,
        "task": episode.task,
        "prompt_variant": header.get("prompt_variant", ""),
        "question": header.get("question"),
        "scene": header.get("scene"),
        "camera": header.get("camera"),
        "answer": header.get("answer"),
        "outcome": episode.outcome,
        "success": episode.success,
        "score": episode.score,
        "steps": [
            {
                "index": s.index,
                "kind": s.kind,
                "name": s.name,
                "arguments": s.arguments,
                "result": s.result,
                "ok": s.ok,
                "feedback": s.feedback,
                "model_text": s.model_text,
                "raw_output": s.raw_output,
                "state": s.state,
            }
            for s in steps
        ],
    }


def normalise_step(step: Any, index: int) -> dict[str, Any]:
    """A step dict ready to store. A tool or action step whose arguments are missing
    is read from its raw model output; if that cannot be read, the step becomes a
    format-error step that keeps the raw output and says why."""
    if not isinstance(step, dict):
        raise EpisodeFormatError(f"steps[{index}] is not an object")
    kind = step.get("kind", "tool")
    if kind not in STEP_KINDS:
        raise EpisodeFormatError(f"steps[{index}].kind {kind!r} is not one of {STEP_KINDS}")
    out = {
        "kind": kind,
        "name": str(step.get("name", "")),
        "arguments": step.get("arguments"),
        "result": step.get("result"),
        "ok": step.get("ok"),
        "feedback": str(step.get("feedback", "")),
        "model_text": step.get("model_text") or {},
        "raw_output": str(step.get("raw_output", "")),
        "state": step.get("state"),
    }
    if out["ok"] is not None and not isinstance(out["ok"], bool):
        raise EpisodeFormatError(f"steps[{index}].ok must be true, false or null")
    if out["state"] is not None and not isinstance(out["state"], dict):
        raise EpisodeFormatError(f"steps[{index}].state must be an object or null")
    if kind in ("tool", "action") and out["arguments"] is None:
        parsed, why = parse_model_output(out["raw_output"])
        if isinstance(parsed, dict):
            out["name"] = out["name"] or str(
                parsed.get("tool") or parsed.get("action") or parsed.get("name") or ""
            )
            args = parsed.get("arguments", parsed.get("args", parsed.get("parameters", {})))
            out["arguments"] = args if isinstance(args, dict) else {"value": args}
        else:
            out.update(
                kind="format_error",
                arguments={},
                ok=False,
                feedback=out["feedback"] or f"Format error: {why or 'reply is not a JSON object'}",
            )
    if not isinstance(out["arguments"], dict):
        out["arguments"] = {} if out["arguments"] is None else {"value": out["arguments"]}
    return out


def validate_episode(record: Any) -> dict[str, Any]:
    """Check one parsed line and normalise its steps; raise EpisodeFormatError on bad structure."""
    if not isinstance(record, dict):
        raise EpisodeFormatError("a line must be a JSON object")
    if record.get("format") != FORMAT:
        raise EpisodeFormatError(f"format {record.get('format')!r} is not {FORMAT!r}")
    for key in ("id", "benchmark"):
        if not isinstance(record.get(key), str) or not record[key]:
            raise EpisodeFormatError(f"missing field {key!r}")
    if record.get("mode", "") not in MODES:
        raise EpisodeFormatError(f"mode {record.get('mode')!r} is not one of {MODES[:-1]}")
    steps = record.get("steps")
    if not isinstance(steps, list):
        raise EpisodeFormatError("missing field 'steps' (a list)")
    record = dict(record)
    record["steps"] = [normalise_step(s, i) for i, s in enumerate(steps)]
    return record
