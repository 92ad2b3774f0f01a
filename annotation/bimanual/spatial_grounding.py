"""Foundational spatial grounding (ST-BiBench, paper 003 section 3.2): which arm for which object.

Items put blocks on the dual-arm table (the RoboTwin frame: left arm at negative
x, right arm at positive x); the right answer for each block is the arm on its
side of the centreline, i.e. the sign of x. Three settings, as the paper's:

* ``sparse``: three blocks (red, green, blue);
* ``dense``: five blocks (red, green, blue, yellow, purple);
* ``cluttered``: the three blocks among distractors (a mug, a bowl, a bread
  roll, a tray, a sponge) that are not asked about.

A model's reply lists ``{"object": ..., "use_arm": "left" | "right"}``; replies
are read tolerantly (the paper's own prompt asks for unquoted JSON-like text).
Each asked object scores with the Gaussian-weighted spatial score

    S = 100                          if the predicted arm is the right one
    S = 100 * exp(-d^2 / (2 sigma^2))  otherwise, d = |x| (metres)

and an object the reply does not answer scores 0. `DEFAULT_SIGMA` = 0.10 m: in
our dual-arm world (docs/bimanual-world.md; bases at x = ±0.50 m, y = -0.45 m,
0.74 m horizontal reach) the far arm can still reach up to about 0.2 m past the
centreline on the near edge of the table and not at all on the far edge, so a
wrong arm close to the centreline keeps most of the score (88 at 0.05 m, 61 at
0.10 m, 32 at 0.15 m) while beyond 0.30 m, out of the far arm's reach
everywhere, almost nothing is left (1 at 0.30 m).
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from annotation.averages import AVERAGE_RULE, full_mean
from annotation.model_output import repair_json

SETTINGS = ("sparse", "dense", "cluttered")
DEFAULT_SIGMA = 0.10
TARGETS = {
    "sparse": ("red_block", "green_block", "blue_block"),
    "dense": ("red_block", "green_block", "blue_block", "yellow_block", "purple_block"),
    "cluttered": ("red_block", "green_block", "blue_block"),
}
DISTRACTORS = ("mug", "bowl", "bread", "tray", "sponge")
TABLE_X = (-0.35, 0.35)  # where objects are put (m), both sides of the centreline
TABLE_Y = (-0.25, 0.10)
TABLE_Z = 0.76  # a block's centre on the 0.74 m table top
MIN_GAP = 0.06  # objects' centres at least this far apart
CLEARANCE = 0.01  # and their footprints at least this far apart
MIN_ABS_X = 0.005  # no object right on the centreline: the answer must be defined
# Radius (m) of the circle around each object's footprint on the table, as the dual-arm
# world builds them (sim/bimanual/spatial_scene.py): 5 cm blocks, an 8 cm mug, a 13 cm bowl, a
# 12 x 7 cm bread roll, an 18 x 12 cm tray, a 9 x 6 cm sponge.
FOOTPRINT = {
    "block": 0.0354,
    "mug": 0.040,
    "bowl": 0.065,
    "bread": 0.070,
    "tray": 0.109,
    "sponge": 0.055,
}
# Heights (m) of the same objects: a mug or a bread roll standing in front of a block (nearer
# the robot, whose head camera looks over the table from behind the arms) would hide it.
HEIGHT = {"block": 0.05, "mug": 0.095, "bowl": 0.05, "bread": 0.06, "tray": 0.016, "sponge": 0.04}
# How far behind an object its sight shadow reaches per metre of height it has over what
# is behind it: the head camera is about 0.6 m above the table and 0.6 m behind its middle.
SIGHT_SLOPE = 1.2


@dataclass(frozen=True)
class GroundingItem:
    id: str
    setting: str
    objects: dict[str, tuple[float, float, float]]  # name -> position (RoboTwin frame)
    asked: tuple[str, ...]
    seed: int | None = None

    def answer(self, name: str) -> str:
        """The proximal arm: left for negative x, right for positive x."""
        return "left" if self.objects[name][0] < 0 else "right"

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "setting": self.setting,
            "seed": self.seed,
            "objects": {k: list(v) for k, v in self.objects.items()},
            "asked": list(self.asked),
            "answers": {name: self.answer(name) for name in self.asked},
        }


def generate_items(setting: str, n: int, seed: int) -> list[GroundingItem]:
    """`n` items of one setting, the same for the same seed."""
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {SETTINGS}, not {setting!r}")
    rng = random.Random(f"{setting}:{seed}")
    names = list(TARGETS[setting]) + (list(DISTRACTORS) if setting == "cluttered" else [])
    items = []
    for i in range(n):
        for _ in range(100):
            placed = _layout(rng, names)
            if placed is not None:
                break
        else:  # pragma: no cover - the table has room for far more than 8 objects
            raise RuntimeError(f"could not place the {setting} objects on the table")
        items.append(
            GroundingItem(f"{setting}-{seed}-{i}", setting, placed, TARGETS[setting], seed)
        )
    return items


def _layout(rng: random.Random, names: list[str]) -> dict[str, tuple[float, float, float]] | None:
    """Positions for `names` (in that order), or None when this attempt ran out of room.
    The largest objects are placed first: the small ones always find a gap after."""
    placed: dict[str, tuple[float, float, float]] = {}
    for name in sorted(names, key=footprint, reverse=True):
        for _ in range(200):
            x, y = rng.uniform(*TABLE_X), rng.uniform(*TABLE_Y)
            if abs(x) < MIN_ABS_X:
                continue
            if all(_apart(name, (x, y), o, p[:2]) for o, p in placed.items()):
                placed[name] = (round(x, 4), round(y, 4), TABLE_Z)
                break
        else:
            return None
    return {name: placed[name] for name in names}


def _apart(a: str, pa: tuple[float, float], b: str, pb: tuple[float, float]) -> bool:
    """Whether objects a at pa and b at pb neither touch nor hide one another's view."""
    front, behind = (a, b) if pa[1] < pb[1] else (b, a)
    return math.dist(pa, pb) >= min_gap(a, b) + sight_gap(front, behind)


