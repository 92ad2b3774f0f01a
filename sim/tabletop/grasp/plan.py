"""Planning two-finger grasps from a mask, the depth image and the intrinsics.

The planner sees what a real one would: the masked pixels and the whole depth
image, lifted to 3D with the camera intrinsics. It samples antipodal
candidates: a centre among the object's points and a closing direction; the
contacts are where the object's cross-section ends along that line, in a strip
as wide as the pads, at the height the pads would hold it (a tray is taken by
its wall, a mug by its body). Each candidate is then checked against the depth
image around it:

- width: the object's extent between the contacts must fit the gripper's
  stroke less a few millimetres on each side ("too wide even open");
- normals: the object's outline at each contact must face the closing line
  within the friction cone, measured from the outline's slope across the strip
  ("surfaces not antipodal");
- clearance: the fingers, pre-opened a little wider than the object, descend
  beside it and sweep in as they close; whatever the depth image shows in
  that swept volume (a neighbour, the object's own handle) must lie below the
  pads ("fingers would hit ..."), and the linkage above the pads must clear
  what stands around ("the gripper's knuckles would hit ...").

Feasible candidates are ranked by width margin, normals, how deep the pads can
reach and distance from the mask's centre; `sim.tabletop.grasp.execute` tries the best
few in simulation. Nothing here touches the simulator.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from sim.camera import CameraSpec, intrinsics
from sim.render import RenderedView
from sim.robotiq import ROBOTIQ_2F85, GripperModel
from sim.tabletop.grasp.candidates import (
    FINGERS_HIT,
    KNUCKLES_HIT,
    NOT_ANTIPODAL,
    OUT_OF_VIEW,
    OWN_TOP,
    TOO_THIN,
    TOO_WIDE,
    GraspCandidate,
    GraspPlan,
    tool_axis,
)
from sim.tabletop.grasp.envelope import envelope_for_gap
from sim.tabletop.grasp.sections import FINGER_THICKNESS, cross_sections, outline
from sim.tabletop.grasp.text import across_middle, refusal, too_wide_reason
from sim.tabletop.heightmap import CELL, HeightMap, height_map, lift_pixels

__all__ = [
    "FINGERS_HIT",
    "KNUCKLES_HIT",
    "NOT_ANTIPODAL",
    "OUT_OF_VIEW",
    "OWN_TOP",
    "TOO_THIN",
    "TOO_WIDE",
    "GraspCandidate",
    "GraspPlan",
    "MAX_GRASP_WIDTH",
    "MAX_OPENING",
    "plan_grasp",
    "refusal",
    "tool_axis",
    "too_wide_reason",
]

# Kept for the 2F-85's refusal text and for callers that predate GripperModel.
MAX_OPENING = ROBOTIQ_2F85.stroke_m
MAX_GRASP_WIDTH = ROBOTIQ_2F85.max_grasp_width

MAX_POINTS = 4000  # object points kept for the cross-sections
FRICTION_CONE_DEG = 30.0  # outline normals further than this from the closing line slip
PRESHAPE_MARGIN = 0.012  # the fingers open this much wider than the object on each side
TABLE_CLEARANCE = 0.003  # the pads' lowest point stays this far above whatever is beneath
MIN_CONTACT = 0.0025  # the pads must overlap the object by at least this much in height
# the object's own top under the linkage may stand this much above where the pads' reach
# puts the knuckles (a height map cell or two)
OWN_TOP_TOLERANCE = 0.005
TILTS = (0.26, -0.26, 0.52, -0.52)  # radians (15 and 30 degrees) the tool may lean
TILT_COST = 0.4  # score given up for leaning the most
MAX_TRIED = 3  # candidates tried in simulation before a grasp reports failure

_ALONG = np.linspace(0.0, 1.0, 6)
_ACROSS = np.linspace(-1.0, 1.0, 7)
_UNIT = np.stack(np.meshgrid(_ALONG, _ACROSS, indexing="ij"), axis=-1).reshape(-1, 2)
_SPAN_UNIT = np.stack(np.meshgrid(np.linspace(0.0, 1.0, 9), _ACROSS, indexing="ij"), -1).reshape(
    -1, 2
)


def plan_grasp(
    camera: CameraSpec,
    mask: np.ndarray,
    view: RenderedView,
    model: GripperModel = ROBOTIQ_2F85,
    *,
    table_z: float,
    avoid: tuple[tuple[float, float, float], ...] = (),
    names: dict[int, str] | None = None,
) -> GraspPlan:
    """Antipodal two-finger grasps of the masked object from above, best first.

    `avoid` lists (x, y, yaw) of grasps already tried: candidates within 2 cm
    and 20 degrees of one are left out. `names` (segmentation id -> name) lets a
    refusal name what is in the way.
    """
    box = bounding_box(mask)  # the per-pixel work on the mask is done within its box
    ys, xs = np.nonzero(mask[box])
    if len(xs) < 10:
        return GraspPlan((0, 0, 0), 0, 0, 0, False, "no feasible grasp: the mask is too small")
    if len(xs) > MAX_POINTS:  # an even subsample keeps the outline within a pixel or two
        pick = np.random.default_rng(len(xs)).choice(len(xs), MAX_POINTS, replace=False)
        # every outline pixel: the contacts lie there
        pick = np.union1d(pick, outline(mask[box], ys, xs))
    ys, xs = ys + box[0].start, xs + box[1].start
    depth = view.depth_m[ys, xs]
    flat_top = float(np.mean(depth - depth.min() < 0.01))
    px = float(np.median(depth)) / intrinsics(camera)[0, 0]  # metres per pixel
    if len(xs) > MAX_POINTS:
        ys, xs = ys[pick], xs[pick]
    pts = lift_pixels(camera, view.depth_m, ys, xs)
    top_z = float(pts[:, 2].max())
    middle = pts.mean(axis=0)
    raw = cross_sections(pts, model, px)
    size = max(float(np.linalg.norm(pts[:, :2] - middle[:2], axis=1).max()), 0.01)
    hmap = height_map(view, middle[:2], size + model.stroke_m / 2 + FINGER_THICKNESS + 0.02)
    target = masked_body(view, mask, box)  # its own parts may rise beside the contacts
    assessed = _assess(raw, model, hmap, middle, table_z, target, radius=size)
    assessed = _cut_by_the_image(assessed, camera, view, mask)
    candidates = _dedupe(assessed, avoid)
    feasible = sorted((c for c in candidates if c.feasible), key=lambda c: -c.score)
    rejected = Counter(c.rejected for c in candidates if not c.feasible)
    base = dict(flat_top=flat_top, rejected=dict(rejected), considered=len(candidates))
    if feasible:
        best = feasible[0]
        return GraspPlan(
            (best.centre[0], best.centre[1], float(middle[2])),
            best.top_z,
            best.yaw,
            best.width,
            True,
            "",
            pads_z=best.pads_z,
            candidates=tuple(feasible),
            **base,
        )
    narrowest = across_middle(candidates)
    reason = refusal(candidates, model, names or {})
    return GraspPlan(
        (float(middle[0]), float(middle[1]), float(middle[2])),
        top_z,
        0.0,
        narrowest,
        False,
        reason,
        **base,
    )


OUT_OF_VIEW_M = 0.015  # a contact this close to where the mask meets the image's edge


def _cut_by_the_image(
    candidates: list[GraspCandidate], camera: CameraSpec, view: RenderedView, mask: np.ndarray
) -> list[GraspCandidate]:
    """Candidates with a contact where the object runs off the image rejected: the mask
    ends there because the camera's view does, not the object (a grasp planned across
    the visible sliver closed on nothing, or came down on the rest of the object)."""
    h, w = mask.shape
    # the image's border, row 0, row h - 1, column 0, column w - 1 (corners twice)
    ys = np.concatenate((np.zeros(w, int), np.full(w, h - 1), np.arange(h), np.arange(h)))
    xs = np.concatenate((np.arange(w), np.arange(w), np.zeros(h, int), np.full(h, w - 1)))
    on = mask[ys, xs]
    ys, xs = ys[on], xs[on]
    if len(xs) == 0:
        return candidates
    cut = lift_pixels(camera, view.depth_m, ys, xs)[:, :2]
    out = []
    for c in candidates:
        # before the neighbours' verdicts: a contact nobody can see is the object's problem
        if c.rejected in ("", FINGERS_HIT, KNUCKLES_HIT):
            a = np.array([math.cos(c.yaw), math.sin(c.yaw)])
            ends = np.array(c.centre) + np.outer((-c.width / 2, c.width / 2), a)
            near = np.linalg.norm(cut[None, :, :] - ends[:, None, :], axis=2).min()
            if near < OUT_OF_VIEW_M:
                detail = "the object runs off the camera's view there"
                c = replace(c, rejected=OUT_OF_VIEW, detail=detail, score=0.0, blocker=None)
        out.append(c)
    return out


def bounding_box(mask: np.ndarray) -> tuple[slice, slice]:
    """The rows and columns the mask's pixels span, as slices (empty for an empty mask)."""
    rows = np.flatnonzero(mask.any(axis=1))
    if rows.size == 0:
        return slice(0, 0), slice(0, 0)
    cols = np.flatnonzero(mask.any(axis=0))
    return slice(int(rows[0]), int(rows[-1]) + 1), slice(int(cols[0]), int(cols[-1]) + 1)


