"""Cross-sections of an object seen from above: where two fingers could close on it.

For each closing direction the object's lifted points are cut into strips as
wide as a pad; in each strip, at a few pad depths below its top, the points
above the pads are split wherever a finger fits between them, and each
stretch is a pair of contacts. What `sim.tabletop.grasp.plan` then checks
against the depth image around the object comes from here: the stretch, the
outline's slope at its ends (`normal_angle`) and whether the object widens
below the pads (`widens_below`).
"""

from __future__ import annotations

import math

import numpy as np

from sim.robotiq import GripperModel

YAWS = 8  # closing directions sampled over half a turn (22.5 degrees apart)
FINGER_THICKNESS = 0.012  # a finger's extent along the closing line, pad included
EDGE_BAND = 0.01  # metres: the strip's ends, where the knuckles come down beside the object
FLAT_EDGE = 0.008  # an end this close to the strip's top is an edge the knuckles meet
INCLINE_EDGE = 0.002  # metres in from where the surface reaches the pads: the contact
INCLINE_LOW = 0.004  # an end this close above the pads' level is on a sloping face
INCLINE_BAND = 0.004  # metres in from there over which that face's slope is fitted
# metres: a stretch shorter than this is a wall or a rim (a tray's, flared), not a slab,
# and is not judged by its lean or by a slope at a split end
LEAN_MIN_SPAN = 0.05


def runs(s: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Start and end indices of the stretches of sorted values `s` split where consecutive
    values are more than `gap` apart (room for a finger)."""
    breaks = np.flatnonzero(s[1:] - s[:-1] > gap)
    return np.concatenate(([0], breaks + 1)), np.concatenate((breaks, [s.size - 1]))


def centred(x: np.ndarray) -> np.ndarray:
    """`x - x.mean()` of a float array, to the bit, without `mean`'s overhead (the planner
    fits thousands of small slopes a plan)."""
    return x - x.sum() / x.size


def median(x: np.ndarray) -> float:
    """`np.median` of a non-empty float array without NaNs, to the bit, without its
    overhead: the middle value, or the mean of the middle two."""
    v = np.sort(x)
    h = v.size // 2
    return v[h] if v.size % 2 else (v[h - 1] + v[h]) / 2


def outline(mask: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Indices into (ys, xs) of the mask's pixels with a 4-neighbour outside it."""
    m = np.pad(mask, 1)
    eroded = m[1:-1, 1:-1] & m[:-2, 1:-1] & m[2:, 1:-1] & m[1:-1, :-2] & m[1:-1, 2:]
    return np.flatnonzero(~eroded[ys, xs])


def yaws(pts: np.ndarray) -> np.ndarray:
    """Closing directions: YAWS evenly over half a turn, plus the outline's two principal axes."""
    xy = pts[:, :2] - pts[:, :2].mean(axis=0)
    _, vecs = np.linalg.eigh(np.cov(xy.T)) if len(xy) > 2 else (None, np.eye(2))
    principal = [math.atan2(v[1], v[0]) % math.pi for v in vecs.T]
    return np.r_[np.arange(YAWS) * math.pi / YAWS, principal]