def footprint(name: str) -> float:
    """Radius (m) of the circle around an object's footprint (blocks: any `*_block`)."""
    return FOOTPRINT[_kind(name)]


def _kind(name: str) -> str:
    return "block" if name.endswith("_block") else name


def sight_gap(front: str, behind: str) -> float:
    """Extra distance between a taller object and a block behind it (further from the
    robot), so that the head camera sees over it; 0 for anything else."""
    if _kind(behind) != "block":
        return 0.0
    rise = HEIGHT[_kind(front)] - HEIGHT["block"]
    return SIGHT_SLOPE * rise if rise > 0 else 0.0


def min_gap(a: str, b: str) -> float:
    """Smallest distance between two objects' centres: their footprints never touch."""
    return max(MIN_GAP, footprint(a) + footprint(b) + CLEARANCE)


def spatial_score(
    x: float, predicted: str | None, correct: str, sigma: float = DEFAULT_SIGMA
) -> float:
    """The Gaussian-weighted spatial score of one object (0 when not answered)."""
    if sigma <= 0:
        raise ValueError(f"sigma must be positive, not {sigma}")
    if predicted is None:
        return 0.0
    if predicted == correct:
        return 100.0
    return 100.0 * math.exp(-(x * x) / (2 * sigma * sigma))


_PAIR = re.compile(
    r"object\W{0,6}?[:=]\W*([A-Za-z][\w ]*?)\W*[,;\n]\s*\W*use_arm\W{0,6}?[:=]\W*(left|right)",
    re.IGNORECASE,
)


def parse_arm_choices(reply: str) -> tuple[dict[str, str], list[str]]:
    """({object: "left" | "right"}, notes) from a model's reply, read tolerantly.

    JSON (repaired where needed) with a ``results`` list is read first; failing that,
    ``object: X ... use_arm: LEFT`` pairs are picked out of the text. Names are
    lower-cased with spaces as underscores; arms are lower-cased. An object answered
    twice with different arms keeps its first answer, with a note (a model must not
    score by hedging: "left" then "right" is not a right answer).
    """
    notes: list[str] = []
    value, repairs, _why = repair_json(reply)
    found: dict[str, str] = {}

    def add(name: str, arm: str) -> None:
        first = found.setdefault(name, arm)
        if first != arm:
            notes.append(f"{name} answered twice ({first}, then {arm}): the first is scored")

    if isinstance(value, Mapping):
        results = next((v for k, v in value.items() if str(k).lower() == "results"), None)
        for entry in results if isinstance(results, list) else []:
            if not isinstance(entry, Mapping):
                continue
            low = {str(k).lower(): v for k, v in entry.items()}
            name, arm = low.get("object"), str(low.get("use_arm", "")).strip("() ").lower()
            if isinstance(name, str) and arm in ("left", "right"):
                add(_name(name), arm)
        notes += [f"repaired: {r}" for r in repairs]
    if not found:
        for name, arm in _PAIR.findall(reply or ""):
            add(_name(name), arm.lower())
        if found:
            notes.append("read object/use_arm pairs from the text")
    if not found:
        notes.append("no object/use_arm pairs found")
    return found, notes


