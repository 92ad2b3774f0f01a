#!/usr/bin/env python3
"""Generate the simulated Robotiq 2F-140: its URDF and simple convex meshes.

    python scripts/make_gripper_2f140.py                # rewrite resources/grippers/robotiq_2f_140/
    python scripts/make_gripper_2f140.py --out /tmp/g   # somewhere else (same bytes)

The 2F-140 has the same four-bar finger linkage as the 2F-85 and the same housing
and fingertip (inner finger); its knuckles and outer fingers are longer (100 mm
between the pivots against the 2F-85's 57 mm), which turns the same 43 degrees of
knuckle travel into a 140 mm stroke.

Where the numbers come from (facts, not code or meshes: nothing of theirs is copied):

- the joint origins, tilts and mimic directions of the 2F-140 are those of
  ros-industrial/robotiq, robotiq_2f_140_gripper_visualization/urdf/
  robotiq_arg2f_140_model_macro.xacro (commit 45196f6558fe8ba9d89bc8a105396c68c3e7e892);
  the link sizes are read off that package's collision meshes (bounding boxes);
- the frames, joint names, axes, mimic factors, housing and the fingertip pad are
  those of the airo-models 2F-85 (grippers/robotiq_2f_85/urdf/robotiq_2f_85.urdf),
  so `sim.robotiq` mounts and couples both grippers the same way;
- the Robotiq datasheet: stroke 140 mm, grip force 10-125 N, closing speed
  30-250 mm/s, mass about 1.0 kg.

The xacro writes the 2F-140 in frames tilted by pi/2 + 0.725 about x; here every
link frame is parallel to the housing's (mirrored for the left finger) at
finger_joint = 0, as in the 2F-85 URDF: x across the finger, y outward (away from
the other finger), z along the fingers, away from the flange. All joints turn about
+x and close for positive angles; the followers' factors on finger_joint are the
2F-85's (1, -1, 1, 1, -1).

The xacro's "big rubber pad" (7.5 mm thick, 70 mm long) would leave only 128.5 mm
between the open pads; its inner finger is the 2F-85's part (same extents), so the
pad here is the 2F-85's pad at the 2F-85's place on it, which opens to 140.0 mm,
the published stroke.

Every collision shape is one convex OBJ (written by numpy and scipy's hull) or a
box primitive (the pads), one per link. Masses add up to the datasheet's 1.0 kg;
each link's inertia is that of its convex mesh at uniform density.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
from scipy.spatial import ConvexHull

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "resources" / "grippers" / "robotiq_2f_140"
URDF_NAME = "robotiq_2f_140.urdf"

# -- ros-industrial/robotiq robotiq_arg2f_140_model_macro.xacro (45196f6) ----------------
XACRO_TILT = math.pi / 2 + 0.725  # roll of finger_joint, the outer and inner knuckle joints
INNER_FINGER_TILT = -0.725  # roll of inner_finger_joint: the fingertip stays upright
OUTER_KNUCKLE_PIVOT = (0.030601, 0.054905)  # finger_joint: (|y|, z) in the housing frame
INNER_KNUCKLE_PIVOT = (0.0127, 0.06142)  # inner_knuckle_joint: (|y|, z)
OUTER_FINGER_ORIGIN = (0.01821998610742, 0.0260018192872234)  # in the knuckle's tilted (y, z)
INNER_FINGER_ORIGIN = (0.0817554015893473, -0.0282203446692936)  # in the outer finger's (y, z)
# Link widths (x) and bar radii from the xacro package's collision meshes (bounding boxes).
OUTER_KNUCKLE_WIDTH, OUTER_FINGER_WIDTH = 0.024, 0.027
INNER_KNUCKLE_WIDTH, INNER_FINGER_WIDTH = 0.039, 0.015
BAR_RADIUS = 0.006  # half thickness of the fingers and knuckles around their pivot lines

# -- airo-models 2F-85 (shared parts: housing, fingertip, pad) -----------------------------
HOUSING_YAW = -1.57  # base_link -> base_link_inertia, as the 2F-85 URDF has it
PAD_ORIGIN = (-0.0220203446692936, 0.03242)  # pad centre on the inner finger: (out, down)
PAD_SIZE = (0.022, 0.00635, 0.0375)  # width (x), thickness (out), length (down)
FINGERTIP_FACE, FINGERTIP_END = 0.0239, 0.0445  # inner finger: inner face (-out), tip (down)
HOUSING_RADIUS, HOUSING_HALF_Y = 0.0375, 0.0424  # housing mesh extents (x radius, web y)

# -- datasheet: about 1.0 kg in all -------------------------------------------------------
MASS = {
    "base_link": 0.10,  # the coupling plate at the flange (keeps the base's COM at the flange)
    "base_link_inertia": 0.63,
    "outer_knuckle": 0.02,
    "outer_finger": 0.04,
    "inner_knuckle": 0.045,
    "inner_finger": 0.015,
    "inner_finger_pad": 0.02,  # sim.robotiq.PAD_MASS
}
PAD_FRICTION = 2.0  # sim.robotiq.FINGER_FRICTION: the pads are rubber

DARK, METAL, PAD = (0.1, 0.1, 0.1, 1.0), (0.79, 0.82, 0.93, 1.0), (0.9, 0.9, 0.9, 1.0)
SEGMENTS = 24  # points on a full circle


def tilted_to_side(y: float, z: float) -> np.ndarray:
    """A vector in the xacro's tilted knuckle frame as (out, down) in a finger's frame."""
    c, s = math.cos(XACRO_TILT), math.sin(XACRO_TILT)
    return np.array([-(c * y - s * z), s * y + c * z])


def linkage() -> dict[str, np.ndarray]:
    """The 2F-140's pivots at finger_joint = 0, as (out, down) vectors in a finger's frame."""
    # in the xacro too the fingertip's frame is upright (rolled by pi/2 in all), so its
    # pad offsets read the same in the 2F-85's frames
    assert math.isclose(XACRO_TILT + INNER_FINGER_TILT, math.pi / 2)
    outer_finger = tilted_to_side(*OUTER_FINGER_ORIGIN)
    inner_finger = tilted_to_side(*INNER_FINGER_ORIGIN)
    knuckle_offset = np.array(INNER_KNUCKLE_PIVOT) - np.array(OUTER_KNUCKLE_PIVOT)
    return {
        "outer_finger": outer_finger,  # outer knuckle pivot -> outer finger frame
        "inner_finger": inner_finger,  # outer finger frame -> inner finger joint
        "outer_link": outer_finger + inner_finger,  # outer knuckle pivot -> inner finger joint
        # the parallelogram's fourth pivot: where the inner knuckle meets the inner finger
        "inner_knuckle_end": knuckle_offset,  # relative to the inner finger joint
    }


# -- meshes ---------------------------------------------------------------------------------
def disc(centre, radius: float, n: int = SEGMENTS) -> np.ndarray:
    """Points on a circle in the (out, down) plane."""
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    return np.stack([centre[0] + radius * np.cos(t), centre[1] + radius * np.sin(t)], axis=1)


def extrude(profile: np.ndarray, width: float) -> np.ndarray:
    """(x, out, down) points of a 2D profile extruded across x by `width`."""
    pts = [np.column_stack([np.full(len(profile), x), profile]) for x in (-width / 2, width / 2)]
    return np.vstack(pts)


def bar(a, b, width: float, ra: float = BAR_RADIUS, rb: float | None = None) -> np.ndarray:
    """A rounded bar (stadium) from pivot `a` to pivot `b`, `width` across."""
    rb = ra if rb is None else rb
    return extrude(np.vstack([disc(a, ra), disc(b, rb)]), width)


def hull(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The convex hull of `points`: vertices and outward-facing triangles."""
    h = ConvexHull(points)
    used = np.unique(h.simplices)
    index = {int(v): i for i, v in enumerate(used)}
    verts = points[used]
    centre = verts.mean(axis=0)
    faces = []
    for tri in h.simplices:
        f = [index[int(v)] for v in tri]
        a, b, c = verts[f]
        if np.dot(np.cross(b - a, c - a), a - centre) < 0:
            f = [f[0], f[2], f[1]]
        faces.append(f)
    faces.sort()
    return verts, np.array(faces)


