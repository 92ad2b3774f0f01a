"""Perf case of the geometric relations: KD-tree vs brute-force person-object distances."""

from __future__ import annotations

import time

import numpy as np

from app.perf.harness import PerfResult, perf_case, report
from sim.jrdb.relations import DEFAULT_K, KD_BACKEND, human_object_distances

ORDER = 70  # where these cases run in `reasonscope bench` (see app.perf.harness)

#: A synthetic lidar frame in the JRDB layout: people, furniture, and the floor and walls
#: (labelled segments too, so they count as objects). Sizes in points; `quick` halves
#: the frame. The KD-tree's advantage grows with the points per object, see
#: docs/relations.md.
FRAMES = {False: 2, True: 1}
PERSONS = {False: 10, True: 5}
FURNITURE = {False: 8, True: 4}
FLOOR_POINTS = {False: 20_000, True: 10_000}
WALL_POINTS = {False: 8_000, True: 4_000}
POINTS_PER_PERSON = 1_000
POINTS_PER_FURNITURE = 1_750
TOLERANCE = 1e-9
GOAL = ">= 10x, <= 1e-9"


def synthetic_frame(
    seed: int, quick: bool = False
) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """One frame's (persons, objects) point sets, keyed by entity id.

    Persons are 0.5 x 0.5 x 1.7 m blobs and furniture 0.4-1.5 m blobs within 12 m
    of the robot; the floor is a 24 x 24 m plane 1.2 m below the sensor, and the
    two walls are 24 m long and 3 m high.
    """
    rng = np.random.default_rng(seed)

    def blob(n: int, size: np.ndarray, lift: float) -> np.ndarray:
        centre = np.array([*rng.uniform(-12, 12, 2), lift])
        return centre + (rng.random((n, 3)) - 0.5) * size

    def plane(n: int, lo: tuple, hi: tuple) -> np.ndarray:
        return rng.uniform(lo, hi, (n, 3)) + rng.normal(0.0, 0.01, (n, 3))

    people = {
        1 + i: blob(POINTS_PER_PERSON, np.array([0.5, 0.5, 1.7]), -0.35)
        for i in range(PERSONS[quick])
    }
    things = {
        1000 + i: blob(POINTS_PER_FURNITURE, rng.uniform(0.4, 1.5, 3), -0.7)
        for i in range(FURNITURE[quick])
    }
    things[2000] = plane(FLOOR_POINTS[quick], (-12, -12, -1.2), (12, 12, -1.2))
    things[2001] = plane(WALL_POINTS[quick], (-12, 12.5, -1.2), (12, 12.5, 1.8))
    things[2002] = plane(WALL_POINTS[quick], (13, -12, -1.2), (13, 12, 1.8))
    return people, things


@perf_case("relations_knn", goal=GOAL)
def relations_knn(quick: bool) -> PerfResult:
    """Person-object k-NN distances with KD-trees vs brute-force distance matrices."""
    frames = FRAMES[quick]
    kd_s = brute_s = 0.0
    worst = 0.0
    pairs = 0
    points = 0
    # The first Open3D search pays one-off set-up costs that are not part of any frame.
    warm_people, warm_things = synthetic_frame(99, quick=True)
    human_object_distances(warm_people, warm_things, DEFAULT_K)
    for f in range(frames):
        people, things = synthetic_frame(f, quick)
        points = sum(len(p) for p in people.values()) + sum(len(p) for p in things.values())
        report(f"relations_knn: frame {f + 1} of {frames} ({points:,} points)")
        # One object at a time, tree then matrix, so that load from other processes
        # falls on both methods alike instead of on whichever happened to be running.
        fast: dict[tuple[int, int], float] = {}
        slow: dict[tuple[int, int], float] = {}
        for oid, pts in things.items():
            t0 = time.perf_counter()
            fast.update(human_object_distances(people, {oid: pts}, DEFAULT_K))
            t1 = time.perf_counter()
            slow.update(human_object_distances(people, {oid: pts}, DEFAULT_K, brute=True))
            t2 = time.perf_counter()
            kd_s += t1 - t0
            brute_s += t2 - t1
        pairs += len(fast)
        worst = max(worst, max(abs(fast[key] - slow[key]) for key in slow))
    speedup = brute_s / kd_s
    return PerfResult(
        "relations_knn",
        speedup,
        "x",
        GOAL,
        speedup >= 10 and worst <= TOLERANCE,
        f"{frames} frame{'s' if frames > 1 else ''} of {points:,} points "
        f"({PERSONS[quick]} persons x {POINTS_PER_PERSON:,}; {len(things)} objects: "
        f"{FURNITURE[quick]} x {POINTS_PER_FURNITURE:,}, floor {FLOOR_POINTS[quick]:,}, "
        f"2 walls x {WALL_POINTS[quick]:,}), {pairs} person-object pairs, k={DEFAULT_K}: KD-tree "
        f"({KD_BACKEND}) {kd_s:.2f} s vs brute force {brute_s:.2f} s; largest difference "
        f"{worst:.1e} m",
    )
