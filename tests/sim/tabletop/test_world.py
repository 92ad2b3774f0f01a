"""The tabletop world: layout, determinism, exact state round trips, export and rebuild."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sim.camera import CameraSpec
from sim.render import render
from sim.tabletop.scenes import generate_scene, problems, scene_record, world_from_records
from sim.tabletop.world import BASKET_CENTRE, HOME_JOINTS, TABLE_TOP_Z, TOP_DOWN, TabletopWorld

SMALL = TOP_DOWN.with_size(256, 256)


def poses(world: TabletopWorld) -> np.ndarray:
    return np.array(
        [
            [
                *world.client.getBasePositionAndOrientation(b.uid)[0],
                *world.client.getBasePositionAndOrientation(b.uid)[1],
            ]
            for b in world.objects()
        ]
    )


@pytest.fixture(scope="module")
def scene():
    s = generate_scene(7, objects=(6, 8))
    yield s
    s.world.close()


def test_world_layout_robot_gripper_basket_and_a_clear_workspace():
    with TabletopWorld() as world:
        assert {"table", "floor", "robot_arm", "robot_gripper", "basket_floor"} <= set(world.bodies)
        assert set(world.gripper_joints) >= {"finger_joint", "right_outer_knuckle_joint"}
        # the gripper hangs at the arm's tool flange
        tool = world.client.getLinkState(world.robot_uid, world.tool_link)[4]
        grip = world.link_frame_pose("robot_gripper")[0]
        assert np.allclose(tool, grip, atol=1e-3)
        # home pose: nothing of the robot in the top-down view
        seg = render(world, SMALL).segmentation
        robot = {world.bodies["robot_arm"].uid, world.bodies["robot_gripper"].uid}
        assert not np.isin(seg, list(robot)).any()
        # the basket is within the UR5e's reach (0.85 m) from its base
        base = np.array(world.link_frame_pose("robot_arm")[0][:2])
        assert np.linalg.norm(np.array(BASKET_CENTRE) - base) < 0.85


def test_same_seed_same_scene_to_a_micrometre():
    a = generate_scene(11, objects=(5, 7), with_robot=False)
    b = generate_scene(11, objects=(5, 7), with_robot=False)
    try:
        assert [s.entry.name for s in a.spawned] == [s.entry.name for s in b.spawned]
        assert np.abs(poses(a.world) - poses(b.world)).max() < 1e-6
        c = generate_scene(12, objects=(5, 7), with_robot=False)
        assert (
            poses(c.world).shape != poses(a.world).shape
            or np.abs(poses(c.world) - poses(a.world)).max() > 1e-3
        )
        c.world.close()
    finally:
        a.world.close()
        b.world.close()


def test_generated_scene_is_settled_on_the_table_and_in_view(scene):
    assert scene.settle.at_rest
    assert 6 <= len(scene.world.objects()) <= 8
    assert problems(scene.world) == []
    for body in scene.world.objects():
        centre_of_mass = scene.world.client.getBasePositionAndOrientation(body.uid)[0]
        assert centre_of_mass[2] > TABLE_TOP_Z


def test_moving_an_object_off_the_table_is_flagged(scene):
    world = scene.world
    state = world.capture_state()
    key = world.objects()[0].key
    world.client.resetBasePositionAndOrientation(
        world.bodies[key].uid, (2.0, 2.0, 0.1), (0, 0, 0, 1)
    )
    assert any(key in p for p in problems(world))
    world.restore_state(state)
    assert problems(world) == []


def test_state_round_trip_reproduces_the_image_exactly(scene):
    world = scene.world
    state = json.loads(json.dumps(world.capture_state()))  # through JSON, as stored
    before = render(world, SMALL)
    world.set_gripper(0.5)
    world.client.resetJointState(world.robot_uid, world.arm_joints["shoulder_pan_joint"], 0.3)
    world.step(240)  # let things move
    world.restore_state(state)
    after = render(world, SMALL)
    assert np.array_equal(before.rgb, after.rgb)
    assert np.array_equal(before.segmentation, after.segmentation)
    # the open gripper and the home pose hold while the scene settles
    assert state["bodies"]["robot_gripper"]["joints"]["finger_joint"] == pytest.approx(
        0.0, abs=0.01
    )
    home = state["bodies"]["robot_arm"]["joints"]
    assert home["shoulder_pan_joint"] == pytest.approx(HOME_JOINTS["shoulder_pan_joint"], abs=0.01)


def test_stored_scene_rebuilds_to_the_same_view(scene):
    record = json.loads(json.dumps(scene_record(scene)))
    rebuilt = world_from_records(record["bodies"], record["state"])
    try:
        camera = CameraSpec.from_dict(record["camera"]).with_size(256, 256)
        assert np.array_equal(render(scene.world, camera).rgb, render(rebuilt, camera).rgb)
    finally:
        rebuilt.close()


def test_export_record_lists_every_body_with_link_frame_poses(scene):
    record = scene_record(scene)
    ids = {b["id"] for b in record["bodies"]}
    assert ids == set(scene.world.bodies)
    roles = {b["role"] for b in record["bodies"]}
    assert roles == {"fixture", "robot", "object"}
    table = next(b for b in record["bodies"] if b["id"] == "table")
    assert table["texture"] == scene.texture
    for b in record["bodies"]:
        assert len(b["position"]) == 3 and len(b["orientation"]) == 4
        assert b["asset"].split(":")[0] in {
            "primitive",
            "pybullet_data",
            "airo_models",
            "resources",
        }
