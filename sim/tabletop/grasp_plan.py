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
reach and distance from the mask's centre; `sim.tabletop.grasp` tries the best
few in simulation. Nothing here touches the simulator.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, field

import numpy as np

from sim.camera import CameraSpec, intrinsics, view_matrix
from sim.render import RenderedView
from sim.robotiq import ROBOTIQ_2F85, GripperModel
from sim.tabletop.gripper_envelope import envelope_for_gap

# Kept for the 2F-85's refusal text and for callers that predate GripperModel.
MAX_OPENING = ROBOTIQ_2F85.stroke_m
GRASP_CLEARANCE = ROBOTIQ_2F85.clearance
MAX_GRASP_WIDTH = ROBOTIQ_2F85.max_grasp_width

YAWS = 8  # closing directions sampled over half a turn (22.5 degrees apart)
CENTRES = 24  # centres sampled among the object's points, besides the mask's centre
MAX_POINTS = 4000  # object points kept for the cross-sections
FRICTION_CONE_DEG = 30.0  # outline normals further than this from the closing line slip
PRESHAPE_MARGIN = 0.012  # the fingers open this much wider than the object on each side
FINGER_THICKNESS = 0.012  # a finger's extent along the closing line, pad included
TABLE_CLEARANCE = 0.003  # the pads' lowest point stays this far above whatever is beneath
MIN_CONTACT = 0.004  # the pads must overlap the object by at least this much in height
CELL = 0.0025  # metres: the height map's resolution
WINDOW = 0.40  # metres: the side of the height map around the object
MAX_TRIED = 3  # candidates tried in simulation before a grasp reports failure

# Why a candidate is rejected; the counts go into the refusal text.
TOO_WIDE = "too wide even open"
NOT_ANTIPODAL = "surfaces not antipodal"
FINGERS_HIT = "fingers would hit"
KNUCKLES_HIT = "knuckles would hit"


@dataclass(frozen=True)
class GraspCandidate:
    """One two-finger grasp from above: where the pads close and how well it should hold."""

    centre: tuple[float, float]  # x, y midway between the contacts
    yaw: float  # world angle of the closing line
    width: float  # the object's extent between the contacts (m)
    top_z: float  # the object's highest point in the grasp strip
    pads_z: float  # the pads' lowest point at closing
    normal_deg: float  # worst angle between an outline normal and the closing line
    offset_m: float  # distance of the centre from the mask's centre
    score: float
    rejected: str = ""  # "" when feasible, else one of the reasons above
    blocker: int | None = None  # the body (segmentation id) in the way, when one is
    detail: str = ""  # numbers behind the rejection

    @property
    def feasible(self) -> bool:
        return not self.rejected

    def as_record(self) -> dict:
        """Plain JSON for the step record (rounded: millimetres and tenths of a degree)."""
        d = asdict(self)
        for key in ("width", "top_z", "pads_z", "offset_m", "score"):
            d[key] = round(float(d[key]), 4)
        d["centre"] = [round(float(v), 4) for v in self.centre]
        d["yaw"] = round(float(self.yaw), 4)
        d["normal_deg"] = round(float(self.normal_deg), 1)
        return d


@dataclass(frozen=True)
class GraspPlan:
    """The planner's answer: the best candidate (if any) and what else it considered."""

    centre: tuple[float, float, float]
    top_z: float
    yaw: float  # rotation of the tool about the vertical; the fingers close along this world angle
    width: float  # object extent across the closing axis (m)
    feasible: bool
    reason: str
    flat_top: float = (
        1.0  # share of the visible surface within 1 cm of the top (a ball: about half)
    )
    pads_z: float | None = None  # the pads' lowest point at closing (None: older records)
    candidates: tuple[GraspCandidate, ...] = ()  # feasible ones, best first
    rejected: dict[str, int] = field(default_factory=dict)  # rejection reason -> count
    considered: int = 0

    def with_candidate(self, cand: GraspCandidate) -> GraspPlan:
        """This plan aimed at another of its candidates."""
        return GraspPlan(
            (cand.centre[0], cand.centre[1], self.centre[2]), cand.top_z, cand.yaw,
            cand.width, True, "", self.flat_top, cand.pads_z, self.candidates,
            self.rejected, self.considered,
        )  # fmt: skip


