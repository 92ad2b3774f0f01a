"""What the live scene-graph view draws, and where: pure functions, no Qt.

* `merge_edges` turns a graph's relations into the edges drawn: one per relation
  kind and pair of entities, the predicates of both directions in one label, an
  inverse that is implied dropped ("a left of b" says "b right of a"), a
  symmetric predicate ("near") once and without arrowheads.
* `dense_kinds` and `edge_drawn` keep the picture readable: a kind with more
  edges than ``DENSE_FACTOR`` x the entities (at least ``DENSE_MIN``) is dense
  (JRDB geometry between everyone, the simulator's pairwise left/right/behind),
  and only its edges touching the focus (the selected and highlighted entities)
  or an anchor (the robot, a surface) are drawn unless asked for all.
* `update_layout` places the new nodes of a changed graph and leaves every
  existing node exactly where it was: a new node starts from a hint (a
  simulator object's table position, a JRDB entity's direction and distance
  from the robot), else beside its placed neighbours, else in a free spot, and
  a few rounds of force-directed relaxation move only the new nodes.
  Deterministic: angles come from a CRC of the id, never from a random source.
"""

from __future__ import annotations

import math
import zlib
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from annotation.scene_graph import Entity, Relation, SceneGraph

Point = tuple[float, float]

SPACING = 80.0  # px: the rest length of a spring, and the room a node wants
MIN_GAP = 0.6 * SPACING  # a spot is free when no node is closer than this
ANCHOR_KINDS = frozenset({"robot", "surface"})
KIND_ORDER = {"robot": 0, "surface": 1, "human": 2, "object": 3}
DENSE_FACTOR, DENSE_MIN = 1.5, 12
LABEL_PREDICATES = 2  # more are summed up as "+n" (the tooltip lists them all)
FIRST_ITERATIONS, ADD_ITERATIONS = 80, 30
REPULSION_RANGE = 2.5  # x SPACING: nodes farther apart do not push each other
TETHER = 0.2  # how hard a new node is held to its hint
SIM_PX_PER_M = 900.0  # a simulator object's table position, scaled to the canvas
GOLDEN_ANGLE = math.pi * (3.0 - math.sqrt(5.0))

#: Pairs of predicates that say the same thing from the other end; the second of each
#: pair is dropped when its inverse is there (the label reads from the first).
INVERSE = {"left of": "right of", "behind": "in front of", "on": "under"}
IMPLIED = {b: a for a, b in INVERSE.items()}
SYMMETRIC = frozenset({"near"})
#: Relation kinds whose every predicate is mutual (a JRDB-Social interaction is the pair's).
SYMMETRIC_KINDS = frozenset({"hhi"})
#: Centre angle of each JRDB direction sector, degrees counter-clockwise from ahead.
SECTOR_ANGLE_DEG = {
    "front": 0.0,
    "front-left": 37.5,
    "left": 90.0,
    "back-left": 140.0,
    "back": 180.0,
    "back-right": -140.0,
    "right": -90.0,
    "front-right": -37.5,
}


@dataclass(frozen=True)
class DrawnEdge:
    """One drawn edge: every relation of one kind between `a` and `b` (either way)."""

    kind: str
    a: str
    b: str
    forward: tuple[str, ...]  # predicates a -> b
    backward: tuple[str, ...]  # predicates b -> a that no forward one implies
    relations: tuple[Relation, ...]

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.a, self.b)

    @property
    def symmetric(self) -> bool:
        """Only symmetric predicates: drawn without arrowheads."""
        return self.kind in SYMMETRIC_KINDS or set(self.forward) | set(self.backward) <= SYMMETRIC

    @property
    def label(self) -> str:
        lines = [_short_list(self.forward)] if self.forward else []
        if self.backward:
            lines.append("← " + _short_list(self.backward))
        return "\n".join(lines)

    def touches(self, ids: Collection[str]) -> bool:
        return self.a in ids or self.b in ids


def _short_list(predicates: Sequence[str]) -> str:
    shown = ", ".join(predicates[:LABEL_PREDICATES])
    more = len(predicates) - LABEL_PREDICATES
    return f"{shown} +{more}" if more > 0 else shown