def _name(text: str) -> str:
    return "_".join(text.strip().strip("()").lower().split())


@dataclass
class GroundingScore:
    item_id: str
    setting: str
    per_object: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(self.per_object.values()) / len(self.per_object) if self.per_object else 0.0


def score_item(
    item: GroundingItem, choices: Mapping[str, str], sigma: float = DEFAULT_SIGMA
) -> GroundingScore:
    out = GroundingScore(item.id, item.setting)
    for name in item.asked:
        out.per_object[name] = spatial_score(
            item.objects[name][0], choices.get(name), item.answer(name), sigma
        )
    return out


def averages(scores: Iterable[GroundingScore]) -> dict[str, Any]:
    """Mean score per setting, with counts, and "avg": the mean of the three settings'
    means (each weighing the same, as the paper's Avg. column); its score is None, and
    "missing" lists the settings, when any setting has no items."""
    by: dict[str, list[float]] = {}
    for s in scores:
        by.setdefault(s.setting, []).append(s.score)
    out: dict[str, Any] = {
        k: {"n": len(v), "score": sum(v) / len(v)} for k, v in sorted(by.items())
    }
    mean, missing = full_mean({k: v["score"] for k, v in out.items()}, SETTINGS)
    out["avg"] = {"n": sum(len(v) for v in by.values()), "score": mean, "missing": missing}
    return out


# -- what a model is given --------------------------------------------------------------
def prompt_text(item: GroundingItem) -> str:
    """The text a model gets with the item's head-camera image (the information of the
    paper's appendix F.1 prompt, in our words): decide the arm per listed object, answer as
    a ``results`` list of ``{object, use_arm}``, strict JSON without quotes in the text."""
    example = ",\n".join(f"    {{object: {name}, use_arm: (LEFT OR RIGHT)}}" for name in item.asked)
    return (
        "You are the assistant of a robot with two arms, a left arm and a right arm, "
        "working at a table. No manipulation is needed now: look at the image and decide, "
        "for each object listed below, which arm (left or right) should grasp it.\n\n"
        "The image shows the two robot arms and some objects on the table. Objects to "
        f"decide: {', '.join(item.asked)}.\n\n"
        "Answer with one JSON object with two keys:\n"
        "- visual_state_description: what you see, including roughly where each listed "
        "object is (for example in the left or the right part of the table);\n"
        "- results: a list with one entry per listed object, each an object with the keys "
        "object (its name as written above) and use_arm (LEFT or RIGHT).\n\n"
        "Keep the JSON strict. Write words out in full instead of contractions with "
        "apostrophes (is not, do not, it is). Put no quotation marks inside the text "
        "values: write a name as RED_BLOCK or (red_block). Write nothing before or after "
        "the JSON and no code fences.\n\n"
        "The shape of the answer, with LEFT or RIGHT chosen for each object:\n"
        "{\n"
        "  visual_state_description: (WHAT YOU SEE AND ROUGHLY WHERE THE OBJECTS ARE),\n"
        "  results: [\n"
        f"{example}\n"
        "  ]\n"
        "}\n"
    )


# -- what a model answered ----------------------------------------------------------------
def choices_from_results(results: Any) -> tuple[dict[str, str], list[str]]:
    """({object: arm}, notes) from an already-parsed ``results`` list, read as tolerantly
    as a reply (names normalised, arms lower-cased, entries without an arm skipped)."""
    if not isinstance(results, list):
        return {}, ["'results' is not a list", "no object/use_arm pairs found"]
    return parse_arm_choices(json.dumps({"results": results}))


