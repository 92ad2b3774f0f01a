"""The reasonscope-benchmark/1 interchange format: one question a line, scene included.

Pure conversions between records and plain dicts, with validation that names
the line and the field. No files, no database here.
"""

from __future__ import annotations

from typing import Any

from annotation.formats.json_text import brief
from annotation.formats.scene_record import SceneError, check_scene
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
MAX_INT = 2**63 - 1  # SQLite's integers end here
MAX_LEVEL = 10_000  # a difficulty level, a step's slot or pattern node


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
        if not isinstance(record[key], kind) or isinstance(record[key], bool):
            raise FormatError(f"field {key!r} has the wrong type ({type(record[key]).__name__})")
    if record["format"] != FORMAT:
        raise FormatError(f"format {brief(record['format'])} is not {FORMAT!r}")
    if "answer" not in record:
        raise FormatError("missing field 'answer'")
    _check_fields(record)
    _check_answer(record)
    if record["benchmark"] == "jrdb":
        _check_jrdb_criteria(record["criteria"])
    _check_boxes("answer", record["answer"])
    for i, step in enumerate(record["steps"]):
        _check_step(step, i)
    status = record["verification"].get("status", "pending")
    if status not in STATUSES:
        raise FormatError(f"verification.status {brief(status)} is not one of {STATUSES}")
    d = record["difficulty"]
    if d and not all(_whole(d.get(k), 0, MAX_LEVEL) for k in ("S", "R", "T")):
        raise FormatError(f"difficulty needs whole S, R and T from 0 to {MAX_LEVEL}")
    scene = record["scene"]
    if scene is not None:
        try:
            check_scene(scene)
        except SceneError as exc:
            raise FormatError(str(exc)) from None
        ids = {b["id"] for b in scene["bodies"]}
        unknown = [e for e in record["evidence_ids"] if e not in ids]
        if unknown:
            raise FormatError(f"evidence id {brief(unknown[0])} is not a body of the scene")
    return record


def _whole(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _check_fields(record: dict[str, Any]) -> None:
    """The id, version, seed, options and evidence ids as the store and the panels take them."""
    for key in ("id", "benchmark", "task"):
        if not record[key].strip():
            raise FormatError(f"field {key!r} is empty")
    if not _whole(record["version"], 1, MAX_INT):
        raise FormatError(f"version must be a whole number from 1, not {brief(record['version'])}")
    seed = record.get("seed")
    if seed is not None and not _whole(seed, -MAX_INT, MAX_INT):
        raise FormatError(f"seed must be a whole number or null, not {brief(seed)}")
    options = record.get("options")
    if options is not None and (
        not isinstance(options, list) or not all(isinstance(o, str | int | float) for o in options)
    ):
        raise FormatError(f"options must be a list of options or null, not {brief(options)}")
    if not all(isinstance(e, str) for e in record["evidence_ids"]):
        raise FormatError(
            f"evidence_ids must be body or entity ids, not {brief(record['evidence_ids'])}"
        )


def _check_answer(record: dict[str, Any]) -> None:
    """The answers the tasks' scorers and panels read: a count is a whole number, a VG
    answer names its entities and image, a Find answer's point is two numbers."""
    task, answer = record["task"], record["answer"]
    if task in ("count", "vqa-count") and not _whole(answer, 0, MAX_INT):
        raise FormatError(f"a {task} answer must be a whole number >= 0, not {brief(answer)}")
    if task == "vg" and record["benchmark"] == "jrdb":
        if not isinstance(answer, dict) or not isinstance(answer.get("entity_ids"), list):
            raise FormatError(f"a vg answer must be an object with entity_ids, not {brief(answer)}")
        if not all(isinstance(e, str) for e in answer["entity_ids"]):
            raise FormatError(f"answer.entity_ids must be entity ids, not {brief(answer)}")
        if answer.get("image_id") is not None and not isinstance(answer["image_id"], str):
            raise FormatError(f"answer.image_id must be an image's name, not {brief(answer)}")
        if answer.get("track") is not None:
            _check_track(answer["track"], len(answer["entity_ids"]))
    if isinstance(answer, dict) and answer.get("point") is not None:
        point = answer["point"]
        if (
            not isinstance(point, list)
            or len(point) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in point)
        ):
            raise FormatError(f"answer.point must be [u, v] pixels or null, not {brief(point)}")


def _check_track(track: Any, targets: int) -> None:
    """A video VG answer's track: per frame its image, and a box (or null) per target."""
    if not isinstance(track, list):
        raise FormatError(f"answer.track must be a list of frames, not {brief(track)}")
    for i, frame in enumerate(track):
        where = f"answer.track[{i}]"
        if not isinstance(frame, dict) or not isinstance(frame.get("image_id"), str):
            raise FormatError(f"{where} needs the frame's image_id, not {brief(frame)}")
        boxes = frame.get("boxes")
        if not isinstance(boxes, list) or len(boxes) != targets:
            raise FormatError(f"{where}.boxes must hold one box (or null) per target ({targets})")
        try:
            parse_boxes({"boxes": [b for b in boxes if b is not None]})
        except ValueError as exc:
            raise FormatError(f"{where}.boxes: {exc}") from None


