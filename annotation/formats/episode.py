"""The reasonscope-episode/1 interchange format: one episode a line, its steps inside.

Validation names the field; model replies that cannot be read are kept as
format-error steps (see `normalise_step`), never raised.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any

from annotation.formats.json_text import brief
from annotation.model_output import parse_model_output
from annotation.models import STEP_KINDS

FORMAT = "reasonscope-episode/1"
MODES = ("direct", "perception", "manipulation", "")
# header keys that have a field of their own in a line (the uid is the line's "id")
LINE_FIELDS = (
    "benchmark",
    "model",
    "agent",
    "mode",
    "task",
    "outcome",
    "success",
    "score",
    "prompt_variant",
    "question",
    "scene",
    "camera",
    "answer",
)
# those, and ids local to one project (question_id, scene_id), stay out of "extra"
HEADER_FIELDS = ("uid", *LINE_FIELDS, "question_id", "scene_id")


class EpisodeFormatError(ValueError):
    """An episode line that does not follow the format; the message names the field."""


def step_images(header: dict[str, Any], steps) -> list[str]:
    """Every image sha256 an episode refers to: each step's image, the views a step lists
    in `result.images`, and the header's `final_image_sha256`; in first-seen order."""
    found: dict[str, None] = {}

    def add(value: Any) -> None:
        if isinstance(value, str) and value:
            found.setdefault(value, None)

    for s in steps:
        add(s.image_sha256)
        views = s.result.get("images") if isinstance(s.result, dict) else None
        if isinstance(views, dict):
            for value in views.values():
                add(value)
    add(header.get("final_image_sha256"))
    return list(found)


def encode_image(mime: str, data: bytes) -> dict[str, str]:
    return {"mime": mime, "base64": base64.b64encode(data).decode("ascii")}


def decode_images(images: Any) -> dict[str, tuple[str, bytes]]:
    """A line's `images` ({sha256: {mime, base64}}) decoded and checked against their hashes."""
    if images is None:
        return {}
    if not isinstance(images, dict):
        raise EpisodeFormatError("images must be an object of sha256 -> {mime, base64}")
    out: dict[str, tuple[str, bytes]] = {}
    for sha, entry in images.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("base64"), str):
            raise EpisodeFormatError(f"images[{sha[:12]}] needs a base64 string")
        try:
            data = base64.b64decode(entry["base64"], validate=True)
        except (binascii.Error, ValueError):
            raise EpisodeFormatError(f"images[{sha[:12]}] is not valid base64") from None
        if hashlib.sha256(data).hexdigest() != sha:
            raise EpisodeFormatError(f"images[{sha[:12]}]: the data does not match its sha256")
        out[sha] = (str(entry.get("mime") or "application/octet-stream"), data)
    return out


# What the model endpoint reported for the request behind a step: optional keys, written
# only when known; each must be a number >= 0 (the token counts whole) or null.
USAGE_FIELDS = ("latency_s", "tokens_in", "tokens_out")
MAX_WHOLE = 2**63  # SQLite's integers end here
# header fields that are text when given, and those that are JSON objects
TEXT_FIELDS = ("model", "agent", "task", "outcome", "prompt_variant")
OBJECT_FIELDS = ("question", "scene", "camera")
MAX_IMAGE_SIDE = 16_384  # pixels: a recorded camera or image size past this is not one


def _usage(step) -> dict[str, Any]:
    """A `Step`'s latency and token counts that are known, for its exported line."""
    values = {key: getattr(step, key, None) for key in USAGE_FIELDS}
    return {key: value for key, value in values.items() if value is not None}


def check_usage(step: dict[str, Any], index: int) -> dict[str, Any]:
    """A step's latency_s, tokens_in and tokens_out checked; the error names the step."""
    out = {}
    for key in USAGE_FIELDS:
        value = step.get(key)
        whole = key != "latency_s"
        kinds = int if whole else (int, float)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, kinds) or not 0 <= value < MAX_WHOLE
        ):
            what = "a whole number >= 0" if whole else "a number of seconds >= 0"
            raise EpisodeFormatError(
                f"steps[{index}].{key} must be {what} or null, not {brief(value)}"
            )
        out[key] = value
    return out


def episode_record(
    episode, steps, images: dict[str, tuple[str, bytes]] | None = None
) -> dict[str, Any]:
    """One exported line for an `Episode` and its `Step`s (annotation.models).

    Header keys without a field of their own (a bimanual episode's `tier` and
    `bimanual` block, an import's round and episode numbers, ...) go in `extra`;
    `images` (sha256 -> (mime, bytes)) are embedded so the line stands alone.
    """
    header = dict(episode.header)
    extra = {k: v for k, v in header.items() if k not in HEADER_FIELDS}
    record = {
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
                "image_sha256": s.image_sha256,
                **_usage(s),
            }
            for s in steps
        ],
    }
    if extra:
        record["extra"] = extra
    if images:
        record["images"] = {sha: encode_image(*images[sha]) for sha in sorted(images)}
    return record


