"""The scene graph of a tabletop world: the full simulator state, as the annotator sees it.

Every object is in the graph, seen or not; each carries ``visible_fraction``
(its front-most pixels in the camera's segmentation / its pixels rendered
alone, `sim.render.visibility`) so consumers can keep what the camera shows.
One time slot (0). Definitions and thresholds: docs/scene-graphs.md.

* Entities: objects (role ``object``: kind object, id the body key), the
  table and the basket (kind surface), the gripper (kind robot) when the
  world has a robot.
* ``support``: ``on`` / ``under`` between objects in contact (the one with the
  higher centre is on the other), ``on`` the table for an object touching it.
* ``spatial``: ``left of`` / ``right of`` / ``behind`` / ``in front of``
  between objects, from their AABB centres dropped to the table top and
  projected into the camera image, with a pixel margin (image top = behind =
  away from the robot for the top-down camera), both
  directions of each pair; ``near`` both ways when the centres are closer than
  `NEAR_M`; ``in basket`` (`sim.tabletop.grasp.in_basket`).
* ``state``: ``held by`` the gripper (both fingers touching, as the grasp
  tool decides).
"""

from __future__ import annotations

import numpy as np

from annotation.scene_graph import Entity, Relation, SceneGraph
from sim.camera import CameraSpec, project_points
from sim.render import RenderedView, render, visibility
from sim.tabletop.grasp.execute import held_object_uid, in_basket
from sim.tabletop.perception import SIDE_MARGIN_PX
from sim.tabletop.world import MODEL_IMAGE_SIZE, TABLE_TOP_Z, TOP_DOWN, TabletopWorld

NEAR_M = 0.10  # centre distance below which two objects are 'near'
CONTACT_TOLERANCE_M = 0.002  # contact points farther apart than this do not count as touching
REFERENCE_WIDTH_PX = (
    MODEL_IMAGE_SIZE  # SIDE_MARGIN_PX is meant for images this wide; scaled for others
)
TABLE_ID, BASKET_ID, GRIPPER_ID = "table", "basket", "gripper"

#: Named colours for an object's RGB (0..1); the nearest name wins.
NAMED_COLOURS: dict[str, tuple[float, float, float]] = {
    "red": (0.9, 0.1, 0.1),
    "green": (0.1, 0.7, 0.2),
    "blue": (0.1, 0.2, 0.9),
    "yellow": (0.95, 0.9, 0.1),
    "orange": (1.0, 0.55, 0.0),
    "purple": (0.55, 0.2, 0.7),
    "pink": (1.0, 0.5, 0.75),
    "brown": (0.55, 0.35, 0.15),
    "cyan": (0.1, 0.8, 0.85),
    "white": (0.95, 0.95, 0.95),
    "grey": (0.5, 0.5, 0.5),
    "black": (0.05, 0.05, 0.05),
}


def colour_name(rgb) -> str:
    """The nearest named colour (`NAMED_COLOURS`) of an RGB triple in 0..1."""
    r, g, b = (float(v) for v in rgb[:3])
    return min(
        NAMED_COLOURS,
        key=lambda n: (
            (r - NAMED_COLOURS[n][0]) ** 2
            + (g - NAMED_COLOURS[n][1]) ** 2
            + (b - NAMED_COLOURS[n][2]) ** 2
        ),
    )


def side_margin_px(camera: CameraSpec) -> float:
    """`SIDE_MARGIN_PX` scaled to the camera's width (the same distance at any resolution)."""
    return SIDE_MARGIN_PX * camera.width / REFERENCE_WIDTH_PX


def _touching(world: TabletopWorld, a: int, b: int) -> bool:
    return any(pt[8] <= CONTACT_TOLERANCE_M for pt in world.client.getContactPoints(a, b))


