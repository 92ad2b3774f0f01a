"""The objects of place_object_scale at real sizes: an electronic kitchen scale
(BiManiBench's 072_electronicscale) and the objects its task chooses from (050_bell,
047_mouse, 048_stapler), each small enough for the 2F-85 across one side.

Like `sim.bimanual.objects`, each body's frame is at the centre of its bottom face, z up,
so a place target is where the bottom centre goes.
"""

from __future__ import annotations

import math

import numpy as np

from sim.bimanual.world import TABLE_TOP_Z
from sim.world import BodyInfo

#: the scale: a 16 x 13 cm body 1.8 cm high, a 12.5 x 10.5 cm weighing platform on it
SCALE_BODY = (0.16, 0.13, 0.018)
SCALE_PLATFORM = (0.125, 0.105, 0.004)
SCALE_PLATFORM_Y = 0.01  # the platform sits towards the back (+y), the display in front


def _yaw_quat(yaw: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))


def add_scale(world, key, xy, yaw=0.0, mass=0.4) -> BodyInfo:
    """A flat electronic kitchen scale: a white body, a steel platform, a dark display."""
    bx, by, bh = SCALE_BODY
    px, py, ph = SCALE_PLATFORM
    parts = [
        ("box", (bx / 2, by / 2, bh / 2), (0, 0, bh / 2)),
        ("box", (px / 2, py / 2, ph / 2), (0, SCALE_PLATFORM_Y, bh + ph / 2)),
        ("box", (0.025, 0.004, 0.0005), (0, -by / 2 + 0.007, bh + 0.0005)),
    ]
    colours = [(0.93, 0.93, 0.92, 1.0), (0.72, 0.74, 0.76, 1.0), (0.1, 0.12, 0.12, 1.0)]
    return world.add_compound(
        key,
        parts,
        (xy[0], xy[1], TABLE_TOP_Z),
        _yaw_quat(yaw),
        rgba=colours[0],
        part_rgba=colours,
        mass=mass,
        category="scale",
        extra={"height": bh + ph},
    )


def platform_top(world, key="scale") -> np.ndarray:
    """The scale's functional point: the centre of its platform's top face."""
    p, q = world.body_pose(key)
    rot = np.array(world.client.getMatrixFromQuaternion(q)).reshape(3, 3)
    return p + rot @ np.array([0.0, SCALE_PLATFORM_Y, SCALE_BODY[2] + SCALE_PLATFORM[2]])


# -- the objects ---------------------------------------------------------------------------------
def _bell() -> tuple[list, list, list, float]:
    """A desk bell: a 7 cm black base, a 6 cm dome (two steps) and its plunger; 5.5 cm tall.
    Grasped across the dome's lower step (the tips sink onto the base's top if lower)."""
    parts = [
        ("cylinder", (0.035, 0.012), (0, 0, 0.006)),
        ("cylinder", (0.03, 0.02), (0, 0, 0.022)),
        ("cylinder", (0.022, 0.012), (0, 0, 0.038)),
        ("cylinder", (0.005, 0.011), (0, 0, 0.0495)),
    ]
    colours = [(0.1, 0.1, 0.1, 1.0)] + [(0.92, 0.92, 0.9, 1.0)] * 3
    grasps = [{"point": [0, 0, 0.022], "axis": [1, 0, 0], "width": 0.06}]
    return parts, colours, grasps, 0.055


def _mouse() -> tuple[list, list, list, float]:
    """A computer mouse, 11 x 6 cm and 3.5 cm high: a low body under a narrower hump.
    Grasped across its width, the fingertips 1.2 cm above the table."""
    parts = [
        ("box", (0.055, 0.03, 0.011), (0, 0, 0.011)),
        ("box", (0.042, 0.024, 0.0065), (-0.006, 0, 0.0285)),
    ]
    colours = [(0.25, 0.26, 0.28, 1.0), (0.35, 0.36, 0.38, 1.0)]
    grasps = [{"point": [0, 0, 0.012], "axis": [0, 1, 0], "width": 0.06}]
    return parts, colours, grasps, 0.035


def _stapler() -> tuple[list, list, list, float]:
    """A desk stapler, 15 x 4 cm and 5.5 cm high: a base plate, the head on it, joined at
    the back. Grasped across the head's width, the fingertips 2.8 cm below its top."""
    parts = [
        ("box", (0.075, 0.02, 0.006), (0, 0, 0.006)),
        ("box", (0.07, 0.017, 0.016), (0.002, 0, 0.039)),
        ("box", (0.012, 0.017, 0.0105), (-0.058, 0, 0.0225)),
    ]
    colours = [(0.3, 0.3, 0.32, 1.0), (0.15, 0.3, 0.75, 1.0), (0.3, 0.3, 0.32, 1.0)]
    grasps = [{"point": [0, 0, 0.027], "axis": [0, 1, 0], "width": 0.034}]
    return parts, colours, grasps, 0.055


_BUILDERS = {"bell": _bell, "mouse": _mouse, "stapler": _stapler}
#: the objects place_object_scale chooses from, named as the harness's models (without ids)
SCALE_OBJECTS = tuple(_BUILDERS)
#: each object's radius seen from above (for keeping it off the scale at the start)
OBJECT_RADIUS = {"bell": 0.035, "mouse": 0.063, "stapler": 0.078}


def add_scale_object(world, kind: str, xy, yaw=0.0, mass=0.05) -> BodyInfo:
    """One of SCALE_OBJECTS, named by its kind ('bell', 'mouse', 'stapler')."""
    parts, colours, grasps, height = _BUILDERS[kind]()
    return world.add_compound(
        kind,
        parts,
        (xy[0], xy[1], TABLE_TOP_Z),
        _yaw_quat(yaw),
        rgba=colours[-1],
        part_rgba=colours,
        mass=mass,
        category=kind,
        extra={"grasps": grasps, "height": height},
    )


def off_scale(scale_xy, scale_yaw, xy, kind, gap=0.01) -> bool:
    """Whether an object of `kind` at xy keeps `gap` clear of a scale at scale_xy (turned
    by scale_yaw), seen from above, whatever its own yaw."""
    c, s = math.cos(scale_yaw), math.sin(scale_yaw)
    dx, dy = xy[0] - scale_xy[0], xy[1] - scale_xy[1]
    lx, ly = c * dx + s * dy, -s * dx + c * dy  # the object's centre in the scale's frame
    ex = max(abs(lx) - SCALE_BODY[0] / 2, 0.0)
    ey = max(abs(ly) - SCALE_BODY[1] / 2, 0.0)
    return math.hypot(ex, ey) >= OBJECT_RADIUS[kind] + gap
