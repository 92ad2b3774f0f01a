"""Planning a top-down grasp from a mask, the depth image and the intrinsics.

The object's centre and top come from the masked depth pixels; its principal
axes from the mask's second moments; the fingers should close across the
minor axis, which is feasible only if the object is at most `MAX_GRASP_WIDTH`
(7.9 cm: the 2F-85's 8.5 cm stroke less 3 mm on each side) across there; the
refusal says both numbers. `sim.tabletop.grasp` executes the plan.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.camera import CameraSpec, intrinsics
from sim.render import RenderedView, render
from sim.tabletop.push import mask_to_point
from sim.tabletop.world import TabletopWorld

MAX_OPENING = 0.085  # the 2F-85's stroke
GRASP_CLEARANCE = 0.003  # room to spare on each side of the object
MAX_GRASP_WIDTH = MAX_OPENING - 2 * GRASP_CLEARANCE  # the widest object the planner accepts


@dataclass(frozen=True)
class GraspPlan:
    centre: tuple[float, float, float]
    top_z: float
    yaw: float  # rotation of the tool about the vertical; the fingers close along this world angle
    width: float  # object extent across the closing axis (m)
    feasible: bool
    reason: str
    flat_top: float = (
        1.0  # share of the visible surface within 1 cm of the top (a ball: about half)
    )


def too_wide_reason(width: float) -> str:
    """Why an object `width` metres across cannot be grasped: the limit the planner applies
    and the stroke it comes from. A width that would print as the limit itself gets a
    second (or third) decimal ("7.92 cm across, more than the 7.9 cm")."""
    limit = round(100 * MAX_GRASP_WIDTH, 1)
    shown = next(
        (t for d in (1, 2, 3) if float(t := f"{100 * width:.{d}f}") > limit),
        f"{100 * width:.4f}",
    )
    return (
        f"no feasible grasp: {shown} cm across, more than the {limit:.1f} cm the gripper "
        f"can take (it opens {100 * MAX_OPENING:.1f} cm)"
    )


def plan_grasp(
    world: TabletopWorld, camera: CameraSpec, mask: np.ndarray, view: RenderedView | None = None
) -> GraspPlan:
    """Where and at what angle to grasp the masked object from above, and whether it fits."""
    view = view or render(world, camera)
    ys, xs = np.nonzero(mask)
    if len(xs) < 10:
        return GraspPlan((0, 0, 0), 0, 0, 0, False, "no feasible grasp: the mask is too small")
    centre = mask_to_point(world, camera, mask, view)
    depth = view.depth_m[ys, xs]
    top_z = float(camera.eye[2] - depth.min())  # the camera looks straight down
    flat_top = float(np.mean(depth - depth.min() < 0.01))
    metres_per_px = float(np.median(depth)) / intrinsics(camera)[0, 0]
    pts = np.c_[xs, -ys].astype(float) * metres_per_px  # image up = world +y
    pts -= pts.mean(axis=0)
    _, vecs = np.linalg.eigh(np.cov(pts.T))
    minor = vecs[:, 0]  # smallest spread: close the fingers along it
    width = float(np.ptp(pts @ minor)) + 2 * metres_per_px
    # pointing down at yaw 0 the 2F-85's pads close along world x: turn that onto the minor axis
    yaw = math.atan2(minor[1], minor[0])
    if width > MAX_GRASP_WIDTH:
        return GraspPlan(tuple(centre), top_z, yaw, width, False, too_wide_reason(width), flat_top)
    return GraspPlan(tuple(centre), top_z, yaw, width, True, "", flat_top)
