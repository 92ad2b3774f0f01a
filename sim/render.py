"""Rendering views of a world, and per-object pixel visibility.

Visibility fraction of an object = its front-most pixels in the scene image /
its pixels when rendered alone with the same camera. The naive way renders
every object alone at full resolution. We render only the pixel window its
bounding box projects to, with an off-centre frustum whose pixel centres are
exactly those of the full image (`camera.crop_projection`), so the counts are
the same at a small fraction of the cost. Counterfactual visibility (a cover
made transparent) re-renders only the cover's window: no other pixel changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pybullet

from sim.camera import (
    CameraSpec,
    corners,
    crop_projection,
    depth_to_metres,
    pixel_box,
    project_points,
    projection_matrix,
    to_bullet,
    view_matrix,
)
from sim.world import World

LIGHT_DIRECTION = (0.3, -0.4, 1.0)


@dataclass(frozen=True)
class RenderedView:
    camera: CameraSpec
    rgb: np.ndarray  # (H, W, 3) uint8
    depth_m: np.ndarray  # (H, W) float, metres along the view axis
    segmentation: np.ndarray  # (H, W) int, PyBullet body uid, -1 background


@dataclass(frozen=True)
class Visibility:
    key: str
    visible_px: int
    alone_px: int

    @property
    def fraction(self) -> float:
        return self.visible_px / self.alone_px if self.alone_px else 0.0


class ColourSwitch:
    """Turns bodies fully transparent and back, restoring their colours exactly.

    The TinyRenderer skips shapes with alpha 0 altogether (no pixels, no
    segmentation, no triangle cost), so a hidden robot costs nothing to render.
    """

    def __init__(self, world: World, keys: Iterable[str]) -> None:
        self.client = world.client
        self.shapes: dict[str, list[tuple[int, int, int, tuple[float, ...]]]] = {}
        for key in keys:
            uid = world.bodies[key].uid
            self.shapes[key] = [(uid, link, i, rgba) for link, i, rgba in world.visual_slots(uid)]
        self.hidden: set[str] = set()

    def hide(self, key: str) -> None:
        for uid, link, index, rgba in self.shapes[key]:
            self.client.changeVisualShape(uid, link, shapeIndex=index, rgbaColor=(*rgba[:3], 0.0))
        self.hidden.add(key)

    def show(self, key: str) -> None:
        for uid, link, index, rgba in self.shapes[key]:
            self.client.changeVisualShape(uid, link, shapeIndex=index, rgbaColor=rgba)
        self.hidden.discard(key)

    def show_all(self) -> None:
        for key in list(self.hidden):
            self.show(key)


@contextmanager
def hidden(world: World, keys: Iterable[str]) -> Iterator[ColourSwitch]:
    """Bodies made fully transparent for the duration; colours restored exactly after."""
    switch = ColourSwitch(world, keys)
    try:
        for key in switch.shapes:
            switch.hide(key)
        yield switch
    finally:
        switch.show_all()


def _render(
    world: World,
    camera: CameraSpec,
    window: tuple[int, int, int, int] | None = None,
    light_direction: tuple[float, float, float] | None = None,
):
    """RGB, raw depth buffer and segmentation of the whole image, or of a pixel window of it
    (lit from `light_direction`, default LIGHT_DIRECTION)."""
    if window is None:
        projection, width, height = projection_matrix(camera), camera.width, camera.height
    else:
        x0, y0, x1, y1 = window
        projection, width, height = crop_projection(camera, x0, y0, x1, y1), x1 - x0, y1 - y0
    _, _, pixels, depth, seg = world.client.getCameraImage(
        width,
        height,
        viewMatrix=to_bullet(view_matrix(camera)),
        projectionMatrix=to_bullet(projection),
        renderer=pybullet.ER_TINY_RENDERER,
        shadow=0,
        lightDirection=light_direction or LIGHT_DIRECTION,
    )
    pixels = np.asarray(pixels, dtype=np.uint8).reshape(height, width, 4)[:, :, :3]
    depth = np.asarray(depth, dtype=np.float32).reshape(height, width)
    seg = np.asarray(seg, dtype=np.int32).reshape(height, width)
    return pixels, depth, seg


def render(
    world: World,
    camera: CameraSpec,
    *,
    hide: Iterable[str] = (),
    light_direction: tuple[float, float, float] | None = None,
) -> RenderedView:
    """The camera's full image: RGB, metric depth and body segmentation (lit from
    `light_direction`, default LIGHT_DIRECTION; a randomized episode passes its own)."""
    with hidden(world, hide):
        pixels, depth, seg = _render(world, camera, light_direction=light_direction)
    return RenderedView(camera, pixels, depth_to_metres(depth, camera.near, camera.far), seg)


def windowed_view(
    world: World,
    camera: CameraSpec,
    keys: Iterable[str],
    *,
    occluded: Iterable[str] = (),
    backdrop: str | None = None,
) -> RenderedView:
    """The camera's image rendered only inside the pixel windows of `keys`; background
    elsewhere (segmentation -1, black, depth at the far plane). `occluded` names bodies
    the caller knows to be hidden behind others everywhere in view (the floor under a
    table top that fills the image): they are not drawn.

    Every body's pixels lie inside its window, so each key's visible pixels, and
    whatever is read of the view inside the keys' windows, are those of the full image
    (`render`), at the cost of the windows alone. Windows are rendered one by one with
    the bodies that project elsewhere hidden, or as their bounding window when that is
    no larger than their sum.

    `backdrop` names a fixed body made before the ones it may hide (the table) that is
    not drawn but put in from its depth alone (`backdrop_depth`, kept per process): in
    front wherever it is nearer than what was drawn (the renderer's depth test gives a
    tie to the body drawn later). Segmentation and depth are the same; the backdrop's
    pixels stay black in `rgb`. Drawing the textured table top under every window was
    most of a window's cost.
    """
    keys = list(keys)
    height, width = camera.height, camera.width
    seg = np.full((height, width), -1, dtype=np.int32)
    rgb = np.zeros((height, width, 3), dtype=np.uint8)
    depth = np.full((height, width), camera.far, dtype=np.float64)
    windows = [w for w in (screen_window(world, camera, k) for k in keys) if w is not None]
    if windows:
        union = (
            min(w[0] for w in windows),
            min(w[1] for w in windows),
            max(w[2] for w in windows),
            max(w[3] for w in windows),
        )
        # Without the table top to draw, a window's pixels cost little next to a render's
        # own overhead: the bounding window wins at up to twice the windows' sum.
        if _area(union) <= sum(_area(w) for w in windows) * (2 if backdrop else 1):
            windows = [union]
        skipped = set(occluded) | ({backdrop} if backdrop else set())
        placed = {
            k: None if k in skipped else screen_window(world, camera, k) for k in world.bodies
        }
        for window in windows:
            x0, y0, x1, y1 = window
            elsewhere = [k for k, w in placed.items() if w is None or not _intersect(w, window)]
            with hidden(world, elsewhere):
                pixels, raw, part = _render(world, camera, window)
            if backdrop:
                raw, part = _with_backdrop(world, camera, backdrop, window, raw, part)
            seg[y0:y1, x0:x1] = part
            rgb[y0:y1, x0:x1] = pixels
            depth[y0:y1, x0:x1] = depth_to_metres(raw, camera.near, camera.far)
    return RenderedView(camera, rgb, depth, seg)


_BACKDROPS: dict[tuple, np.ndarray] = {}  # backdrop_depth's, a few at most


def backdrop_depth(world: World, camera: CameraSpec, key: str) -> np.ndarray:
    """The raw depth buffer of the camera's whole image with only body `key` drawn (far
    plane, 1.0, elsewhere), rendered once per process for the body's shapes, pose and
    camera: the table, which every window of a tabletop view would draw again."""
    c, uid = world.client, world.bodies[key].uid
    shapes = tuple(
        (row[1], row[2], tuple(row[3]), row[4], tuple(row[5]), tuple(row[6]))
        for row in c.getVisualShapeData(uid)
    )
    pose = tuple(tuple(v) for v in c.getBasePositionAndOrientation(uid))
    cache_key = (camera, shapes, pose)
    if cache_key not in _BACKDROPS:
        with hidden(world, [k for k in world.bodies if k != key]):
            _, raw, _ = _render(world, camera)
        raw.flags.writeable = False
        if len(_BACKDROPS) >= 4:
            _BACKDROPS.pop(next(iter(_BACKDROPS)))
        _BACKDROPS[cache_key] = raw
    return _BACKDROPS[cache_key]


def _with_backdrop(world, camera, key, window, raw: np.ndarray, seg: np.ndarray):
    """A window's depth buffer and segmentation rendered without body `key`, with it put
    back from `backdrop_depth`: in front where it is nearer than what was drawn."""
    x0, y0, x1, y1 = window
    far = backdrop_depth(world, camera, key)[y0:y1, x0:x1]
    front = far < raw
    return np.where(front, far, raw), np.where(front, world.bodies[key].uid, seg)


def _area(window: tuple[int, int, int, int]) -> int:
    return (window[2] - window[0]) * (window[3] - window[1])


def _intersect(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return not (a[2] <= b[0] or a[0] >= b[2] or a[3] <= b[1] or a[1] >= b[3])


def render_window(
    world: World,
    camera: CameraSpec,
    window: tuple[int, int, int, int],
    *,
    hide: Iterable[str] = (),
) -> np.ndarray:
    """Segmentation of the pixel window (x0, y0, x1, y1) of the camera's image, exactly aligned."""
    with hidden(world, hide):
        return _render(world, camera, window)[2]


