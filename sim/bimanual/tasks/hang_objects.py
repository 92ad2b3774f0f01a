"""The objects of handover_mic and hanging_mug: a handheld microphone, a mug whose handle
leaves room for a peg, and a mug rack with an inclined peg.

All have their frame at the centre of their bottom face (the rack: of its base plate),
z up, as the kitchen objects of `sim.bimanual.objects` do.
"""

from __future__ import annotations

import math

from sim.bimanual.objects import WALL, ring
from sim.bimanual.world import TABLE_TOP_Z
from sim.world import BodyInfo

# -- the microphone ------------------------------------------------------------------------
# A handheld vocal microphone (a Shure SM58 is 16.2 cm long, its head 5.1 cm across): a
# handle narrowing towards its butt, a grille head with a domed top; it stands on its butt.
# (shape, radius, bottom z, top z), bottom to top
MIC_PARTS = (
    ("butt", 0.014, 0.0, 0.055),
    ("handle", 0.017, 0.055, 0.120),
    ("neck", 0.021, 0.120, 0.130),
    ("grille", 0.026, 0.130, 0.163),
    ("dome", 0.021, 0.163, 0.172),
    ("cap", 0.013, 0.172, 0.178),
)
MIC_LENGTH = 0.178
MIC_HEAD = (0.0, 0.0, 0.150)  # the head's middle: the functional point (BiManiBench's fp 0)
MIC_HANDLE_GRASP_Z = 0.09  # the forward grasp on the handle, well below the head's grasp


def add_mic(world, key, xy, yaw=0.0, mass=0.12) -> BodyInfo:
    """The microphone standing on its butt. Grasp points: 0 the head from above (closing
    across the grille), 1 the handle from the robot's side (-y), the gripper pointing forward.
    """
    parts = []
    for name, r, bottom, top in MIC_PARTS:
        mid, half = (bottom + top) / 2, (top - bottom) / 2
        if name not in ("handle", "grille"):
            parts.append(("cylinder", (r, 2 * half), (0, 0, mid)))
            continue
        # octagonal (four slabs turned 45 degrees apart) where the fingers hold: flat against
        # a pad, it does not pivot between them as a round part held across does
        flat = r * math.tan(math.pi / 8)
        for k in range(4):
            a = k * math.pi / 4
            parts.append(
                ("box", (r, flat, half), (0, 0, mid), (0, 0, math.sin(a / 2), math.cos(a / 2)))
            )
    head_r = MIC_PARTS[3][1]
    handle_r = MIC_PARTS[1][1]
    grasps = [
        {"point": [0, 0, MIC_LENGTH - 0.028], "axis": [1, 0, 0], "width": 2 * head_r},
        {
            "point": [0, 0.008, MIC_HANDLE_GRASP_Z],
            "axis": [1, 0, 0],
            "width": 2 * handle_r,
            "approach": [0, 1, 0],
        },
    ]
    colours = [(0.12, 0.13, 0.15, 1.0)] * 6 + [(0.72, 0.74, 0.76, 1.0)] * 6
    return world.add_compound(
        key,
        parts,
        (xy[0], xy[1], TABLE_TOP_Z),
        (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)),
        rgba=colours[0],
        part_rgba=colours,
        mass=mass,
        category="microphone",
        extra={"grasps": grasps, "height": MIC_LENGTH, "functional_point": list(MIC_HEAD)},
    )


# -- the mug and the rack ------------------------------------------------------------------
HMUG_RADIUS, HMUG_HEIGHT = 0.04, 0.095
# the handle's loop (local x from the wall out, z up): a 3.5 x 5 cm opening between the wall,
# two bars and an upright, 1.2 cm wide, so that a 1 cm peg passes through it with room
HANDLE_OUT = 0.085  # outer x of the handle's upright
HANDLE_BAR = 0.005  # half thickness of its bars
HANDLE_LOW, HANDLE_HIGH = 0.025, 0.075  # the opening's bottom and top (z)
HANDLE_WIDE = 0.012
HANDLE_INNER = HANDLE_OUT - 2 * HANDLE_BAR  # the upright's inner face
HANDLE_WINDOW = ((HMUG_RADIUS + HANDLE_INNER) / 2, 0.0, (HANDLE_LOW + HANDLE_HIGH) / 2)
# where the handle rests on a peg, the mug hanging from it (the loop's top outer corner, its
# centre of mass under it): BiManiBench's functional point 0
HANDLE_POINT = (HANDLE_INNER, 0.0, HANDLE_HIGH)
MUG_RIM_DEPTH = 0.01  # open fingertips this far below the rim


