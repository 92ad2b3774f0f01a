"""What a JRDB-Reasoning question's evidence is, for its verifiers: plain data and pure
helpers behind `widgets.verify.jrdb_evidence.JrdbEvidenceView` (no Qt).

`JrdbEvidence` is a question with its frames (one per `criteria.frame_ids`) and their
2D boxes, as the app reads them; `evidence_rows` turns the question into the rows of the
step list (the answer first, then each step, with its time slot and entities);
`focus_rect` is the part of the panorama the zoomed detail shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from annotation.models import Box2D, Question

CONTEXT_PX = 40.0  # image pixels kept either side of the shown boxes in the detail


# -- what the app hands over ------------------------------------------------------------------
@dataclass(frozen=True)
class EvidenceFrame:
    """One time slot's frame: its image file and its 2D boxes as stored now."""

    frame_id: int
    index: int
    image_name: str
    path: Path | None  # None: the frame has no image
    boxes: tuple[Box2D, ...] = ()


@dataclass(frozen=True)
class JrdbEvidence:
    """A JRDB question with what its frames hold (one entry per `criteria.frame_ids`)."""

    question: Question
    sequence_name: str
    frames: tuple[EvidenceFrame | None, ...]
    entity_rows: Mapping[str, int] = field(default_factory=dict)  # graph id -> entity row
    labels: Mapping[int, str] = field(default_factory=dict)  # entity row -> "person 3"


@dataclass(frozen=True)
class EvidenceRow:
    """A row of the step list: the answer, or one step (its entity set and time slot)."""

    text: str
    tooltip: str
    slot: int
    keys: tuple[str, ...]
    boxes: Mapping[str, list[float]] = field(default_factory=dict)  # as stored in the question
    answer: bool = False


# -- pure helpers -----------------------------------------------------------------------------
def entity_words(key: str) -> str:
    """A graph entity id as words: "pedestrian:3" -> "pedestrian 3"."""
    name, _, number = str(key).partition(":")
    return f"{name} {number}" if number else str(key)


def is_jrdb(question: Question | None) -> bool:
    """A question asked about a JRDB sequence (its evidence is frames, not a stored scene)."""
    return question is not None and question.scene_id is None and question.sequence_id is not None


def answer_slot(question: Question) -> int:
    """The time slot the answer is in (`criteria.answer_slot`; else the last frame's)."""
    criteria = question.criteria or {}
    slot = criteria.get("answer_slot")
    if isinstance(slot, int):
        return slot
    return max(len(criteria.get("frame_ids") or criteria.get("image_ids") or [0]) - 1, 0)


def answer_entities(question: Question) -> tuple[str, ...]:
    """The entities the answer is about: a VG answer's targets, else the last step's set."""
    answer = question.answer
    if isinstance(answer, dict) and answer.get("entity_ids"):
        return tuple(str(k) for k in answer["entity_ids"])
    steps = question.steps or []
    return tuple(str(k) for k in steps[-1].get("entity_ids", [])) if steps else ()


def answer_boxes(question: Question) -> list[list[float]]:
    """A VG answer's stored boxes [x, y, w, h] (none for Count and Wh)."""
    answer = question.answer
    if not isinstance(answer, dict):
        return []
    return [list(map(float, b)) for b in answer.get("boxes") or [] if len(b) == 4]


def evidence_rows(question: Question) -> list[EvidenceRow]:
    """The answer (the last step's entities in the answer slot), then every step."""
    steps = question.steps or []
    images = (question.criteria or {}).get("image_ids") or []
    several = len({s.get("slot", 0) for s in steps} | {answer_slot(question)}) > 1

    def where(slot: int) -> str:
        if not several:
            return ""
        return f" · {images[slot]}" if 0 <= slot < len(images) else f" · slot {slot + 1}"

    keys = answer_entities(question)
    slot = answer_slot(question)
    boxes = dict(zip(keys, answer_boxes(question), strict=False))
    if not boxes and steps:
        boxes = dict(steps[-1].get("boxes") or {})
    rows = [
        EvidenceRow(
            f"Answer: {answer_words(question)}{where(slot)}",
            "The answer's entities in the answer frame (the last step's set)",
            slot,
            keys,
            boxes,
            answer=True,
        )
    ]
    for i, step in enumerate(steps, 1):
        ids = tuple(str(k) for k in step.get("entity_ids", []))
        n = len(ids)
        text = f"{i}. {step.get('description', '')} — {n} entit{'y' if n == 1 else 'ies'}"
        step_slot = int(step.get("slot", slot) or 0)
        rows.append(
            EvidenceRow(
                text + where(step_slot),
                str(step.get("question") or step.get("description", "")),
                step_slot,
                ids,
                dict(step.get("boxes") or {}),
            )
        )
    return rows


def answer_words(question: Question) -> str:
    """The answer in a few words: VG its entities, Count the number, Wh the word."""
    answer = question.answer
    if isinstance(answer, dict) and "entity_ids" in answer:
        return ", ".join(entity_words(k) for k in answer["entity_ids"]) or "nobody"
    return str(answer)


def focus_rect(
    boxes: Iterable[tuple[float, float, float, float]],
    *,
    width: float,
    height: float,
    aspect: float,
    context: float = CONTEXT_PX,
) -> tuple[float, float, float, float]:
    """The part of the panorama the detail shows: its full height, as wide as the view's
    aspect allows, centred on the boxes (with `context` pixels either side); wider when
    the boxes need it, the whole image when they span it. A box across the seam counts
    with its larger part."""
    spans = []
    for x, _y, w, _h in boxes:
        left, right = max(x, 0.0), min(x + w, width)
        if x + w > width and (x + w - width) > (width - x):
            left, right = 0.0, x + w - width  # most of it is at the left edge
        elif x < 0 and -x > x + w:
            left, right = width + x, width
        if right > left:
            spans.append((left, right))
    if not spans:
        return (0.0, 0.0, width, height)
    x0 = min(s[0] for s in spans) - context
    x1 = max(s[1] for s in spans) + context
    wanted = max(x1 - x0, height * max(aspect, 1e-3))
    if wanted >= width:
        return (0.0, 0.0, width, height)
    x = min(max((x0 + x1) / 2 - wanted / 2, 0.0), width - wanted)
    return (x, 0.0, wanted, height)