def screen_window(world: World, camera: CameraSpec, key: str) -> tuple[int, int, int, int] | None:
    lo, hi = world.aabb(key)
    return pixel_box(camera, corners(lo, hi))


def alone_pixel_counts(
    world: World, camera: CameraSpec, keys: Iterable[str], *, fast: bool = True
) -> dict[str, int]:
    """Pixels of each body when it is the only thing in view.

    Everything is hidden once; each body is shown in turn and rendered in its own
    pixel window (`fast`) or at full resolution (the naive reference).
    """
    keys = list(keys)
    counts: dict[str, int] = {}
    with hidden(world, list(world.bodies)) as switch:
        for key in keys:
            uid = world.bodies[key].uid
            switch.show(key)
            try:
                window = screen_window(world, camera, key) if fast else None
                if fast and window is None:
                    counts[key] = 0  # entirely off the image
                    continue
                seg = _render(world, camera, window)[2]
                counts[key] = int(np.count_nonzero(seg == uid))
            finally:
                switch.hide(key)
    return counts


def alone_pixels(world: World, camera: CameraSpec, key: str, *, fast: bool = True) -> int:
    """Pixels of `key` when every other body is out of sight."""
    return alone_pixel_counts(world, camera, [key], fast=fast)[key]


def visibility(
    world: World,
    camera: CameraSpec,
    keys: Iterable[str] | None = None,
    *,
    view: RenderedView | None = None,
    fast: bool = True,
) -> dict[str, Visibility]:
    """Visibility of each object (default: all objects) in the camera's view."""
    keys = [b.key for b in world.objects()] if keys is None else list(keys)
    view = view or render(world, camera)
    uids, counts = np.unique(view.segmentation, return_counts=True)
    visible = dict(zip(uids.tolist(), counts.tolist(), strict=True))
    alone = alone_pixel_counts(world, camera, keys, fast=fast)
    return {key: Visibility(key, visible.get(world.bodies[key].uid, 0), alone[key]) for key in keys}


