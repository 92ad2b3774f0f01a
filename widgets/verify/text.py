"""What the Verify questions panel says, as pure text: answers, difficulty, steps, verdicts.

Small functions of plain values (no project, no state), and the two label factories the
panel uses; `widgets.verify.panel` re-exports the ones other modules read.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from annotation.verification import ALL_CRITERIA, VerdictRecord
from widgets.verify.jrdb_evidence_rows import entity_words

TASK_WORDS = {"vg": "VG", "vqa-wh": "VQA-Wh", "vqa-count": "VQA-Count"}


def task_words(task: str) -> str:
    """A task's name as people write it: "VG", "VQA-Count", "Beneath"."""
    return TASK_WORDS.get(task, task.capitalize())


def answer_option(answer: Any) -> Any:
    """The option an answer picks (Find answers carry a point too)."""
    return answer.get("answer") if isinstance(answer, dict) else answer


def describe_answer(answer: Any) -> str:
    """An answer in words: a Find answer with its point; a JRDB VG answer as its entities
    with their boxes, "pedestrian 3 (box 412, 188, 36, 97 in 000012.jpg)"; else as is
    (a count's number, a Wh answer's word)."""
    if isinstance(answer, dict) and "answer" in answer:
        point = answer.get("point")
        at = f", at ({point[0]:g}, {point[1]:g}) px in the model's image" if point else ""
        return f"{answer['answer']}{at}"
    if isinstance(answer, dict) and "entity_ids" in answer:
        boxes, image = answer.get("boxes") or [], answer.get("image_id") or "the answer frame"
        parts = []
        for i, key in enumerate(answer["entity_ids"]):
            box = boxes[i] if i < len(boxes) else None
            where = f" (box {', '.join(f'{v:g}' for v in box)} in {image})" if box else ""
            parts.append(f"{entity_words(key)}{where}")
        return "; ".join(parts) or "nobody"
    return str(answer)


def describe_difficulty(question: Any) -> str:
    """ "S 2 · R 1 · T 1 · D 4" ("" without a difficulty)."""
    d = question.difficulty
    return f"S {d.S} · R {d.R} · T {d.T} · D {d.D}" if d is not None else ""


def steps_html(steps: list[dict[str, Any]]) -> str:
    """The steps as a numbered list: what each did, and how many entities it kept."""
    items = []
    for step in steps:
        n = len(step.get("entity_ids") or [])
        tip = html.escape(str(step.get("question") or ""))
        text = html.escape(str(step.get("description", "")))
        items.append(f"<li title='{tip}'>{text} — {n} entit{'y' if n == 1 else 'ies'}</li>")
    return f"<ol style='margin: 0; -qt-list-indent: 1'>{''.join(items)}</ol>"


def describe_verdict(record: VerdictRecord, *, own: bool) -> str:
    """One verdict as a line of rich text: who, round, decision, criteria, reason, edits."""
    v = record.verdict
    who = "You" if own else html.escape(record.annotator_name)
    answered = v.criteria  # criterion 4 only where answered (Compare, since it was asked)
    marks = " ".join(
        f"{i}{'✓' if answered[c] else '✗'}" for i, c in enumerate(ALL_CRITERIA, 1) if c in answered
    )
    line = f"<b>{who}</b> ({record.round} round): <b>{v.decision}</b> &nbsp;[{marks}]"
    if v.reason:
        line += f" — “{html.escape(v.reason)}”"
    if v.corrections:
        edits = ", ".join(f"{k} → {html.escape(str(val))}" for k, val in v.corrections.items())
        line += f"<br>&nbsp;&nbsp;proposes {edits}"
    return line


def rich_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def heading(text: str) -> QLabel:
    label = QLabel(f"<b>{html.escape(text)}</b>")
    label.setContentsMargins(0, 8, 0, 0)
    return label