def graph_from_world(
    world: TabletopWorld, camera: CameraSpec = TOP_DOWN, *, view: RenderedView | None = None
) -> SceneGraph:
    """The scene graph of the world's current state (see the module docstring)."""
    with world.lock:
        world.client.performCollisionDetection()  # fresh contacts without stepping
        objects = world.objects()
        view = view or render(world, camera)
        seen = visibility(world, camera, [o.key for o in objects], view=view)
        entities = [
            Entity(TABLE_ID, "surface", "table", {"category": "surface"}),
            Entity(BASKET_ID, "surface", "basket", {"category": "container"}),
        ]
        if world.gripper_uid is not None:
            entities.append(Entity(GRIPPER_ID, "robot", "gripper", {"category": "robot"}))
        centres: dict[str, np.ndarray] = {}
        for o in objects:
            lo, hi = world.aabb(o.key)
            lo, hi = np.asarray(lo, float), np.asarray(hi, float)
            centres[o.key] = (lo + hi) / 2
            rgba = o.rgba or world.visual_slots(o.uid)[0][2]
            v = seen[o.key]
            entities.append(
                Entity(
                    o.key,
                    "object",
                    o.name,
                    {
                        "name": o.name,
                        "category": o.category,
                        "colour": colour_name(rgba),
                        "rgba": [round(float(x), 4) for x in rgba],
                        "size": [round(float(x), 4) for x in hi - lo],
                        "position": [round(float(x), 4) for x in centres[o.key]],
                        "visible_fraction": round(v.fraction, 4),
                        "visible_px": v.visible_px,
                    },
                )
            )

        relations: list[Relation] = []
        table_uid = world.bodies[TABLE_ID].uid
        held = held_object_uid(world) if world.gripper_uid is not None else None
        for o in objects:
            if _touching(world, o.uid, table_uid):
                relations.append(Relation(o.key, "on", TABLE_ID, "support"))
            if in_basket(world, o.uid):
                relations.append(Relation(o.key, "in basket", BASKET_ID, "spatial"))
            if held == o.uid:
                relations.append(Relation(o.key, "held by", GRIPPER_ID, "state"))

        # Each object's centre dropped to the table top: a stack's upper object (nearer the
        # camera, so pushed outwards by the perspective) stays level with the one it is on.
        ground = np.array([(*centres[o.key][:2], TABLE_TOP_Z) for o in objects]).reshape(-1, 3)
        uv, depth = project_points(camera, ground)
        margin = side_margin_px(camera)
        for i, a in enumerate(objects):
            for j in range(i + 1, len(objects)):
                b = objects[j]
                if _touching(world, a.uid, b.uid):
                    top, bottom = (a, b) if centres[a.key][2] > centres[b.key][2] else (b, a)
                    relations.append(Relation(top.key, "on", bottom.key, "support"))
                    relations.append(Relation(bottom.key, "under", top.key, "support"))
                gap = float(np.linalg.norm(centres[a.key] - centres[b.key]))
                if gap < NEAR_M:
                    near = {"distance_m": round(gap, 4)}
                    relations.append(Relation(a.key, "near", b.key, "spatial", 0, near))
                    relations.append(Relation(b.key, "near", a.key, "spatial", 0, near))
                if depth[i] <= 0 or depth[j] <= 0 or not np.isfinite(uv[[i, j]]).all():
                    continue  # behind the camera: no image-frame relation
                du, dv = uv[j] - uv[i]
                if abs(du) >= margin:
                    left, right = (a, b) if du > 0 else (b, a)
                    relations.append(Relation(left.key, "left of", right.key, "spatial"))
                    relations.append(Relation(right.key, "right of", left.key, "spatial"))
                if abs(dv) >= margin:  # image v grows downwards: smaller v is farther away
                    back, front = (a, b) if dv > 0 else (b, a)
                    relations.append(Relation(back.key, "behind", front.key, "spatial"))
                    relations.append(Relation(front.key, "in front of", back.key, "spatial"))
    return SceneGraph({e.id: e for e in entities}, tuple(relations), (0,))
