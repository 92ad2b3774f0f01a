"""The MG-VQA question criteria, measured again from the simulator for a test.

Every check renders the whole scene, and each body alone with everything else hidden
(full images, `sim.render.render(..., hide=...)`), and never reads the generator's own
`criteria["measured"]`. `check_question` asserts every criterion of a question's task
on a question record (generated or authored) and the world it is about:

- Count: the answer is the number of bodies with the target name; with targets, at
  least one of them is at most the threshold visible.
- Find: a "yes" names a present target at most the threshold visible, with the point
  on it; a "no" is a name no body has.
- Beneath: the hidden object is at most the threshold visible; making the cover
  transparent reveals at least MIN_REVEAL of it; the answer names it (or "None of the
  above" when no other option does).
- Compare: the answer's object has the extreme volume of the three labelled objects,
  whose volumes differ in turn; at least one letter is at most LABEL_OCCLUDED in view.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from annotation.tabletop.question_text import NONE_OF_THE_ABOVE
from sim.camera import CameraSpec, project_points
from sim.render import render
from sim.tabletop.questions import LABEL_OCCLUDED, MIN_REVEAL, SIZE_RATIO

MARGIN = 0.02  # rasterisation at small test images, far under the mutations it must catch


def pixels(world, camera: CameraSpec, key: str, hide=()) -> int:
    seg = render(world, camera, hide=hide).segmentation
    return int(np.count_nonzero(seg == world.bodies[key].uid))


def alone(world, camera: CameraSpec, key: str) -> int:
    return pixels(world, camera, key, hide=[k for k in world.bodies if k != key])


def visible(world, camera: CameraSpec, key: str) -> float:
    whole = alone(world, camera, key)
    return pixels(world, camera, key) / whole if whole else 0.0


def reveal(world, camera: CameraSpec, cover: str, hidden: str) -> float:
    """How much more of `hidden` shows with `cover` transparent, of its pixels alone."""
    whole = alone(world, camera, hidden)
    before = pixels(world, camera, hidden)
    after = pixels(world, camera, hidden, hide=[cover])
    return (after - before) / whole if whole else 0.0


def letter_seen(world, camera: CameraSpec, key: str) -> float:
    """The share of a label's letter in view: dark pixels inside its decal's frame when the
    body is alone, and how many of them the scene shows of the body."""
    uid = world.bodies[key].uid
    shown_alone = render(world, camera, hide=[k for k in world.bodies if k != key])
    quad = world.decal_corners(key)
    centre = quad.mean(axis=0)
    corners, _ = project_points(camera, centre + 0.9 * (quad - centre))
    mask = Image.new("1", (camera.width, camera.height), 0)
    ImageDraw.Draw(mask).polygon([tuple(p) for p in corners], fill=1)
    ink = (shown_alone.segmentation == uid) & (shown_alone.rgb.astype(int).sum(axis=2) < 150)
    ink &= np.asarray(mask, dtype=bool)
    seen = ink & (render(world, camera).segmentation == uid)
    return seen.sum() / ink.sum() if ink.any() else 0.0


def volume(world, key: str) -> float:
    """A primitive's volume from the simulator's own collision shape."""
    body = world.bodies[key]
    dims = world.client.getCollisionShapeData(body.uid, -1)[0][3]
    if body.asset == "primitive:box":
        return dims[0] * dims[1] * dims[2]  # full extents
    return np.pi * dims[1] ** 2 * dims[0]  # cylinder: height, radius


def check_question(world, camera: CameraSpec, q: dict[str, Any], where: Any = "") -> None:
    """Assert every criterion of `q`'s task (a question record) on `world`."""
    threshold = q["criteria"]["max_evidence_visibility"] + MARGIN
    task = q["task"]
    if task == "count":
        target = q["criteria"]["measured"]["target"]
        instances = [b.key for b in world.objects() if b.name == target]
        assert q["answer"] == len(instances), where
        if instances:
            least = min(visible(world, camera, k) for k in instances)
            assert least <= threshold, (where, least)
    elif task == "find":
        target = q["criteria"]["measured"]["target"]
        present = [b.key for b in world.objects() if b.name == target]
        assert (q["answer"]["answer"] == "yes") == bool(present), where
        if present:
            (key,) = q["evidence_ids"]
            assert world.bodies[key].name == target, where
            assert visible(world, camera, key) <= threshold, where
            u, v = q["answer"]["point"]
            seg = render(world, camera, hide=[k for k in world.bodies if k != key]).segmentation
            ys, xs = np.nonzero(seg == world.bodies[key].uid)
            assert np.min(np.hypot(xs + 0.5 - u, ys + 0.5 - v)) <= 3, where
    elif task == "beneath":
        cover, hidden = q["evidence_ids"]
        assert visible(world, camera, hidden) <= threshold, where
        gain = reveal(world, camera, cover, hidden)
        assert gain >= MIN_REVEAL - MARGIN, (where, gain)
        name = world.bodies[hidden].name
        if q["answer"] == NONE_OF_THE_ABOVE:
            assert name not in q["options"][:-1], where
        else:
            assert q["answer"] == name, where
    elif task == "compare":
        letters = {k: world.bodies[k].texture.rsplit("/", 1)[1][0] for k in q["evidence_ids"]}
        volumes = {k: volume(world, k) for k in letters}
        ordered = sorted(volumes.values())
        assert all(b / a >= SIZE_RATIO * 0.85 for a, b in zip(ordered, ordered[1:], strict=False))
        pick = max if "largest" in q["text"] else min
        assert q["answer"] == letters[pick(volumes, key=volumes.get)], where
        least = min(letter_seen(world, camera, k) for k in letters)
        assert least <= LABEL_OCCLUDED + MARGIN, (where, least)
    else:
        raise AssertionError(f"no criteria for task {task!r}")
