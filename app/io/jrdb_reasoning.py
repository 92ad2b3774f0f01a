"""Export VG questions in the JRDB-Reasoning question format (a JSON list).

One element per VG question (docs/jrdb-questions.md, "JRDB-Reasoning VG export"):

    {"id": uid, "task": "vg", "difficulty": {"S", "R", "T", "D"},
     "data": {"seq": "<sequence name>"},
     "question": {"question": "<text>",
                  "sub_questions": {"sub_q1": "Find all people.", ...}},
     "labels": {"slot1": {"image_ids": ["000012.jpg"],
                          "final_bbox": [[x, y, w, h]],
                          "sub_q1": {"target_bbox": [[x, y, w, h], ...]}, ...}}}

Slots are the question's time slots in order (one for an image question); a
step's boxes go to the slot it was evaluated in; `final_bbox` lists the
answer's boxes in the slots where the target has a box. `pattern` (the bound question pattern, criteria.pattern) lets a reader recompute
the answer from the labels. Boxes are [x, y, w, h]
lists in stitched-panorama pixels, as JRDB's 2D labels give them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from annotation.models import Question
from app.io.jsonl import write_lines
from store import open_for_reading

FORMAT = "jrdb-reasoning-vg"


def vg_element(q: Question, sequence_name: str) -> dict[str, Any]:
    """The JRDB-Reasoning element of one stored VG question."""
    criteria = q.criteria or {}
    image_ids = list(criteria.get("image_ids") or [q.answer.get("image_id")])
    window_slots = list(range(len(image_ids)))
    used = criteria.get("question_slots") or [criteria.get("answer_slot", window_slots[-1])]
    answer_slot = criteria.get("answer_slot", used[-1])
    labels: dict[str, Any] = {}
    slot_names = {}
    for n, slot in enumerate(used, start=1):
        name = f"slot{n}"
        slot_names[slot] = name
        labels[name] = {
            "image_ids": [image_ids[window_slots.index(slot)] if slot in window_slots
                          else image_ids[-1]],
            "final_bbox": [],
        }
    labels[slot_names[answer_slot]]["final_bbox"] = [list(b) for b in q.answer.get("boxes", [])]
    sub_questions = {}
    for k, step in enumerate(q.steps, start=1):
        key = f"sub_q{k}"
        sub_questions[key] = step.get("question") or step.get("description", "")
        slot = slot_names.get(step.get("slot", answer_slot), slot_names[answer_slot])
        boxes = step.get("boxes") or {}
        labels[slot][key] = {
            "target_bbox": [list(boxes[i]) for i in step.get("entity_ids", []) if i in boxes],
            "entity_ids": list(step.get("entity_ids", [])),
        }
    return {
        "id": q.uid,
        "task": "vg",
        "difficulty": q.difficulty.as_dict() if q.difficulty else {},
        "data": {"seq": sequence_name},
        "question": {"question": q.text, "sub_questions": sub_questions},
        "labels": labels,
        "pattern": criteria.get("pattern"),
    }


def current_questions(project, wanted: set[str] | None) -> Iterable[Question]:
    after = None
    while True:
        page = project.questions.page(after=after, limit=500)
        for q in page.rows:
            if wanted is None or q.status in wanted:
                yield q
        if page.next_cursor is None:
            return
        after = page.next_cursor


def export_jrdb_reasoning_vg(
    db: str | os.PathLike[str], out: str | os.PathLike[str], *, status: str = "approved"
) -> tuple[int, int]:
    """Write the JSON list; returns (VG questions written, other questions skipped)."""
    wanted = None if status == "any" else {"approved", "corrected"}
    elements, skipped = [], 0
    with open_for_reading(db) as project:
        names = {s.id: s.name for s in project.sequences.list()}
        for q in current_questions(project, wanted):
            if q.benchmark != "jrdb" or q.task != "vg":
                skipped += 1
                continue
            elements.append(vg_element(q, names.get(q.sequence_id, "")))
    write_lines(out, [json.dumps(elements, indent=1)])  # the whole file or nothing
    return len(elements), skipped