def masked_body(
    view: RenderedView, mask: np.ndarray, box: tuple[slice, slice] | None = None
) -> int | None:
    """The body most of the mask's pixels show (the planner's own bookkeeping); `box`, the
    mask's `bounding_box` where the caller has it."""
    box = bounding_box(mask) if box is None else box
    seg = view.segmentation[box][mask[box]]
    if seg.size == 0:
        return None
    values, counts = np.unique(seg, return_counts=True)
    return int(values[np.argmax(counts)])


def preshape_gap(model: GripperModel, width):
    """How far apart the pads come down beside an object `width` across (a number or an
    array): PRESHAPE_MARGIN wider on each side, at most fully open. The planner checks the
    fingers' swept volume at this opening, and the execution opens them to it."""
    return np.minimum(model.pad_gap[0], np.asarray(width) + 2 * PRESHAPE_MARGIN)


def _assess(
    raw: np.ndarray,
    model,
    hmap: HeightMap,
    middle,
    table_z: float,
    target: int,
    *,
    radius: float,
) -> list[GraspCandidate]:
    """Width, normals and clearance of every cross-section, all candidates at once."""
    if raw.size == 0:
        return []
    yaw, tc, lo, hi, top, depth, normal, widens, outer, reach = raw.T
    a = np.c_[np.cos(yaw), np.sin(yaw)]
    n = np.c_[-a[:, 1], a[:, 0]]
    width = hi - lo
    centre = ((lo + hi) / 2)[:, None] * a + tc[:, None] * n
    offset = np.linalg.norm(centre - middle[:2], axis=1)
    half_pad = model.pad_width / 2
    pre = preshape_gap(model, width)
    inner = width / 2 + model.clearance + CELL
    outer = np.maximum(inner, pre / 2) + FINGER_THICKNESS

    def place(along, across, rows):  # (cands, K) offsets -> world xy (cands, K, 2)
        return (
            centre[rows, None, :]
            + along[..., None] * a[rows, None, :]
            + across[..., None] * n[rows, None, :]
        )

    count = len(raw)
    # only candidates that pass the cheap checks are looked at against the height map
    shaped = np.flatnonzero(
        (width <= model.max_grasp_width) & (normal <= FRICTION_CONE_DEG) & (widens == 0)
    )
    want = top - depth
    landing = np.full(count, table_z)
    pads_z = want.copy()
    on_itself = np.zeros(count, dtype=bool)
    land_h = np.full(count, -np.inf)
    land_body = np.full(count, -1)
    if shaped.size:
        along = inner[shaped, None] + (outer - inner)[shaped, None] * _UNIT[None, :, 0]
        across = np.broadcast_to(half_pad * _UNIT[None, :, 1], along.shape)
        fingers = np.concatenate(
            [place(along, across, shaped), place(-along, across, shaped)], axis=1
        )
        h, body = hmap.sample(fingers)
        k = np.argmax(h, axis=1)
        land_h[shaped] = h[np.arange(len(k)), k]
        land_body[shaped] = body[np.arange(len(k)), k]
        landing[shaped] = np.maximum(land_h[shaped], table_z)
        pads_z[shaped] = np.maximum(want[shaped], landing[shaped] + TABLE_CLEARANCE)
        # the fingers would come down on the object's own flank: it widens below the pads
        # (a ball held above its equator), so the pads would press on a surface facing up
        on_itself[shaped] = (
            (land_body[shaped] == target)
            & (landing[shaped] + TABLE_CLEARANCE > want[shaped])
            & (landing[shaped] > table_z + 0.002)
        )
    # the linkage and housing above the pads, as far out as the pre-opened fingers put them,
    # against the neighbours (the object's own top is what the pad depth allows for)
    landed = shaped[(~on_itself[shaped]) & (top[shaped] - pads_z[shaped] >= MIN_CONTACT)]
    envs = {i: envelope_for_gap(model.key, pre[i]) for i in landed}

    def linkage(rows: np.ndarray, tilt: float):
        """Room (m) between each row's linkage and the highest neighbour under it, the tool
        leaning `tilt`: each part of the gripper above the pads shifts across the closing
        line by its height times sin(tilt) and comes down by cos(tilt)."""
        room = np.full(len(rows), np.inf)
        own_room = np.full(len(rows), np.inf)
        worst_body = np.full(len(rows), -1)
        worst_h = np.full(len(rows), -np.inf)
        sin_t, cos_t = math.sin(tilt), math.cos(tilt)
        for env in {envs[i] for i in rows}:
            sel = np.flatnonzero([envs[i] is env for i in rows])
            sub = rows[sel]
            for part in env.parts:
                lo_a, hi_a = part.along
                low, high = part.rise * sin_t, (part.rise + part.height) * sin_t
                b_lo, b_hi = min(low, high) - part.across, max(low, high) + part.across
                unit = _SPAN_UNIT[None, :, :]
                along_p = np.broadcast_to(
                    lo_a + (hi_a - lo_a) * unit[..., 0], (len(sub), len(_SPAN_UNIT))
                )
                across_p = np.broadcast_to(
                    b_lo + (b_hi - b_lo) * (unit[..., 1] + 1) / 2, along_p.shape
                )
                hp, bp = hmap.sample(place(along_p, across_p, sub))
                own = bp == target
                # the object's own top under the linkage: the pads' reach is how far below
                # the strip's top the knuckles meet it, so only what stands higher than
                # that allows is in the way (a slab leaning across the strip)
                own_h = np.where(own, hp, -np.inf).max(axis=1)
                own_r = pads_z[sub] + reach[sub] + OWN_TOP_TOLERANCE - own_h
                worse = own_r < own_room[sel]
                own_room[sel[worse]] = own_r[worse]
                hp = np.where(own, -np.inf, hp)
                k = np.argmax(hp, axis=1)
                top_h = hp[np.arange(len(k)), k]
                lowest = part.rise * cos_t - part.across * abs(sin_t)
                r = pads_z[sub] + lowest - top_h
                worse = r < room[sel]
                room[sel[worse]] = r[worse]
                worst_body[sel[worse]] = bp[np.arange(len(k)), k][worse]
                worst_h[sel[worse]] = top_h[worse]
        return room, worst_body, worst_h, own_room

    knuckle_room = np.full(count, np.inf)
    knuckle_body = np.full(count, -1)
    knuckle_h = np.full(count, -np.inf)
    own_room = np.full(count, np.inf)
    tilt = np.zeros(count)
    if landed.size:
        knuckle_room[landed], knuckle_body[landed], knuckle_h[landed], own_room[landed] = linkage(
            landed, 0.0
        )
    # where the upright gripper's linkage meets a neighbour, lean it away about the
    # closing line (the fingers still close level, so the contacts stay as checked)
    blocked = landed[(knuckle_room[landed] < 0) | (own_room[landed] < 0)]
    for lean in TILTS:
        if not blocked.size:
            break
        room, _, _, own = linkage(blocked, lean)
        fits = (room >= 0) & (own >= 0)
        tilt[blocked[fits]] = lean
        knuckle_room[blocked[fits]] = room[fits]
        own_room[blocked[fits]] = own[fits]
        blocked = blocked[~fits]
    arrays = _Measured(
        centre,
        yaw,
        width,
        top,
        normal,
        offset,
        widens,
        on_itself,
        pads_z,
        landing,
        land_h,
        land_body,
        knuckle_room,
        knuckle_body,
        knuckle_h,
        own_room,
        tilt,
        reach,
    )
    return [_judge(arrays, i, model, table_z, radius) for i in range(len(raw))]


