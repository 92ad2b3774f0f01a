"""The reasonscope-benchmark/1 interchange format: one question a line, scene included.

Pure conversions between records and plain dicts, with validation that names
the line and the field. No files, no database here.
"""

from __future__ import annotations

from typing import Any

from annotation.jrdb.reasoning_eval import parse_boxes

FORMAT = "reasonscope-benchmark/1"
STATUSES = ("pending", "approved", "corrected", "excluded")
_REQUIRED = {
    "format": str,
    "id": str,
    "version": int,
    "benchmark": str,
    "task": str,
    "question": str,
    "evidence_ids": list,
    "steps": list,
    "difficulty": dict,
    "criteria": dict,
    "verification": dict,
    "scene": (dict, type(None)),
}
_BODY_REQUIRED = ("id", "asset", "position", "orientation")


class FormatError(ValueError):
    """A record that does not follow the format; the message names the field."""


def question_record(
    question,
    scene: dict[str, Any] | None,
    verification: dict[str, Any],
    sequence: str | None = None,
) -> dict[str, Any]:
    """One exported line for a `Question` (annotation.models) and its self-contained scene.

    A JRDB question has no scene; `sequence` names the JRDB sequence it is about.
    """
    record = {
        "format": FORMAT,
        "id": question.uid,
        "version": question.version,
        "benchmark": question.benchmark,
        "task": question.task,
        "question": question.text,
        "options": question.options,
        "answer": question.answer,
        "evidence_ids": list(question.evidence_ids),
        "steps": list(question.steps),
        "difficulty": question.difficulty.as_dict() if question.difficulty else {},
        "criteria": question.criteria,
        "seed": question.seed,
        "verification": verification,
        "scene": scene,
    }
    if sequence is not None:
        record["sequence"] = sequence
    return record


def validate(record: Any) -> dict[str, Any]:
    """Check one parsed line; return it, or raise FormatError naming what is wrong."""
    if not isinstance(record, dict):
        raise FormatError("a line must be a JSON object")
    for key, kind in _REQUIRED.items():
        if key not in record:
            raise FormatError(f"missing field {key!r}")
        if not isinstance(record[key], kind):
            raise FormatError(f"field {key!r} has the wrong type ({type(record[key]).__name__})")
    if record["format"] != FORMAT:
        raise FormatError(f"format {record['format']!r} is not {FORMAT!r}")
    if "answer" not in record:
        raise FormatError("missing field 'answer'")
    _check_boxes("answer", record["answer"])
    for i, step in enumerate(record["steps"]):
        _check_boxes(f"steps[{i}]", step)
    status = record["verification"].get("status", "pending")
    if status not in STATUSES:
        raise FormatError(f"verification.status {status!r} is not one of {STATUSES}")
    d = record["difficulty"]
    if d and not all(isinstance(d.get(k), int) for k in ("S", "R", "T")):
        raise FormatError("difficulty needs integer S, R and T")
    scene = record["scene"]
    if scene is not None:
        if not isinstance(scene.get("camera"), dict) or not isinstance(scene.get("bodies"), list):
            raise FormatError("scene needs a camera object and a bodies list")
        for i, body in enumerate(scene["bodies"]):
            missing = [k for k in _BODY_REQUIRED if k not in body]
            if missing:
                raise FormatError(f"scene.bodies[{i}] lacks {missing[0]!r}")
        ids = {b["id"] for b in scene["bodies"]}
        unknown = [e for e in record["evidence_ids"] if e not in ids]
        if unknown:
            raise FormatError(f"evidence id {unknown[0]!r} is not a body of the scene")
    return record


def _check_boxes(where: str, value: Any) -> None:
    """A `boxes` field (an answer's or a step's) must hold [x, y, w, h] boxes: a list of
    them, or {entity id: box}; a string or a malformed box is refused, not stored."""
    if not isinstance(value, dict) or "boxes" not in value:
        return
    boxes = value["boxes"]
    if not isinstance(boxes, list | dict):
        raise FormatError(
            f"{where}.boxes must be a list of [x, y, w, h] boxes, not {type(boxes).__name__}"
        )
    if any(isinstance(b, str) for b in (boxes.values() if isinstance(boxes, dict) else boxes)):
        raise FormatError(f"{where}.boxes holds a string where a box [x, y, w, h] belongs")
    try:
        parse_boxes({"boxes": boxes})
    except ValueError as exc:
        raise FormatError(f"{where}.boxes: {exc}") from None
