"""JRDB-Reasoning results as tables: accuracy by difficulty level (per model, task and
modality), the human baseline's rows, the paper's Tables 2-4, step curves and the
Spearman study of rated difficulty. The scoring of single answers is in
`annotation.jrdb.reasoning_eval`; these functions add up its outcomes.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from annotation.jrdb.reasoning_eval import HUMAN, LEVELS, RatingPoint


# -- rank correlation -----------------------------------------------------------------------
def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks; tied values share the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rho (Pearson's r of the average ranks); None when it is undefined
    (fewer than two pairs, or either side constant)."""
    if len(xs) != len(ys):
        raise ValueError(f"spearman needs pairs: {len(xs)} x values, {len(ys)} y values")
    if len(xs) < 2:
        return None
    rx, ry = average_ranks(xs), average_ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def spearman_p(rho: float | None, n: int) -> float | None:
    """Two-sided p-value of rho by the t approximation (as scipy.stats.spearmanr)."""
    if rho is None or n < 3:
        return None
    if abs(rho) >= 1.0:
        return 0.0
    from scipy.stats import t as t_dist

    t = rho * math.sqrt((n - 2) / (1 - rho * rho))
    return float(2 * t_dist.sf(abs(t), n - 2))


def rho_words(rho: float | None) -> str:
    """Strength of a correlation in words (Evans 1996 bands on |rho|)."""
    if rho is None:
        return "undefined"
    a = abs(rho)
    strength = (
        "very weak"
        if a < 0.2
        else "weak"
        if a < 0.4
        else "moderate"
        if a < 0.6
        else "strong"
        if a < 0.8
        else "very strong"
    )
    return strength if a < 0.2 else f"{strength} {'positive' if rho > 0 else 'negative'}"


# -- tables ---------------------------------------------------------------------------------
def _cell(outcomes: list[Any]) -> dict[str, Any]:
    n = len(outcomes)
    correct = sum(1 for o in outcomes if o.correct)
    ious = [o.iou for o in outcomes if o.iou is not None]
    return {
        "n": n,
        "correct": correct,
        "accuracy_pct": None if not n else round(100.0 * correct / n, 2),
        "mean_iou": round(sum(ious) / len(ious), 4) if ious else None,
    }


def accuracy_by_level(outcomes: Iterable[Any]) -> list[dict[str, Any]]:
    """Rows {"model", "benchmark", "task", "modality", "levels": {level: cell}, "all": cell}
    per (model, benchmark, task, modality): image and video questions never share a row.
    A cell is {"n", "correct", "accuracy_pct", "mean_iou"}. Outcomes need .model,
    .benchmark, .task, .modality, .level, .correct, .iou."""
    groups: dict[tuple[str, str, str, str], list[Any]] = defaultdict(list)
    for o in outcomes:
        groups[(o.model, o.benchmark, o.task, o.modality)].append(o)
    rows = []
    for (model, benchmark, task, modality), items in sorted(groups.items()):
        levels = {lv: _cell([o for o in items if o.level == lv]) for lv in LEVELS}
        rows.append(
            {
                "model": model,
                "benchmark": benchmark,
                "task": task,
                "modality": modality,
                "levels": levels,
                "all": _cell(items),
            }
        )
    return rows