def normalise_step(step: Any, index: int) -> dict[str, Any]:
    """A step dict ready to store. A tool or action step whose arguments are missing
    is read from its raw model output; if that cannot be read, the step becomes a
    format-error step that keeps the raw output and says why."""
    if not isinstance(step, dict):
        raise EpisodeFormatError(f"steps[{index}] is not an object")
    kind = step.get("kind", "tool")
    if kind not in STEP_KINDS:
        raise EpisodeFormatError(f"steps[{index}].kind {brief(kind)} is not one of {STEP_KINDS}")
    _check_step_fields(step, index)
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
        "image_sha256": step.get("image_sha256") or None,
        **check_usage(step, index),
    }
    if out["image_sha256"] is not None and not isinstance(out["image_sha256"], str):
        raise EpisodeFormatError(f"steps[{index}].image_sha256 must be a string or null")
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


def _check_step_fields(step: dict[str, Any], index: int) -> None:
    """What Replay reads of a step as given: `model_text` an object of texts, the views in
    `result.images` {view: sha256}."""
    model_text = step.get("model_text")
    if model_text not in (None, "", {}) and not isinstance(model_text, dict):
        raise EpisodeFormatError(f"steps[{index}].model_text must be an object or null")
    result = step.get("result")
    views = result.get("images") if isinstance(result, dict) else None
    if views is not None and not (
        isinstance(views, dict) and all(isinstance(v, str) for v in views.values())
    ):
        raise EpisodeFormatError(
            f"steps[{index}].result.images must be an object of view -> image sha256"
        )


def _check_header(record: dict[str, Any]) -> None:
    """The header fields' kinds, as replay, metrics and the store read them."""
    for key in TEXT_FIELDS:
        if record.get(key) is not None and not isinstance(record[key], str):
            raise EpisodeFormatError(f"{key} must be text or null, not {_kind(record[key])}")
    for key in OBJECT_FIELDS:
        if record.get(key) is not None and not isinstance(record[key], dict):
            raise EpisodeFormatError(f"{key} must be an object or null, not {_kind(record[key])}")
    if record.get("success") is not None and not isinstance(record["success"], bool):
        raise EpisodeFormatError(
            f"success must be true, false or null, not {brief(record['success'])}"
        )
    score = record.get("score")
    if score is not None and (
        isinstance(score, bool) or not isinstance(score, (int, float)) or abs(score) >= MAX_WHOLE
    ):
        raise EpisodeFormatError(f"score must be a number or null, not {brief(score)}")
    _check_size(record.get("camera") or {}, "camera")
    extra = record.get("extra") or {}
    bimanual = extra.get("bimanual")
    if bimanual is not None:
        if not isinstance(bimanual, dict):
            raise EpisodeFormatError(f"extra.bimanual must be an object, not {_kind(bimanual)}")
        size = bimanual.get("image_size")
        if size is not None:
            if not isinstance(size, list) or len(size) != 2:
                raise EpisodeFormatError("extra.bimanual.image_size must be [width, height]")
            _check_size(dict(zip(("width", "height"), size, strict=True)), "extra.bimanual")
        seed = bimanual.get("seed")
        if seed is not None and (not _whole(seed) or not 0 <= seed < MAX_WHOLE):
            raise EpisodeFormatError(
                f"extra.bimanual.seed must be a whole number, not {brief(seed)}"
            )
    final = extra.get("final_image_sha256")
    if final is not None and not isinstance(final, str):
        raise EpisodeFormatError("extra.final_image_sha256 must be an image's sha256")


def _check_size(camera: dict[str, Any], where: str) -> None:
    for key in ("width", "height"):
        value = camera.get(key)
        if value is not None and (not _whole(value) or not 0 < value <= MAX_IMAGE_SIDE):
            raise EpisodeFormatError(
                f"{where}.{key} must be a whole number of pixels (1 to {MAX_IMAGE_SIDE}), "
                f"not {brief(value)}"
            )


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def validate_episode(record: Any) -> dict[str, Any]:
    """Check one parsed line and normalise its steps; raise EpisodeFormatError on bad structure."""
    if not isinstance(record, dict):
        raise EpisodeFormatError("a line must be a JSON object")
    if record.get("format") != FORMAT:
        raise EpisodeFormatError(f"format {brief(record.get('format'))} is not {FORMAT!r}")
    for key in ("id", "benchmark"):
        if not isinstance(record.get(key), str) or not record[key]:
            raise EpisodeFormatError(f"missing field {key!r}")
    if record.get("mode", "") not in MODES:
        raise EpisodeFormatError(f"mode {brief(record.get('mode'))} is not one of {MODES[:-1]}")
    steps = record.get("steps")
    if not isinstance(steps, list):
        raise EpisodeFormatError("missing field 'steps' (a list)")
    if not isinstance(record.get("extra", {}), dict):
        raise EpisodeFormatError("extra must be an object")
    _check_header(record)
    record = dict(record)
    record["steps"] = [normalise_step(s, i) for i, s in enumerate(steps)]
    record["images"] = decode_images(record.get("images"))
    return record