def cross_sections(pts: np.ndarray, model: GripperModel, px: float) -> np.ndarray:
    """Every (closing direction, strip, pad depth, stretch) of the object: rows of
    yaw, t (strip's lateral offset), lo, hi (the stretch along the closing line), top, depth,
    normal angle, whether the object widens below the pads (`widens_below`), whether the
    stretch is the whole outline taken from outside (hollows ignored), and the deepest the
    pads may go in that strip."""
    half_pad = model.pad_width / 2
    gap = FINGER_THICKNESS + 2 * model.clearance
    rows = []
    for yaw in yaws(pts):
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
            # how deep the pads may go: the knuckles above them meet an edge as high as the
            # top (a can's rim, a box) sooner than a rounded one (a ball)
            ends = (s <= s[0] + EDGE_BAND) | (s >= s[-1] - EDGE_BAND)
            flat = float(z[ends].max()) > local_top - FLAT_EDGE
            reach = model.max_depth_flat if flat else model.max_depth_round
            depths = (reach, 0.6 * reach, 0.35 * reach)
            # a top leaning across the strip is a slab's (a DVD case, a book, a board
            # propped in the pile): how thick it is under its top the view cannot show,
            # so the pads go no deeper than the lean spans across the strip and a centimetre
            deepest = slab_depth(t, z)
            if deepest is not None:
                depths = tuple(min(d, deepest) for d in depths)
            all_runs = runs(s, gap)  # the strip's outline at any height
            seen = set()
            for depth in depths:
                keep = z >= local_top - depth
                sk, tk = s[keep], t[keep]
                for i, j in zip(*runs(sk, gap), strict=True):
                    if j - i < 2 or (sk[i], sk[j]) in seen:
                        continue
                    seen.add((sk[i], sk[j]))
                    lo, hi = sk[i], sk[j]
                    if hi - lo + px > model.max_grasp_width:  # refused on width alone
                        rows.append(
                            (yaw, tc, lo - px / 2, hi + px / 2, local_top, depth, 0, 0, 0, reach)
                        )
                        continue
                    stretch = (sk[i : j + 1], tk[i : j + 1], z[keep][i : j + 1])
                    cut = local_top - depth
                    normal, widens = stretch_normal(stretch, (s, z, all_runs), cut, px, model)
                    rows.append(
                        (
                            yaw,
                            tc,
                            lo - px / 2,
                            hi + px / 2,
                            local_top,
                            depth,
                            normal,
                            widens,
                            0,
                            reach,
                        )
                    )
            # the whole outline at the deepest pads, hollows ignored: a mug by its body, a
            # bowl from outside (the split stretches above offer its rim)
            for i, j in zip(*all_runs, strict=True):
                lo, hi = s[i], s[j]
                if j - i < 2 or (lo, hi) in seen or hi - lo + px > model.max_grasp_width:
                    continue
                normal = normal_angle(s[i : j + 1], t[i : j + 1], model.pad_width)
                rim = min(reach, model.max_depth_flat)  # the knuckles meet a rim as a flat top
                normal = max(normal, incline_angle(s[i : j + 1], z[i : j + 1], local_top - rim))
                normal = max(normal, lean_angle(s, z, lo, hi))
                rows.append((yaw, tc, lo - px / 2, hi + px / 2, local_top, rim, normal, 0, 1, rim))
    return np.array(rows, dtype=float).reshape(-1, 10)


def stretch_normal(stretch, strip, cut: float, px: float, model: GripperModel) -> tuple[float, int]:
    """How far off the closing line (degrees) the pads press on a stretch of a strip, and
    whether the object widens below them there (1) with no flank to hold it by.
    `stretch`: the stretch's (s, t, z) kept above `cut`; `strip`: the strip's (s, z) and
    its outline's runs at any height."""
    sk, tk, zk = stretch
    s, z, all_runs = strip
    lo, hi = sk[0], sk[-1]
    normal = normal_angle(sk, tk, model.pad_width)
    normal = max(normal, lean_angle(s, z, lo, hi))
    # an end where the top slopes down through the pads' level (a plate or board tilted
    # in the pile) offers the pad a slope, not a side
    if hi - lo >= LEAN_MIN_SPAN:
        normal = max(normal, incline_angle(sk, zk, cut))
    ends = widening_ends(s, z, all_runs, lo, hi, cut, px)
    if any(ends):
        # held above its widest (a ball wider than the stroke): the pads press on a flank
        # facing up, as far off the closing line as the flank is from upright
        flank = flank_angle(sk, zk, ends)
        if flank is None:
            return normal, 1
        normal = max(normal, flank)
    return normal, 0


ACROSS_LEAN_DEG = 20.0  # a strip's top leaning more than this across it is a slab's
SLAB_DEPTH = 0.01  # metres below a leaning slab's lowest visible point the pads may go


def slab_depth(t: np.ndarray, z: np.ndarray) -> float | None:
    """How deep below the strip's top the pads may go where its top leans across it by
    more than ACROSS_LEAN_DEG (a line fitted to its heights `z` over the offsets across
    it `t`): the height the lean spans over the strip's width and SLAB_DEPTH more; None
    where it does not lean so."""
    tc = centred(t)
    spread = float((tc**2).sum())
    if len(t) < 5 or float(t.max() - t.min()) < 0.01 or spread <= 0:
        return None
    slope = abs(float((tc * centred(z)).sum()) / spread)
    if math.degrees(math.atan(slope)) <= ACROSS_LEAN_DEG:
        return None
    return slope * float(t.max() - t.min()) + SLAB_DEPTH


