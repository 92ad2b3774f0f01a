"""Perf case of JRDB-Reasoning evaluation: scoring and storing a large predictions file."""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from app.perf.harness import PerfResult, perf_case, report, scratch_folder
from store import open_project

ORDER = 100  # where these cases run in `reasonscope bench` (see app.perf.harness)

SIZES = {False: 10_000, True: 2_000}
ROUNDS = 3
GOAL = "<= 3x storing as many questions"


def _box(rng: random.Random) -> list[float]:
    """A person's box on the 3760 x 480 panorama; one in ten runs across the seam."""
    w, h = rng.uniform(20, 80), rng.uniform(60, 200)
    x = rng.uniform(3760 - w + 5, 3755) if rng.random() < 0.1 else rng.uniform(0, 3000)
    return [x, rng.uniform(10, 470 - h), w, h]


def _jitter(rng: random.Random, box: list[float]) -> list[float]:
    """A prediction near `box`, written from the other end of the panorama half the time
    when `box` crosses the seam (x below 0), as models and people draw such boxes."""
    out = [v + rng.uniform(-4, 4) for v in box]
    if box[0] + box[2] > 3760 and rng.random() < 0.5:
        out[0] -= 3760
    return out


def _workload(n: int, seed: int = 7) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`n` JRDB questions (half VG with two- or three-step annotations, a tenth of the
    boxes across the panorama's seam; a quarter each count and Wh) and one prediction per
    question, with per-step answers for VG."""
    rng = random.Random(seed)
    questions, predictions = [], []
    for i in range(n):
        uid = f"perf-{i:06d}"
        kind = ("vg", "vg", "vqa-count", "vqa-wh")[i % 4]
        level = rng.choice([(1, 0, 1), (2, 1, 1), (3, 2, 1)])
        q: dict[str, Any] = {"uid": uid, "benchmark": "jrdb", "task": kind, "text": f"{uid}?"}
        q["difficulty"] = dict(zip("SRT", level, strict=True))
        row: dict[str, Any] = {"question_id": uid}
        if kind == "vg":
            people = {f"pedestrian:{k}": _box(rng) for k in range(rng.randint(3, 8))}
            keys = list(people)
            targets = keys[: rng.choice([1, 1, 1, 2])]
            q["answer"] = {"entity_ids": targets, "boxes": [people[k] for k in targets]}
            q["steps"] = [
                {"description": "all persons", "entity_ids": keys, "boxes": people},
                {
                    "description": "filter",
                    "entity_ids": targets,
                    "boxes": {k: people[k] for k in targets},
                },
            ]
            row["box"] = [_jitter(rng, people[k]) for k in targets]
            row["steps"] = [[_jitter(rng, b) for b in people.values()], row["box"]]
        elif kind == "vqa-count":
            q["answer"] = rng.randint(0, 6)
            row["answer"] = str(rng.randint(0, 6))
        else:
            q["answer"] = rng.choice(["young_adulthood", "female", "sitting"])
            row["answer"] = rng.choice(["Young adulthood", "female", "standing"])
        questions.append(q)
        predictions.append(row)
    return questions, predictions


@perf_case("reasoning_import", goal=GOAL)
def reasoning_import(quick: bool) -> PerfResult:
    """Score and store a predictions file vs storing as many questions (one transaction
    each), interleaved in the same process; medians of `ROUNDS` rounds."""
    n = SIZES[quick]
    questions, predictions = _workload(n)
    # scipy's assignment solver is imported on first use (about a second, once per
    # process); import it first so that the ratio measures the per-prediction work
    t0 = time.perf_counter()
    import scipy.optimize  # noqa: F401

    import_s = time.perf_counter() - t0
    subject_s, baseline_s = [], []
    with scratch_folder() as folder:
        with open_project(folder / "reasoning.reasonscope", create=True) as project:
            project.questions.add_many(questions)
            for k in range(ROUNDS):
                report(f"reasoning_import: round {k + 1} of {ROUNDS}")
                with open_project(folder / f"baseline{k}.reasonscope", create=True) as other:
                    t0 = time.perf_counter()
                    other.questions.add_many(questions)
                    baseline_s.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                result = project.reasoning.import_predictions("perf", predictions)
                subject_s.append(time.perf_counter() - t0)
    subject, baseline = statistics.median(subject_s), statistics.median(baseline_s)
    ratio = subject / baseline
    return PerfResult(
        "reasoning_import",
        ratio,
        "x",
        GOAL,
        ratio <= 3,
        f"{n} predictions (half VG with step answers) in {subject:.2f} s "
        f"({1e6 * subject / n:.0f} µs each, {result.accuracy_pct:.0f} % correct); "
        f"{n} questions stored in {baseline:.2f} s (medians of {ROUNDS} rounds); "
        f"scipy.optimize imported first in {import_s:.2f} s",
    )


SEAM_PAIRS = {False: 200_000, True: 40_000}
SEAM_GOAL = "<= 3x plain IoU"


@perf_case("seam_iou", goal=SEAM_GOAL)
def seam_iou(quick: bool) -> PerfResult:
    """IoU on the panorama's cylinder (three shifted overlaps) vs the plain IoU of the same
    box pairs, interleaved; medians of `ROUNDS` rounds."""
    from annotation.jrdb.reasoning_eval import iou_xywh

    rng = random.Random(11)
    pairs = [(b, _jitter(rng, b)) for b in (_box(rng) for _ in range(SEAM_PAIRS[quick]))]
    wrapped_s, plain_s = [], []
    for k in range(ROUNDS):
        report(f"seam_iou: round {k + 1} of {ROUNDS}")
        t0 = time.perf_counter()
        plain = sum(iou_xywh(a, b) > 0.5 for a, b in pairs)
        plain_s.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        wrapped = sum(iou_xywh(a, b, 3760) > 0.5 for a, b in pairs)
        wrapped_s.append(time.perf_counter() - t0)
    subject, baseline = statistics.median(wrapped_s), statistics.median(plain_s)
    ratio = subject / baseline
    n = len(pairs)
    return PerfResult(
        "seam_iou",
        ratio,
        "x",
        SEAM_GOAL,
        ratio <= 3,
        f"{n} box pairs (a tenth across the seam): cylinder {1e9 * subject / n:.0f} ns, "
        f"plain {1e9 * baseline / n:.0f} ns a pair; above 0.5: {wrapped} on the cylinder, "
        f"{plain} plain (the seam boxes plain IoU misses)",
    )
