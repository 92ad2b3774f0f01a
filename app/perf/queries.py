"""Bench cases of the query engine: questions per second on a crowded frame, and scene-graph
build time against the number of relations.

The frames are synthetic JRDB frames built as `FrameFacts` (people with varied gender,
age and actions standing around the robot, objects, some HOI labels, and every
geometric relation a real frame gets: person-robot, person-person both ways,
object-person), so the graphs have the size and shape of an imported crowded frame.
"""

from __future__ import annotations

import math
import time

import numpy as np

from annotation.jrdb.geometry import GeometricRelation, ReferencePose, relate
from annotation.jrdb.graph import FrameFacts, HoiFacts, ObjectFacts, PersonFacts, graph_from_jrdb
from annotation.query.engine import generate
from annotation.query.model import GraphIndex, NoQuestion, Preferences
from app.perf.harness import BenchResult, bench_case, report

PEOPLE, OBJECTS = 30, 10
GENDERS = ("female", "male")
AGES = ("young_adulthood", "adulthood", "middle_adulthood", "late_adulthood")
ACTIONS = ("walking", "standing", "sitting", "talking on the phone", "looking at sth")
CATEGORIES = ("chair", "table", "bag", "laptop", "trolley")
RATE_GOAL = ">= 20 questions/s at every scope"
BUILD_GOAL = "report (growth per relation)"


def crowded_frame(people: int, objects: int = OBJECTS, seed: int = 3) -> FrameFacts:
    """One frame's facts: `people` persons and `objects` objects, every relation computed."""
    rng = np.random.default_rng(seed)
    xy = rng.uniform(-10, 10, (people, 2))
    heading = rng.uniform(-math.pi, math.pi, people)
    things = rng.uniform(-8, 8, (objects, 2))
    persons = tuple(
        PersonFacts(
            1 + i,
            f"pedestrian:{i + 1}",
            GENDERS[int(rng.integers(2))],
            AGES[int(rng.integers(len(AGES)))],
            {ACTIONS[int(rng.integers(len(ACTIONS)))]: 1},
        )
        for i in range(people)
    )
    kit = tuple(
        ObjectFacts(1000 + j, f"{CATEGORIES[j % 5]}:{j + 1}", CATEGORIES[j % 5])
        for j in range(objects)
    )
    hoi = tuple(
        HoiFacts(
            1 + i,
            ("holding", "sitting_on", "looking_at")[i % 3],
            1000 + i % objects,
            "physical",
            1 + i % 3,
        )
        for i in range(0, people, 3)
    )

    def relation(subject, reference, where, pose) -> GeometricRelation:
        p = relate(where, pose)
        return GeometricRelation(
            0, subject, reference, p.direction, p.vertical, p.distance_bin, p.distance_m, "bench"
        )

    geometry = []
    for i in range(people):
        geometry.append(relation(1 + i, None, (*xy[i], 0.0), ReferencePose()))
        me = ReferencePose(float(xy[i, 0]), float(xy[i, 1]), 0.0, float(heading[i]))
        for j in range(people):
            if j != i:
                geometry.append(relation(1 + j, 1 + i, (*xy[j], 0.0), me))
        for j in range(objects):
            geometry.append(relation(1000 + j, 1 + i, (*things[j], -0.4), me))
    return FrameFacts(0, persons, kit, hoi, tuple(geometry), 0, 0)


@bench_case("query_engine_rate", goal=RATE_GOAL)
def query_engine_rate(quick: bool) -> BenchResult:
    """Questions per second per spatial scope on a 30-person frame, with the graph's index
    and combinations reused (as `generate_many` and the CLI do) vs rebuilt per question."""
    graph = graph_from_jrdb([crowded_frame(PEOPLE)])
    n = 20 if quick else 60
    rates, naive_rates, failed = {}, {}, 0
    for scope in ("single", "pair", "clique"):
        report(f"query_engine_rate: {scope}, {n} questions")
        prefs = Preferences("vg", "image", "both" if scope != "single" else "human", scope)
        index = GraphIndex(graph)
        # one question first pays for enumerating the combinations once, as any batch does
        t0 = time.perf_counter()
        for seed in range(n):
            try:
                generate(graph, prefs, seed, index=index)
            except NoQuestion:
                failed += 1
        rates[scope] = n / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        for seed in range(n // 4):
            try:
                generate(graph, prefs, seed)  # a fresh index: enumeration every time
            except NoQuestion:
                failed += 1
        naive_rates[scope] = (n // 4) / (time.perf_counter() - t0)
    speedup = rates["clique"] / naive_rates["clique"]
    worst = min(rates.values())
    return BenchResult(
        "query_engine_rate",
        worst,
        "questions/s",
        RATE_GOAL,
        worst >= 20,
        f"VG on a {PEOPLE}-person, {OBJECTS}-object frame ({len(graph.relations)} relations): "
        + ", ".join(f"{s} {r:.0f}/s" for s, r in rates.items())
        + "; rebuilding the index per question: "
        + ", ".join(f"{s} {r:.1f}/s" for s, r in naive_rates.items())
        + f" (clique {speedup:.1f}x slower); {failed} tries found no question",
    )


@bench_case("scene_graph_build", goal=BUILD_GOAL)
def scene_graph_build(quick: bool) -> BenchResult:
    """graph_from_jrdb time per frame for 10, 20 and 30 people: growth against relations."""
    sizes = (10, 20, 30)
    repeats = 3 if quick else 10
    rows = []
    for people in sizes:
        facts = crowded_frame(people)
        report(f"scene_graph_build: {people} people")
        best = math.inf
        graph = None
        for _ in range(repeats):
            t0 = time.perf_counter()
            graph = graph_from_jrdb([facts])
            best = min(best, time.perf_counter() - t0)
        rows.append((people, len(graph.relations), best))
    (_, r0, t0), (_, r1, t1) = rows[0], rows[-1]
    slope = math.log(t1 / t0) / math.log(r1 / r0)  # time ~ relations ** slope
    per_rel = [t / r * 1e6 for _, r, t in rows]
    return BenchResult(
        "scene_graph_build",
        slope,
        "exponent",
        BUILD_GOAL,
        slope < 1.5,
        "; ".join(f"{p} people: {r} relations in {t * 1e3:.1f} ms" for p, r, t in rows)
        + f"; {per_rel[0]:.1f} -> {per_rel[-1]:.1f} us per relation; time grows as relations"
        f"^{slope:.2f} (1 = linear)",
    )
