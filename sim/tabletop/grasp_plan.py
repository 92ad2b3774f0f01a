"""Planning a top-down grasp from a mask, the depth image and the intrinsics.

The object's centre and top come from the masked depth pixels; its principal
axes from the mask's second moments; the fingers should close across the
minor axis, which is feasible only if the object is narrower there than the
2F-85 opens. `sim.tabletop.grasp` executes the plan.
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
    if width > MAX_OPENING - 0.006:  # 3 mm to spare on each side
        return GraspPlan(
            tuple(centre),
            top_z,
            yaw,
            width,
            False,
            f"no feasible grasp: {100 * width:.1f} cm across, the gripper opens {100 * MAX_OPENING:.1f} cm",
            flat_top,
        )
    return GraspPlan(tuple(centre), top_z, yaw, width, True, "", flat_top)