def _overlaps(world: World, camera: CameraSpec, key: str, window) -> bool:
    other = screen_window(world, camera, key)
    if other is None:
        return False
    return not (
        other[2] <= window[0]
        or other[0] >= window[2]
        or other[3] <= window[1]
        or other[1] >= window[3]
    )


def counterfactual_visibility(
    world: World,
    camera: CameraSpec,
    cover: str,
    keys: Iterable[str] | None = None,
    *,
    view: RenderedView | None = None,
    alone: dict[str, int] | None = None,
    fast: bool = True,
    occluded: Iterable[str] = (),
) -> dict[str, float]:
    """Each object's visibility gain (fraction points) when `cover` is made transparent
    (`occluded`: as for `windowed_view`)."""
    keys = [b.key for b in world.objects() if b.key != cover] if keys is None else list(keys)
    view = view or render(world, camera)
    alone = alone if alone is not None else alone_pixel_counts(world, camera, keys, fast=fast)
    if fast:
        window = screen_window(world, camera, cover)
        if window is None:
            return dict.fromkeys(keys, 0.0)
        x0, y0, x1, y1 = window
        # Only the cover's window can change; bodies that project elsewhere cannot
        # draw a pixel in it, so they are skipped (the robot's meshes are costly).
        skipped = set(occluded)
        elsewhere = [
            k
            for k in world.bodies
            if k != cover and (k in skipped or not _overlaps(world, camera, k, window))
        ]
        after = render_window(world, camera, window, hide=[cover, *elsewhere])
        return _window_gains(world, keys, view.segmentation[y0:y1, x0:x1], after, alone)
    seg = render(world, camera, hide=[cover]).segmentation
    gains = {}
    for key in keys:
        uid = world.bodies[key].uid
        before = int(np.count_nonzero(view.segmentation == uid))
        after = int(np.count_nonzero(seg == uid))
        gains[key] = (after - before) / alone[key] if alone.get(key) else 0.0
    return gains