def merge_edges(relations: Iterable[Relation]) -> list[DrawnEdge]:
    """The edges to draw for `relations`, in a stable order (kind, then the pair)."""
    relations = list(relations)
    present = {(r.subject, r.predicate, r.object) for r in relations}
    groups: dict[tuple[str, str, str], list[Relation]] = defaultdict(list)
    for r in relations:
        if r.subject != r.object:  # a self-relation has no edge to draw
            lo, hi = sorted((r.subject, r.object))
            groups[(r.kind, lo, hi)].append(r)
    edges = []
    for (kind, lo, hi), group in sorted(groups.items()):
        said: dict[str, list[str]] = {lo: [], hi: []}
        for r in group:
            p = r.predicate
            mutual = p in SYMMETRIC or kind in SYMMETRIC_KINDS
            if mutual and r.subject > r.object and (r.object, p, r.subject) in present:
                continue
            if p in IMPLIED and (r.object, IMPLIED[p], r.subject) in present:
                continue
            if p not in said[r.subject]:
                said[r.subject].append(p)
        a, b = (lo, hi) if said[lo] or not said[hi] else (hi, lo)
        edges.append(
            DrawnEdge(kind, a, b, tuple(sorted(said[a])), tuple(sorted(said[b])), tuple(group))
        )
    return edges


def entity_changes(old: SceneGraph, new: SceneGraph) -> tuple[dict[str, Entity], list[str]]:
    """The entity half of ``old.diff(new)``: (new or changed entities by id, removed ids).

    Computed by comparing values, not through `SceneGraph.diff`, which hashes
    every relation through JSON (most of a crowded frame's update time); the
    relations are merged into edges afresh anyway.
    """
    changed = {i: e for i, e in new.entities.items() if old.entities.get(i) != e}
    return changed, [i for i in old.entities if i not in new.entities]


def anchors_of(graph: SceneGraph) -> frozenset[str]:
    """The robot and the surfaces: the scene's fixed points, whose edges are always drawn."""
    return frozenset(e.id for e in graph.entities.values() if e.kind in ANCHOR_KINDS)


def dense_kinds(edges: Iterable[DrawnEdge], entity_count: int) -> frozenset[str]:
    """Kinds with more drawn edges than `DENSE_FACTOR` x the entities (at least `DENSE_MIN`)."""
    limit = max(DENSE_MIN, DENSE_FACTOR * entity_count)
    counts: dict[str, int] = defaultdict(int)
    for e in edges:
        counts[e.kind] += 1
    return frozenset(k for k, n in counts.items() if n > limit)


def edge_drawn(
    edge: DrawnEdge,
    *,
    hidden_kinds: Collection[str] = (),
    dense: Collection[str] = (),
    focus: Collection[str] = (),
    anchors: Collection[str] = (),
    shown: Collection[str] | None = None,
    all_dense: bool = False,
) -> bool:
    """Whether the view draws `edge` (see the module docstring for the rule)."""
    if edge.kind in hidden_kinds:
        return False
    if shown is not None and (edge.a not in shown or edge.b not in shown):
        return False
    if edge.kind in dense and not all_dense:
        return edge.touches(focus) or edge.touches(anchors)
    return True


def layout_springs(edges: Iterable[DrawnEdge], dense: Collection[str], anchors: Collection[str]):
    """The pairs the layout pulls together: what is drawn with nothing selected."""
    return [
        (e.a, e.b) for e in edges if edge_drawn(e, dense=dense, anchors=anchors, all_dense=False)
    ]


def is_hidden_from_camera(entity: Entity) -> bool:
    """A simulator object of which the camera shows nothing (``visible_fraction`` 0)."""
    fraction = entity.attributes.get("visible_fraction")
    return isinstance(fraction, int | float) and fraction <= 0.0


# -- layout ----------------------------------------------------------------------------------


def _angle_of(entity_id: str) -> float:
    return (zlib.crc32(entity_id.encode("utf-8")) % 3600) / 3600.0 * 2.0 * math.pi


