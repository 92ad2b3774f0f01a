"""The simulated Robotiq 2F-140 (resources/grippers/robotiq_2f_140/, sim.robotiq.ROBOTIQ_2F140).

Real PyBullet, tool pointing down as on the arm: the URDF has the 2F-85's names, the
pads open to the 140 mm stroke, one motor closes the coupled linkage symmetrically,
and a 12 cm box is squeezed and lifted by friction alone. The 2F-85's model is
untouched.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pybullet
import pybullet_data
import pytest
from pybullet_utils.bullet_client import BulletClient

from sim.assets import resolve_asset
from sim.robotiq import (
    GRIPPER_MIMIC,
    GRIPPERS,
    ROBOTIQ_2F85,
    ROBOTIQ_2F140,
    command_fingers,
    couple_linkage,
    gripper_joints,
    model_for_asset,
)
from sim.world import TIMESTEP

ROOT = Path(__file__).resolve().parents[2]
ASSET_DIR = ROOT / "resources" / "grippers" / "robotiq_2f_140"
DOWN = (1.0, 0.0, 0.0, 0.0)  # tool z at the table, as in the tabletop world


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def measure():
    return load_script("measure_gripper")


@pytest.fixture
def client():
    c = BulletClient(connection_mode=pybullet.DIRECT)
    c.setGravity(0, 0, -9.81)
    c.setTimeStep(TIMESTEP)
    yield c
    c.disconnect()


def revolute_names(c, uid) -> set[str]:
    return set(gripper_joints(c, uid))


def link_names(c, uid) -> set[str]:
    return {c.getJointInfo(uid, j)[12].decode() for j in range(c.getNumJoints(uid))}


def test_urdf_loads_with_the_2f85_names_frames_and_convex_meshes(client):
    path = resolve_asset(ROBOTIQ_2F140.asset)
    assert path == ASSET_DIR / "robotiq_2f_140.urdf"
    g140 = client.loadURDF(str(path), [0, 0, 1], DOWN, useFixedBase=True)
    g85 = client.loadURDF(
        str(resolve_asset(ROBOTIQ_2F85.asset)), [1, 0, 1], DOWN, useFixedBase=True
    )
    assert (
        revolute_names(client, g140)
        == revolute_names(client, g85)
        == {
            "finger_joint",
            *GRIPPER_MIMIC,
        }
    )
    assert {"left_inner_finger_pad", "right_inner_finger_pad"} <= link_names(client, g140)
    assert link_names(client, g140) == link_names(client, g85)
    # every collision shape is one mesh (loaded from the relative path) or one box
    for link in range(-1, client.getNumJoints(g140)):
        shapes = client.getCollisionShapeData(g140, link)
        assert len(shapes) <= 1
        for shape in shapes:
            assert shape[2] in (pybullet.GEOM_MESH, pybullet.GEOM_BOX)
            if shape[2] == pybullet.GEOM_MESH:
                assert Path(shape[4].decode()).is_file()
    assert model_for_asset(ROBOTIQ_2F140.asset) is ROBOTIQ_2F140
    assert GRIPPERS["2f140"] is ROBOTIQ_2F140 and GRIPPERS["2f85"] is ROBOTIQ_2F85


def test_the_script_regenerates_the_committed_files(tmp_path):
    make = load_script("make_gripper_2f140")
    written = make.generate(tmp_path)
    assert written
    for path in written:
        rel = path.relative_to(tmp_path)
        assert path.read_bytes() == (ASSET_DIR / rel).read_bytes(), rel


def test_the_open_pads_are_the_140_mm_stroke_and_match_the_table(measure):
    rig = measure.Rig(ROBOTIQ_2F140)
    try:
        assert rig.pad_gap() == pytest.approx(0.140, abs=0.003)
        assert rig.pad_gap() == pytest.approx(ROBOTIQ_2F140.pad_gap[0], abs=0.001)
        assert rig.pad_depth() == pytest.approx(ROBOTIQ_2F140.pad_depth[0], abs=0.001)
        assert ROBOTIQ_2F140.max_grasp_width == pytest.approx(0.134)
    finally:
        rig.close()


def test_one_motor_closes_the_linkage_symmetrically(measure):
    model = ROBOTIQ_2F140
    rig = measure.Rig(model)
    try:
        lefts, rights = [], []
        for angle, gap, depth in zip(
            model.finger_angle, model.pad_gap, model.pad_depth, strict=True
        ):
            reached = rig.drive(angle, steps=120)
            assert reached == pytest.approx(angle, abs=0.01)
            assert rig.coupling_error() < 0.005  # the followers keep up with finger_joint
            left, right = rig.pad_faces()
            lefts.append(left)
            rights.append(-right)
            assert left == pytest.approx(-right, abs=0.001)  # both pads, mirror images
            assert rig.pad_gap() == pytest.approx(gap, abs=0.002)
            assert rig.pad_depth() == pytest.approx(depth, abs=0.002)
        assert np.all(np.diff(lefts) < -0.005) and np.all(np.diff(rights) < -0.005)
        assert lefts[-1] + rights[-1] < 0.003  # the pads meet at closed_angle
    finally:
        rig.close()


def test_the_2f85_reproduces_its_table(measure):
    rig = measure.Rig(ROBOTIQ_2F85)
    try:
        for angle, gap, depth in zip(
            ROBOTIQ_2F85.finger_angle, ROBOTIQ_2F85.pad_gap, ROBOTIQ_2F85.pad_depth, strict=True
        ):
            rig.drive(angle, steps=120)
            assert rig.pad_gap() == pytest.approx(gap, abs=0.002)
            assert rig.pad_depth() == pytest.approx(depth, abs=0.002)
    finally:
        rig.close()


def test_squeezes_a_12_cm_box_and_lifts_it_by_friction(client):
    model = ROBOTIQ_2F140
    client.setAdditionalSearchPath(pybullet_data.getDataPath())
    client.loadURDF("plane.urdf")
    size = (0.12, 0.05, 0.055)  # along the closing line (world x), across, tall
    box = client.createMultiBody(
        0.2,
        client.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[s / 2 for s in size]),
        basePosition=[0, 0, size[2] / 2],
    )
    # the pads' lowest point 2 cm above the floor once they hold 12 cm
    flange = [0.0, 0.0, 0.02 + np.interp(0.12, model.pad_gap[::-1], model.pad_depth[::-1])]
    grip = client.loadURDF(str(resolve_asset(model.asset)), flange, DOWN)
    hold = client.createConstraint(
        grip,
        -1,
        -1,
        -1,
        pybullet.JOINT_FIXED,
        [0, 0, 0],
        [0, 0, 0],
        flange,
        childFrameOrientation=DOWN,
    )
    client.changeConstraint(hold, maxForce=2000)
    joints = gripper_joints(client, grip)
    couple_linkage(client, grip, joints, model)
    command_fingers(client, grip, joints, model.open_angle, model=model)
    for _ in range(60):
        client.stepSimulation()
    assert not client.getContactPoints(grip, box)  # open, the pads clear the box

    command_fingers(client, grip, joints, model.closed_angle, model=model)
    for _ in range(180):
        client.stepSimulation()
    angle = client.getJointState(grip, joints["finger_joint"])[0]
    assert angle == pytest.approx(model.angle_for_gap(0.12), abs=0.01)  # stopped on the box
    for name, factor in model.mimic.items():  # the gears hold the linkage under the squeeze
        assert client.getJointState(grip, joints[name])[0] == pytest.approx(
            factor * angle, abs=0.01
        )
    sides = set()
    for p in client.getContactPoints(grip, box):
        name = client.getJointInfo(grip, p[3])[12].decode()
        assert "inner_finger" in name  # only the fingertips touch it
        sides.add(name.split("_")[0])
    assert sides == {"left", "right"}

    start = np.array(client.getBasePositionAndOrientation(box)[0])
    for i in range(1, 241):  # 10 cm up in one second
        client.changeConstraint(
            hold,
            [flange[0], flange[1], flange[2] + 0.10 * i / 240],
            jointChildFrameOrientation=DOWN,
            maxForce=2000,
        )
        client.stepSimulation()
    for _ in range(60):
        client.stepSimulation()
    end = np.array(client.getBasePositionAndOrientation(box)[0])
    assert end[2] - start[2] == pytest.approx(0.10, abs=0.01)  # it came up with the gripper
    assert abs(end[0] - start[0]) < 0.01 and abs(end[1] - start[1]) < 0.01
    assert not client.getContactPoints(box, 0)  # off the floor (plane.urdf is body 0)


def test_the_2f85_model_is_unchanged():
    m = ROBOTIQ_2F85
    assert m.asset == "airo_models:grippers/robotiq_2f_85/urdf/robotiq_2f_85.urdf"
    assert (
        m.mimic
        == GRIPPER_MIMIC
        == {
            "left_inner_knuckle_joint": 1.0,
            "left_inner_finger_joint": -1.0,
            "right_outer_knuckle_joint": 1.0,
            "right_inner_knuckle_joint": 1.0,
            "right_inner_finger_joint": -1.0,
        }
    )
    assert (m.open_angle, m.closed_angle, m.stroke_m) == (0.0, 0.8, 0.085)
    assert (m.force, m.max_velocity) == (40.0, 1.5)
    assert m.finger_angle == (0.0, 0.2, 0.4, 0.6, 0.8)
    assert m.pad_gap == (0.086, 0.067, 0.047, 0.024, 0.002)
    assert m.pad_depth == (0.149, 0.156, 0.160, 0.163, 0.163)
    assert (m.fingertip_offset, m.pad_width, m.pad_thickness) == (0.15, 0.022, 0.010)
    assert (m.max_depth_flat, m.max_depth_round) == (0.045, 0.055)


def test_the_2f140_tables_run_open_to_closed():
    m = ROBOTIQ_2F140
    assert 5 <= len(m.finger_angle) == len(m.pad_gap) == len(m.pad_depth) <= 7
    assert m.finger_angle[0] == m.open_angle and m.finger_angle[-1] == m.closed_angle
    assert np.all(np.diff(m.finger_angle) > 0) and np.all(np.diff(m.pad_gap) < 0)
    assert m.pad_gap[-1] < 0.003
    assert m.angle_for_gap(0.12) == pytest.approx(0.125, abs=0.01)
