"""Perf case of scene authoring: each object's visibility kept live while one is dragged."""

from __future__ import annotations

import statistics
import time

from app.perf.harness import PerfResult, perf_case, report
from sim.render import visibility
from sim.tabletop.authoring.live import LiveVisibility
from sim.tabletop.scenes import generate_scene
from sim.tabletop.world import MODEL_IMAGE_SIZE, TOP_DOWN

ORDER = 25  # beside the visibility cases (see app.perf.harness)

SCENES = {False: 4, True: 2}
GOAL_MS = 100.0


@perf_case("editor_visibility_update", goal=f"median <= {GOAL_MS:g} ms a move")
def editor_visibility_update(quick: bool) -> PerfResult:
    """A drag step in the scene editor: one object moved 2 cm, every object's visibility in
    the 1024 px model view brought up to date; against measuring everything again."""
    camera = TOP_DOWN.with_size(MODEL_IMAGE_SIZE, MODEL_IMAGE_SIZE)
    live_ms, full_ms = [], []
    for seed in range(SCENES[quick]):
        report(f"editor_visibility_update: scene {seed + 1} of {SCENES[quick]}")
        scene = generate_scene(300 + seed)
        world = scene.world
        try:
            live = LiveVisibility(world, camera)
            keys = [b.key for b in world.objects()]
            for n, key in enumerate(keys):
                uid = world.bodies[key].uid
                (x, y, z), orientation = world.client.getBasePositionAndOrientation(uid)
                step = 0.02 if n % 2 else -0.02
                world.client.resetBasePositionAndOrientation(uid, (x + step, y, z), orientation)
                t0 = time.perf_counter()
                live.moved(key)
                live_ms.append(1000 * (time.perf_counter() - t0))
                if n < 3:  # the baseline is slow: a few of them suffice
                    t0 = time.perf_counter()
                    visibility(world, camera, keys)
                    full_ms.append(1000 * (time.perf_counter() - t0))
        finally:
            world.close()
    median, full = statistics.median(live_ms), statistics.median(full_ms)
    return PerfResult(
        "editor_visibility_update",
        median,
        "ms",
        f"median <= {GOAL_MS:g} ms a move",
        median <= GOAL_MS,
        f"{len(live_ms)} moves in {SCENES[quick]} scenes at {MODEL_IMAGE_SIZE} px: median {median:.0f} ms, "
        f"worst {max(live_ms):.0f} ms; measuring every object again {full:.0f} ms "
        f"({full / median:.1f}x)",
    )
