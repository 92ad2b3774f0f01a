"""Reference baselines for JRDB-Reasoning questions: what a model gets without reasoning.

`category_only` answers every question from its first step alone, the set of
entities of the target's kind (all people, all chairs), as a detector that
knows categories but not attributes or relations would:

* VG: the largest box of that set (the most salient person or object);
* Count: the size of that set;
* Wh: the most frequent gold answer to the same asked attribute across the
  question set (a prior, as VQA papers report one).

Each prediction also carries per-step answers: the first step's boxes (or
count) repeated at every step, so the step curves show where reasoning starts
to matter. It is a floor to compare models with, in the spirit of the chance
agent of the tabletop benchmark; it never looks at the gold answer of the
question it answers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from annotation.models import Question

CATEGORY_ONLY = "category-only baseline"


def _first_step_boxes(q: Question) -> list[list[float]]:
    step = q.steps[0] if q.steps else {}
    boxes = step.get("boxes") or {}
    return [list(boxes[i]) for i in step.get("entity_ids", []) if i in boxes]


def category_only(questions: Iterable[Question]) -> list[dict[str, Any]]:
    """Prediction rows (the predictions-file format) for the jrdb questions given."""
    questions = [q for q in questions if q.benchmark == "jrdb"]
    priors: dict[str, Counter] = {}
    for q in questions:
        if q.task == "vqa-wh":
            priors.setdefault(q.criteria.get("asked", ""), Counter())[str(q.answer)] += 1
    rows = []
    for q in questions:
        first = q.steps[0] if q.steps else {"entity_ids": []}
        n_steps = len(q.steps)
        if q.task == "vg":
            boxes = _first_step_boxes(q)
            if not boxes:
                continue
            largest = max(boxes, key=lambda b: b[2] * b[3])
            rows.append({"question_id": q.uid, "box": largest, "steps": [boxes] * n_steps})
        elif q.task == "vqa-count":
            n = len(first.get("entity_ids", []))
            rows.append({"question_id": q.uid, "answer": n, "steps": [n] * n_steps})
        elif q.task == "vqa-wh":
            counts = priors.get(q.criteria.get("asked", ""), Counter())
            # the prior of the *other* questions, so a question never sees its own answer
            others = counts - Counter({str(q.answer): 1})
            guess = others.most_common(1)[0][0] if others else None
            rows.append({"question_id": q.uid, "answer": guess})
    return rows