def position_hints(graph: SceneGraph) -> dict[str, tuple[str | None, Point]]:
    """Where a new node would like to be: (anchor id or None for absolute, offset).

    Simulator objects (a ``position`` attribute, metres) keep their arrangement
    on the table as seen from above (+y away from the robot is up); JRDB
    entities with a geometry relation to the robot sit in its direction (ahead
    is up, left is left) at a distance that grows with the logarithm of metres;
    other entities with geometry relations sit beside the nearest hinted one.
    """
    hints: dict[str, tuple[str | None, Point]] = {}
    placed = {
        e.id: e.attributes["position"]
        for e in graph.entities.values()
        if isinstance(e.attributes.get("position"), list) and len(e.attributes["position"]) >= 2
    }
    if placed:
        mx = sum(float(p[0]) for p in placed.values()) / len(placed)
        my = sum(float(p[1]) for p in placed.values()) / len(placed)
        for key, p in placed.items():
            x, y = (float(p[0]) - mx) * SIM_PX_PER_M, (my - float(p[1])) * SIM_PX_PER_M
            hints[key] = (None, (x, y))
        # the table, the basket and the gripper in a row below (nearer the robot)
        bottom = max(y for _a, (_x, y) in hints.values()) + 1.5 * SPACING
        degree: dict[str, int] = defaultdict(int)
        for r in graph.relations:
            degree[r.subject] += 1
            degree[r.object] += 1
        loose = sorted(
            (e for e in graph.entities.values() if e.kind in ANCHOR_KINDS),
            key=lambda e: (-degree[e.id], KIND_ORDER[e.kind], e.id),
        )
        for n, e in enumerate(loose):
            offset = (n + 1) // 2 * (1 if n % 2 else -1) * 2.5 * SPACING
            hints[e.id] = (None, (offset, bottom))
    robots = {e.id for e in graph.entities.values() if e.kind == "robot"}
    for r in graph.relations:
        if r.kind != "geometry" or r.object not in robots or r.subject in hints:
            continue
        angle = SECTOR_ANGLE_DEG.get(r.attributes.get("direction"))
        distance = r.attributes.get("distance_m")
        if angle is None or not isinstance(distance, int | float):
            continue
        radius = SPACING * (1.0 + 1.2 * math.log1p(max(0.0, float(distance))))
        a = math.radians(angle)
        hints[r.subject] = (r.object, (-math.sin(a) * radius, -math.cos(a) * radius))
    nearest: dict[str, tuple[float, str]] = {}  # the rest: beside the nearest hinted entity
    for r in graph.relations:
        d = r.attributes.get("distance_m")
        if r.kind != "geometry" or not isinstance(d, int | float):
            continue
        for me, other in ((r.subject, r.object), (r.object, r.subject)):
            if me not in hints and other in hints and (me not in nearest or d < nearest[me][0]):
                nearest[me] = (float(d), other)
    for me, (d, other) in sorted(nearest.items()):
        a, radius = _angle_of(me), SPACING * (0.9 + 0.5 * math.log1p(d))
        hints[me] = (other, (math.cos(a) * radius, math.sin(a) * radius))
    return hints


def _free_spot(start: Point, taken: np.ndarray, entity_id: str) -> Point:
    """`start` if no node is within `MIN_GAP` of it, else the nearest free spot on a spiral."""
    if len(taken) == 0:
        return start
    base = _angle_of(entity_id)
    for k in range(400):
        r = 0.0 if k == 0 else MIN_GAP * (0.6 + 0.25 * math.sqrt(k))
        a = base + k * GOLDEN_ANGLE
        p = np.array([start[0] + r * math.cos(a), start[1] + r * math.sin(a)])
        if np.min(np.hypot(*(taken - p).T)) >= MIN_GAP:
            return float(p[0]), float(p[1])
    return float(p[0]), float(p[1])


def place_new(
    positions: Mapping[str, Point],
    new_ids: Sequence[str],
    kinds: Mapping[str, str],
    springs: Iterable[tuple[str, str]],
    hints: Mapping[str, tuple[str | None, Point]] | None = None,
) -> dict[str, Point]:
    """Starting spots for `new_ids`; the placed nodes stay put.

    Order: the node with the most placed neighbours first, anchors before
    people before objects, then by id. Each goes to its hint, else beside its
    placed neighbours, else next to the drawing, nudged to a free spot.
    """
    hints = hints or {}
    out = dict(positions)
    neighbours: dict[str, set[str]] = defaultdict(set)
    for a, b in springs:
        neighbours[a].add(b)
        neighbours[b].add(a)
    todo = set(new_ids)
    while todo:
        chosen = min(
            todo,
            key=lambda i: (
                -sum(n in out for n in neighbours[i]),
                KIND_ORDER.get(kinds.get(i, ""), 9),
                -len(neighbours[i]),
                i,
            ),
        )
        todo.discard(chosen)
        taken = np.array(list(out.values()), dtype=float).reshape(-1, 2)
        anchor, offset = hints.get(chosen, ("", (0.0, 0.0)))
        placed = [out[n] for n in sorted(neighbours[chosen]) if n in out]
        if anchor is None or (anchor and anchor in out):
            ox, oy = out[anchor] if anchor else (0.0, 0.0)
            start = (ox + offset[0], oy + offset[1])
        elif placed:
            cx = sum(p[0] for p in placed) / len(placed)
            cy = sum(p[1] for p in placed) / len(placed)
            a = _angle_of(chosen)
            start = (cx + SPACING * math.cos(a), cy + SPACING * math.sin(a))
        elif len(taken):
            lo, hi = taken.min(axis=0), taken.max(axis=0)
            start = (float(hi[0]) + SPACING, float((lo[1] + hi[1]) / 2))
        else:
            start = (0.0, 0.0)
        out[chosen] = _free_spot(start, taken, chosen)
    return out


