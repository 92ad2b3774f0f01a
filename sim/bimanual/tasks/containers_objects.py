"""The objects of place_cans_plasticbox and put_bottles_dustbin, at real sizes: drink cans,
an open plastic box, three plastic bottles and a dustbin that stands on the floor.

Cans are plain cylinders (frame at their centre). The box and the dustbin have their frame
at the centre of their bottom face, z up, as the kitchen objects do. A bottle's frame is at
its middle (where an empty bottle's centre of mass is), z up along its axis.
"""

from __future__ import annotations

import math

from sim.bimanual.objects import open_box_parts
from sim.bimanual.world import TABLE_TOP_Z
from sim.world import BodyInfo

# -- cans and the plastic box ------------------------------------------------------------------
CAN = (0.033, 0.122)  # radius, height: a 330 ml drink can (66 mm across, within the 79 mm grip)
CAN_MASS = 0.05  # BiManiBench sets 0.05 kg
CAN_COLOURS = {
    "white": (0.93, 0.93, 0.9, 1.0),
    "red": (0.8, 0.08, 0.1, 1.0),
    "blue": (0.15, 0.3, 0.75, 1.0),
    "silver": (0.72, 0.74, 0.76, 1.0),
    "green": (0.2, 0.6, 0.3, 1.0),
    "orange": (0.95, 0.55, 0.15, 1.0),
}
# fingertips this far below a can's top: deeper and the inner knuckles land on the lid
CAN_GRIP_DEPTH = 0.028

BOX = (0.22, 0.16, 0.075)  # outer length (x), width (y), height of the plastic box
BOX_WALL = 0.006
BOX_FLOOR = 0.005
BOX_MASS = 0.2
# where the cans go (functional points, box frame, on its floor): 0 the right half (+x), 1 the
# left half, as BiManiBench's left arm uses point 1 and its right arm point 0
BOX_SPOTS = ((0.055, 0.0, BOX_FLOOR), (-0.055, 0.0, BOX_FLOOR))


def add_can(world, key: str, xy, colour: str = "red") -> BodyInfo:
    """A drink can standing on the table, grasped from above across its lid (the fingers
    closing along its local y: away from the box beside it on the table)."""
    r, h = CAN
    info = world.add_primitive(
        key,
        "cylinder",
        CAN,
        (xy[0], xy[1], TABLE_TOP_Z + h / 2),
        rgba=CAN_COLOURS[colour],
        mass=CAN_MASS,
        category="can",
    )
    info.extra["grasps"] = [
        {"point": [0.0, 0.0, h / 2 - CAN_GRIP_DEPTH], "axis": [0.0, 1.0, 0.0], "width": 2 * r}
    ]
    return info


def add_plasticbox(world, key: str, xy, yaw: float = 0.0) -> BodyInfo:
    """An open light-blue storage box, 22 x 16 cm and 7.5 cm deep, 6 mm walls."""
    lx, ly, h = BOX[0] / 2, BOX[1] / 2, BOX[2]
    parts = open_box_parts(*BOX, BOX_WALL, BOX_FLOOR)
    return world.add_compound(
        key,
        parts,
        (xy[0], xy[1], TABLE_TOP_Z),
        (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)),
        rgba=(0.45, 0.72, 0.92, 1.0),
        mass=BOX_MASS,
        category="box",
        extra={
            "height": h,
            "inner": [lx - BOX_WALL, ly - BOX_WALL],
            "functional_points": [list(p) for p in BOX_SPOTS],
        },
    )


# -- bottles and the dustbin ---------------------------------------------------------------
# (body radius, total height, body colour, cap colour) of 114_bottle's three models: a yellow
# bottle with a green cap, a clear water bottle with a turquoise cap, a black soda bottle
# with a red cap
BOTTLES = {
    "bottle1": (0.031, 0.20, (0.95, 0.82, 0.15, 1.0), (0.15, 0.6, 0.25, 1.0)),
    "bottle2": (0.033, 0.21, (0.78, 0.88, 0.95, 1.0), (0.1, 0.75, 0.75, 1.0)),
    "bottle3": (0.032, 0.20, (0.1, 0.1, 0.1, 1.0), (0.85, 0.1, 0.1, 1.0)),
}
BOTTLE_MASS = 0.05
NECK_RADIUS = 0.0145  # neck and cap: 29 mm across
NECK_LENGTH = 0.045  # the neck and cap above the shoulder
SHOULDER = 0.03  # the shoulder's height, between the body and the neck
CAP_GRIP_DEPTH = 0.025  # top-down: fingertips this far below the cap's top
# from the side: fingertips this far past the bottle's axis, so that the pads (3.8 cm long)
# close on the two flat faces across it, not on the edges behind them
SIDE_GRIP_REACH = 0.02


