"""The objects of the dual-arm tasks, at real sizes, with the grasp points a 2F-85 can use.

Each `add_*` builds one body in a `DualArmWorld` and returns its `BodyInfo`.
Compound bodies (bowls, mug, basket, bread, skillet, tray) have their frame at the
centre of their bottom face, z up, so a place target is "where the bottom centre
goes". The 2F-85 opens 85 mm, so anything wider carries grasp points in
`extra["grasps"]` (its own frame): a rim (a bowl's lip, a basket's wall) or a
handle (mug, skillet). Each grasp point is where the open fingertips' lowest point
goes, the closing axis, the width there, and an optional side approach
direction (default: from above). `contact_point_id` picks among them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sim.bimanual.world import TABLE_TOP_Z, DualArmWorld
from sim.world import BodyInfo

COLOURS = {
    "red": (0.85, 0.1, 0.1, 1.0),
    "green": (0.1, 0.7, 0.2, 1.0),
    "blue": (0.1, 0.25, 0.85, 1.0),
    "yellow": (0.95, 0.85, 0.1, 1.0),
    "purple": (0.55, 0.2, 0.7, 1.0),
    "orange": (0.95, 0.5, 0.1, 1.0),
    "black": (0.08, 0.08, 0.08, 1.0),
}
BLOCK_HALF = 0.025  # 5 cm blocks
BLOCK_MASS = 0.05
# open fingertips this far below a rim's top: closing on a thin wall they sink ~14 mm more,
# and must stay on the vertical lip (lower, the inner pad meets a bowl's slanted wall first
# and tips the bowl)
RIM_DEPTH = 0.004
WALL = 0.005  # wall thickness of bowls and mugs


def _yaw_quat(yaw: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))


def _tilted(yaw: float, lean: float) -> tuple[float, float, float, float]:
    """A part turned by `yaw` about z after leaning by `lean` about its own y axis."""
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    cl, sl = math.cos(lean / 2), math.sin(lean / 2)
    # q_yaw (0, 0, sy, cy) * q_lean (0, sl, 0, cl)
    return (-sy * sl, cy * sl, sy * cl, cy * cl)


def add_block(world, key, xy, half=BLOCK_HALF, colour=None, orn=(0, 0, 0, 1)):
    """A cube of half edge `half` standing on the table; its colour from its key."""
    colour = colour or key.split("_")[0]
    return world.add_primitive(
        key,
        "box",
        (half, half, half),
        (xy[0], xy[1], TABLE_TOP_Z + half),
        orn,
        rgba=COLOURS[colour],
        mass=BLOCK_MASS,
        category="block",
    )


# -- walls of round things ------------------------------------------------------------------
def ring(r_bottom: float, r_top: float, z0: float, z1: float, n: int, rows: int = 1) -> list[tuple]:
    """Box parts of a wall of thickness WALL whose outer surface runs from radius r_bottom
    at height z0 to r_top at z1 (a cone's frustum, or a cylinder when equal), n segments
    round, `rows` boxes high (more rows fit a slanted wall more closely)."""
    parts = []
    lean = math.atan2(r_top - r_bottom, z1 - z0)
    for row in range(rows):
        ra = r_bottom + (r_top - r_bottom) * row / rows
        rb = r_bottom + (r_top - r_bottom) * (row + 1) / rows
        za = z0 + (z1 - z0) * row / rows
        zb = z0 + (z1 - z0) * (row + 1) / rows
        length = math.hypot(rb - ra, zb - za)
        half_w = max(ra, rb) * math.tan(math.pi / n) * 1.02  # no gaps at the wider end
        r_mid = (ra + rb) / 2 - math.cos(lean) * WALL / 2  # centre: inward of the surface
        z_mid = (za + zb) / 2 + math.sin(lean) * WALL / 2
        for i in range(n):
            yaw = 2 * math.pi * i / n
            parts.append(
                (
                    "box",
                    (WALL / 2, half_w, length / 2),
                    (r_mid * math.cos(yaw), r_mid * math.sin(yaw), z_mid),
                    _tilted(yaw, lean),
                )
            )
    return parts


def rim_grasps(radius: float, top: float, n: int = 8, depth: float = RIM_DEPTH) -> list[dict]:
    """Top-down grasps on a round rim (outer radius `radius`, top at `top`), n round."""
    r = radius - WALL / 2
    out = []
    for i in range(n):
        a = 2 * math.pi * i / n
        c, s = math.cos(a), math.sin(a)
        out.append({"point": [r * c, r * s, top - depth], "axis": [c, s, 0.0], "width": WALL})
    return out


# -- bowls ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BowlSize:
    """A bowl: outer radius at the rim and at the foot, height, the vertical lip's height."""

    rim: float
    foot: float
    height: float
    lip: float = 0.025


#: Three bowls that nest, largest first (rim diameters 16, 13.2 and 10.4 cm; 7, 6 and 5 cm
#: deep). Each sits on the floor of the next larger one with 4-7 mm to spare all round.
BOWLS = {
    "bowl1": (BowlSize(0.080, 0.050, 0.070), (0.93, 0.91, 0.85, 1.0)),  # cream
    "bowl2": (BowlSize(0.066, 0.040, 0.060), (0.35, 0.6, 0.85, 1.0)),  # light blue
    "bowl3": (BowlSize(0.052, 0.032, 0.050), (0.9, 0.45, 0.35, 1.0)),  # terracotta
}
BOWL_SEGMENTS = 16
BOWL_FLOOR = 0.005
# glazed ceramic: a bowl let go off-centre slides down the slanted wall of the one below
# (at 0.9, as wood, it stays wedged on the slope, tilted)
BOWL_FRICTION = 0.5


def add_bowl(world: DualArmWorld, key: str, xy, size: BowlSize, rgba, mass=0.12) -> BodyInfo:
    """A round bowl: a flat foot, a slanted wall, a short vertical lip to grasp."""
    n = BOWL_SEGMENTS
    top_of_slant = size.height - size.lip
    parts = [("cylinder", (size.foot, BOWL_FLOOR), (0, 0, BOWL_FLOOR / 2))]
    parts += ring(size.foot, size.rim, 0.0, top_of_slant, n, rows=2)
    parts += ring(size.rim, size.rim, top_of_slant, size.height, n)
    info = world.add_compound(
        key,
        parts,
        (xy[0], xy[1], TABLE_TOP_Z),
        rgba=rgba,
        mass=mass,
        category="bowl",
        friction=BOWL_FRICTION,
        extra={"grasps": rim_grasps(size.rim, size.height), "height": size.height},
    )
    return info


# -- mug, bread, skillet, basket ------------------------------------------------------------------
MUG_RADIUS, MUG_HEIGHT = 0.04, 0.095
MUG_HANDLE = (0.07, 0.012)  # outer x of the handle, its width across


def add_mug(world, key, xy, yaw=0.0, rgba=(0.95, 0.95, 0.93, 1.0), mass=0.08) -> BodyInfo:
    """An 8 cm mug, 9.5 cm tall, hollow, its handle towards its local +x.

    Too wide for the 2F-85 across its body: it is grasped by the handle from above."""
    hx, hw = MUG_HANDLE
    bar = 0.005  # half thickness of the handle's bars
    parts = [("cylinder", (MUG_RADIUS, 0.006), (0, 0, 0.003))]
    parts += ring(MUG_RADIUS, MUG_RADIUS, 0.0, MUG_HEIGHT, 16)
    r_in = MUG_RADIUS - WALL / 2
    parts += [
        ("box", ((hx - r_in) / 2, hw / 2, bar), ((hx + r_in) / 2, 0, 0.080)),
        ("box", ((hx - r_in) / 2, hw / 2, bar), ((hx + r_in) / 2, 0, 0.025)),
        ("box", (bar, hw / 2, 0.0325), (hx - bar, 0, 0.0525)),
    ]
    grasps = [{"point": [hx - 0.012, 0, 0.085 - 0.022], "axis": [0, 1, 0], "width": hw}]
    return world.add_compound(
        key,
        parts,
        (xy[0], xy[1], TABLE_TOP_Z),
        _yaw_quat(yaw),
        rgba=rgba,
        mass=mass,
        category="mug",
        extra={"grasps": grasps, "height": MUG_HEIGHT},
    )


BREAD = (0.11, 0.06, 0.06)  # length, width, height of a small loaf


def add_bread(world, key, xy, yaw=0.0, mass=0.05) -> BodyInfo:
    """A small loaf, 11 x 6 x 6 cm: a flat base under a rounded top; grasped across."""
    length, width, height = BREAD
    r = width / 2
    base_h = height - r  # the lying cylinder's axis; its lower half is inside the base
    lying = (0.0, math.sin(math.pi / 4), 0.0, math.cos(math.pi / 4))  # axis along x
    parts = [
        ("box", (length / 2, r, base_h / 2), (0, 0, base_h / 2)),
        ("cylinder", (r, length), (0, 0, base_h), lying),
    ]
    # low on its flanks: held at the rounded top alone it pivots between the pads
    grasps = [{"point": [0, 0, 0.02], "axis": [0, 1, 0], "width": width}]
    return world.add_compound(
        key,
        parts,
        (xy[0], xy[1], TABLE_TOP_Z),
        _yaw_quat(yaw),
        rgba=(0.8, 0.55, 0.25, 1.0),
        part_rgba=[(0.85, 0.65, 0.35, 1.0), (0.72, 0.45, 0.18, 1.0)],
        mass=mass,
        category="food",
        extra={"grasps": grasps, "height": height},
    )


SKILLET = (0.10, 0.035, 0.17)  # pan radius, wall height, handle length
# a 2.5 x 2.5 cm handle rising at 20 degrees from the rim, as a frying pan's does: the
# fingers close across its thickness (above and below it) with room under the lower one;
# pinched from above across a flat handle at the table, the pads met the table first, and
# a pinch across the handle holds the pan's weight by friction alone (it droops)
SKILLET_HANDLE = (0.025, 0.025, math.radians(20))  # width, thickness, rise
SKILLET_GRIP = 0.13  # the fingertips this far along the handle from the pan (4 cm in)


def add_skillet(world, key, xy, yaw=0.0, mass=0.15) -> BodyInfo:
    """A 20 cm skillet with a 17 cm handle rising towards its local +x; grasped by the
    handle, the gripper coming along it from its end and closing across its thickness."""
    radius, wall_h, handle = SKILLET
    width, thick, rise = SKILLET_HANDLE
    parts = [("cylinder", (radius, 0.006), (0, 0, 0.003))]
    parts += ring(radius, radius, 0.0, wall_h, 20)
    root = (radius - 0.005, 0.0, wall_h - 0.01)
    along = (math.cos(rise), 0.0, math.sin(rise))
    across = (-math.sin(rise), 0.0, math.cos(rise))
    centre = tuple(r + a * handle / 2 for r, a in zip(root, along, strict=True))
    parts.append(("box", (handle / 2, width / 2, thick / 2), centre, _tilted(0.0, -rise)))
    colours = [(0.2, 0.2, 0.22, 1.0)] * (len(parts) - 1) + [(0.35, 0.22, 0.12, 1.0)]
    tips = [r + a * SKILLET_GRIP for r, a in zip(root, along, strict=True)]
    grasps = [
        {"point": tips, "axis": list(across), "width": thick, "approach": [-a for a in along]}
    ]
    return world.add_compound(
        key,
        parts,
        (xy[0], xy[1], TABLE_TOP_Z),
        _yaw_quat(yaw),
        rgba=(0.2, 0.2, 0.22, 1.0),
        part_rgba=colours,
        mass=mass,
        category="skillet",
        extra={"grasps": grasps, "height": wall_h},
    )


BASKET = (0.24, 0.17, 0.09)  # outer length (local x), width, height
BASKET_WALL = 0.01  # a woven rim is about 1 cm thick; a thinner wall leaves no grip preload
# fingertips this far down the wall: the pads must cover enough of it to drag the basket
# by one wall without it turning between them
BASKET_GRIP_DEPTH = 0.025


def open_box_parts(length: float, width: float, height: float, wall: float, floor: float):
    """An open-topped box (a basket, a bin): a floor `floor` thick and four walls `wall`
    thick, `length` along local x, `width` along y, `height` tall, its frame at the centre
    of its bottom face."""
    lx, ly, t = length / 2, width / 2, wall / 2
    return [
        ("box", (lx, ly, floor / 2), (0, 0, floor / 2)),
        ("box", (t, ly, height / 2), (lx - t, 0, height / 2)),
        ("box", (t, ly, height / 2), (-lx + t, 0, height / 2)),
        ("box", (lx, t, height / 2), (0, ly - t, height / 2)),
        ("box", (lx, t, height / 2), (0, -ly + t, height / 2)),
    ]


def add_basket(world, key, xy, yaw=0.0, mass=0.15) -> BodyInfo:
    """A 24 x 17 cm basket, 9 cm deep, open at the top; grasped by a wall's top edge.

    Grasp points: 0 the +x end wall, 1 the -x end wall, 2 the +y side, 3 the -y side."""
    lx, ly, h = BASKET[0] / 2, BASKET[1] / 2, BASKET[2]
    t = BASKET_WALL / 2
    parts = open_box_parts(*BASKET, BASKET_WALL, 0.006)
    z = h - BASKET_GRIP_DEPTH
    grasps = [
        {"point": [lx - t, 0, z], "axis": [1, 0, 0], "width": BASKET_WALL},
        {"point": [-lx + t, 0, z], "axis": [1, 0, 0], "width": BASKET_WALL},
        {"point": [0, ly - t, z], "axis": [0, 1, 0], "width": BASKET_WALL},
        {"point": [0, -ly + t, z], "axis": [0, 1, 0], "width": BASKET_WALL},
    ]
    return world.add_compound(
        key,
        parts,
        (xy[0], xy[1], TABLE_TOP_Z),
        _yaw_quat(yaw),
        rgba=(0.62, 0.42, 0.22, 1.0),
        mass=mass,
        category="basket",
        extra={"grasps": grasps, "height": h, "inner": [lx - 2 * t, ly - 2 * t]},
    )
