"""JRDB-Reasoning evaluation: scoring answers and boxes, difficulty levels, rank correlation.

Pure functions and value types (paper 000, "Experiment"); `store.reasoning` scores and
stores predictions, difficulty ratings and human answers with them, and
`app.jobs.metrics.project_reasoning_metrics` aggregates them with the table helpers at the
end of this module. The rules, as docs/jrdb-questions.md ("Evaluation") states them:

- VG: a predicted box is correct when its IoU with the gold box is **greater than** 0.5,
  taken on the panorama's cylinder (a box may cross the seam at x = 3760). A question
  with several targets has several gold boxes; then the predicted boxes must match the
  gold boxes one-to-one, each pair with IoU > 0.5 (`match_boxes`).
- VQA: accuracy. Counts compare as integers ("3", "3.", 3.0 and "three" all read as 3);
  Wh answers compare case-, space-, hyphen- and underscore-insensitively.
- Levels: D1 = (S 1, R 0, T 1), D2 = (S 2, R >= 1, T 1), D3 = (S 3, R >= 2, T 1);
  anything else is "other".
- A step k of a prediction is correct when its entity set matches the question's
  `steps[k]`: boxes one-to-one with IoU > 0.5, an entity count, or entity ids.

Nothing here raises on a malformed prediction: it scores as incorrect with a reason.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from annotation.jrdb.dataset import PANORAMA_HEIGHT, PANORAMA_WIDTH

IOU_THRESHOLD = 0.5
#: VG boxes are in stitched-panorama pixels, on a cylinder this wide (docs/jrdb-questions.md)
IOU_WRAP = PANORAMA_WIDTH
LEVELS = ("D1", "D2", "D3", "other")
LEVEL_DEFINITIONS = {
    "D1": "S = 1, R = 0, T = 1",
    "D2": "S = 2, R >= 1, T = 1",
    "D3": "S = 3, R >= 2, T = 1",
    "other": "any other (S, R, T), e.g. T > 1",
}
HUMAN = "human"  # the model name of the human-baseline rows
TRACK_RULE = (
    "a video VG track: per frame of the question's window where the gold has a box, the "
    "frame's IoU (several targets matched one-to-one, as one image); a frame the "
    "prediction leaves out counts 0; right when the mean over those frames is > 0.5"
)
#: The choices behind the `reasoning` numbers, reported with them (`settings`).
REASONING_SETTINGS = {
    "vg": f"correct when IoU > {IOU_THRESHOLD} (0.5 itself is wrong); IoU on the "
    f"panorama's cylinder ({PANORAMA_WIDTH} px round), so boxes across the seam compare "
    "as the same columns; several targets are matched one-to-one (Hungarian)",
    "vqa": "accuracy; counts as integers, Wh answers ignoring case, spaces, hyphens "
    "and underscores",
    "track": TRACK_RULE,
    "malformed": "an unreadable answer or box scores as wrong; a box that cannot be "
    "[x, y, w, h] on the panorama refuses the import line",
    "levels": "D1, D2, D3 from each question's (S, R, T); anything else is other",
    "human": "each cell is the mean over annotators of their own accuracy",
    "spearman": "one point per question: the mean of its 1-5 ratings against its D; "
    "p by the t approximation (scipy.stats.spearmanr)",
}
RATINGS = (1, 2, 3, 4, 5)
#: The reason of a score against a question without its gold answer (a blind work
#: package holds none: the answer is scored when the package is merged).
NO_GOLD = "no gold answer here to score against"
_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}


# -- value types ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Score:
    """How one answer scored: correct or not, the IoU for boxes (else None), and why."""

    correct: bool
    iou: float | None = None
    reason: str = ""


@dataclass(frozen=True)
class Prediction:
    """A model's stored answer to one question version, scored on import."""

    id: int
    question_id: int  # questions.id: the version it was scored against
    question_uid: str
    model: str
    answer: Any
    step_answers: list[Any] | None
    correct: bool
    iou: float | None
    reason: str
    step_correct: list[bool] | None
    source: str
    imported_at: str
    benchmark: str = ""
    task: str = ""
    level: str = "other"
    is_current: bool = True  # False once the question has a newer version (stale score)
    question_status: str = "pending"
    modality: str = "image"  # the question's: "image" or "video" (its preferences)