def write_obj(path: Path, parts: list[tuple[np.ndarray, np.ndarray]], comment: str) -> None:
    """Write convex parts (vertices, triangles) as one OBJ, one `o` group per part."""
    lines = [f"# {comment}", "# Generated by scripts/make_gripper_2f140.py (MIT licence)."]
    base = 1
    for i, (verts, faces) in enumerate(parts):
        lines.append(f"o part{i}")
        lines += [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y, z in verts]
        lines += [f"f {a + base} {b + base} {c + base}" for a, b, c in faces]
        base += len(verts)
    path.write_text("\n".join(lines) + "\n")


def mesh_inertia(verts: np.ndarray, faces: np.ndarray, mass: float):
    """Centre of mass and inertia tensor about it of a closed mesh at uniform density."""
    a, b, c = (verts[faces[:, i]] for i in range(3))
    vol6 = np.einsum("ij,ij->i", a, np.cross(b, c))  # six times each tetra's signed volume
    volume = vol6.sum() / 6
    com = (vol6[:, None] * (a + b + c)).sum(axis=0) / (4 * vol6.sum())
    # second moments of each tetrahedron (origin, a, b, c) about the origin
    s = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            s[i, j] = (
                vol6
                / 120
                * (
                    2 * (a[:, i] * a[:, j] + b[:, i] * b[:, j] + c[:, i] * c[:, j])
                    + a[:, i] * b[:, j]
                    + a[:, j] * b[:, i]
                    + a[:, i] * c[:, j]
                    + a[:, j] * c[:, i]
                    + b[:, i] * c[:, j]
                    + b[:, j] * c[:, i]
                )
            ).sum()
    density = mass / volume
    s = s * density - mass * np.outer(com, com)  # about the centre of mass
    inertia = np.trace(s) * np.eye(3) - s
    return com, inertia


