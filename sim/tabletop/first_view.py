"""A question's first view, rendered once and shared by every model and every repeat.

Before an agent acts, the image it is shown depends only on the stored scene (its body
records and state), the camera, the gripper on the robot and how the image is encoded.
`render_first_view` rebuilds the scene and renders it exactly as an episode does
(`world_from_records`, `sim.render.render`, `sim.llm.png_bytes`); `view_key` names the
result by a hash of everything that goes into it, so a stored view is found again by
content and a changed scene, camera or gripper can never pick up a stale one.

A `FirstView` holds what an episode needs of the world while nothing has moved: the PNG
bytes per view, the state an episode records at its first step, and the top-down body
segmentation with the names of the bodies in it (to score a Find point). Direct mode
plays whole episodes from it without a simulator; tool modes send it as the first image.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.camera import CameraSpec
from sim.llm import MAX_IMAGE_SIDE, png_bytes
from sim.tabletop.world import OBLIQUE, OBLIQUE_VIEW, TOP_DOWN_VIEW

# Bump when anything that changes the pixels or the recorded state changes (renderer
# settings, encoding): every stored view is then rendered afresh on its next use.
RENDER_VERSION = 1


def oblique_camera(width: int) -> CameraSpec:
    """The oblique camera at the agent camera's width (1024 x 768 for the full-size one)."""
    return OBLIQUE.with_size(width, max(1, round(width * OBLIQUE.height / OBLIQUE.width)))


def view_camera(top_down: CameraSpec, view: str) -> CameraSpec:
    """The camera of a named view for an episode whose agent camera is `top_down`."""
    if view == TOP_DOWN_VIEW:
        return top_down
    if view == OBLIQUE_VIEW:
        return oblique_camera(top_down.width)
    raise ValueError(f"no view {view!r}; views: {TOP_DOWN_VIEW}, {OBLIQUE_VIEW}")


def recorded_gripper(bodies: Sequence[dict[str, Any]], gripper: str | None) -> str | None:
    """The gripper a rebuilt scene carries: `gripper` when asked for, else the recorded one."""
    from sim.tabletop.scenes import recorded_gripper as from_records

    return gripper or from_records(bodies)


def view_key(
    scene: dict[str, Any],
    camera: CameraSpec,
    gripper: str | None,
    views: Sequence[str] = (TOP_DOWN_VIEW,),
) -> str:
    """The content address of a scene's first view: sha256 of the scene's body records and
    state, the camera, the gripper, the views and how they are rendered and encoded."""
    payload = {
        "version": RENDER_VERSION,
        "bodies": scene["bodies"],
        "state": scene["state"],
        "camera": _camera_record(camera),
        "gripper": recorded_gripper(scene["bodies"], gripper),
        "views": sorted(views),
        "max_side": MAX_IMAGE_SIDE,
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=_plain)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _camera_record(camera: CameraSpec) -> dict[str, Any]:
    return {
        "width": camera.width,
        "height": camera.height,
        "fov_deg": camera.fov_deg,
        "eye": list(camera.eye),
        "target": list(camera.target),
        "up": list(camera.up),
        "near": camera.near,
        "far": camera.far,
    }


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot hash {type(value).__name__} in a scene record")


@dataclass(frozen=True)
class FirstView:
    """A scene's first view: the images an agent is shown, and what scoring needs."""

    key: str
    images: dict[str, bytes]  # view name -> PNG bytes, as sent to a model
    state: dict[str, Any]  # the world's captured state: an episode's first recorded state
    segmentation: np.ndarray  # top-down (H, W) int32: PyBullet body uid, -1 for none
    names: dict[int, str]  # body uid -> the body's name (objects and fixtures)
    gripper: str  # the gripper model's key on the robot

    # -- as stored (`store.RenderedViewRepository`) --------------------------------------
    def segmentation_blob(self) -> bytes:
        seg = self.segmentation
        header = np.asarray(seg.shape, dtype="<u4").tobytes()
        return header + zlib.compress(seg.astype("<i4").tobytes(), 6)

    @staticmethod
    def segmentation_from(blob: bytes) -> np.ndarray:
        h, w = (int(x) for x in np.frombuffer(blob[:8], dtype="<u4"))
        flat = np.frombuffer(zlib.decompress(blob[8:]), dtype="<i4")
        if flat.size != h * w:
            raise ValueError(f"a stored segmentation of {flat.size} values is not {h} x {w}")
        return flat.reshape(h, w).astype(np.int32)


def render_first_view(
    scene: dict[str, Any],
    camera: CameraSpec,
    gripper: str | None = None,
    views: Sequence[str] = (TOP_DOWN_VIEW,),
) -> FirstView:
    """Rebuild `scene` ({"bodies", "state"}) as an episode does and render its views."""
    from sim.render import render
    from sim.tabletop.scenes import world_from_records

    world = world_from_records(scene["bodies"], scene["state"], gripper=gripper)
    try:
        images: dict[str, bytes] = {}
        segmentation = None
        for view in sorted(set(views) | {TOP_DOWN_VIEW}):
            rendered = render(world, view_camera(camera, view))
            if view == TOP_DOWN_VIEW:
                segmentation = rendered.segmentation
            if view in views or view == TOP_DOWN_VIEW:
                images[view] = png_bytes(rendered.rgb)
        names = {b.uid: b.name for b in world.bodies.values()}
        return FirstView(
            key=view_key(scene, camera, gripper, views),
            images=images,
            state=world.capture_state(),
            segmentation=np.asarray(segmentation, dtype=np.int32),
            names=names,
            gripper=world.gripper_model.key,
        )
    finally:
        world.close()