def incline_angle(s: np.ndarray, z: np.ndarray, cut: float) -> float:
    """For a grasp of the whole outline from outside: the larger angle (degrees) between
    the closing line and the object's surface normal where the pads meet it. 0 where the
    outline ends at an edge above the pads' level `cut` (a mug's or a box's wall beneath
    it, as a top-down view assumes); where an end is a face sloping down through the
    pads' level instead (a book, a plate or a DVD case leaning in the pile), the pad
    meets it only further in, on the slope. `s`, `z`: the strip's points in the stretch,
    sorted along the closing line.

    A pad closing on a face that rises at angle a from the horizontal presses along a
    normal 90 - a degrees off the closing line: the squeeze turns a leaning object away
    about its support and it leaves the fingers (closed on nothing, or slipped at lift).
    Where the surface falls away inward there is nothing to press on: 90.
    """
    angles = []
    for end, inward in ((s[0], 1.0), (s[-1], -1.0)):
        d = (s - end) * inward  # distance in from this end
        reached = d[z >= cut]
        if reached.size == 0:
            return 90.0
        first = float(reached.min())  # where the surface comes up to the pads' level
        at = (d >= first) & (d <= first + INCLINE_EDGE)
        if first <= INCLINE_EDGE and float(median(z[at])) - cut > INCLINE_LOW:
            # an edge well above the pads: the wall below it takes them, unless the top
            # comes down to it as a plane sloping 30-60 degrees (a box standing on an
            # edge or a corner): the face below is square to that plane and narrows the
            # object again, as far off the closing line as the plane slopes
            angles.append(roof_angle(d, z))
            continue
        near = (d >= first) & (d <= first + INCLINE_BAND)
        dn, zn = d[near], z[near]
        dc = centred(dn)
        spread = float((dc**2).sum())
        if dn.size < 3 or spread <= 0:
            angles.append(0.0)  # too few points to measure a slope
            continue
        rise = float((dc * centred(zn)).sum()) / spread
        angles.append(90.0 - math.degrees(math.atan(rise)) if rise > 0 else 90.0)
    return max(angles)


def lean_angle(s: np.ndarray, z: np.ndarray, lo: float, hi: float) -> float:
    """How steeply (degrees) the object's top leans along the closing line between the
    contacts `lo` and `hi`: the slope of a line fitted to the strip's points over the
    middle half of the stretch (`s`, `z`: the strip's points sorted along the line).

    A slab or box leaning in the pile (a book, a board, a DVD case propped on its
    neighbours) shows a plane, leaning b. The pads meet it either on its ends, faces
    square to that plane which a top-down view does not see, b off the closing line,
    or, where they close below its ends, on its top face and its underside, 90 - b
    off: the smaller of the two is returned. Beyond the friction cone the squeeze
    turns the object away about its support (the fingers closed on nothing); a board
    standing nearly on its edge is squeezed across its faces, and across the lean a
    slab's sides are upright and it holds. A round top or a level one fits about level
    over its middle half."""
    if hi - lo < LEAN_MIN_SPAN:
        return 0.0
    quarter = (hi - lo) / 4
    i0, i1 = np.searchsorted(s, (lo + quarter, hi - quarter))
    if i1 - i0 < 5:
        return 0.0
    sm, zm = s[i0:i1], z[i0:i1]
    sc = centred(sm)
    spread = float((sc**2).sum())
    if spread <= 0:
        return 0.0
    slope = float((sc * centred(zm)).sum()) / spread
    lean = math.degrees(math.atan(abs(slope)))
    return min(lean, 90.0 - lean)


ROOF_BAND = 0.012  # metres in from an edge over which the face coming down to it is fitted
ROOF_OUTER = 0.004  # ... and its outermost part, which a rounded flank has steeper