def build_meshes() -> dict[str, tuple[list, list]]:
    """Each link's (visual parts, collision parts), in the link's own frame."""
    k = linkage()
    origin = np.zeros(2)
    meshes: dict[str, tuple[list, list]] = {}

    # housing (base_link_inertia frame: fingers along +y / -y, z away from the flange):
    # a round body with a tapered web between the knuckles, as the 2F-85's housing mesh
    t = np.linspace(0.0, 2 * math.pi, 2 * SEGMENTS, endpoint=False)
    ring = np.stack([HOUSING_RADIUS * np.cos(t), HOUSING_RADIUS * np.sin(t)], axis=1)
    body = np.vstack([np.column_stack([ring, np.full(len(t), z)]) for z in (0.0, 0.031)])
    web_levels = ((0.031, 0.0369, 0.0297), (0.0533, 0.010, HOUSING_HALF_Y))
    web_levels += ((0.062, 0.010, HOUSING_HALF_Y), (0.09, 0.010, 0.0245))
    web = np.array(
        [(sx * x, sy * y, z) for z, x, y in web_levels for sx in (-1, 1) for sy in (-1, 1)]
    )
    body_hull, web_hull = hull(body), hull(np.vstack([web, body[len(t) :] * [0.98, 0.98, 1]]))
    meshes["base_link_inertia"] = ([body_hull, web_hull], [hull(np.vstack([body, web]))])

    # outer knuckle: from finger_joint to the outer finger, a boss round the pivot
    knuckle = hull(bar(origin, k["outer_finger"], OUTER_KNUCKLE_WIDTH, 0.010, 0.008))
    meshes["outer_knuckle"] = ([knuckle],) * 2
    # outer finger: from its fixed joint on the knuckle to the inner finger joint
    finger = hull(bar(origin, k["inner_finger"], OUTER_FINGER_WIDTH))
    meshes["outer_finger"] = ([finger],) * 2
    # inner knuckle: the parallelogram's second bar, as long as the outer one
    inner_knuckle = hull(bar(origin, k["outer_link"], INNER_KNUCKLE_WIDTH))
    meshes["inner_knuckle"] = ([inner_knuckle],) * 2
    # inner finger (the fingertip): both pivots and the pad's backing plate down to the tip
    backing = np.array(
        [
            (-FINGERTIP_FACE, k["inner_knuckle_end"][1]),
            (-FINGERTIP_FACE, FINGERTIP_END),
            (PAD_ORIGIN[0] + PAD_SIZE[1], FINGERTIP_END),
            (PAD_ORIGIN[0] + PAD_SIZE[1], k["inner_knuckle_end"][1]),
        ]
    )
    profile = np.vstack(
        [disc(origin, BAR_RADIUS), disc(k["inner_knuckle_end"], BAR_RADIUS), backing]
    )
    tip = hull(extrude(profile, INNER_FINGER_WIDTH))
    meshes["inner_finger"] = ([tip],) * 2
    return meshes


