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

import math
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

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
MIN_ABS_X = 0.005  # no object right on the centreline: the answer must be defined


@dataclass(frozen=True)
class GroundingItem:
    id: str
    setting: str
    objects: dict[str, tuple[float, float, float]]  # name -> position (RoboTwin frame)
    asked: tuple[str, ...]

    def answer(self, name: str) -> str:
        """The proximal arm: left for negative x, right for positive x."""
        return "left" if self.objects[name][0] < 0 else "right"

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "setting": self.setting,
            "objects": {k: list(v) for k, v in self.objects.items()},
            "asked": list(self.asked),
            "answers": {name: self.answer(name) for name in self.asked},
        }


def generate_items(setting: str, n: int, seed: int) -> list[GroundingItem]:
    """`n` items of one setting, the same for the same seed."""
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {SETTINGS}, not {setting!r}")
    rng = random.Random(f"{setting}:{seed}")
    items = []
    for i in range(n):
        names = list(TARGETS[setting]) + (list(DISTRACTORS) if setting == "cluttered" else [])
        placed: dict[str, tuple[float, float, float]] = {}
        for name in names:
            for _ in range(1000):
                x, y = rng.uniform(*TABLE_X), rng.uniform(*TABLE_Y)
                if abs(x) < MIN_ABS_X:
                    continue
                if all(math.dist((x, y), p[:2]) >= MIN_GAP for p in placed.values()):
                    placed[name] = (round(x, 4), round(y, 4), TABLE_Z)
                    break
            else:
                raise RuntimeError(f"could not place {name} on the table")
        items.append(GroundingItem(f"{setting}-{seed}-{i}", setting, placed, TARGETS[setting]))
    return items


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
    lower-cased with spaces as underscores; arms are lower-cased.
    """
    notes: list[str] = []
    value, repairs, _why = repair_json(reply)
    found: dict[str, str] = {}
    if isinstance(value, Mapping):
        results = next((v for k, v in value.items() if str(k).lower() == "results"), None)
        for entry in results if isinstance(results, list) else []:
            if not isinstance(entry, Mapping):
                continue
            low = {str(k).lower(): v for k, v in entry.items()}
            name, arm = low.get("object"), str(low.get("use_arm", "")).strip("() ").lower()
            if isinstance(name, str) and arm in ("left", "right"):
                found[_name(name)] = arm
        notes += [f"repaired: {r}" for r in repairs]
    if not found:
        for name, arm in _PAIR.findall(reply or ""):
            found[_name(name)] = arm.lower()
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
    """Mean score per setting, with counts, and "avg": the mean of the settings' means
    (each setting weighs the same, as the paper's Avg. column)."""
    by: dict[str, list[float]] = {}
    for s in scores:
        by.setdefault(s.setting, []).append(s.score)
    out: dict[str, Any] = {
        k: {"n": len(v), "score": sum(v) / len(v)} for k, v in sorted(by.items())
    }
    means = [v["score"] for v in out.values()]
    out["avg"] = {
        "n": sum(len(v) for v in by.values()),
        "score": sum(means) / len(means) if means else None,
    }
    return out