@dataclass(frozen=True)
class _Measured:
    """What `_assess` measured for every cross-section, one array entry a candidate."""

    centre: np.ndarray
    yaw: np.ndarray
    width: np.ndarray
    top: np.ndarray
    normal: np.ndarray
    offset: np.ndarray
    widens: np.ndarray
    on_itself: np.ndarray
    pads_z: np.ndarray
    landing: np.ndarray
    land_h: np.ndarray
    land_body: np.ndarray
    knuckle_room: np.ndarray
    knuckle_body: np.ndarray
    knuckle_h: np.ndarray
    own_room: np.ndarray
    tilt: np.ndarray
    reach: np.ndarray


def _rejection(m: _Measured, i: int, model, table_z: float) -> tuple[str, int | None, str]:
    """Why candidate `i` cannot be used (the first check it fails), its blocker and the
    detail for the refusal text; ("", None, "") when it can."""
    if m.width[i] > model.max_grasp_width:
        return TOO_WIDE, None, f"{100 * m.width[i]:.1f} cm"
    if m.normal[i] > FRICTION_CONE_DEG:
        return NOT_ANTIPODAL, None, f"{m.normal[i]:.0f} degrees"
    if m.widens[i] or m.on_itself[i]:
        return NOT_ANTIPODAL, None, "the object widens below the pads"
    if m.top[i] - m.pads_z[i] < MIN_CONTACT and m.land_h[i] <= table_z + 0.002:
        # nothing beside it but the table
        return TOO_THIN, None, f"{1000 * (m.top[i] - table_z):.0f} mm above the table"
    if m.top[i] - m.pads_z[i] < MIN_CONTACT:
        high = f"{100 * (m.landing[i] - table_z):.1f} cm high beside it"
        return FINGERS_HIT, int(m.land_body[i]), high
    if m.own_room[i] < 0:
        rise = m.reach[i] + OWN_TOP_TOLERANCE - m.own_room[i]
        above = f"it stands {100 * rise:.1f} cm above the pads under them"
        return OWN_TOP, None, above
    if m.knuckle_room[i] < 0:
        near = f"{100 * (m.knuckle_h[i] - table_z):.1f} cm high near it"
        return KNUCKLES_HIT, int(m.knuckle_body[i]), near
    return "", None, ""