@dataclass(frozen=True)
class ObjectScore:
    """One asked object of a prediction: the arm given (None: not answered), the right
    arm, the object's distance |x| from the centreline and its score."""

    object: str
    predicted: str | None
    correct: str
    distance: float
    score: float


@dataclass
class SpatialPrediction:
    """A model's answer to one grounding item, as read and scored when imported."""

    item_id: str
    setting: str
    model: str
    reply: str | None  # the raw reply text; None when the file gave a parsed results list
    choices: dict[str, str]
    notes: list[str]
    sigma: float
    objects: list[ObjectScore]
    source: str = ""
    imported_at: str = ""
    id: int | None = None

    @property
    def readable(self) -> bool:
        """Whether any object/use_arm pair could be read from the reply."""
        return bool(self.choices)

    @property
    def score(self) -> float:
        return sum(o.score for o in self.objects) / len(self.objects) if self.objects else 0.0

    def rescored(self, sigma: float) -> GroundingScore:
        """The item's score with another sigma (from the stored arms and distances)."""
        out = GroundingScore(self.item_id, self.setting, notes=list(self.notes))
        for o in self.objects:
            out.per_object[o.object] = spatial_score(o.distance, o.predicted, o.correct, sigma)
        return out


def score_prediction(
    item: GroundingItem,
    model: str,
    *,
    reply: str | None = None,
    results: Any = None,
    sigma: float = DEFAULT_SIGMA,
    source: str = "",
) -> SpatialPrediction:
    """Read a raw `reply` (or a parsed `results` list) and score it against `item`.
    Unreadable output is not an error: its objects score 0 and the notes say why."""
    if reply is not None:
        choices, notes = parse_arm_choices(reply)
    else:
        choices, notes = choices_from_results(results)
    objects = [
        ObjectScore(
            name,
            choices.get(name),
            item.answer(name),
            abs(item.objects[name][0]),
            spatial_score(item.objects[name][0], choices.get(name), item.answer(name), sigma),
        )
        for name in item.asked
    ]
    missing = [o.object for o in objects if o.predicted is None]
    if choices and missing:
        notes = [*notes, f"no arm for {', '.join(missing)}"]
    return SpatialPrediction(
        item.id, item.setting, model, reply, choices, notes, sigma, objects, source
    )


def summarise(predictions: Iterable[SpatialPrediction], sigma: float) -> dict[str, Any]:
    """Per model: each setting's mean item score (0-100) and item count, and "average",
    the mean of all three settings (the paper's Avg.; null with the settings in
    "missing" when the model has no items of one); scored with `sigma`.

    ``{"sigma": s, "settings": {...}, "by_model": {model: {"sparse": {"score": ..,
    "items": n}, .., "average": .., "missing": [..]}}}``; a setting without items is
    left out of its row."""
    by_model: dict[str, list[GroundingScore]] = {}
    for p in predictions:
        by_model.setdefault(p.model, []).append(p.rescored(sigma))
    out: dict[str, Any] = {}
    for model in sorted(by_model):
        table = averages(by_model[model])
        row: dict[str, Any] = {
            s: {"score": table[s]["score"], "items": table[s]["n"]} for s in SETTINGS if s in table
        }
        row["average"] = table["avg"]["score"]
        row["missing"] = table["avg"]["missing"]
        out[model] = row
    return {"sigma": sigma, "settings": spatial_settings(sigma), "by_model": out}


def spatial_settings(sigma: float) -> dict[str, str]:
    """The choices behind the spatial grounding numbers, reported with them."""
    return {
        "sigma": f"{sigma:g} m (the paper gives none; ours is fitted to the arms' reach, "
        "docs/spatial-grounding.md)",
        "score": "100 for the arm on the object's side of the centreline, "
        "100 exp(-x^2 / 2 sigma^2) for the other arm, 0 for an object not answered",
        "conflicting_answers": "an object answered twice with different arms: the first "
        "answer is scored (a note says so)",
        "item": "the mean over the item's asked objects",
        "average": f"Avg.: {AVERAGE_RULE}",
    }


@dataclass(frozen=True)
class SpatialImportReport:
    """What one predictions import did."""

    source: str
    sigma: float
    imported: int
    unreadable: int
    replaced: int
    by_model: dict[str, dict[str, int]]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)
