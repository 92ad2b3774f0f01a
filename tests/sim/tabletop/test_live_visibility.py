"""Live visibility while an author drags objects: after each move the windowed update
equals a full measure of every object."""

from __future__ import annotations

import pytest

from sim.render import visibility
from sim.tabletop.authoring.live import LiveVisibility
from sim.tabletop.scenes import generate_scene
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN


@pytest.fixture(scope="module")
def scene():
    made = generate_scene(5, objects=(6, 7), piles=True)
    yield made
    made.world.close()


def test_windowed_updates_equal_a_full_measure(scene):
    world, camera = scene.world, TOP_DOWN.with_size(384, 384)
    live = LiveVisibility(world, camera)
    keys = [b.key for b in world.objects()]
    client = world.client
    for step, key in enumerate(keys * 2):
        uid = world.bodies[key].uid
        (x, y, z), orientation = client.getBasePositionAndOrientation(uid)
        dx = 0.03 if step % 2 else -0.025
        turned = client.getQuaternionFromEuler((0, 0, 0.3 * step))
        client.resetBasePositionAndOrientation(
            uid,
            (x + dx, y + 0.01, max(z, TABLE_TOP_Z + 0.05)),
            turned if step % 3 == 0 else orientation,
        )
        got = live.moved(key)
        full = {k: v.fraction for k, v in visibility(world, camera, keys).items()}
        assert got.keys() == full.keys()
        for k in keys:
            assert got[k] == pytest.approx(min(1.0, full[k]), abs=0.01), (step, key, k)
    # dragging one object onto another hides part of it, and the fraction says so
    a, b = keys[0], keys[1]
    pa = client.getBasePositionAndOrientation(world.bodies[a].uid)[0]
    before = live.fractions()[a]
    client.resetBasePositionAndOrientation(
        world.bodies[b].uid, (pa[0], pa[1], pa[2] + 0.15), (0, 0, 0, 1)
    )
    assert live.moved(b)[a] < before
