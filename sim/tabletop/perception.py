"""What the MG-VQA perception tools return when read from the simulator: the oracle.

The paper's `perceive_scene` asks a VLM that sees only the image
(`sim.tabletop.vlm_perception.VLMPerceiver`, the default for model runs). The
`OraclePerceiver` here reads the simulator instead: an upper bound, and the perception
of the chance and scripted agents. It lists an object only when the camera shows more
of it than the question construction allows an answer-critical object to show
(`WITHHELD_VISIBILITY`, the same number generation uses), so it never names what a
question counts as withheld. `find_object` here cuts the object's region out of the
segmentation buffer (the oracle segmenter); `sim.tabletop.segment` segments from the
image alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from sim.camera import CameraSpec
from sim.render import RenderedView, label_visibility, render, visibility
from sim.tabletop.labels import label_letter
from sim.tabletop.questions import MAX_VISIBILITY
from sim.tabletop.world import TabletopWorld

MIN_VISIBLE_PX = 25  # fewer visible pixels than this: too little to perceive
# An object showing at most this fraction of itself is withheld from the oracle's list:
# the question construction's own threshold (one number, read by both).
WITHHELD_VISIBILITY = MAX_VISIBILITY
SIDE_MARGIN_PX = 8  # centroids closer than this in u (or v) are neither left nor right
LABEL_READABLE = 0.5  # share of a letter label's pixels in view for the letter to be read


@dataclass(frozen=True)
class SeenObject:
    id: int  # the object's index in this perception (what the model refers to)
    name: str
    point: tuple[int, int]  # a pixel on the object's visible region (u, v)
    bbox: tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive) of the visible region
    visible_px: int


@dataclass(frozen=True)
class Perception:
    description: str
    objects: list[SeenObject]
    relations: list[tuple[int, str, int]]  # (subject id, predicate, object id)
    body_keys: dict[int, str] = field(
        default_factory=dict, compare=False
    )  # for replay, not the model

    def as_tool_result(self) -> dict:
        """What the agent receives: names, points, relations; no hidden objects, no body ids."""
        return {
            "description": self.description,
            "objects": [{"id": o.id, "name": o.name, "point": list(o.point)} for o in self.objects],
            "relations": [
                {"subject": s, "predicate": p, "object": o} for s, p, o in self.relations
            ],
        }


class Perceiver(Protocol):
    name: str  # recorded with every episode ("oracle", "vlm")
    model: str  # the perception model, "" for none

    def perceive(
        self, world: TabletopWorld, camera: CameraSpec, view: RenderedView | None = None
    ) -> Perception:
        """The scene now (`view`: the world rendered by `camera` now, if the caller has it)."""
        ...


def on_object_point(mask: np.ndarray) -> tuple[int, int]:
    """The visible pixel closest to the region's centroid (the centroid may fall off a ring)."""
    ys, xs = np.nonzero(mask)
    cy, cx = ys.mean(), xs.mean()
    i = int(np.argmin((ys - cy) ** 2 + (xs - cx) ** 2))
    return int(xs[i]), int(ys[i])


class OraclePerceiver:
    """Scene graph of the objects the camera shows more of than a withheld one may show,
    from the segmentation image and contacts."""

    name = "oracle"
    model = ""  # no perception model

    def perceive(
        self, world: TabletopWorld, camera: CameraSpec, view: RenderedView | None = None
    ) -> Perception:
        view = view or render(world, camera)
        seg = view.segmentation
        seen: list[SeenObject] = []
        keys: dict[int, str] = {}
        uids, counts = np.unique(seg, return_counts=True)
        shown = dict(zip(uids.tolist(), counts.tolist(), strict=True))
        candidates = [b.key for b in world.objects() if shown.get(b.uid, 0) >= MIN_VISIBLE_PX]
        fractions = visibility(world, camera, candidates, view=view) if candidates else {}
        withheld = {k for k, v in fractions.items() if v.fraction <= WITHHELD_VISIBILITY}
        labelled = {b.key: label_letter(b.texture) for b in world.objects()}
        labelled = {key: letter for key, letter in labelled.items() if letter}
        readable = label_visibility(world, camera, labelled, view=view) if labelled else {}
        for body in world.objects():
            if body.key not in fractions or body.key in withheld:
                continue
            mask = seg == body.uid
            n = int(mask.sum())
            ys, xs = np.nonzero(mask)
            oid = len(seen)
            name = body.name
            if readable.get(body.key, 0.0) >= LABEL_READABLE:  # the letter can be read
                name = f"{name} labelled {labelled[body.key]}"
            seen.append(
                SeenObject(
                    oid,
                    name,
                    on_object_point(mask),
                    (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1),
                    n,
                )
            )
            keys[oid] = body.key
        relations = _relations(world, seen, keys)
        names = ", ".join(o.name for o in seen) or "nothing"
        description = (
            f"A cluttered table seen from above. {len(seen)} objects can be seen: {names}."
            if seen
            else "A table seen from above; no objects can be seen."
        )
        return Perception(description, seen, relations, keys)


def _relations(
    world: TabletopWorld, seen: list[SeenObject], keys: dict[int, str]
) -> list[tuple[int, str, int]]:
    """Image-frame left/right and behind/in front (image top = away from the robot), plus 'on' from contacts."""
    out = []
    for a in seen:
        for b in seen:
            if a.id >= b.id:
                continue
            du, dv = b.point[0] - a.point[0], b.point[1] - a.point[1]
            if abs(du) >= SIDE_MARGIN_PX:
                out.append((a.id, "left of", b.id) if du > 0 else (a.id, "right of", b.id))
            if abs(dv) >= SIDE_MARGIN_PX:
                out.append((a.id, "behind", b.id) if dv > 0 else (a.id, "in front of", b.id))
            ua, ub = world.bodies[keys[a.id]].uid, world.bodies[keys[b.id]].uid
            if world.client.getContactPoints(ua, ub):
                za = world.client.getBasePositionAndOrientation(ua)[0][2]
                zb = world.client.getBasePositionAndOrientation(ub)[0][2]
                out.append((a.id, "on", b.id) if za > zb else (b.id, "on", a.id))
    return out


@dataclass(frozen=True)
class ObjectMask:
    mask: np.ndarray  # bool (H, W): the visible region of the object at the point
    bbox: tuple[int, int, int, int]
    area_px: int
    body_key: str  # for recording and replay; not shown to the model


def find_object(
    world: TabletopWorld,
    camera: CameraSpec,
    point: tuple[int, int],
    *,
    view: RenderedView | None = None,
) -> ObjectMask:
    """The visible region of the object under `point`; ValueError when there is none."""
    view = view or render(world, camera)
    u, v = int(point[0]), int(point[1])
    h, w = view.segmentation.shape
    if not (0 <= u < w and 0 <= v < h):
        raise ValueError(f"point ({u}, {v}) is outside the {w}x{h} image")
    info = world.info(int(view.segmentation[v, u]))
    if info is None or info.role != "object":
        raise ValueError(
            f"no object at ({u}, {v}): that is the {info.name if info else 'background'}"
        )
    mask = view.segmentation == info.uid
    ys, xs = np.nonzero(mask)
    return ObjectMask(
        mask,
        (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1),
        int(mask.sum()),
        info.key,
    )