@dataclass(frozen=True)
class Rating:
    """An annotator's 1-5 difficulty rating of a question, given without seeing its D."""

    id: int
    question_id: int
    question_uid: str
    annotator_id: int
    rating: int
    created_at: str


@dataclass(frozen=True)
class RatingPoint:
    """A rating with its question's computed difficulty: one point of the Spearman study."""

    benchmark: str
    task: str
    question_uid: str
    annotator_id: int
    rating: int
    D: int  # noqa: N815 - the paper's name


@dataclass(frozen=True)
class HumanAnswer:
    """An annotator's own answer (VQA) or box (VG) to a question version, scored."""

    id: int
    question_id: int
    question_uid: str
    annotator_id: int
    answer: Any
    correct: bool
    iou: float | None
    reason: str
    created_at: str
    benchmark: str = ""
    task: str = ""
    level: str = "other"
    is_current: bool = True
    question_status: str = "pending"
    modality: str = "image"


@dataclass(frozen=True)
class ImportReport:
    """What `import_predictions` stored: per model, rows imported, correct and replaced."""

    source: str
    imported: int
    correct: int
    replaced: int
    by_model: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def accuracy_pct(self) -> float | None:
        return None if not self.imported else 100.0 * self.correct / self.imported

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "accuracy_pct": self.accuracy_pct}


# -- levels and boxes -----------------------------------------------------------------------
def difficulty_level(S: int | None, R: int | None, T: int | None) -> str:  # noqa: N803
    """The paper's level of a question: "D1", "D2", "D3" or "other"."""
    if S is None or R is None or T is None or T != 1:
        return "other"
    if S == 1 and R == 0:
        return "D1"
    if S == 2 and R >= 1:
        return "D2"
    if S == 3 and R >= 2:
        return "D3"
    return "other"


def iou_xywh(a: Sequence[float], b: Sequence[float], wrap: float | None = None) -> float:
    """Intersection over union of two [x, y, w, h] boxes (0 when both are empty).

    With `wrap` (a 360-degree panorama's width in pixels) x is a column on a cylinder:
    x and x + wrap are the same column, so a box may start left of 0 or run past the
    right edge, and a gold box [3740, y, 100, h] is the same as its two visible parts.
    Both boxes are taken modulo the width, and the overlaps of `a` with `b` shifted by
    -wrap, 0 and +wrap add up (for boxes narrower than half the panorama that is the
    shift that overlaps most). A box wider than the panorama counts as the full width.
    """
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    if wrap:
        aw, bw = min(aw, wrap), min(bw, wrap)
        ax, bx = ax % wrap, bx % wrap
    ih = min(ay + ah, by + bh) - max(ay, by)
    iw = min(ax + aw, bx + bw) - max(ax, bx)
    iw = iw if iw > 0 else 0.0
    if wrap and ih > 0:
        # Both now lie in [0, 2 * wrap): only b one turn back (when it runs past the
        # seam) or a one turn back (likewise) can overlap besides the plain overlap.
        if bx + bw > wrap:
            iw += max(min(ax + aw, bx + bw - wrap) - max(ax, bx - wrap), 0.0)
        if ax + aw > wrap:
            iw += max(min(ax + aw - wrap, bx + bw) - max(ax - wrap, bx), 0.0)
    inter = iw * ih if ih > 0 else 0.0
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


#: How far (px) a box may pass the image's top or bottom edge before it reads as a box
#: in another format; boxes drawn by hand or predicted a little past the edge still pass.
EDGE_TOLERANCE_PX = 8.0


def box_outside_image(
    box: Sequence[float], width: float, height: float, wrap: bool = True
) -> str | None:
    """What makes an [x, y, w, h] box impossible on a `width` x `height` image, or None.

    Catches what can be caught of a box in another format (most often [x1, y1, x2, y2]
    read as [x, y, w, h]: y + h is then y1 + y2, below the image for most boxes): the
    box must lie within the image's rows (give or take `EDGE_TOLERANCE_PX`) and overlap
    its columns; on a panorama (`wrap`) it may cross the seam (start left of 0 or run
    past the right edge) but span at most half the panorama (180 degrees of view).
    """
    x, y, w, h = box
    tol = EDGE_TOLERANCE_PX
    shown = "[" + ", ".join(f"{v:g}" for v in box) + "]"
    if y < -tol or y + h > height + tol:
        return (
            f"box {shown} runs past the image's rows (0 to {height:g}): "
            f"y + h = {y + h:g}; boxes are [x, y, w, h], not [x1, y1, x2, y2]"
        )
    if wrap:
        if w > width / 2:
            return (
                f"box {shown} is {w:g} px wide, more than half the panorama "
                f"({width:g} px); boxes are [x, y, w, h], not [x1, y1, x2, y2]"
            )
        if x + w <= -width / 2 or x >= width + width / 2:
            return f"box {shown} is off the panorama (x from 0 to {width:g})"
        return None
    if x < -tol or x + w > width + tol:
        return (
            f"box {shown} runs past the image's columns (0 to {width:g}): "
            f"x + w = {x + w:g}; boxes are [x, y, w, h], not [x1, y1, x2, y2]"
        )
    return None