def _judge(m: _Measured, i: int, model, table_z: float, radius: float) -> GraspCandidate:
    """Candidate `i`: rejected with its reason, or scored."""
    common = dict(
        centre=(float(m.centre[i, 0]), float(m.centre[i, 1])),
        yaw=float(m.yaw[i]),
        width=float(m.width[i]),
        top_z=float(m.top[i]),
        normal_deg=float(m.normal[i]),
        offset_m=float(m.offset[i]),
    )
    rejected, blocker, detail = _rejection(m, i, model, table_z)
    if rejected:
        return GraspCandidate(
            pads_z=float(m.pads_z[i]),
            score=0.0,
            rejected=rejected,
            blocker=blocker,
            detail=detail,
            **common,
        )
    grip = m.top[i] - m.pads_z[i]
    margin = (model.max_grasp_width - m.width[i]) / model.max_grasp_width
    # the pads as deep as the planner of old put them: below the middle of what stands
    # above the support, round things below their equator, within the fingers' reach
    # (a hollow thing taken from outside: as deep as its rim lets the knuckles go)
    desired = min(0.5 * (m.top[i] - m.landing[i]) + 0.02, m.reach[i])
    # pads near the middle hold the object about its centre of mass: it does not
    # turn out of the fingers as it comes up (a mug by its body, not its rim)
    score = (
        margin
        + math.cos(math.radians(m.normal[i]))
        + 2.0 * min(1.0, grip / max(desired, 1e-3))
        + 1.5 * (1.0 - min(m.offset[i] / radius, 1.0))
    )
    score -= TILT_COST * abs(m.tilt[i]) / max(TILTS, default=1.0)  # upright when it fits
    return GraspCandidate(
        pads_z=float(m.pads_z[i]), score=float(score), tilt=float(m.tilt[i]), **common
    )


def _dedupe(candidates: list[GraspCandidate], avoid) -> list[GraspCandidate]:
    """One candidate per (centre to 5 mm, yaw, width to 2 mm), and none near a tried grasp."""
    seen, out = set(), []
    for c in candidates:
        key = (
            round(c.centre[0] / 0.005),
            round(c.centre[1] / 0.005),
            round(c.yaw, 3),
            round(c.width / 0.002),
            c.rejected,
        )
        if key in seen:
            continue
        if any(
            math.dist(c.centre, (x, y)) < 0.02 and abs(math.sin(c.yaw - yaw)) < math.sin(0.35)
            for x, y, yaw in avoid
        ):
            continue
        seen.add(key)
        out.append(c)
    return out