# -- URDF ----------------------------------------------------------------------------------
def fmt(values) -> str:
    return " ".join(f"{v:.9g}" if abs(v) > 1e-12 else "0" for v in values)


def inertial(mass: float, com, inertia) -> str:
    i = np.where(np.abs(inertia) < 1e-15, 0.0, inertia)  # no rounding noise in the file
    return (
        f'    <inertial>\n      <origin xyz="{fmt(com)}" rpy="0 0 0"/>\n'
        f'      <mass value="{mass:.9g}"/>\n'
        f'      <inertia ixx="{i[0, 0]:.6e}" ixy="{i[0, 1]:.6e}" ixz="{i[0, 2]:.6e}" '
        f'iyy="{i[1, 1]:.6e}" iyz="{i[1, 2]:.6e}" izz="{i[2, 2]:.6e}"/>\n    </inertial>\n'
    )


def mesh_link(name: str, kind: str, mesh_info: dict, rgba) -> str:
    visual_file, collision_file, com, inertia = mesh_info[kind]
    return (
        f'  <link name="{name}">\n'
        + inertial(MASS[kind], com, inertia)
        + f'    <visual>\n      <origin xyz="0 0 0" rpy="0 0 0"/>\n'
        f'      <geometry><mesh filename="{visual_file}"/></geometry>\n'
        f'      <material name=""><color rgba="{fmt(rgba)}"/></material>\n    </visual>\n'
        f'    <collision>\n      <origin xyz="0 0 0" rpy="0 0 0"/>\n'
        f'      <geometry><mesh filename="{collision_file}"/></geometry>\n    </collision>\n'
        "  </link>\n"
    )


def pad_link(name: str) -> str:
    w, t, length = PAD_SIZE
    m = MASS["inner_finger_pad"]
    ixx, iyy, izz = (
        m * (t * t + length * length) / 12,
        m * (w * w + length * length) / 12,
        m * (w * w + t * t) / 12,
    )
    box = f'<box size="{fmt(PAD_SIZE)}"/>'
    return (
        f'  <link name="{name}">\n'
        f"    <contact>\n"
        f'      <lateral_friction value="{PAD_FRICTION}"/>\n'
        f'      <spinning_friction value="0.01"/>\n'
        f"    </contact>\n"
        + inertial(m, (0, 0, 0), np.diag([ixx, iyy, izz]))
        + f'    <visual>\n      <origin xyz="0 0 0" rpy="0 0 0"/>\n'
        f"      <geometry>{box}</geometry>\n"
        f'      <material name=""><color rgba="{fmt(PAD)}"/></material>\n    </visual>\n'
        f'    <collision>\n      <origin xyz="0 0 0" rpy="0 0 0"/>\n'
        f"      <geometry>{box}</geometry>\n    </collision>\n"
        "  </link>\n"
    )


def joint(name, kind, parent, child, xyz, yaw=0.0, limit=None, mimic=None) -> str:
    text = (
        f'  <joint name="{name}" type="{kind}">\n'
        f'    <origin xyz="{fmt(xyz)}" rpy="0 0 {yaw:.9g}"/>\n'
        f'    <parent link="{parent}"/>\n    <child link="{child}"/>\n'
        '    <axis xyz="1 0 0"/>\n'
    )
    if limit is not None:
        text += (
            f'    <limit lower="{limit[0]:.9g}" upper="{limit[1]:.9g}" '
            'effort="1000" velocity="2.0"/>\n'
        )
    if mimic is not None:
        text += f'    <mimic joint="finger_joint" multiplier="{mimic:g}" offset="0"/>\n'
    return text + "  </joint>\n"


# The pads meet at ~0.757 rad (the xacro's limit, 0.7, leaves 11 mm between them); the
# limit leaves a little room past it (the pads of one body do not collide with each
# other), like the 2F-85's 0.8.
FINGER_LIMIT = 0.78
FOLLOWER_LIMIT = 0.8757  # the 2F-85's


