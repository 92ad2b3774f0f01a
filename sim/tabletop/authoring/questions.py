"""Questions authored on a chosen scene (MG-VQA-Hard): the author names the objects, the
checks are the generators' own.

`author_question(world, task, targets)` measures what `sim.tabletop.questions` measures
when it samples a question, on the objects the author chose instead of sampled ones, and
returns the question, or `CriterionFailed` saying which criterion fails and by how much:

- count: objects of one catalog kind; at least one hidden (visibility <= threshold).
- find: one catalog kind; present and hidden, or absent from the scene (answer "no").
- beneath: a cover the model can see and the object it hides; making the cover
  transparent reveals at least MIN_REVEAL of the hidden object.
- compare: three box objects that get the letters A, B, C (in the order given); at least
  one letter occluded (<= LABEL_OCCLUDED of it in view), sizes clearly apart.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from annotation.tabletop.question_text import (
    NONE_OF_THE_ABOVE,
    beneath_steps,
    phrase,
    plural,
    with_article,
)
from sim.camera import project_points
from sim.render import counterfactual_visibility, label_pixels, render, visibility
from sim.tabletop.catalog import catalog_by_name, load_catalog
from sim.tabletop.labels import LABEL_SHAPES, LETTER_MIN_PIXELS, attach_labels
from sim.tabletop.questions import LABEL_OCCLUDED, MAX_VISIBILITY, MIN_REVEAL, SIZE_RATIO
from sim.tabletop.world import MODEL_IMAGE_SIZE, TOP_DOWN, TabletopWorld

GENERATOR = "authored/1"
EXTREMES = ("largest", "smallest")


class CriterionFailed(ValueError):
    """A question that does not meet a criterion: which one, the measured value, the limit."""

    def __init__(self, criterion: str, message: str, measured: dict[str, Any]) -> None:
        super().__init__(f"{criterion}: {message}")
        self.criterion, self.measured = criterion, measured


@dataclass
class AuthoredQuestion:
    record: dict[str, Any]  # the question as `questions.add` stores it (no scene id yet)
    relabelled: bool  # compare: the scene now carries the letters and must be stored anew


def _keys_named(world: TabletopWorld, name: str) -> list[str]:
    return [b.key for b in world.objects() if b.name == name or b.key == name]


def _one(world: TabletopWorld, name: str) -> str:
    keys = _keys_named(world, name)
    if not keys:
        raise ValueError(f"no object {name!r} in the scene")
    if len(keys) > 1:
        raise ValueError(f"{len(keys)} objects are {name!r}: name one by its id ({keys})")
    return keys[0]


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _criteria(threshold: float, vis: dict[str, float], **measured: Any) -> dict[str, Any]:
    return {
        "max_evidence_visibility": threshold,
        "generator": GENERATOR,
        "measured": {"visibility": {k: round(v, 4) for k, v in vis.items()}, **measured},
    }


def author_question(
    world: TabletopWorld,
    task: str,
    targets: list[str],
    *,
    threshold: float = MAX_VISIBILITY,
    image_size: int = MODEL_IMAGE_SIZE,
    extreme: str = "largest",
    seed: int = 0,
) -> AuthoredQuestion:
    """The `task` question about `targets` (catalog names or object ids) in `world`'s
    current state; CriterionFailed when a criterion fails, ValueError for bad targets."""
    camera = TOP_DOWN.with_size(image_size, image_size)
    rng = random.Random(f"{GENERATOR}:{task}:{':'.join(targets)}:{seed}")
    if task in ("count", "find"):
        if len(targets) != 1:
            raise ValueError(f"{task} asks about one kind of object, not {len(targets)}")
        return (_count if task == "count" else _find)(world, targets[0], camera, threshold, rng)
    if task == "beneath":
        if len(targets) != 2:
            raise ValueError("beneath needs two objects: the cover, then the hidden one")
        return _beneath(world, targets, camera, threshold, rng)
    if task == "compare":
        if len(targets) != 3 or extreme not in EXTREMES:
            raise ValueError(
                "compare needs three objects (labelled A, B, C in that order) "
                "and --extreme largest or smallest"
            )
        return _compare(world, targets, camera, threshold, rng, extreme)
    raise ValueError(f"task must be count, find, beneath or compare, not {task!r}")


def _record(task, text, options, answer, evidence, steps, difficulty, criteria) -> dict:
    s, r = difficulty
    return {
        "benchmark": "mgvqa",
        "task": task,
        "text": text,
        "options": options,
        "answer": answer,
        "evidence_ids": evidence,
        "steps": steps,
        "difficulty": {"S": s, "R": r, "T": 1, "D": s + r + 1},
        "criteria": criteria,
        "seed": None,
    }


def _count(world, name, camera, threshold, rng) -> AuthoredQuestion:
    keys = _keys_named(world, name)
    vis = {k: v.fraction for k, v in visibility(world, camera, keys).items()}
    if keys and min(vis.values()) > threshold:
        least = min(vis, key=vis.get)
        raise CriterionFailed(
            "max_evidence_visibility",
            f"every {name} shows above "
            f"{_percent(threshold)}; the most hidden, {least}, shows "
            f"{_percent(vis[least])}",
            {"visibility": vis},
        )
    names = plural(world.bodies[keys[0]].name if keys else name)
    hidden = [k for k in keys if vis[k] <= threshold]
    steps = [
        {
            "description": f"find the {names} visible in the first view",
            "entity_ids": [k for k in keys if k not in hidden],
        },
        {"description": f"uncover the clutter where more {names} may hide", "entity_ids": hidden},
        {"description": f"count all {names}: {len(keys)}", "entity_ids": keys},
    ]
    criteria = _criteria(threshold, vis, k=len(keys), target=name)
    text = phrase("count", rng, plural=names)
    return AuthoredQuestion(
        _record("count", text, None, len(keys), keys, steps, (max(1, len(keys)), 0), criteria),
        False,
    )


def _find(world, name, camera, threshold, rng) -> AuthoredQuestion:
    keys = _keys_named(world, name)
    shown = world.bodies[keys[0]].name if keys else name
    look = {"description": f"look for a {shown} in the first view: none shows", "entity_ids": []}
    if not keys:
        answer: dict[str, Any] = {"answer": "no", "point": None}
        steps = [
            look,
            {"description": "search under the clutter: none is there either", "entity_ids": []},
        ]
        vis: dict[str, float] = {}
    else:
        key = keys[0]
        vis = {k: v.fraction for k, v in visibility(world, camera, [key]).items()}
        if vis[key] > threshold:
            raise CriterionFailed(
                "max_evidence_visibility",
                f"the {shown} ({key}) shows "
                f"{_percent(vis[key])} of itself in the model's view; at "
                f"most {_percent(threshold)}",
                {"visibility": vis},
            )
        centre = world.client.getBasePositionAndOrientation(world.bodies[key].uid)[0]
        uv, _ = project_points(camera, [centre])
        answer = {"answer": "yes", "point": [round(float(uv[0, 0]), 1), round(float(uv[0, 1]), 1)]}
        steps = [
            look,
            {
                "description": f"move the clutter covering it to reveal the {shown}",
                "entity_ids": [key],
            },
            {"description": "point to it", "entity_ids": [key]},
        ]
    criteria = _criteria(threshold, vis, present=bool(keys), target=name)
    text = phrase("find", rng, a_name=with_article(shown))
    return AuthoredQuestion(
        _record("find", text, ["yes", "no"], answer, keys[:1], steps, (1, 0), criteria), False
    )


def _beneath(world, targets, camera, threshold, rng) -> AuthoredQuestion:
    cover, hidden = _one(world, targets[0]), _one(world, targets[1])
    keys = [b.key for b in world.objects()]
    view = render(world, camera)
    measured = visibility(world, camera, keys, view=view)
    vis = {k: v.fraction for k, v in measured.items()}
    alone = {k: v.alone_px for k, v in measured.items()}
    pair = {hidden: vis[hidden], cover: vis[cover]}
    if vis[cover] <= threshold:
        raise CriterionFailed(
            "cover_visible",
            f"the cover {cover} shows only "
            f"{_percent(vis[cover])}; the model must see it (more than "
            f"{_percent(threshold)})",
            {"visibility": pair},
        )
    if vis[hidden] > threshold:
        raise CriterionFailed(
            "max_evidence_visibility",
            f"{hidden} shows {_percent(vis[hidden])}; at most {_percent(threshold)}",
            {"visibility": pair},
        )
    gains = counterfactual_visibility(
        world, camera, cover, keys=[k for k in keys if k != cover], view=view, alone=alone
    )
    gain = gains.get(hidden, 0.0)
    if gain < MIN_REVEAL:
        raise CriterionFailed(
            "reveal",
            f"making {cover} transparent reveals {_percent(gain)} of "
            f"{hidden}; at least {_percent(MIN_REVEAL)}",
            {"visibility": pair, "reveal": gain},
        )
    cover_name, hidden_name = world.bodies[cover].name, world.bodies[hidden].name
    if cover_name == hidden_name:
        raise ValueError(f"the cover and the hidden object are both {cover_name}")
    under = {world.bodies[k].name for k, g in gains.items() if g >= MIN_REVEAL}
    distractors = [
        e.name
        for e in rng.sample(load_catalog(), len(load_catalog()))
        if e.name not in under and e.name != cover_name
    ]
    options = [hidden_name, *distractors[:2]]
    rng.shuffle(options)
    options.append(NONE_OF_THE_ABOVE)
    steps = beneath_steps(cover, cover_name, hidden, hidden_name)
    criteria = _criteria(
        threshold, pair, reveal=round(gain, 4), cover=cover_name, none_of_the_above=False
    )
    text = phrase("beneath", rng, cover=cover_name)
    return AuthoredQuestion(
        _record("beneath", text, options, hidden_name, [cover, hidden], steps, (2, 1), criteria),
        False,
    )


def _compare(world, targets, camera, threshold, rng, extreme) -> AuthoredQuestion:
    keys = [_one(world, t) for t in targets]
    if len(set(keys)) != 3:
        raise ValueError("compare needs three different objects")
    catalog = catalog_by_name()
    volumes = {}
    for key in keys:
        body = world.bodies[key]
        entry = catalog.get(body.name)
        if entry is None or not entry.is_primitive or entry.shape not in LABEL_SHAPES:
            raise ValueError(
                f"{key} ({body.name}) has no flat face for a label: "
                f"Compare labels go on a box's or a cylinder's upward face"
            )
        volumes[key] = entry.volume(body.scale)
    ordered = sorted(keys, key=volumes.get)
    ratios = [volumes[b] / volumes[a] for a, b in zip(ordered, ordered[1:], strict=False)]
    if min(ratios) < SIZE_RATIO * 0.85:
        raise CriterionFailed(
            "sizes_apart",
            f"two of the objects differ by {min(ratios):.2f}x "
            f"in volume; at least {SIZE_RATIO * 0.85:.2f}x",
            {"volume_ratios": ratios},
        )
    label_of = dict(zip(keys, ("A", "B", "C"), strict=True))
    unlabelled = attach_labels(world, label_of, camera)
    if unlabelled:
        raise CriterionFailed("label_patch", unlabelled, {})
    letters = label_pixels(world, camera, keys)
    faint = [k for k, (alone, _) in letters.items() if alone < LETTER_MIN_PIXELS]
    if faint:
        raise CriterionFailed(
            "label_patch",
            f"the label on {world.bodies[faint[0]].name} does not show even alone",
            {"letter_px": {label_of[k]: letters[k][0] for k in keys}},
        )
    seen = {k: shown / alone for k, (alone, shown) in letters.items()}
    if min(seen.values()) > LABEL_OCCLUDED:
        worst = min(seen, key=seen.get)
        raise CriterionFailed(
            "label_occluded",
            f"every letter is readable; the most hidden, "
            f"{label_of[worst]}, shows {_percent(seen[worst])} (at most "
            f"{_percent(LABEL_OCCLUDED)} for one)",
            {"label_visibility": seen},
        )
    target = ordered[-1] if extreme == "largest" else ordered[0]
    readable = [k for k in keys if seen[k] > LABEL_OCCLUDED]
    steps = [
        {
            "description": "read the labels in view: "
            + (", ".join(label_of[k] for k in readable) or "none"),
            "entity_ids": readable,
        },
        {
            "description": "uncover the hidden labels",
            "entity_ids": [k for k in keys if k not in readable],
        },
        {"description": "compare the three objects' sizes", "entity_ids": keys},
        {"description": f"the {extreme} is {label_of[target]}", "entity_ids": [target]},
    ]
    criteria = _criteria(
        threshold,
        {},
        label_visibility={label_of[k]: round(v, 4) for k, v in seen.items()},
        label_occluded_below=LABEL_OCCLUDED,
        volumes_m3={label_of[k]: round(v, 7) for k, v in volumes.items()},
        labels={label_of[k]: world.bodies[k].name for k in keys},
    )
    text = phrase("compare", rng, extreme=extreme)
    return AuthoredQuestion(
        _record("compare", text, ["A", "B", "C"], label_of[target], keys, steps, (3, 2), criteria),
        True,
    )
