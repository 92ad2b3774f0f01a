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


START_GAP = 0.045  # metres from the object's back to the tool's line at the start
START_BACK = 0.06  # metres the start may move back along the push to find room
START_ROOM = 0.025  # the closed fingers' reach around the start, checked in the depth image
START_CLEAR = 0.006  # anything higher than this above the fingertips' height is in the way
PRESS = 5.0  # N: the fingers pressing this hard on an object on the way down


def empty_start(view: RenderedView, start: np.ndarray, direction) -> np.ndarray | None:
    """Where the sweep can start: `start`, or up to START_BACK further back along the push,
    the first place where the depth image shows nothing around the closed fingers higher
    than their tips (the paper's "empty location"); None where there is none. Coming
    down on a neighbour there, the fingers went into a mug and carried it off."""
    d = np.array([direction[0], direction[1], 0.0])
    hmap = height_map(view, start[:2] - d[:2] * START_BACK / 2, START_BACK + START_ROOM + 0.01)
    ring = np.linspace(-START_ROOM, START_ROOM, 7)
    offsets = np.array([(u, v) for u in ring for v in ring if u * u + v * v <= START_ROOM**2])
    for back in np.arange(0.0, START_BACK + 1e-9, 0.01):
        at = start - d * back
        h, _ = hmap.sample((at[:2] + offsets)[None, :, :])
        if float(np.max(h)) <= TABLE_TOP_Z + TIP_HEIGHT + START_CLEAR:
            return at
    return None


def _highest_at(view: RenderedView, start: np.ndarray) -> int | None:
    """The body the depth image shows highest around `start` (what is in the way)."""
    hmap = height_map(view, start[:2], START_ROOM + 0.01)
    ring = np.linspace(-START_ROOM, START_ROOM, 7)
    pts = np.array([(start[0] + u, start[1] + v) for u in ring for v in ring])
    h, body = hmap.sample(pts[None, :, :])
    return int(body[0, int(np.argmax(h[0]))])


def _named(world: TabletopWorld, uid: int | None) -> str:
    info = world.info(uid) if uid is not None and uid >= 0 else None
    return info.name if info is not None else "something"


def _pressed(world: TabletopWorld, hit: list[int]) -> bool:
    """Whether the closed fingers press on an object on the way down to the start."""
    for pt in world.client.getContactPoints(bodyA=world.gripper_uid):
        info = world.info(pt[2])
        if info is not None and info.role == "object" and pt[9] >= PRESS:
            hit.append(pt[2])
            return True
    return False


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
    # the object's side facing away from the push, from its lifted pixels (metres whatever
    # the image size; a fixed pixel scale put the start twice as far back at 1024 px)
    ys, xs = np.nonzero(mask)
    step = max(1, len(xs) // 400)
    pts = lift_pixels(camera, view.depth_m, ys[::step], xs[::step])
    behind = float(np.asarray(centre[:2]) @ (dx, dy) - (pts[:, :2] @ (dx, dy)).min())
    back = behind + START_GAP
    z = TABLE_TOP_Z + TIP_HEIGHT + world.gripper_model.pad_depth[-1]
    start = np.array([centre[0] - dx * back, centre[1] - dy * back, z])
    travel = sweep_past_centre(camera, view, mask, centre, (dx, dy))
    end = np.array([centre[0] + dx * travel, centre[1] + dy * travel, z])
    free = empty_start(view, start, (dx, dy))
    if free is None:
        what = _named(world, _highest_at(view, start))
        return PushResult(
            False,
            f"Action failed: the push could not start: no room for the fingers behind the "
            f"object (the {what} is there)",
            tuple(start),
            tuple(end),
        )
    start = free
    set_fingers(world, closed=True)
    above = start + np.array([0, 0, 0.15])
    error = move_over(world, above)
    if error > 0.02:
        go_home(world)
        return PushResult(
            False, "Action failed: the start of the push is out of reach", tuple(start), tuple(end)
        )
    hit: list[int] = []
    move_tool_to(world, start, guard=lambda: _pressed(world, hit))
    if hit:
        move_tool_to(world, above)
        go_home(world)
        set_fingers(world, closed=False)
        return PushResult(
            False,
            f"Action failed: the push could not start: the fingers met the "
            f"{_named(world, hit[0])} on the way down",
            tuple(start),
            tuple(end),
        )
    move_tool_to(world, end)
    reached, _ = tool_pose(world)
    move_tool_to(world, reached + np.array([0, 0, 0.15]))
    go_home(world)
    set_fingers(world, closed=False)
    return PushResult(True, "Action succeeded.", tuple(start), tuple(end))