def _mean_cell(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """The mean of per-annotator cells (the paper reports the mean of its annotators)."""
    scored = [c for c in cells if c["n"]]
    ious = [c["mean_iou"] for c in scored if c["mean_iou"] is not None]
    return {
        "n": sum(c["n"] for c in scored),
        "correct": sum(c["correct"] for c in scored),
        "accuracy_pct": round(sum(c["accuracy_pct"] for c in scored) / len(scored), 2)
        if scored
        else None,
        "mean_iou": round(sum(ious) / len(ious), 4) if ious else None,
        "annotators": len(scored),
    }


def human_accuracy_by_level(answers: Iterable[Any]) -> list[dict[str, Any]]:
    """Human-baseline rows (model "human") shaped as `accuracy_by_level`'s: each cell is
    the mean over annotators of their own accuracy, with "annotators" (how many).
    Answers need .annotator_id, .benchmark, .task, .level, .correct, .iou."""
    per_person: dict[tuple[str, str, str], dict[int, list[Any]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for a in answers:
        per_person[(a.benchmark, a.task, a.modality)][a.annotator_id].append(a)
    rows = []
    for (benchmark, task, modality), people in sorted(per_person.items()):
        levels = {
            lv: _mean_cell(
                [_cell([a for a in items if a.level == lv]) for items in people.values()]
            )
            for lv in LEVELS
        }
        everything = _mean_cell([_cell(items) for items in people.values()])
        rows.append(
            {
                "model": HUMAN,
                "benchmark": benchmark,
                "task": task,
                "modality": modality,
                "levels": levels,
                "all": everything,
            }
        )
    return rows


#: The JRDB-Reasoning paper's result tables: which questions each holds, and its parts
#: (a part pools the tasks it names). VQA pools Wh and Count, as Tables 2 and 3 do.
PAPER_TABLES = {
    "vqa_images": {
        "modality": "image",
        "parts": {"VQA": ("vqa-wh", "vqa-count"), "Wh": ("vqa-wh",), "Count": ("vqa-count",)},
        "source": "JRDB-Reasoning Table 2 (VQA on images, accuracy)",
    },
    "vqa_videos": {
        "modality": "video",
        "parts": {"VQA": ("vqa-wh", "vqa-count"), "Wh": ("vqa-wh",), "Count": ("vqa-count",)},
        "source": "JRDB-Reasoning Table 3 (VQA on videos, accuracy)",
    },
    "vg_images": {
        "modality": "image",
        "parts": {"VG": ("vg",)},
        "source": "JRDB-Reasoning Table 4 (VG on images; a box is right when its IoU > 0.5)",
    },
}
PAPER_LEVELS = ("D1", "D2", "D3")
PAPER_AVERAGE = "Avg.: the mean of D1, D2 and D3, each weighing the same; incomplete without one"


def paper_table(name: str, predictions: Iterable[Any], answers: Iterable[Any]) -> dict[str, Any]:
    """One of `PAPER_TABLES` from JRDB predictions and human answers: {"name", "source",
    "modality", "rows": [{"model", "part", "levels": {D1..D3: cell}, "average_pct",
    "missing"}], "left_out": {level: n}}. Rows per model and part, then the human rows
    (model "human", each cell the mean over annotators of their own accuracy). Only
    questions of the table's modality and levels D1-D3 count; "left_out" counts the
    others of its tasks (levels beyond D3, T > 1)."""
    spec = PAPER_TABLES[name]
    tasks = {t for part in spec["parts"].values() for t in part}

    def mine(items):
        return [
            o
            for o in items
            if o.benchmark == "jrdb" and o.modality == spec["modality"] and o.task in tasks
        ]

    preds, people = mine(predictions), mine(answers)
    left_out: dict[str, int] = defaultdict(int)
    for o in preds:
        if o.level not in PAPER_LEVELS:
            left_out[o.level] += 1
    rows = []
    for model in sorted({p.model for p in preds}):
        for part, part_tasks in spec["parts"].items():
            chosen = [p for p in preds if p.model == model and p.task in part_tasks]
            levels = {lv: _cell([p for p in chosen if p.level == lv]) for lv in PAPER_LEVELS}
            rows.append(_paper_row(model, part, levels))
    for part, part_tasks in spec["parts"].items():
        by_person: dict[int, list[Any]] = defaultdict(list)
        for a in people:
            if a.task in part_tasks:
                by_person[a.annotator_id].append(a)
        if not by_person:
            continue
        levels = {
            lv: _mean_cell(
                [_cell([a for a in items if a.level == lv]) for items in by_person.values()]
            )
            for lv in PAPER_LEVELS
        }
        rows.append(_paper_row(HUMAN, part, levels))
    return {
        "name": name,
        "source": spec["source"],
        "modality": spec["modality"],
        "rows": rows,
        "left_out": dict(left_out),
    }


def _paper_row(model: str, part: str, levels: dict[str, dict[str, Any]]) -> dict[str, Any]:
    values = {lv: cell["accuracy_pct"] for lv, cell in levels.items()}
    missing = [lv for lv in PAPER_LEVELS if values[lv] is None]
    average = None if missing else round(sum(values.values()) / len(PAPER_LEVELS), 2)
    return {
        "model": model,
        "part": part,
        "levels": levels,
        "average_pct": average,
        "missing": missing,
    }


def step_curves(predictions: Iterable[Any]) -> list[dict[str, Any]]:
    """Accuracy at step k per (model, task, level), and over all levels ("all"):
    [{"model", "task", "level", "curve": [{"step": k (1-based), "n", "correct",
    "accuracy_pct"}]}]. Predictions without step answers are left out."""
    groups: dict[tuple[str, str, str], list[list[bool]]] = defaultdict(list)
    for p in predictions:
        if p.step_correct is None:
            continue
        for level in (p.level, "all"):
            groups[(p.model, p.task, level)].append(p.step_correct)
    out = []
    order = {lv: i for i, lv in enumerate((*LEVELS, "all"))}
    for (model, task, level), lists in sorted(
        groups.items(), key=lambda kv: (kv[0][0], kv[0][1], order[kv[0][2]])
    ):
        curve = []
        for k in range(max((len(s) for s in lists), default=0)):
            at_k = [s[k] for s in lists if k < len(s)]
            right = sum(at_k)
            curve.append(
                {
                    "step": k + 1,
                    "n": len(at_k),
                    "correct": right,
                    "accuracy_pct": round(100.0 * right / len(at_k), 2),
                }
            )
        out.append({"model": model, "task": task, "level": level, "curve": curve})
    return out


def spearman_table(points: Iterable[RatingPoint]) -> list[dict[str, Any]]:
    """Spearman's rho between ratings and D per (benchmark, task), and per benchmark over
    every task (task "all"). Each question counts once, with the mean of its ratings:
    [{"benchmark", "task", "n" (questions), "ratings", "annotators", "rho", "p", "words"}]."""
    groups: dict[tuple[str, str], list[RatingPoint]] = defaultdict(list)
    for p in points:
        groups[(p.benchmark, p.task)].append(p)
        groups[(p.benchmark, "all")].append(p)
    rows = []
    for (benchmark, task), items in sorted(
        groups.items(), key=lambda kv: (kv[0][0], kv[0][1] == "all", kv[0][1])
    ):
        if task == "all" and len({p.task for p in items}) < 2:
            continue  # the one task's row says it already
        by_question: dict[str, list[RatingPoint]] = defaultdict(list)
        for p in items:
            by_question[p.question_uid].append(p)
        ds = [qs[0].D for qs in by_question.values()]
        means = [sum(p.rating for p in qs) / len(qs) for qs in by_question.values()]
        rho = spearman(means, ds)
        rows.append(
            {
                "benchmark": benchmark,
                "task": task,
                "n": len(by_question),
                "ratings": len(items),
                "annotators": len({p.annotator_id for p in items}),
                "rho": None if rho is None else round(rho, 4),
                "p": spearman_p(rho, len(by_question)),
                "words": rho_words(rho),
            }
        )
    return rows
