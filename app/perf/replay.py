"""Perf case `replay_seek`: seeking in a recorded episode by its stored states, against
re-simulating from the start up to the step.

One 200-step manipulation episode is recorded with `ToolEnv` on a small scene
(mostly cheap `perceive_scene` calls, with a find-and-push every ten steps, so
the world really changes). Seeking restores the stored state of a random step
(`EpisodeReplay.seek`: no physics); the baseline restores the episode's first
state and runs the recorded calls up to that step again. Both are timed in the
same process on the same random steps; the value is the ratio of the medians.
"""

from __future__ import annotations

import random
import statistics
import time

import numpy as np

from app.perf.harness import PerfResult, perf_case, report
from sim.camera import project_points
from sim.tabletop.replay import EpisodeReplay
from sim.tabletop.scenes import settle, world_from_records
from sim.tabletop.toolenv import ToolEnv
from sim.tabletop.world import TOP_DOWN, TabletopWorld

ORDER = 60  # where these cases run in `reasonscope bench` (see app.perf.harness)

NAME = "replay_seek"
GOAL = ">= 50x"
STEPS = {False: 200, True: 60}
RESIM_SAMPLES = {False: 5, True: 3}
SEEK_SAMPLES = 200
CAMERA = TOP_DOWN.with_size(256, 256)


class _Question:
    task, answer, criteria = "count", 3, {}


def small_scene() -> tuple[list[dict], dict]:
    """Three boxes, settled: the records and state a project would store."""
    with TabletopWorld() as world:
        for key, half, (x, y) in (
            ("red_box", 0.025, (-0.06, 0.05)),
            ("blue_box", 0.02, (0.10, 0.12)),
            ("green_box", 0.02, (0.05, -0.12)),
        ):
            world.add_primitive(key, "box", (half, half, 0.02), (x, y, 0.645), mass=0.1, name=key)
        settle(world)
        return world.body_records(), world.capture_state()


def record_episode(records, state, n_steps: int) -> list[dict]:
    """An episode of `n_steps` steps: perceive_scene, and every ten steps find and push
    the red box, left and right in turn."""
    world = world_from_records(records, state)
    env = ToolEnv(world, _Question(), "manipulation", camera=CAMERA, max_steps=n_steps + 1)
    pushes = 0
    while len(env.steps) < n_steps:
        if len(env.steps) % 10 == 8:
            position = world.client.getBasePositionAndOrientation(world.bodies["red_box"].uid)[0]
            uv, _ = project_points(CAMERA, np.array([position]))
            env.call("find_object", {"point": [int(uv[0, 0]), int(uv[0, 1])]})
            direction = ("left", "right")[pushes % 2]
            env.call(
                "push", {"mask_id": env.steps[-1]["result"].get("mask_id"), "direction": direction}
            )
            pushes += 1
        else:
            env.call("perceive_scene")
        report(f"{NAME}: recorded {len(env.steps)} of {n_steps} steps")
    world.close()
    return env.steps[:n_steps]


def resimulate_to(records, state, steps: list[dict], index: int) -> dict:
    """The baseline: the episode's first state, then every recorded call up to `index` again."""
    world = world_from_records(records, state)
    try:
        world.restore_state(steps[0]["state"])
        env = ToolEnv(world, _Question(), "manipulation", camera=CAMERA, max_steps=len(steps) + 1)
        for step in steps[1 : index + 1]:
            env.call(step["name"], step["arguments"])
        return world.capture_state()
    finally:
        world.close()


@perf_case(NAME, goal=GOAL)
def replay_seek(quick: bool) -> PerfResult:
    """Seek to random steps of a 200-step episode by stored state vs re-simulating to them."""
    n_steps = STEPS[quick]
    report(f"{NAME}: recording a {n_steps}-step episode")
    records, state = small_scene()
    steps = record_episode(records, state, n_steps)
    rng = random.Random(0)
    world = world_from_records(records, state)
    replay = EpisodeReplay(world, steps, CAMERA, initial=state)
    seek_s = []
    try:
        for index in [rng.randrange(n_steps) for _ in range(SEEK_SAMPLES)]:
            t0 = time.perf_counter()
            replay.seek(index)
            seek_s.append(time.perf_counter() - t0)
    finally:
        world.close()
    resim_s, worst_mm = [], 0.0
    targets = [rng.randrange(n_steps // 4, n_steps) for _ in range(RESIM_SAMPLES[quick])]
    for i, index in enumerate(targets):
        report(f"{NAME}: re-simulating to step {index} ({i + 1} of {len(targets)})")
        t0 = time.perf_counter()
        again = resimulate_to(records, state, steps, index)
        resim_s.append(time.perf_counter() - t0)
        recorded = steps[index]["state"]["bodies"]
        for key in ("red_box", "blue_box", "green_box"):
            d = np.subtract(again["bodies"][key]["com_position"], recorded[key]["com_position"])
            worst_mm = max(worst_mm, 1000 * float(np.linalg.norm(d)))
    seek_ms = statistics.median(seek_s) * 1000
    resim_ms = statistics.median(resim_s) * 1000
    ratio = resim_ms / seek_ms
    return PerfResult(
        NAME,
        ratio,
        "x",
        GOAL,
        ratio >= 50,
        f"{n_steps}-step episode ({n_steps // 10} pushes); median seek by restore_state "
        f"{seek_ms:.2f} ms over {SEEK_SAMPLES} random steps, median re-simulation from the "
        f"start {resim_ms:.0f} ms over steps {sorted(targets)}; re-simulated objects within "
        f"{worst_mm:.1f} mm of the record",
    )