def too_wide_reason(width: float, model: GripperModel = ROBOTIQ_2F85) -> str:
    """Why an object `width` metres across cannot be grasped: the limit the planner applies
    and the stroke it comes from. A width that would print as the limit itself gets a
    second (or third) decimal ("7.92 cm across, more than the 7.9 cm")."""
    limit = round(100 * model.max_grasp_width, 1)
    shown = next(
        (t for d in (1, 2, 3) if float(t := f"{100 * width:.{d}f}") > limit),
        f"{100 * width:.4f}",
    )
    return (
        f"no feasible grasp: {shown} cm across, more than the {limit:.1f} cm the gripper "
        f"can take (it opens {100 * model.stroke_m:.1f} cm)"
    )


def lift_pixels(camera: CameraSpec, depth_m: np.ndarray, ys: np.ndarray, xs: np.ndarray):
    """World points (N, 3) of pixels (ys, xs) from metric depth and the intrinsics."""
    k = intrinsics(camera)
    d = depth_m[ys, xs].astype(float)
    cam = np.c_[
        (xs + 0.5 - k[0, 2]) / k[0, 0] * d,  # camera x: right
        -(ys + 0.5 - k[1, 2]) / k[1, 1] * d,  # camera y: up (image v runs down)
        -d,  # the camera looks down its -z axis
        np.ones_like(d),
    ]
    return (np.linalg.inv(view_matrix(camera)) @ cam.T).T[:, :3]


