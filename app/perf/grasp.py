"""Perf cases of the grasp tool: isolated objects of every catalog kind, and clutter."""

from __future__ import annotations

import time
from collections import Counter

from app.perf.harness import PerfResult, perf_case, report
from sim.render import render
from sim.tabletop.catalog import entries_by_kind
from sim.tabletop.grasp import grasp
from sim.tabletop.grasp_plan import MAX_OPENING
from sim.tabletop.scenes import SpawnSpec, generate_scene, spawn
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

ORDER = 50  # where these cases run in `reasonscope bench` (see app.perf.harness)

CAMERA = TOP_DOWN.with_size(512, 512)
CLUTTER_SEEDS = {False: 6, True: 2}
CLUTTER_GRASPS = 5  # the most visible objects of each scene, each from the scene's start


@perf_case("grasp_isolated", goal=">= 80%")
def grasp_isolated(quick: bool) -> PerfResult:
    """Grasp success on one object of every catalog kind, alone on the table."""
    kinds = sorted(entries_by_kind().items())
    if quick:
        kinds = kinds[::4]
    x, y = WORKSPACE_CENTRE
    ok = fits = fits_ok = 0
    reasons: Counter = Counter()
    failed = []
    t0 = time.perf_counter()
    for i, (kind, entries) in enumerate(kinds):
        report(f"grasp_isolated: {kind} ({i + 1} of {len(kinds)})")
        entry = entries[0]
        scale = sum(entry.scale_range) / 2
        height = entry.extent(scale)[2]
        with TabletopWorld() as world:
            position = (x + 0.03, y - 0.02, TABLE_TOP_Z + 0.01 + height / 2)
            spawn(world, SpawnSpec(entry, scale, position, 0.4 + i, "obj_00"))
            world.step(240)
            uid = world.bodies["obj_00"].uid
            result = grasp(world, CAMERA, render(world, CAMERA).segmentation == uid)
        ok += result.ok
        reasons[result.reason or "ok"] += 1
        if result.reason != "no feasible grasp":
            fits += 1
            fits_ok += result.ok
        if not result.ok:
            failed.append(f"{kind} ({result.reason})")
    rate = ok / len(kinds)
    return PerfResult(
        "grasp_isolated",
        100 * rate,
        "%",
        ">= 80%",
        rate >= 0.8,
        f"{ok} of {len(kinds)} kinds into the basket in {time.perf_counter() - t0:.0f} s; "
        f"of the {fits} that fit the 2F-85's {100 * MAX_OPENING:.1f} cm stroke, "
        f"{fits_ok} ({100 * fits_ok / max(fits, 1):.0f}%); outcomes {dict(reasons)}; "
        f"failed: {', '.join(failed)}",
    )


@perf_case("grasp_clutter", goal="report")
def grasp_clutter(quick: bool) -> PerfResult:
    """Grasp success on the most visible objects of generated cluttered scenes (reported)."""
    seeds = range(CLUTTER_SEEDS[quick])
    ok = tried = 0
    reasons: Counter = Counter()
    for seed in seeds:
        report(f"grasp_clutter: scene {seed + 1} of {len(seeds)}")
        scene = generate_scene(seed, objects=(8, 15))
        world = scene.world
        try:
            start = world.capture_state()
            seg = render(world, CAMERA).segmentation
            visible = sorted(world.objects(), key=lambda b: -int((seg == b.uid).sum()))[
                :CLUTTER_GRASPS
            ]
            for body in visible:
                world.restore_state(start)
                mask = render(world, CAMERA).segmentation == body.uid
                result = grasp(world, CAMERA, mask)
                tried += 1
                ok += result.ok
                reasons[result.reason or "ok"] += 1
        finally:
            world.close()
    planned = tried - reasons["no feasible grasp"]
    return PerfResult(
        "grasp_clutter",
        100 * ok / max(tried, 1),
        "%",
        "report",
        True,
        f"{ok} of {tried} grasps on the {CLUTTER_GRASPS} most visible objects of "
        f"{len(seeds)} scenes; {ok} of the {planned} with a feasible plan "
        f"({100 * ok / max(planned, 1):.0f}%); outcomes {dict(reasons)}",
    )