def add_hook_mug(world, key, xy, yaw=0.0, rgba=(0.93, 0.92, 0.88, 1.0), mass=0.08) -> BodyInfo:
    """An 8 cm mug, 9.5 cm tall, hollow, its loop handle towards its local +x.

    Grasped from above by the rim (7 points, 45 degrees apart, from the handle round:
    point 3 is the rim opposite the handle), so that the handle stays free for a peg."""
    bar, r_in = HANDLE_BAR, HMUG_RADIUS - WALL / 2
    half_w = HANDLE_WIDE / 2
    parts = [("cylinder", (HMUG_RADIUS, 0.006), (0, 0, 0.003))]
    parts += ring(HMUG_RADIUS, HMUG_RADIUS, 0.0, HMUG_HEIGHT, 16)
    reach = (HANDLE_OUT - r_in) / 2
    parts += [
        ("box", (reach, half_w, bar), ((HANDLE_OUT + r_in) / 2, 0, HANDLE_HIGH + bar)),
        ("box", (reach, half_w, bar), ((HANDLE_OUT + r_in) / 2, 0, HANDLE_LOW - bar)),
        (
            "box",
            (bar, half_w, (HANDLE_HIGH - HANDLE_LOW) / 2 + 2 * bar),
            (HANDLE_OUT - bar, 0, (HANDLE_LOW + HANDLE_HIGH) / 2),
        ),
    ]
    r = HMUG_RADIUS - WALL / 2
    grasps = []
    for k in range(1, 8):
        a = k * math.pi / 4
        c, s = math.cos(a), math.sin(a)
        grasps.append(
            {
                "point": [r * c, r * s, HMUG_HEIGHT - MUG_RIM_DEPTH],
                "axis": [c, s, 0.0],
                "width": WALL,
            }
        )
    return world.add_compound(
        key,
        parts,
        (xy[0], xy[1], TABLE_TOP_Z),
        (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)),
        rgba=rgba,
        mass=mass,
        category="mug",
        extra={"grasps": grasps, "height": HMUG_HEIGHT, "functional_point": list(HANDLE_POINT)},
    )


RACK_BASE = (0.08, 0.07, 0.006)  # half extents of the base plate
RACK_POST = (0.011, 0.24)  # radius, height of the upright
PEG_R = 0.005  # a 1 cm rod
PEG_ROOT_Z = 0.19  # where the peg leaves the post, above the table
PEG_LENGTH = 0.13  # from the post's axis to the tip
PEG_RISE = math.radians(15)  # the peg rises towards its tip, so a mug does not slide off


def add_rack(world, key, xy, yaw=0.0) -> BodyInfo:
    """A fixed mug stand: a base plate, an upright post and one peg sticking out towards
    the robot (local -y), rising 15 degrees. extra["hook"] holds the peg's root (at the
    post's surface) and tip in the rack's frame."""
    post_r, post_h = RACK_POST
    rise = PEG_RISE
    d = (0.0, -math.cos(rise), math.sin(rise))
    root = (0.0, 0.0, PEG_ROOT_Z)
    mid = tuple(root[i] + d[i] * PEG_LENGTH / 2 for i in range(3))
    tilt = math.pi / 2 - rise  # about x: turns the cylinder's z axis onto d
    parts = [
        ("box", RACK_BASE, (0, -0.02, RACK_BASE[2])),
        ("cylinder", (post_r, post_h), (0, 0, post_h / 2)),
        ("cylinder", (PEG_R, PEG_LENGTH), mid, (math.sin(tilt / 2), 0, 0, math.cos(tilt / 2))),
    ]
    start = tuple(root[i] + d[i] * post_r for i in range(3))
    tip = tuple(root[i] + d[i] * PEG_LENGTH for i in range(3))
    return world.add_compound(
        key,
        parts,
        (xy[0], xy[1], TABLE_TOP_Z),
        (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)),
        rgba=(0.25, 0.26, 0.28, 1.0),
        mass=0.0,
        category="rack",
        friction=0.6,
        extra={"hook": {"root": list(start), "tip": list(tip)}, "height": post_h},
    )
