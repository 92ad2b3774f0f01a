"""Scenes laid out by hand for the MG-VQA question rules (tests/sim/tabletop/
test_question_rules.py, test_beneath_question_rules.py): catalog objects set down still
(no physics, a few milliseconds a render at 64 x 64), as generation leaves a scene, and
a question asked about one on an attempt's clock already running."""

from __future__ import annotations

import time

from sim.tabletop.catalog import catalog_by_name, load_catalog
from sim.tabletop.questions import Rejection, Timing
from sim.tabletop.scenes import GeneratedScene, SettleReport, SpawnSpec, spawn
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

CAM = TOP_DOWN.with_size(64, 64)  # the least size at which the hand-laid criteria hold
X, Y = WORKSPACE_CENTRE[0], WORKSPACE_CENTRE[1]
CATALOG = load_catalog()
BY_NAME = catalog_by_name(CATALOG)


def laid(objects, *, seed: int = 7, with_robot: bool = False) -> GeneratedScene:
    """A scene as generation leaves it (undressed), its objects laid by hand and still:
    (catalog name, x, y off the workspace centre, height of what it lies on, yaw, scale)."""
    world = TabletopWorld(with_robot=False)
    spawned = []
    for i, (name, x, y, under, yaw, scale) in enumerate(objects):
        entry = BY_NAME[name]
        z = TABLE_TOP_Z + under + entry.extent(scale)[2] / 2
        spec = SpawnSpec(entry, scale, (X + x, Y + y, z), yaw, f"obj_{i:02d}")
        spawn(world, spec)
        spawned.append(spec)
    scene = GeneratedScene(seed, 0, world, SettleReport(0, 0.0, True), None, spawned)
    scene.attempt_steps = [0]
    scene.with_robot, scene.dressed = with_robot, False
    return scene


# Two red cubes, one under a plate with two of its 25 pixels in view (0.08), one in the open.
COUNT_SCENE = [
    ("red cube", 0.0, 0.0, 0.0, 0.0, 1.0),
    ("red cube", 0.15, 0.05, 0.0, 0.0, 1.0),
    ("white plate", -0.058, 0.0, 0.05, 0.0, 1.0),
    ("green book", -0.12, -0.12, 0.0, 0.3, 1.0),
]


START = 5.0  # seconds an attempt's clock shows when its question is asked


def asked(scene, ask, grows=("visibility_s",)):
    """(result, timing) of `ask(timing)` about `scene`: the time it took is added to the
    attempt's clock, to the parts that `grow` (rendering to visibility_s, dressing and
    settling to scene_s, settling to settle_s) and no other; a rejection closes the
    scene's world."""
    timing = Timing(scene_s=START, visibility_s=START, settle_s=START)
    t0 = time.perf_counter()
    result = ask(timing)
    took = time.perf_counter() - t0
    for name in ("visibility_s", "scene_s", "settle_s"):
        spent = getattr(timing, name)
        assert (START < spent <= START + took) if name in grows else spent == START, name
    if isinstance(result, Rejection):
        assert result.timing is timing and not scene.world.client.isConnected()
    else:
        assert scene.world.client.isConnected()
    return result, timing