def counterfactual_change(
    world: World,
    camera: CameraSpec,
    cover: str,
    *,
    view: RenderedView,
    occluded: Iterable[str] = (),
    backdrop: str | None = None,
) -> dict[str, int]:
    """How many more pixels each body other than `cover` shows when `cover` is made
    transparent, for the bodies whose count changes: the fast path of
    `counterfactual_visibility` before its division by the bodies' pixels alone, for a
    caller that counts those only for the bodies that change (`occluded`: as there;
    `backdrop`: as for `windowed_view`)."""
    window = screen_window(world, camera, cover)
    if window is None:
        return {}
    x0, y0, x1, y1 = window
    skipped = set(occluded) | ({backdrop} if backdrop else set())
    elsewhere = [
        k
        for k in world.bodies
        if k != cover and (k in skipped or not _overlaps(world, camera, k, window))
    ]
    with hidden(world, [cover, *elsewhere]):
        _, raw, after = _render(world, camera, window)
    if backdrop:
        _, after = _with_backdrop(world, camera, backdrop, window, raw, after)
    uids, counts = np.unique(view.segmentation[y0:y1, x0:x1], return_counts=True)
    was = dict(zip(uids.tolist(), counts.tolist(), strict=True))
    uids, counts = np.unique(after, return_counts=True)
    now = dict(zip(uids.tolist(), counts.tolist(), strict=True))
    change = {}
    for uid in sorted(set(was) | set(now)):
        info = world.info(uid)
        diff = now.get(uid, 0) - was.get(uid, 0)
        if info is not None and info.key != cover and diff:
            change[info.key] = diff
    return change


def _window_gains(world, keys, before: np.ndarray, after: np.ndarray, alone) -> dict[str, float]:
    """Each key's gain from its pixel counts in one window before and after (nothing outside
    the window changes, so the difference there is the whole image's)."""
    uids, counts = np.unique(before, return_counts=True)
    was = dict(zip(uids.tolist(), counts.tolist(), strict=True))
    uids, counts = np.unique(after, return_counts=True)
    now = dict(zip(uids.tolist(), counts.tolist(), strict=True))
    gains = {}
    for key in keys:
        uid = world.bodies[key].uid
        diff = now.get(uid, 0) - was.get(uid, 0)
        gains[key] = diff / alone[key] if alone.get(key) else 0.0
    return gains


def label_visibility(
    world: World,
    camera: CameraSpec,
    keys: Iterable[str],
    *,
    view: RenderedView | None = None,
) -> dict[str, float]:
    """For bodies carrying a dark letter label: the fraction of the letter's pixels the camera sees.

    The letter's pixels are the near-black ones of the body rendered alone (the
    label texture is white with a black letter, tinted by the body's colour, or
    printed on the body's decal); a letter pixel counts as seen when the scene
    image shows the body there.
    """
    return {
        key: seen / alone if alone else 0.0
        for key, (alone, seen) in label_pixels(world, camera, keys, view=view).items()
    }


def label_pixels(
    world: World,
    camera: CameraSpec,
    keys: Iterable[str],
    *,
    view: RenderedView | None = None,
) -> dict[str, tuple[int, int]]:
    """Each labelled body's letter pixels: (seen when it is alone, seen in the scene).

    On a body with a label decal only the decal's pixels can be the letter (a dark
    body around it is not); on one textured all over, any near-black pixel is.
    """
    view = view or render(world, camera)
    counts: dict[str, tuple[int, int]] = {}
    keys = list(keys)
    with hidden(world, list(world.bodies)) as switch:
        for key in keys:
            uid = world.bodies[key].uid
            window = screen_window(world, camera, key)
            if window is None:
                counts[key] = (0, 0)
                continue
            switch.show(key)
            try:
                pixels, _, seg = _render(world, camera, window)
            finally:
                switch.hide(key)
            letter = (seg == uid) & (pixels.astype(int).sum(axis=2) < LETTER_DARKNESS)
            x0, y0, x1, y1 = window
            quad = world.decal_corners(key)
            if quad is not None:  # inside the decal's frame line: the letter, not the rim
                centre = quad.mean(axis=0)
                letter &= _polygon_mask(camera, centre + DECAL_INK * (quad - centre), window)
            seen = letter & (view.segmentation[y0:y1, x0:x1] == uid)
            counts[key] = (int(letter.sum()), int(seen.sum()))
    return counts


def _polygon_mask(camera: CameraSpec, quad: np.ndarray, window) -> np.ndarray:
    """The pixels of `window` inside the projection of a flat quad's corners."""
    from PIL import Image, ImageDraw

    x0, y0, x1, y1 = window
    pixels, _ = project_points(camera, quad)
    image = Image.new("1", (x1 - x0, y1 - y0), 0)
    ImageDraw.Draw(image).polygon([(u - x0, v - y0) for u, v in pixels], fill=1)
    return np.asarray(image, dtype=bool)


DECAL_INK = 0.9  # the share of a label decal's side inside its printed frame line
LETTER_DARKNESS = 150  # R + G + B below this is the letter, not the body's colour