def _ids(value: Any, kind: type | tuple[type, ...], where: str, *, high: int = MAX_INT) -> None:
    """`value`, when given, is a list of `kind` (whole numbers from 0 to `high`)."""
    if value is None:
        return
    if not isinstance(value, list) or not all(
        isinstance(v, kind)
        and not isinstance(v, bool)
        and (not isinstance(v, int) or 0 <= v <= high)
        for v in value
    ):
        raise FormatError(f"{where} must be a list of {_KIND_WORDS[kind]}, not {brief(value)}")


_KIND_WORDS = {int: "whole numbers >= 0", str: "names"}


def _check_jrdb_criteria(criteria: dict[str, Any]) -> None:
    """What the JRDB-Reasoning export and Verify's evidence read of a JRDB question's
    criteria: its frames and images, slots, preferences and the query pattern."""
    _ids(criteria.get("frame_ids"), int, "criteria.frame_ids")
    _ids(criteria.get("image_ids"), str, "criteria.image_ids")
    _ids(criteria.get("question_slots"), int, "criteria.question_slots", high=MAX_LEVEL)
    slot = criteria.get("answer_slot")
    if slot is not None and not _whole(slot, 0, MAX_LEVEL):
        raise FormatError(f"criteria.answer_slot must be a whole number >= 0, not {brief(slot)}")
    for key in ("asked", "generator"):
        if criteria.get(key) is not None and not isinstance(criteria[key], str):
            raise FormatError(f"criteria.{key} must be text, not {brief(criteria[key])}")
    prefs = criteria.get("preferences")
    if prefs is not None and not isinstance(prefs, dict):
        raise FormatError(f"criteria.preferences must be an object, not {brief(prefs)}")
    pattern = criteria.get("pattern")
    if pattern is not None:
        _check_pattern(pattern)


def _check_pattern(pattern: Any) -> None:
    """A bound query pattern (`annotation.query.model.Binding.pattern`)."""
    if not isinstance(pattern, dict):
        raise FormatError(f"criteria.pattern must be an object, not {brief(pattern)}")
    nodes, edges = pattern.get("nodes") or [], pattern.get("edges") or []
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise FormatError("criteria.pattern needs lists of nodes and edges")
    for i, node in enumerate(nodes):
        where = f"criteria.pattern.nodes[{i}]"
        if not isinstance(node, dict) or not isinstance(node.get("kind", ""), str):
            raise FormatError(f"{where} must be an object with a kind, not {brief(node)}")
        filters = node.get("filters") or []
        if not isinstance(filters, list) or not all(
            isinstance(f, list) and len(f) == 3 and isinstance(f[0], str) for f in filters
        ):
            raise FormatError(f"{where}.filters must be [attribute, value, slot] lists")
    for k, edge in enumerate(edges):
        where = f"criteria.pattern.edges[{k}]"
        if not isinstance(edge, dict):
            raise FormatError(f"{where} must be an object, not {brief(edge)}")
        if not all(_whole(edge.get(key), 0, len(nodes) - 1) for key in ("parent", "child")):
            raise FormatError(f"{where}: parent and child must be nodes of the pattern")
        if not isinstance(edge.get("family"), str) or not _whole(edge.get("slot"), 0, MAX_LEVEL):
            raise FormatError(f"{where} needs a family (text) and a slot (a whole number)")
        if not isinstance(edge.get("parent_is_subject", True), bool):
            raise FormatError(f"{where}.parent_is_subject must be true or false")


def _check_step(step: Any, i: int) -> None:
    """A reasoning step: an object whose entity ids are ids and whose slot and node, when
    given, are whole numbers."""
    if not isinstance(step, dict):
        raise FormatError(f"steps[{i}] must be an object, not {brief(step)}")
    ids = step.get("entity_ids", [])
    if not isinstance(ids, list) or not all(isinstance(e, str) for e in ids):
        raise FormatError(f"steps[{i}].entity_ids must be a list of ids, not {brief(ids)}")
    for key in ("description", "question", "key"):
        if step.get(key) is not None and not isinstance(step[key], str):
            raise FormatError(f"steps[{i}].{key} must be text, not {brief(step[key])}")
    for key in ("slot", "node"):
        if key in step and not _whole(step[key], 0, MAX_LEVEL):
            raise FormatError(
                f"steps[{i}].{key} must be a whole number >= 0, not {brief(step[key])}"
            )
    _check_boxes(f"steps[{i}]", step)


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