@dataclass(frozen=True)
class HeightMap:
    """The highest point the depth image shows in each CELL-sized square around the object,
    and the body (segmentation id) it belongs to."""

    origin: np.ndarray  # world x, y of cell (0, 0)'s corner
    height: np.ndarray  # (n, n) metres; -inf where the image shows nothing
    body: np.ndarray  # (n, n) segmentation id of the highest point

    def sample(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Heights and bodies at world points (..., 2); outside the map: -inf and -1."""
        ij = np.floor((xy - self.origin) / CELL).astype(int)
        n = self.height.shape[0]
        inside = np.all((ij >= 0) & (ij < n), axis=-1)
        ij = np.clip(ij, 0, n - 1)
        h = np.where(inside, self.height[ij[..., 0], ij[..., 1]], -np.inf)
        b = np.where(inside, self.body[ij[..., 0], ij[..., 1]], -1)
        return h, b


def height_map(view: RenderedView, centre_xy: np.ndarray, radius: float) -> HeightMap:
    """Max-pool the lifted depth image into CELL squares within `radius` of `centre_xy`."""
    camera = view.camera
    k = intrinsics(camera)
    # the pixels whose rays can land in the window: a generous box around the centre's pixel
    eye = np.asarray(camera.eye, float)
    near = max(float(view.depth_m.min()), 0.1)  # the nearest surface spreads the most pixels
    reach_px = int(math.ceil(radius * k[0, 0] / near)) + 2
    depth_mid = float(np.median(view.depth_m))
    u0 = k[0, 0] * (centre_xy[0] - eye[0]) / depth_mid + k[0, 2]
    v0 = k[1, 2] - k[1, 1] * (centre_xy[1] - eye[1]) / depth_mid
    x0, x1 = max(0, int(u0) - reach_px), min(camera.width, int(u0) + reach_px)
    y0, y1 = max(0, int(v0) - reach_px), min(camera.height, int(v0) + reach_px)
    ys, xs = np.mgrid[y0:y1, x0:x1]
    ys, xs = ys.ravel(), xs.ravel()
    pts = lift_pixels(camera, view.depth_m, ys, xs)
    seg = view.segmentation[ys, xs]
    n = int(math.ceil(2 * radius / CELL))
    origin = np.asarray(centre_xy, float) - radius
    ij = np.floor((pts[:, :2] - origin) / CELL).astype(int)
    keep = np.all((ij >= 0) & (ij < n), axis=1)
    flat, z, seg = ij[keep, 0] * n + ij[keep, 1], pts[keep, 2], seg[keep]
    height = np.full(n * n, -np.inf)
    np.maximum.at(height, flat, z)
    body = np.full(n * n, -1, dtype=int)
    top = z >= height[flat]
    body[flat[top]] = seg[top]
    return HeightMap(origin, height.reshape(n, n), body.reshape(n, n))


# Footprint lattices in unit coordinates: along the closing line 0..1 (inner to outer
# edge of a finger's swept band), across it -1..1 (the pad's half width).
_ALONG = np.linspace(0.0, 1.0, 6)
_ACROSS = np.linspace(-1.0, 1.0, 7)
_UNIT = np.stack(np.meshgrid(_ALONG, _ACROSS, indexing="ij"), axis=-1).reshape(-1, 2)
_SPAN_UNIT = np.stack(np.meshgrid(np.linspace(0.0, 1.0, 9), _ACROSS, indexing="ij"), -1).reshape(
    -1, 2
)


def _runs(s: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Start and end indices of the stretches of sorted values `s` split where consecutive
    values are more than `gap` apart (room for a finger)."""
    breaks = np.flatnonzero(s[1:] - s[:-1] > gap)
    return np.concatenate(([0], breaks + 1)), np.concatenate((breaks, [s.size - 1]))


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
    ys, xs = np.nonzero(mask)
    if len(xs) < 10:
        return GraspPlan((0, 0, 0), 0, 0, 0, False, "no feasible grasp: the mask is too small")
    depth = view.depth_m[ys, xs]
    flat_top = float(np.mean(depth - depth.min() < 0.01))
    px = float(np.median(depth)) / intrinsics(camera)[0, 0]  # metres per pixel
    if len(xs) > MAX_POINTS:  # an even subsample keeps the outline within a pixel or two
        pick = np.random.default_rng(len(xs)).choice(len(xs), MAX_POINTS, replace=False)
        pick = np.union1d(
            pick, _outline(mask, ys, xs)
        )  # every outline pixel: the contacts lie there
        ys, xs = ys[pick], xs[pick]
    pts = lift_pixels(camera, view.depth_m, ys, xs)
    top_z = float(pts[:, 2].max())
    middle = pts.mean(axis=0)
    raw = _cross_sections(pts, model, flat_top, px)
    radius = float(np.linalg.norm(pts[:, :2] - middle[:2], axis=1).max()) + model.stroke_m / 2
    hmap = height_map(view, middle[:2], radius + FINGER_THICKNESS + 0.02)
    values, counts = np.unique(view.segmentation[mask], return_counts=True)
    target = int(values[np.argmax(counts)])  # the body the mask shows (its own parts may rise)
    reach = model.max_depth_flat if flat_top > 0.7 else model.max_depth_round
    size = max(float(np.linalg.norm(pts[:, :2] - middle[:2], axis=1).max()), 0.01)
    assessed = _assess(raw, model, hmap, middle, table_z, target, reach=reach, radius=size)
    candidates = _dedupe(assessed, avoid)
    feasible = sorted((c for c in candidates if c.feasible), key=lambda c: -c.score)
    rejected = Counter(c.rejected for c in candidates if not c.feasible)
    base = dict(flat_top=flat_top, rejected=dict(rejected), considered=len(candidates))
    if feasible:
        best = feasible[0]
        return GraspPlan(
            (best.centre[0], best.centre[1], float(middle[2])), best.top_z, best.yaw, best.width,
            True, "", pads_z=best.pads_z, candidates=tuple(feasible), **base,
        )  # fmt: skip
    narrowest = across_middle(candidates)
    reason = refusal(candidates, model, names or {})
    return GraspPlan(
        (float(middle[0]), float(middle[1]), float(middle[2])), top_z, 0.0, narrowest, False,
        reason, **base,
    )  # fmt: skip


def _outline(mask: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Indices into (ys, xs) of the mask's pixels with a 4-neighbour outside it."""
    m = np.pad(mask, 1)
    eroded = m[1:-1, 1:-1] & m[:-2, 1:-1] & m[2:, 1:-1] & m[1:-1, :-2] & m[1:-1, 2:]
    return np.flatnonzero(~eroded[ys, xs])


def _yaws(pts: np.ndarray) -> np.ndarray:
    """Closing directions: YAWS evenly over half a turn, plus the outline's two principal axes."""
    xy = pts[:, :2] - pts[:, :2].mean(axis=0)
    _, vecs = np.linalg.eigh(np.cov(xy.T)) if len(xy) > 2 else (None, np.eye(2))
    principal = [math.atan2(v[1], v[0]) % math.pi for v in vecs.T]
    return np.r_[np.arange(YAWS) * math.pi / YAWS, principal]


def _cross_sections(pts: np.ndarray, model: GripperModel, flat_top: float, px: float) -> np.ndarray:
    """Every (closing direction, strip, pad depth, stretch) of the object: rows of
    yaw, t (strip's lateral offset), lo, hi (the stretch along the closing line), top, depth,
    normal angle, whether the object widens below the pads (`_widens_below`), and whether
    the stretch is the whole outline taken from outside (hollows ignored)."""
    half_pad = model.pad_width / 2
    gap = FINGER_THICKNESS + 2 * model.clearance
    reach = model.max_depth_flat if flat_top > 0.7 else model.max_depth_round
    depths = (reach, 0.6 * reach, 0.35 * reach)
    rows = []
    for yaw in _yaws(pts):
        a = np.array([math.cos(yaw), math.sin(yaw)])
        n = np.array([-a[1], a[0]])
        s_all, t_all = pts[:, :2] @ a, pts[:, :2] @ n
        by_t = np.argsort(t_all)
        t_sorted = t_all[by_t]
        t_lo, t_hi = t_sorted[0], t_sorted[-1]
        step = max(half_pad, (t_hi - t_lo) / 7)
        for tc in np.arange(t_lo + min(half_pad, (t_hi - t_lo) / 2), t_hi + 1e-9, step):
            i0, i1 = np.searchsorted(t_sorted, (tc - half_pad, tc + half_pad))
            if i1 - i0 < 3:
                continue
            idx = by_t[i0:i1]
            z = pts[idx, 2]
            by_s = np.argsort(s_all[idx])
            s, t, z = s_all[idx][by_s], t_all[idx][by_s] - tc, z[by_s]
            local_top = float(z.max())
            all_runs = _runs(s, gap)  # the strip's outline at any height
            seen = set()
            for depth in depths:
                keep = z >= local_top - depth
                sk, tk = s[keep], t[keep]
                for i, j in zip(*_runs(sk, gap), strict=True):
                    if j - i < 2 or (sk[i], sk[j]) in seen:
                        continue
                    seen.add((sk[i], sk[j]))
                    lo, hi = sk[i], sk[j]
                    if hi - lo + px > model.max_grasp_width:  # refused on width alone
                        rows.append((yaw, tc, lo - px / 2, hi + px / 2, local_top, depth, 0, 0, 0))
                        continue
                    normal = _normal_angle(sk[i : j + 1], tk[i : j + 1], model.pad_width)
                    widens = _widens_below(s, z, all_runs, lo, hi, local_top - depth, px)
                    rows.append(
                        (yaw, tc, lo - px / 2, hi + px / 2, local_top, depth, normal, widens, 0)
                    )
            # the whole outline at the deepest pads, hollows ignored: a mug by its body, a
            # bowl from outside (the split stretches above offer its rim)
            for i, j in zip(*all_runs, strict=True):
                lo, hi = s[i], s[j]
                if j - i < 2 or (lo, hi) in seen or hi - lo + px > model.max_grasp_width:
                    continue
                normal = _normal_angle(s[i : j + 1], t[i : j + 1], model.pad_width)
                rim = min(reach, model.max_depth_flat)  # the knuckles meet a rim as a flat top
                rows.append((yaw, tc, lo - px / 2, hi + px / 2, local_top, rim, normal, 0, 1))
    return np.array(rows, dtype=float).reshape(-1, 9)


def _widens_below(s, z, all_runs, lo: float, hi: float, cut: float, px: float) -> bool:
    """Whether the object's outline in the strip reaches further out than the contacts
    [lo, hi] at a height below `cut` (a ball above its equator): the pads would press on
    a surface facing up. `s`, `z`: the strip's points sorted along the closing line;
    `all_runs`: its stretches at any height."""
    starts, ends = all_runs
    k = int(np.searchsorted(s[starts], lo, side="right")) - 1
    if k < 0:
        return False
    first, last = s[starts[k]], s[ends[k]]
    near_first = z[starts[k] : int(np.searchsorted(s, first + px, side="right"))]
    near_last = z[int(np.searchsorted(s, last - px)) : ends[k] + 1]
    out_lo = lo - first > px and near_first.size and np.median(near_first) < cut
    out_hi = last - hi > px and near_last.size and np.median(near_last) < cut
    return bool(out_lo or out_hi)


def _assess(
    raw: np.ndarray,
    model,
    hmap: HeightMap,
    middle,
    table_z: float,
    target: int,
    *,
    reach: float,
    radius: float,
) -> list[GraspCandidate]:
    """Width, normals and clearance of every cross-section, all candidates at once."""
    if raw.size == 0:
        return []
    yaw, tc, lo, hi, top, depth, normal, widens, outer = raw.T
    a = np.c_[np.cos(yaw), np.sin(yaw)]
    n = np.c_[-a[:, 1], a[:, 0]]
    width = hi - lo
    centre = ((lo + hi) / 2)[:, None] * a + tc[:, None] * n
    offset = np.linalg.norm(centre - middle[:2], axis=1)
    half_pad = model.pad_width / 2
    pre = np.minimum(model.max_grasp_width + 2 * model.clearance, width + 2 * PRESHAPE_MARGIN)
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
    knuckle_room = np.full(count, np.inf)
    knuckle_body = np.full(count, -1)
    knuckle_h = np.full(count, -np.inf)
    landed = shaped[(~on_itself[shaped]) & (top[shaped] - pads_z[shaped] >= MIN_CONTACT)]
    envs = [envelope_for_gap(model.key, g) for g in pre[landed]]
    for env in set(envs):
        rows = landed[np.array([e is env for e in envs])]
        for part in env.parts:
            lo_a, hi_a = part.along
            along_p = np.broadcast_to(
                lo_a + (hi_a - lo_a) * _SPAN_UNIT[None, :, 0], (len(rows), len(_SPAN_UNIT))
            )
            across_p = np.broadcast_to(part.across * _SPAN_UNIT[None, :, 1], along_p.shape)
            hp, bp = hmap.sample(place(along_p, across_p, rows))
            hp = np.where(bp == target, -np.inf, hp)
            k = np.argmax(hp, axis=1)
            top_h = hp[np.arange(len(k)), k]
            room = pads_z[rows] + part.rise - top_h
            worse = room < knuckle_room[rows]
            idx = rows[worse]
            knuckle_room[idx] = room[worse]
            knuckle_body[idx] = bp[np.arange(len(k)), k][worse]
            knuckle_h[idx] = top_h[worse]
    out = []
    for i in range(len(raw)):
        common = dict(
            centre=(float(centre[i, 0]), float(centre[i, 1])), yaw=float(yaw[i]),
            width=float(width[i]), top_z=float(top[i]), normal_deg=float(normal[i]),
            offset_m=float(offset[i]),
        )  # fmt: skip
        if width[i] > model.max_grasp_width:
            rejected, blocker, detail = TOO_WIDE, None, f"{100 * width[i]:.1f} cm"
        elif normal[i] > FRICTION_CONE_DEG:
            rejected, blocker, detail = NOT_ANTIPODAL, None, f"{normal[i]:.0f} degrees"
        elif widens[i] or on_itself[i]:
            rejected, blocker = NOT_ANTIPODAL, None
            detail = "the object widens below the pads"
        elif top[i] - pads_z[i] < MIN_CONTACT:
            blocker = int(land_body[i]) if land_h[i] > table_z + 0.002 else None
            rejected, detail = FINGERS_HIT, f"{100 * (landing[i] - table_z):.1f} cm high beside it"
        elif knuckle_room[i] < 0:
            rejected, blocker = KNUCKLES_HIT, int(knuckle_body[i])
            detail = f"{100 * (knuckle_h[i] - table_z):.1f} cm high near it"
        else:
            rejected, blocker, detail = "", None, ""
        if rejected:
            out.append(GraspCandidate(pads_z=float(pads_z[i]), score=0.0, rejected=rejected,
                                      blocker=blocker, detail=detail, **common))  # fmt: skip
            continue
        grip = top[i] - pads_z[i]
        margin = (model.max_grasp_width - width[i]) / model.max_grasp_width
        # the pads as deep as the planner of old put them: below the middle of what stands
        # above the support, round things below their equator, within the fingers' reach
        # (a hollow thing taken from outside: as deep as its rim lets the knuckles go)
        desired = min(0.5 * (top[i] - landing[i]) + 0.02, depth[i] if outer[i] else reach)
        score = (
            min(margin, 0.5) / 0.5
            + math.cos(math.radians(normal[i]))
            + 2.0 * min(1.0, grip / max(desired, 1e-3))
            + 1.0 * (1.0 - min(offset[i] / radius, 1.0))
        )
        out.append(GraspCandidate(pads_z=float(pads_z[i]), score=float(score), **common))
    return out


def _normal_angle(s: np.ndarray, t: np.ndarray, pad_width: float) -> float:
    """The larger angle (degrees) between the closing line and the outline's normal at
    either end: the slope of the outline's ends across the strip, fitted over 2 mm slices
    (a strip over a round object's flank, a chord, slopes steeply at both ends)."""
    bins = ((t - t.min()) * 500.0).astype(int)  # 2 mm slices
    n = int(bins.max()) + 1
    if n < 3:
        return 0.0  # a sliver: no slope to measure
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    np.minimum.at(lo, bins, s)
    np.maximum.at(hi, bins, s)
    filled = np.isfinite(lo)
    if filled.sum() < 3:
        return 0.0
    x = np.flatnonzero(filled).astype(float)
    x -= x.mean()
    var = float(x @ x) * 0.002  # slope per metre: slices are 2 mm apart
    slope_lo = float(x @ (lo[filled] - lo[filled].mean())) / var
    slope_hi = float(x @ (hi[filled] - hi[filled].mean())) / var
    return math.degrees(math.atan(max(abs(slope_lo), abs(slope_hi))))


def _dedupe(candidates: list[GraspCandidate], avoid) -> list[GraspCandidate]:
    """One candidate per (centre to 5 mm, yaw, width to 2 mm), and none near a tried grasp."""
    seen, out = set(), []
    for c in candidates:
        key = (round(c.centre[0] / 0.005), round(c.centre[1] / 0.005), round(c.yaw, 3),
               round(c.width / 0.002), c.rejected)  # fmt: skip
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


def across_middle(candidates: list[GraspCandidate]) -> float:
    """The object's narrowest width through (within a centimetre of) its middle, as far as
    the too-wide candidates measured it; any candidate's narrowest width otherwise."""
    wide = [c for c in candidates if c.rejected == TOO_WIDE]
    central = [c.width for c in wide if c.offset_m <= 0.01] or [c.width for c in wide]
    return min(central or [c.width for c in candidates] or [0.0])


def refusal(
    candidates: list[GraspCandidate], model: GripperModel, names: dict[int, str] | None = None
) -> str:
    """The "no feasible grasp" text: how many candidates were rejected for what, naming
    what is most often in the way."""
    names = names or {}
    if not candidates:
        return "no feasible grasp: no two opposite contacts found on the object"
    counts = Counter(c.rejected for c in candidates)
    if set(counts) <= {TOO_WIDE, NOT_ANTIPODAL} and counts[TOO_WIDE] >= counts[NOT_ANTIPODAL]:
        # wide everywhere but at its corners: say how wide it is across its middle
        return too_wide_reason(across_middle(candidates), model)
    parts = []
    for why, count in counts.most_common():
        example = next(c for c in candidates if c.rejected == why)
        if why == TOO_WIDE:
            parts.append(
                f"{count} too wide even open ({100 * across_middle(candidates):.1f} cm across "
                f"its middle; the gripper takes {100 * model.max_grasp_width:.1f} cm)"
            )
        elif why in (FINGERS_HIT, KNUCKLES_HIT):
            blockers = Counter(c.blocker for c in candidates if c.rejected == why)
            uid = blockers.most_common(1)[0][0]
            what = f"the {names[uid]}" if uid in names else "a neighbour"
            parts.append(f"{count} {why} {what} ({example.detail})")
        else:
            parts.append(f"{count} {why} ({example.detail})")
    return f"no feasible grasp: of {len(candidates)} candidates, " + "; ".join(parts)