def prism(radius: float, z0: float, z1: float, sides: int) -> list[tuple]:
    """A regular prism (`sides` even) round the z axis from z0 to z1, `radius` to
    its flat faces, as one convex hull (a compound "prism" part); a face looks along local
    +-x. A pad closing on a flat face touches it over an area and holds it from turning
    about the closing axis (on a round cylinder PyBullet's line contact is one point per
    pad, and the bottle swings)."""
    return [("prism", (radius, (z1 - z0) / 2, sides), (0, 0, (z0 + z1) / 2))]


def bottle_parts(radius: float, height: float) -> list[tuple]:
    """A 12-sided body, a two-step round shoulder, a six-sided neck and cap; the bottom at
    z = -height/2."""
    z0 = -height / 2
    body = height - SHOULDER - NECK_LENGTH
    parts = prism(radius, z0, z0 + body, 12)
    for i, r in enumerate((radius * 0.8, radius * 0.6)):
        parts.append(("cylinder", (r, SHOULDER / 2), (0, 0, z0 + body + SHOULDER * (i + 0.5) / 2)))
    parts += prism(NECK_RADIUS, height / 2 - NECK_LENGTH, height / 2, 6)
    return parts


def add_bottle(world, key: str, xy) -> BodyInfo:
    """One of the three plastic bottles, standing on the table.

    Grasp points: 0 its body at its middle (the centre of mass, 10 cm up) from the robot's
    side (-y), the gripper pointing forward (+y) as at the origin pose; 1 top-down on the
    neck and cap. The fingers close along the bottle's x, across two flat faces."""
    radius, height, body_rgba, cap_rgba = BOTTLES[key]
    parts = bottle_parts(radius, height)
    grasps = [
        {
            "point": [0, SIDE_GRIP_REACH, 0],
            "axis": [1, 0, 0],
            "width": 2 * radius,
            "approach": [0, 1, 0],
        },
        {"point": [0, 0, height / 2 - CAP_GRIP_DEPTH], "axis": [1, 0, 0], "width": 2 * NECK_RADIUS},
    ]
    return world.add_compound(
        key,
        parts,
        (xy[0], xy[1], TABLE_TOP_Z + height / 2),
        rgba=body_rgba,
        part_rgba=[body_rgba] * (len(parts) - 3) + [cap_rgba] * 3,
        mass=BOTTLE_MASS,
        category="bottle",
        extra={"grasps": grasps, "height": height},
    )


DUSTBIN = (0.32, 0.40, 0.65)  # outer length (x), width (y), height: a tall (~75 l) kitchen bin
DUSTBIN_WALL = 0.01
# on the floor left of the table (its top spans x -0.6 to 0.6), 3 cm clear of the table's edge
DUSTBIN_AT = (-0.6 - 0.03 - DUSTBIN[0] / 2, 0.0)


def add_dustbin(world, key: str = "dustbin", xy=DUSTBIN_AT) -> BodyInfo:
    """An open black dustbin standing on the floor, fixed (as BiManiBench's static one):
    a floor and four 1 cm walls, its rim at z = 0.65, below the table top."""
    lx, ly, h = DUSTBIN[0] / 2, DUSTBIN[1] / 2, DUSTBIN[2]
    parts = open_box_parts(*DUSTBIN, DUSTBIN_WALL, DUSTBIN_WALL)
    return world.add_compound(
        key,
        parts,
        (xy[0], xy[1], 0.0),
        rgba=(0.12, 0.12, 0.13, 1.0),
        mass=0.0,
        category="dustbin",
        extra={"height": h, "inner": [lx - DUSTBIN_WALL, ly - DUSTBIN_WALL]},
    )
