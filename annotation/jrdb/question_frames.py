"""Which frames of its sequence a JRDB question is asked on (its time slots)."""

from __future__ import annotations

from collections.abc import Sequence as Seq

from annotation.models import Frame, Question


def slot_frame(question: Question, slot: int, frames: Seq[Frame]) -> Frame | None:
    """The frame of a time slot: by image file name, else by `criteria.frame_ids`
    (a frame's row id, else its index)."""
    criteria = question.criteria or {}
    images = criteria.get("image_ids") or []
    if 0 <= slot < len(images):
        name = str(images[slot])
        for frame in frames:
            if frame.image_path and frame.image_path.replace("\\", "/").split("/")[-1] == name:
                return frame
    ids = criteria.get("frame_ids") or []
    if 0 <= slot < len(ids):
        wanted = ids[slot]
        by_id = [f for f in frames if f.id == wanted]
        by_index = [f for f in frames if f.index == wanted]
        return (by_id or by_index or [None])[0]
    return None


def question_frames(question: Question, frames: Seq[Frame]) -> list[Frame]:
    """The frames of every time slot of the question (at least its first slot's)."""
    criteria = question.criteria or {}
    slots = max(len(criteria.get("frame_ids") or []), len(criteria.get("image_ids") or []), 1)
    found = (slot_frame(question, slot, frames) for slot in range(slots))
    return [frame for frame in found if frame is not None]
