"""The MG-VQA `push` tool: a closed-gripper straight sweep through an object.

The object is found from its mask: its visible pixels, lifted to 3D with the
depth image and the camera intrinsics. The sweep starts beyond the object's far
side (as seen along the push) at fingertip height just above the table and
travels through it in the commanded image direction, 10 cm past its centre, or
less where that would push the object out of the camera's view. The arm gets
there (and the grasp tool to its grasps) over the clutter (`motion.move_over`),
not through it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.camera import CameraSpec
from sim.render import RenderedView, render
from sim.tabletop.heightmap import height_map, lift_pixels
from sim.tabletop.motion import go_home, move_over, move_tool_to, set_fingers, tool_pose
from sim.tabletop.world import TABLE_TOP_Z, TabletopWorld

# image directions -> world directions (image right = +x, image up = +y: away from the robot)
DIRECTIONS = {"right": (1.0, 0.0), "left": (-1.0, 0.0), "up": (0.0, 1.0), "down": (0.0, -1.0)}
PUSH_DISTANCE = 0.10  # how far past the object's centre the sweep travels
# the pushed object's far side stays this far inside the image's edge: the closed fingers'
# half thickness ahead of the tool's line, and the slide after the sweep stops
VIEW_MARGIN = 0.04
# The closed fingertips' lowest point this far above the table during the sweep (the
# 2F-85's sit 13 mm lower closed than open: this is its old 15 mm of open-tip height).
TIP_HEIGHT = 0.002


@dataclass(frozen=True)
class PushResult:
    ok: bool
    feedback: str
    start: tuple[float, float, float]
    end: tuple[float, float, float]


def mask_to_point(
    world: TabletopWorld, camera: CameraSpec, mask: np.ndarray, view: RenderedView | None = None
) -> np.ndarray:
    """The 3D centre of a mask's visible surface, from the depth image (`view`, if the
    caller has rendered the scene already)."""
    view = view or render(world, camera)
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        raise ValueError("the mask is empty")
    step = max(1, len(xs) // 200)  # about 200 of its pixels are enough for the centre
    return lift_pixels(camera, view.depth_m, ys[::step], xs[::step]).mean(axis=0)


# metres from the object's side facing away from the push to the tool's line at the start:
# the closed fingers' half footprint and room to come down beside the object
START_GAP = 0.05


# Where the closed fingers come down, tried in this order (metres behind the object's far
# side): the usual gap first, then nearer, then further back. The first where the depth
# image shows nothing under them higher than their tips is taken; where none is clear the
# usual start is (the paper's pushes move neighbours too).
START_GAPS = (START_GAP, 0.04, 0.03, 0.06, 0.07, 0.08, 0.09, 0.10, 0.11)
START_ROOM = 0.02  # the closed fingers' reach around the tool's line, checked in the image
START_CLEAR = 0.006  # anything higher than this above the fingertips' height is in the way


def clear_start(view: RenderedView, centre, direction, behind_m: float) -> float:
    """How far behind the object's centre the push starts: the first of START_GAPS behind
    its far side where the depth image shows room for the closed fingers to come down
    (coming down on a neighbour there, they went into a mug and carried it home, where
    every later grasp hit it); the usual START_GAP where none has room."""
    d = np.asarray(direction, dtype=float)
    c = np.asarray(centre[:2], dtype=float)
    far = behind_m + max(START_GAPS)
    hmap = height_map(view, c - d * (behind_m + far) / 2, (far - behind_m) / 2 + START_ROOM + 0.01)
    ring = np.linspace(-START_ROOM, START_ROOM, 9)
    disk = np.array([(u, v) for u in ring for v in ring if u * u + v * v <= START_ROOM**2])
    for gap in START_GAPS:
        at = c - d * (behind_m + gap)
        h, _ = hmap.sample((at + disk)[None, :, :])
        if float(np.max(h)) <= TABLE_TOP_Z + TIP_HEIGHT + START_CLEAR:
            return behind_m + gap
    return behind_m + START_GAP


def behind(camera: CameraSpec, view: RenderedView, mask: np.ndarray, centre, direction) -> float:
    """How far the object reaches behind its centre, against the push: from its visible
    pixels lifted to 3D with the depth image and the camera's intrinsics, so in metres
    whatever the image size (a fixed pixel scale fitted 512 px images only and put the
    start twice as far back at 1024 px)."""
    ys, xs = np.nonzero(mask)
    step = max(1, len(xs) // 400)
    pts = lift_pixels(camera, view.depth_m, ys[::step], xs[::step])
    d = np.asarray(direction, dtype=float)
    return float(np.asarray(centre[:2]) @ d - (pts[:, :2] @ d).min())


def sweep_past_centre(
    camera: CameraSpec, view: RenderedView, mask: np.ndarray, centre, direction
) -> float:
    """How far past the object's centre the sweep travels: PUSH_DISTANCE, less what would
    push the object's far side out of the camera's view (a robot keeps to the workspace
    it watches: an object pushed off the image's edge is cut in half, and no grasp can be
    planned on what is seen of it). Never short of the centre."""
    ys, xs = np.nonzero(mask)
    step = max(1, len(xs) // 200)
    pts = lift_pixels(camera, view.depth_m, ys[::step], xs[::step])
    d = np.asarray(direction, dtype=float)
    along = pts[:, :2] @ d
    extent = float(along.max() - along.min())  # the object's depth along the push
    # the image's edge at the object's top, along the push (top-down camera)
    half = (camera.eye[2] - float(pts[:, 2].max())) * math.tan(math.radians(camera.fov_deg) / 2)
    half_along = half * (camera.width / camera.height if d[0] else 1.0)
    edge = float(np.asarray(camera.target[:2]) @ d) + half_along - VIEW_MARGIN
    room = edge - extent - float(np.asarray(centre[:2]) @ d)
    return float(min(PUSH_DISTANCE, max(0.0, room)))


def push(world: TabletopWorld, camera: CameraSpec, mask: np.ndarray, direction: str) -> PushResult:
    """Sweep through the masked object in an image direction (left, right, up, down)."""
    if direction not in DIRECTIONS:
        return PushResult(
            False,
            f"Action failed: direction must be one of {sorted(DIRECTIONS)}",
            (0, 0, 0),
            (0, 0, 0),
        )
    view = render(world, camera)
    centre = mask_to_point(world, camera, mask, view)
    dx, dy = DIRECTIONS[direction]
    back = clear_start(view, centre, (dx, dy), behind(camera, view, mask, centre, (dx, dy)))
    z = TABLE_TOP_Z + TIP_HEIGHT + world.gripper_model.pad_depth[-1]
    start = np.array([centre[0] - dx * back, centre[1] - dy * back, z])
    travel = sweep_past_centre(camera, view, mask, centre, (dx, dy))
    end = np.array([centre[0] + dx * travel, centre[1] + dy * travel, z])
    set_fingers(world, closed=True)
    above = start + np.array([0, 0, 0.15])
    error = move_over(world, above)
    if error > 0.02:
        go_home(world)
        return PushResult(
            False, "Action failed: the start of the push is out of reach", tuple(start), tuple(end)
        )
    move_tool_to(world, start)
    move_tool_to(world, end)
    reached, _ = tool_pose(world)
    move_tool_to(world, reached + np.array([0, 0, 0.15]))
    go_home(world)
    set_fingers(world, closed=False)
    return PushResult(True, "Action succeeded.", tuple(start), tuple(end))
