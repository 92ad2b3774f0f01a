"""Perf cases of Replay. `replay_seek`: seeking in a recorded episode by its stored states, against
re-simulating from the start up to the step.

One 200-step manipulation episode is recorded with `ToolEnv` on a small scene
(mostly cheap `perceive_scene` calls, with a find-and-push every ten steps, so
the world really changes). Seeking restores the stored state of a random step
(`EpisodeReplay.seek`: no physics); the baseline restores the episode's first
state and runs the recorded calls up to that step again. Both are timed in the
same process on the same random steps; the value is the ratio of the medians.

`episode_rerun_export`: one full-length MG-VQA episode written as a Rerun recording (what
Replay ▸ Export to Rerun writes), against the reasonscope-episode/1 export of the same
episode. The episode is recorded with `ToolEnv` on a generated cluttered scene at the
agent's real image size (`MODEL_IMAGE_SIZE`): the full 30 tool calls (look, find an
object, grasp it, in turn), then the answer. Both exports read the same project in the
same process, one after the other; the value is the ratio of their times. The Rerun
export renders the agent's image from the state wherever the state changed (the project
stores states, not pixels) and logs every body's pose at every step; the JSON export
copies stored rows, so the ratio says what the pictures and the poses cost.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from pathlib import Path

import numpy as np

from app.io.episodes import export_episodes
from app.perf.harness import PerfResult, perf_case, report, scratch_folder
from sim.camera import project_points
from sim.tabletop.replay import EpisodeReplay
from sim.tabletop.scenes import settle, world_from_records
from sim.tabletop.toolenv import ToolEnv
from sim.tabletop.world import TOP_DOWN, TabletopWorld
from store import open_project

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


# -- a full-length episode as a Rerun recording -------------------------------------------
RERUN_NAME = "episode_rerun_export"
# Set from the first measurements here (266x full, 294x quick, 2 cores): the JSON export
# copies stored rows, the .rrd renders every state that changed at 1024 px with PyBullet's
# TinyRenderer (about 1 s each). Rendering every step again instead was 1,400x.
RERUN_GOAL = "<= 400x the JSON export"
RERUN_GOAL_RATIO = 400.0
RERUN_TOOL_CALLS = {False: 30, True: 8}  # MG-VQA's step limit (sim.tabletop.toolenv.MAX_STEPS)
RERUN_REPEATS = {False: 2, True: 1}


def record_project(db: Path, tool_calls: int) -> str:
    """A project with one generated scene and one episode of `tool_calls` calls on it at
    the real image size; the episode's uid."""
    from app.jobs.scenes import generate_and_store
    from sim.camera import project_points
    from sim.tabletop.scenes import world_from_records
    from sim.tabletop.toolenv import ToolEnv
    from sim.tabletop.world import TOP_DOWN

    open_project(db, create=True).close()
    (scene_id,) = generate_and_store(db, n=1, seed=3, objects=(10, 12))
    with open_project(db) as project:
        scene = project.scenes.get(scene_id)
        world = world_from_records([b.as_record() for b in scene.bodies], scene.state)
        env = ToolEnv(world, _Question(), "manipulation", camera=TOP_DOWN, max_steps=tool_calls + 1)
        objects = [b.key for b in world.objects()]
        while env.tool_calls < tool_calls:
            report(f"{RERUN_NAME}: recording call {env.tool_calls + 1} of {tool_calls}")
            turn = env.tool_calls % 3
            if turn == 0:
                env.call("perceive_scene")
                continue
            key = objects[(env.tool_calls // 3) % len(objects)]
            if turn == 1:
                position = world.client.getBasePositionAndOrientation(world.bodies[key].uid)[0]
                uv, _ = project_points(TOP_DOWN, np.array([position]))
                env.call("find_object", {"point": [int(uv[0, 0]), int(uv[0, 1])]})
            else:
                mask_id = (env.steps[-1].get("result") or {}).get("mask_id")
                env.call("grasp", {"mask_id": mask_id})
        env.call("answer_question", {"answer": "3"})
        world.close()
        header = {
            "benchmark": "mgvqa",
            "model": "bench",
            "agent": "scripted",
            "mode": "manipulation",
            "task": "count",
            "scene_id": scene_id,
            "outcome": env.outcome,
            "success": env.correct,
            "camera": {"width": TOP_DOWN.width, "height": TOP_DOWN.height},
        }
        return project.episodes.add(header, env.steps).uid


def _best_seconds(fn, repeats: int) -> float:
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


@perf_case(RERUN_NAME, goal=RERUN_GOAL)
def episode_rerun_export(quick: bool) -> PerfResult:
    """A full-length episode to .rrd vs to reasonscope-episode/1 JSON, at the real image size."""
    from app.io.rerun.export import RerunMissing, export_rerun, rerun_module

    try:
        rerun_module()
    except RerunMissing as exc:
        hint = str(exc).split(": ", 1)[-1]
        return PerfResult(
            RERUN_NAME, math.nan, "", RERUN_GOAL, True, f"skipped: {hint}", skipped=True
        )
    calls, repeats = RERUN_TOOL_CALLS[quick], RERUN_REPEATS[quick]
    with scratch_folder() as folder:
        db = folder / "episode.reasonscope"
        uid = record_project(db, calls)
        with open_project(db) as project:
            steps = project.episodes.get(project.episodes.ids()[0]).step_count
        report(f"{RERUN_NAME}: exporting {steps} steps as JSON Lines")
        jsonl, rrd = folder / "episode.jsonl", folder / "episode.rrd"
        json_s = _best_seconds(lambda: export_episodes(db, jsonl), repeats)
        report(f"{RERUN_NAME}: exporting {steps} steps as a Rerun recording")
        rrd_s = _best_seconds(lambda: export_rerun(db, rrd, [uid]), repeats)
        sizes = jsonl.stat().st_size / 1e6, rrd.stat().st_size / 1e6
    ratio = rrd_s / json_s
    from sim.tabletop.world import MODEL_IMAGE_SIZE

    return PerfResult(
        RERUN_NAME,
        ratio,
        "x",
        RERUN_GOAL,
        ratio <= RERUN_GOAL_RATIO,
        f"{steps} steps at {MODEL_IMAGE_SIZE} px: .rrd {rrd_s:.2f} s ({rrd_s / steps * 1000:.0f} ms "
        f"a step, {sizes[1]:.1f} MB) vs JSON Lines {json_s:.3f} s ({sizes[0]:.1f} MB); best of "
        f"{repeats}",
    )