def roof_angle(d: np.ndarray, z: np.ndarray) -> float:
    """How far off the closing line the hidden face under an end's edge is (degrees), the
    face being square to the visible one coming down to the edge (`d`: distance in from
    the end, `z`: heights): that face's slope where it is a plane sloping 30 to 60
    degrees, over ROOF_BAND and over its outer ROOF_OUTER alike; 0 otherwise (a level
    top over a wall; a rounded flank, steepening towards the outline, whose wall
    below is the flank going on)."""

    def slope(band: float) -> float | None:
        near = (d >= 0) & (d <= band)
        dn, zn = d[near], z[near]
        if dn.size < 4:
            return None
        dc = centred(dn)
        spread = float((dc**2).sum())
        if spread <= 0:
            return None
        rise = float((dc * centred(zn)).sum()) / spread
        return math.degrees(math.atan(rise))

    whole, outer = slope(ROOF_BAND), slope(ROOF_OUTER)
    if whole is None or outer is None or abs(outer - whole) > 12.0:
        return 0.0
    return whole if 30.0 < whole < 60.0 else 0.0


def widens_below(s, z, all_runs, lo: float, hi: float, cut: float, px: float) -> bool:
    """Whether the object's outline in the strip reaches further out than the contacts
    [lo, hi] at a height below `cut` (a ball above its equator): the pads would press on
    a surface facing up. `s`, `z`: the strip's points sorted along the closing line;
    `all_runs`: its stretches at any height."""
    return any(widening_ends(s, z, all_runs, lo, hi, cut, px))


def flank_angle(s: np.ndarray, z: np.ndarray, ends: tuple[bool, bool]) -> float | None:
    """How far (degrees) from upright the surface is at the stretch's widening ends
    (`ends`: its low and high end): the slope of its points within INCLINE_BAND in from
    the end, rising inward as a ball's does above its equator. A pad closing level on it
    presses that far off the closing line. None when too few points measure it."""
    worst = 0.0
    for end, inward, widening in ((s[0], 1.0, ends[0]), (s[-1], -1.0, ends[1])):
        if not widening:
            continue
        d = (s - end) * inward
        near = (d >= 0) & (d <= INCLINE_BAND)
        dn, zn = d[near], z[near]
        dc = centred(dn) if dn.size >= 3 else None
        spread = float((dc**2).sum()) if dc is not None else 0.0
        if spread <= 0:
            return None
        rise = float((dc * centred(zn)).sum()) / spread
        worst = max(worst, 90.0 - math.degrees(math.atan(rise)) if rise > 0 else 90.0)
    return worst


def widening_ends(s, z, all_runs, lo: float, hi: float, cut: float, px: float) -> tuple[bool, bool]:
    """`widens_below` for each end of the stretch: (its low end, its high end)."""
    starts, ends = all_runs
    k = int(np.searchsorted(s[starts], lo, side="right")) - 1
    if k < 0:
        return False, False
    first, last = s[starts[k]], s[ends[k]]
    near_first = z[starts[k] : int(np.searchsorted(s, first + px, side="right"))]
    near_last = z[int(np.searchsorted(s, last - px)) : ends[k] + 1]
    out_lo = lo - first > px and near_first.size and median(near_first) < cut
    out_hi = last - hi > px and near_last.size and median(near_last) < cut
    return bool(out_lo), bool(out_hi)


def normal_angle(s: np.ndarray, t: np.ndarray, pad_width: float) -> float:
    """The larger angle (degrees) between the closing line and the outline's normal at
    either end: the slope of the outline's ends across the strip, fitted over 2 mm slices
    (a strip over a round object's flank, a chord, slopes steeply at both ends)."""
    bins = ((t - t.min()) * 500.0).astype(int)  # 2 mm slices
    top = int(bins.max())
    if top < 2:
        return 0.0  # a sliver: no slope to measure
    # slices with a point or two are grazing views of a face, not the outline
    full = np.flatnonzero(np.bincount(bins, minlength=top + 1) >= 3)
    if full.size < 3:
        return 0.0
    # `s` is sorted: a slice's lowest s is its first point's, its highest its last's
    lo, hi = np.full(top + 1, np.inf), np.full(top + 1, -np.inf)
    np.minimum.at(lo, bins, s)
    np.maximum.at(hi, bins, s)
    x = full.astype(float)
    x -= x.sum() / x.size
    var = float(x @ x) * 0.002  # slope per metre: slices are 2 mm apart
    slope_lo = float(x @ centred(lo[full])) / var
    slope_hi = float(x @ centred(hi[full])) / var
    return math.degrees(math.atan(max(abs(slope_lo), abs(slope_hi))))