def parse_box(value: Any) -> list[float]:
    """[x, y, w, h] from a list, a {"box": ...} / {"bbox": ...} dict or a JSON string;
    ValueError with the problem otherwise."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise ValueError(f"box is not [x, y, w, h]: {value[:40]!r}") from None
    if isinstance(value, dict):
        for key in ("box", "bbox"):
            if key in value:
                return parse_box(value[key])
        raise ValueError("box object has no 'box'")
    if not isinstance(value, list | tuple) or len(value) != 4:
        raise ValueError(f"box is not [x, y, w, h]: {_short(value)}")
    # (type() rather than isinstance: a bool is an int, and this runs for every box)
    if not all(type(v) in (float, int) for v in value):
        raise ValueError(f"box has a non-number: {_short(value)}")
    out = [float(v) for v in value]
    if not all(map(math.isfinite, out)):
        raise ValueError(f"box has a non-number: {_short(value)}")
    if out[2] < 0 or out[3] < 0:
        raise ValueError(f"box has a negative width or height: {_short(value)}")
    return out


def parse_boxes(value: Any) -> list[list[float]]:
    """One or several boxes: a box, a list of boxes, or {"boxes": [...]}."""
    if isinstance(value, dict) and "boxes" in value:
        value = value["boxes"]
        if isinstance(value, dict):  # {"entity id": box} as in a question's steps
            value = list(value.values())
        if not isinstance(value, list):
            raise ValueError(f"boxes is not a list: {_short(value)}")
        return [parse_box(b) for b in value]
    if isinstance(value, list) and value and all(isinstance(b, list | dict) for b in value):
        return [parse_box(b) for b in value]
    if isinstance(value, list) and not value:
        return []
    return [parse_box(value)]


def match_boxes(
    gold: Sequence[Sequence[float]],
    predicted: Sequence[Sequence[float]],
    wrap: float | None = IOU_WRAP,
) -> tuple[bool, float]:
    """One-to-one matching of predicted to gold boxes: (every gold box and every predicted
    box is in a pair with IoU > 0.5, mean IoU over the gold boxes of the chosen pairing).

    The pairing (Hungarian, scipy's linear_sum_assignment) first maximises the number of
    pairs above the threshold, then their total IoU; an unpaired gold box counts IoU 0.
    IoU is taken on the panorama's cylinder (`iou_xywh` with `wrap`; None: a flat image).
    """
    if not gold or not predicted:
        return len(gold) == len(predicted), 0.0 if gold else 1.0
    ious = [[iou_xywh(g, p, wrap) for p in predicted] for g in gold]
    if len(gold) == len(predicted):
        # Usually each box has exactly one partner above the threshold: then that pairing
        # is the only full one and no assignment problem needs solving.
        partners = [[j for j, v in enumerate(row) if v > IOU_THRESHOLD] for row in ious]
        if all(len(p) == 1 for p in partners) and len({p[0] for p in partners}) == len(gold):
            return True, sum(row[p[0]] for row, p in zip(ious, partners, strict=True)) / len(gold)
    from scipy.optimize import linear_sum_assignment

    bonus = len(gold) + 1
    weight = [[-(v + bonus * (v > IOU_THRESHOLD)) for v in row] for row in ious]
    rows, cols = linear_sum_assignment(weight)
    paired = [ious[r][c] for r, c in zip(rows, cols, strict=True)]
    above = sum(1 for v in paired if v > IOU_THRESHOLD)
    return above == len(gold) == len(predicted), sum(paired) / len(gold)


# -- answers --------------------------------------------------------------------------------
def normalise_text(value: Any) -> str:
    """Lower case, with underscores and hyphens as spaces and runs of spaces as one."""
    text = value if isinstance(value, str) else json.dumps(value)
    return " ".join(re.sub(r"[_\-]", " ", text).lower().split()).rstrip(".")


def parse_count(value: Any) -> int:
    """An integer count from 3, 3.0, "3", " 3. ", "three" or a text with one number."""
    if isinstance(value, bool):
        raise ValueError(f"count is a boolean: {value}")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        raise ValueError(f"count is not a whole number: {value}")
    if isinstance(value, dict) and ("count" in value or "answer" in value):
        return parse_count(value.get("count", value.get("answer")))
    if isinstance(value, str):
        text = normalise_text(value)
        if re.fullmatch(r"[+-]?\d+(\.0+)?", text):
            return int(float(text))
        if text in _NUMBER_WORDS:
            return _NUMBER_WORDS[text]
        numbers = re.findall(r"\b\d+\b", text)
        if len(numbers) == 1:
            return int(numbers[0])
        raise ValueError(f"count is not a number: {value[:40]!r}")
    raise ValueError(f"count is not a number: {_short(value)}")


def _gold_boxes(gold: Any) -> list[list[float]]:
    boxes = gold.get("boxes") if isinstance(gold, dict) else gold
    return parse_boxes({"boxes": boxes}) if boxes is not None else []


def score_answer(question_task: str, gold_answer: Any, predicted: Any) -> Score:
    """Score one predicted answer to a question of task `vg`, `vqa-count` or `vqa-wh`
    (other tasks: by the gold answer's type). Never raises on a malformed prediction."""
    if gold_answer is None:
        return Score(False, None, NO_GOLD)
    vg = _is_vg(question_task, gold_answer)
    if isinstance(predicted, dict) and not vg and "answer" in predicted:
        predicted = predicted["answer"]  # {"answer": ...} as some exporters write it
    if predicted is None:
        return Score(False, 0.0 if vg else None, "no answer")
    if vg and isinstance(predicted, dict) and "track" in predicted:
        if not isinstance(gold_answer, dict) or not gold_answer.get("track"):
            return Score(False, 0.0, "a track for a question grounded in one frame")
        return score_track(gold_answer["track"], predicted["track"])
    if vg:
        try:
            gold = _gold_boxes(gold_answer)
        except ValueError as exc:
            return Score(False, None, f"question's gold box is unusable: {exc}")
        if not gold:
            return Score(False, None, "question has no gold box")
        try:
            boxes = parse_boxes(predicted)
        except ValueError as exc:
            return Score(False, 0.0, f"malformed: {exc}")
        ok, iou = match_boxes(gold, boxes)
        if ok:
            return Score(True, iou, f"IoU {iou:.2f} > {IOU_THRESHOLD}")
        if len(boxes) != len(gold):
            return Score(False, iou, f"{len(boxes)} box(es) for {len(gold)} target(s)")
        return Score(False, iou, f"IoU {iou:.2f} <= {IOU_THRESHOLD}")
    if question_task == "vqa-count" or (
        isinstance(gold_answer, int) and not isinstance(gold_answer, bool)
    ):
        try:
            got = parse_count(predicted)
            want = parse_count(gold_answer)
        except ValueError as exc:
            return Score(False, None, f"malformed: {exc}")
        return Score(got == want, None, f"counted {got}, answer {want}")
    golds = gold_answer if isinstance(gold_answer, list) else [gold_answer]
    got = normalise_text(predicted)
    if any(got == normalise_text(g) for g in golds):
        return Score(True, None, "same answer")
    return Score(False, None, f"{got!r} is not {normalise_text(golds[0])!r}")


def track_boxes(predicted: Any) -> dict[str, list[list[float]]]:
    """A predicted track as {image_id: boxes}: {"<image id>": box or boxes, ...} or
    [{"image_id": ..., "box" | "boxes": ...}, ...]. Raises ValueError when unreadable."""
    if isinstance(predicted, dict):
        items = list(predicted.items())
    elif isinstance(predicted, list):
        items = []
        for i, entry in enumerate(predicted):
            if not isinstance(entry, dict) or "image_id" not in entry:
                raise ValueError(f"track entry {i} needs an image_id and its box")
            items.append((entry["image_id"], entry.get("boxes", entry.get("box"))))
    else:
        raise ValueError("a track is {image_id: box} or a list of {image_id, box}")
    out = {}
    for image_id, boxes in items:
        try:
            out[str(image_id)] = parse_boxes(boxes)
        except ValueError as exc:
            raise ValueError(f"track frame {image_id}: {exc}") from None
    return out


def score_track(gold_track: Sequence[dict[str, Any]], predicted: Any) -> Score:
    """A predicted track against a video VG question's gold track (`TRACK_RULE`)."""
    try:
        got = track_boxes(predicted)
    except ValueError as exc:
        return Score(False, 0.0, f"malformed: {exc}")
    ious = []
    for frame in gold_track:
        gold = [b for b in frame.get("boxes") or [] if b is not None]
        if not gold:
            continue  # the target is not boxed in this frame: nothing to ground there
        boxes = got.get(str(frame.get("image_id")))
        ious.append(0.0 if not boxes else match_boxes(gold, boxes)[1])
    if not ious:
        return Score(False, None, "question's track has no gold box")
    mean = round(sum(ious) / len(ious), 4)
    verdict = ">" if mean > IOU_THRESHOLD else "<="
    return Score(
        mean > IOU_THRESHOLD,
        mean,
        f"track: mean IoU {mean:.2f} over {len(ious)} frames {verdict} {IOU_THRESHOLD}",
    )


def impossible_boxes(
    question_task: str,
    gold_answer: Any,
    predicted: Any,
    size: tuple[float, float] = (PANORAMA_WIDTH, PANORAMA_HEIGHT),
) -> str | None:
    """For a VG question, what makes a readable predicted box impossible on the panorama
    (`box_outside_image`), else None: such a box is in another format, and scoring it
    as [x, y, w, h] would put a wrong number in the results. Unreadable boxes are not
    judged here (they score as malformed)."""
    if not _is_vg(question_task, gold_answer):
        return None
    try:
        if isinstance(predicted, dict) and "track" in predicted:
            boxes = [b for frame in track_boxes(predicted["track"]).values() for b in frame]
        else:
            boxes = parse_boxes(predicted)
    except ValueError:
        return None
    for box in boxes:
        problem = box_outside_image(box, *size)
        if problem:
            return problem
    return None


def _is_vg(task: str, gold: Any) -> bool:
    return task == "vg" or (isinstance(gold, dict) and "boxes" in gold)


# -- steps ----------------------------------------------------------------------------------
def score_step(step: dict[str, Any], predicted: Any) -> bool:
    """Whether a predicted step (the entity set after it) matches the question's step:
    boxes (a list of boxes or {"boxes": [...]}) one-to-one with IoU > 0.5 against the
    step's `boxes`; a count against the number of its `entity_ids`; a list of entity ids
    (or {"entity_ids": [...]}) as a set. Anything else is incorrect."""
    if predicted is None or not isinstance(step, dict):
        return False
    ids = [str(e) for e in step.get("entity_ids") or []]
    if isinstance(predicted, dict) and "entity_ids" in predicted:
        predicted = predicted["entity_ids"]
    if isinstance(predicted, list) and predicted and all(isinstance(e, str) for e in predicted):
        return sorted(set(predicted)) == sorted(set(ids)) and len(predicted) == len(set(ids))
    if isinstance(predicted, int | float | str) or (
        isinstance(predicted, dict) and "count" in predicted
    ):
        try:
            return parse_count(predicted) == len(ids)
        except ValueError:
            return False
    try:
        boxes = parse_boxes(predicted)
        gold = parse_boxes({"boxes": step.get("boxes") or {}})
    except ValueError:
        return False
    if len(boxes) != len(gold) or (not gold and ids):
        return False  # (a step without boxes can only be checked by ids or a count)
    return match_boxes(gold, boxes)[0]


def score_steps(steps: Sequence[dict[str, Any]], predicted_steps: Any) -> list[bool] | None:
    """Per-step correctness against the question's steps; None when no steps were given.
    A missing predicted step, or a list that is not a list, counts as incorrect."""
    if predicted_steps is None:
        return None
    if not isinstance(predicted_steps, list):
        return [False] * len(steps)
    return [
        score_step(s, predicted_steps[k] if k < len(predicted_steps) else None)
        for k, s in enumerate(steps)
    ]


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