def urdf_text(mesh_info: dict) -> str:
    k = linkage()
    out_pivot, down_pivot = OUTER_KNUCKLE_PIVOT
    in_pivot, down_in = INNER_KNUCKLE_PIVOT
    parts = [
        '<?xml version="1.0"?>\n',
        "<!-- Robotiq 2F-140, generated by scripts/make_gripper_2f140.py: do not edit by hand.\n",
        "     Kinematics from ros-industrial/robotiq (robotiq_arg2f_140_model_macro.xacro,\n",
        "     45196f6), frames and joint names as the airo-models 2F-85. See README.md. -->\n",
        '<robot name="robotiq_2f_140">\n',
        '  <link name="base_link">\n',
        inertial(MASS["base_link"], (0, 0, 0), np.diag([3.5e-5, 3.5e-5, 7.0e-5])),
        "  </link>\n",
        mesh_link("base_link_inertia", "base_link_inertia", mesh_info, DARK),
    ]
    for side in ("left", "right"):
        parts += [
            mesh_link(f"{side}_outer_knuckle", "outer_knuckle", mesh_info, METAL),
            mesh_link(f"{side}_outer_finger", "outer_finger", mesh_info, DARK),
            mesh_link(f"{side}_inner_finger", "inner_finger", mesh_info, DARK),
            pad_link(f"{side}_inner_finger_pad"),
            mesh_link(f"{side}_inner_knuckle", "inner_knuckle", mesh_info, DARK),
        ]
    parts.append(
        joint(
            "base_link_to_base_link_inertia",
            "fixed",
            "base_link",
            "base_link_inertia",
            (0, 0, 0),
            HOUSING_YAW,
        )
    )
    for side, sign, yaw in (("left", -1, math.pi), ("right", 1, 0.0)):
        driver = "finger_joint" if side == "left" else "right_outer_knuckle_joint"
        parts += [
            joint(
                driver,
                "revolute",
                "base_link_inertia",
                f"{side}_outer_knuckle",
                (0, sign * out_pivot, down_pivot),
                yaw,
                limit=(0.0, FINGER_LIMIT),
                mimic=None if side == "left" else 1,
            ),
            joint(
                f"{side}_outer_finger_joint",
                "fixed",
                f"{side}_outer_knuckle",
                f"{side}_outer_finger",
                (0, *k["outer_finger"]),
            ),
            joint(
                f"{side}_inner_knuckle_joint",
                "revolute",
                "base_link_inertia",
                f"{side}_inner_knuckle",
                (0, sign * in_pivot, down_in),
                yaw,
                limit=(0.0, FOLLOWER_LIMIT),
                mimic=1,
            ),
            joint(
                f"{side}_inner_finger_joint",
                "revolute",
                f"{side}_outer_finger",
                f"{side}_inner_finger",
                (0, *k["inner_finger"]),
                limit=(-FOLLOWER_LIMIT, 0.0),
                mimic=-1,
            ),
            joint(
                f"{side}_inner_finger_pad_joint",
                "fixed",
                f"{side}_inner_finger",
                f"{side}_inner_finger_pad",
                (0, *PAD_ORIGIN),
            ),
        ]
    parts.append("</robot>\n")
    return "".join(parts)


def generate(out: Path) -> list[Path]:
    """Write the URDF and the meshes under `out`; return the files written."""
    mesh_dir = out / "meshes"
    mesh_dir.mkdir(parents=True, exist_ok=True)
    written = []
    mesh_info = {}
    for kind, (visual, collision) in build_meshes().items():
        files = {"collision": f"meshes/{kind}.obj", "visual": f"meshes/{kind}.obj"}
        if visual is not collision:
            files["visual"] = f"meshes/{kind}_visual.obj"
        for role in ("collision", "visual"):
            path = out / files[role]
            if path in written:
                continue
            parts = collision if role == "collision" else visual
            write_obj(path, parts, f"Robotiq 2F-140 {kind.replace('_', ' ')} ({role})")
            written.append(path)
        verts, faces = collision[0]
        com, inertia = mesh_inertia(verts, faces, MASS[kind])
        mesh_info[kind] = (files["visual"], files["collision"], com, inertia)
    urdf = out / URDF_NAME
    urdf.write_text(urdf_text(mesh_info))
    written.append(urdf)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    args = parser.parse_args(argv)
    k = linkage()
    gap = 2 * (OUTER_KNUCKLE_PIVOT[0] + k["outer_link"][0] + PAD_ORIGIN[0] - PAD_SIZE[1] / 2)
    for path in generate(args.out):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    print(
        f"outer link {np.linalg.norm(k['outer_link']) * 1000:.1f} mm, open pad gap {gap * 1000:.1f} mm"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