def relax(
    positions: Mapping[str, Point],
    springs: Iterable[tuple[str, str]],
    movable: Collection[str],
    iterations: int,
    targets: Mapping[str, Point] | None = None,
    skip: Collection[tuple[str, str]] = (),
) -> dict[str, Point]:
    """Force-directed rounds that move only `movable` nodes (the others are pinned).

    Nodes push each other apart (k^2 / d, within `REPULSION_RANGE` x k), springs
    pull (d^2 / k); a node with a target (its hint) is tethered to it instead of
    pulled by springs to other tethered nodes or to its hint's anchor (`skip`),
    so the arrangement the hints give survives and only overlaps are resolved.
    """
    targets = targets or {}
    ids = list(positions)
    out = dict(positions)
    moving = np.array([i in movable for i in ids], dtype=bool)
    if not moving.any() or iterations <= 0:
        return out
    index = {i: n for n, i in enumerate(ids)}
    pairs = np.array(
        [
            (index[a], index[b])
            for a, b in springs
            if a in index
            and b in index
            and a != b
            and not (a in targets and b in targets)
            and (a, b) not in skip
            and (b, a) not in skip
        ],
        dtype=int,
    ).reshape(-1, 2)
    tethered = np.array([i in targets for i in ids], dtype=bool)
    goal = np.array([targets.get(i, positions[i]) for i in ids], dtype=float)
    p = np.array([positions[i] for i in ids], dtype=float)
    k = SPACING
    centre = p.mean(axis=0)
    for step in range(iterations):
        delta = p[:, None, :] - p[None, :, :]
        dist2 = np.maximum((delta**2).sum(axis=2), 1.0)
        push = np.where(dist2 < (REPULSION_RANGE * k) ** 2, k * k / dist2, 0.0)
        force = (delta * push[:, :, None]).sum(axis=1)
        if len(pairs):
            d = p[pairs[:, 0]] - p[pairs[:, 1]]
            pull = d * (np.hypot(d[:, 0], d[:, 1]) / k)[:, None]
            np.add.at(force, pairs[:, 0], -pull)
            np.add.at(force, pairs[:, 1], pull)
        force[tethered] -= TETHER * (p[tethered] - goal[tethered])
        force[~tethered] -= 0.02 * (p[~tethered] - centre)  # loose nodes do not drift off
        temperature = 0.3 * k * (1.0 - step / iterations) + 1.0
        length = np.maximum(np.hypot(force[:, 0], force[:, 1]), 1e-9)
        move = force * (np.minimum(length, temperature) / length)[:, None]
        p[moving] += move[moving]
    for _ in range(30):  # then no new node overlaps another: push the pairs apart
        delta = p[:, None, :] - p[None, :, :]
        dist = np.maximum(np.hypot(delta[:, :, 0], delta[:, :, 1]), 1e-3)
        short = np.clip(MIN_GAP - dist, 0.0, None) / dist
        np.fill_diagonal(short, 0.0)
        if not short[moving].any():
            break
        push = (delta * short[:, :, None]).sum(axis=1) * 0.55
        p[moving] += push[moving]
    for n, i in enumerate(ids):
        if moving[n]:
            out[i] = (float(p[n, 0]), float(p[n, 1]))
    return out


def update_layout(
    previous: Mapping[str, Point],
    graph: SceneGraph,
    springs: Sequence[tuple[str, str]],
    memory: Mapping[str, Point] | None = None,
) -> dict[str, Point]:
    """Positions for every entity of `graph`: the previous ones unchanged, new ones placed.

    An entity seen before (in `memory`, e.g. a person who left the frame) goes
    back to its old spot if that is still free, and is not moved.
    """
    positions = {i: previous[i] for i in graph.entities if i in previous}
    new = [i for i in graph.entities if i not in positions]
    if not new:
        return positions
    taken = np.array(list(positions.values()), dtype=float).reshape(-1, 2)
    for i in new:
        old = (memory or {}).get(i)
        if old is not None and (len(taken) == 0 or np.min(np.hypot(*(taken - old).T)) >= MIN_GAP):
            positions[i] = old
            taken = np.vstack([taken, old])
    fresh = [i for i in new if i not in positions]
    if not fresh:
        return positions
    kinds = {i: e.kind for i, e in graph.entities.items()}
    hints = position_hints(graph)
    positions = place_new(positions, fresh, kinds, springs, hints)
    targets, skip = {}, set()
    for i in fresh:
        anchor, (dx, dy) = hints.get(i, ("", (0.0, 0.0)))
        if anchor is None:
            targets[i] = (dx, dy)
        elif anchor in positions:
            targets[i] = (positions[anchor][0] + dx, positions[anchor][1] + dy)
            skip.add((i, anchor))
    first = len(fresh) == len(graph.entities)
    iterations = FIRST_ITERATIONS if first else ADD_ITERATIONS
    return relax(positions, springs, set(fresh), iterations, targets, skip)
