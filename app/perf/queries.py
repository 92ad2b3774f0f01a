"""Perf cases of the query engine: questions per second on a crowded frame, and scene-graph
build time against the number of relations.

The frames are synthetic JRDB frames built as `FrameFacts` by
`annotation.jrdb.synthetic.crowded_frame` (people with varied gender, age, race and
actions standing around the robot, objects, some HOI labels and JRDB-Social
interactions, and every geometric relation a real frame gets: person-robot,
person-person both ways, object-person, object-robot), so the graphs have the size and
shape of an imported crowded frame.
"""

from __future__ import annotations

import math
import time

from annotation.jrdb.graph import graph_from_jrdb
from annotation.jrdb.synthetic import crowded_frame
from annotation.query.engine import generate
from annotation.query.model import GraphIndex, NoQuestion, Preferences
from app.perf.harness import PerfResult, perf_case, report

ORDER = 120  # where these cases run in `reasonscope bench` (see app.perf.harness)

PEOPLE, OBJECTS = 30, 10
RATE_GOAL = ">= 20 questions/s at every scope"
BUILD_GOAL = "report (growth per relation)"


@perf_case("query_engine_rate", goal=RATE_GOAL)
def query_engine_rate(quick: bool) -> PerfResult:
    """Questions per second per spatial scope on a 30-person frame, with the graph's index
    and combinations reused (as `generate_many` and the CLI do) vs rebuilt per question."""
    graph = graph_from_jrdb([crowded_frame(PEOPLE, OBJECTS)])
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
    return PerfResult(
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


@perf_case("scene_graph_build", goal=BUILD_GOAL)
def scene_graph_build(quick: bool) -> PerfResult:
    """graph_from_jrdb time per frame for 10, 20 and 30 people: growth against relations."""
    sizes = (10, 20, 30)
    repeats = 3 if quick else 10
    rows = []
    for people in sizes:
        facts = crowded_frame(people, OBJECTS)
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
    return PerfResult(
        "scene_graph_build",
        slope,
        "exponent",
        BUILD_GOAL,
        slope < 1.5,
        "; ".join(f"{p} people: {r} relations in {t * 1e3:.1f} ms" for p, r, t in rows)
        + f"; {per_rel[0]:.1f} -> {per_rel[-1]:.1f} us per relation; time grows as relations"
        f"^{slope:.2f} (1 = linear)",
    )
