"""The dual-arm world's objects: real sizes, resting upright, graspable where the
2F-85 fits, bowls that nest, and a rim grasp that lifts a bowl in PyBullet."""

from __future__ import annotations

import numpy as np
import pytest

from sim.bimanual.executor import MAX_GRASP_WIDTH, BimanualExecutor
from sim.bimanual.objects import (
    BOWLS,
    add_basket,
    add_bowl,
    add_bread,
    add_mug,
    add_skillet,
)
from sim.bimanual.tasks import TASKS
from sim.bimanual.tasks.kit import tilt
from sim.bimanual.world import TABLE_TOP_Z, DualArmWorld

WIDE = ("bowl1", "bowl2", "bowl3", "mug", "skillet", "basket")


@pytest.fixture(scope="module")
def kitchen():
    with DualArmWorld() as w:
        for i, key in enumerate(BOWLS):
            add_bowl(w, key, (-0.28 + 0.17 * i, 0.17), *BOWLS[key])
        add_mug(w, "mug", (0.26, 0.17), yaw=0.4)
        add_bread(w, "bread", (-0.25, -0.1), yaw=0.3)
        add_skillet(w, "skillet", (0.0, -0.12))
        add_basket(w, "basket", (0.36, -0.12))
        w.step(120)
        yield w, w.capture_state()


def test_objects_rest_upright_on_the_table_with_grasps_the_gripper_fits(kitchen):
    w, state = kitchen
    w.restore_state(state)
    ex = BimanualExecutor(w)
    for body in w.objects():
        assert w.body_pose(body.key)[0][2] == pytest.approx(TABLE_TOP_Z, abs=0.003), body.key
        assert tilt(w, body.key) < 0.01, body.key
        grasps = ex.grasp_candidates(body.key)
        assert grasps and all(width <= MAX_GRASP_WIDTH for _, _, width, _ in grasps)
        if body.key in WIDE:  # too wide for the 2F-85 across: rims or a handle
            assert all(width < 0.03 for _, _, width, _ in grasps), body.key
    # real sizes (metres): bowl rims 16 / 13.2 / 10.4 cm, mug 8 cm + handle, skillet 20 cm
    width = {b.key: float(np.ptp(np.array(w.aabb(b.key))[:, 1])) for b in w.objects()}
    assert width["bowl1"] == pytest.approx(0.16, abs=0.005)
    assert width["bowl3"] == pytest.approx(0.104, abs=0.005)
    assert width["skillet"] == pytest.approx(0.20, abs=0.005)
    assert w.bodies["bowl1"].extra["parts"] and len(w.bodies["bowl1"].extra["parts"]) > 16


def test_compound_state_round_trip_is_exact(kitchen):
    w, state = kitchen
    w.restore_state(state)
    w.client.resetBasePositionAndOrientation(w.bodies["bowl2"].uid, (0, 0, 1.0), (0, 0, 0, 1))
    w.step(20)
    w.restore_state(state)
    assert np.allclose(w.body_pose("bowl2")[0], state["bodies"]["bowl2"]["com_position"])


def test_the_three_bowls_nest_and_the_stack_check_sees_it(kitchen):
    w, state = kitchen
    w.restore_state(state)
    ok, reason = TASKS["stack_bowls_three"].check(w)
    assert not ok and "resting in" in reason
    c = w.client
    c.resetBasePositionAndOrientation(w.bodies["bowl1"].uid, (0.0, -0.1, TABLE_TOP_Z), (0, 0, 0, 1))
    c.resetBasePositionAndOrientation(
        w.bodies["skillet"].uid, (0.3, 0.1, TABLE_TOP_Z), (0, 0, 0, 1)
    )
    for key, drop in (("bowl2", 0.03), ("bowl3", 0.06)):
        c.resetBasePositionAndOrientation(
            w.bodies[key].uid, (0.004, -0.1, TABLE_TOP_Z + drop), (0, 0, 0, 1)
        )
        w.step(120)
    ok, reason = TASKS["stack_bowls_three"].check(w)
    assert ok, reason
    z = [w.body_pose(k)[0][2] - TABLE_TOP_Z for k in BOWLS]
    assert 0 < z[1] < 0.02 and 0 < z[2] - z[1] < 0.02  # each on the floor of the one below


def test_a_bowl_is_lifted_by_its_rim(kitchen):
    w, state = kitchen
    w.restore_state(state)
    results = BimanualExecutor(w).execute(
        [
            {"action_name": "grasp_actor", "parameters": {"actor": "bowl1", "arm_tag": "left"}},
            {"action_name": "move_by_displacement", "parameters": {"arm_tag": "left", "z": 0.1}},
        ]
    )
    assert all(r.ok for r in results), [r.feedback for r in results]
    assert w.held_body("left") == "bowl1"
    assert w.body_pose("bowl1")[0][2] > TABLE_TOP_Z + 0.08
    assert tilt(w, "bowl1") < 0.25
