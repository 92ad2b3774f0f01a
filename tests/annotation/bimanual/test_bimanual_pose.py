"""Poses and 16-dim rows at the import boundary: known rotations, orders, round trips,
normalisation notes, and refusals."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.bimanual.pose import (
    DualArmCommand,
    PoseError,
    plan_to_internal,
    pose_from_wire,
    pose_to_wire,
    quat_to_matrix,
    rotate,
    row16_from_wire,
)

S = math.sqrt(0.5)
# the paper's 16-dim listing: left grasp pose for block1, right arm parked at its origin
ROW = [
    -0.20,
    -0.07,
    0.98,
    0.64743,
    -0.2843,
    0.64743,
    0.2843,
    1.0,
    0.3505,
    -0.2523,
    1.08,
    0.70711,
    -0.00001,
    0.00001,
    0.70711,
    1.0,
]


def close(a, b, tol=1e-9):
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def test_wxyz_0100_is_a_half_turn_about_x():
    xyz, q = pose_from_wire([0.1, 0.2, 0.9, 0, 1, 0, 0])
    assert xyz == (0.1, 0.2, 0.9) and q == (1.0, 0.0, 0.0, 0.0)
    assert close(rotate(q, (0, 1, 0)), (0, -1, 0))
    assert close(rotate(q, (0, 0, 1)), (0, 0, -1))
    assert close(rotate(q, (1, 0, 0)), (1, 0, 0))


def test_quarter_turn_about_z_and_the_other_order():
    _, q = pose_from_wire([0, 0, 0, S, 0, 0, S])  # wxyz: 90 degrees about z
    assert close(q, (0, 0, S, S)) and close(rotate(q, (1, 0, 0)), (0, 1, 0))
    _, same = pose_from_wire([0, 0, 0, 0, 0, S, S], order="xyz_xyzw")
    assert close(same, q)
    assert pose_from_wire([1, 2, 3]) == ((1.0, 2.0, 3.0), None)


def test_matrix_agrees_with_pybullet():
    pybullet = pytest.importorskip("pybullet")
    for wire in ([0, 1, 0, 0], [S, 0, 0, S], [0.64743, -0.2843, 0.64743, 0.2843]):
        _, q = pose_from_wire([0, 0, 0, *wire])
        ours = [v for row in quat_to_matrix(q) for v in row]
        assert close(ours, pybullet.getMatrixFromQuaternion(q), 1e-4)


def test_row16_converts_both_arms_and_round_trips():
    notes: list[str] = []
    command = row16_from_wire(ROW, notes=notes)
    assert notes == []
    assert command.left_xyz == (-0.2, -0.07, 0.98)
    assert command.left_quat_xyzw == (-0.2843, 0.64743, 0.2843, 0.64743)
    assert (command.left_grip, command.right_grip) == (1.0, 1.0)
    assert command.right_quat_xyzw == (-0.00001, 0.00001, 0.70711, 0.70711)
    assert command.to_wire() == ROW
    xyzw = command.to_wire("xyz_xyzw")
    assert xyzw[3:7] == [-0.2843, 0.64743, 0.2843, 0.64743]
    assert row16_from_wire(xyzw, order="xyz_xyzw") == command
    assert command.as_dict()["right"] == {
        "position": [0.3505, -0.2523, 1.08],
        "orientation": [-0.00001, 0.00001, 0.70711, 0.70711],
        "grip": 1.0,
    }


unit = (
    st.lists(st.floats(-1, 1), min_size=4, max_size=4)
    .filter(lambda q: sum(v * v for v in q) > 0.01)
    .map(lambda q: [v / math.sqrt(sum(x * x for x in q)) for v in q])
)
coord = st.floats(-2, 2)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(coord, min_size=3, max_size=3),
    unit,
    st.floats(0, 1),
    st.lists(coord, min_size=3, max_size=3),
    unit,
    st.floats(0, 1),
    st.sampled_from(["xyz_wxyz", "xyz_xyzw"]),
)
def test_any_row_round_trips(lp, lq, lg, rp, rq, rg, order):
    row = [*lp, *lq, lg, *rp, *rq, rg]
    assert close(row16_from_wire(row, order=order).to_wire(order), row, 1e-12)
    xyz, q = pose_from_wire([*lp, *lq], order)
    assert close(pose_to_wire(xyz, q, order), [*lp, *lq], 1e-12)


def test_non_unit_quaternions_are_normalised_and_noted():
    notes: list[str] = []
    _, q = pose_from_wire([0, 0, 0, 2, 0, 0, 0], notes=notes)
    assert q == (0.0, 0.0, 0.0, 1.0)
    assert notes == ["pose quaternion had norm 2; normalised"]
    notes.clear()
    pose_from_wire([0, 0, 0, 0.70711, -0.00001, 0.00001, 0.70711], notes=notes)
    assert notes == []  # within the tolerance: kept exactly as written
    bad = ROW[:8] + [0.3, -0.25, 1.08, 1, 1, 1, 1, 1.5]
    row16_from_wire(bad, notes=notes)
    assert notes == ["right quaternion had norm 2; normalised", "right grip 1.5 is outside [0, 1]"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pose_from_wire([0, 0, 0, 0, 0, 0, 0]), "pose quaternion is zero"),
        (lambda: pose_from_wire([0, 0, 0, 1]), "needs 3 or 7 numbers, not 4"),
        (lambda: pose_from_wire("0 0 0"), "must be a list of numbers"),
        (lambda: pose_from_wire([0, 0, "z"]), "holds 'z'"),
        (lambda: pose_from_wire([0, 0, float("nan")]), "not a finite number"),
        (lambda: row16_from_wire(ROW[:15]), "needs 16 numbers, not 15"),
        (lambda: pose_from_wire([0, 0, 0], order="wxyz"), "is not one of xyz_wxyz, xyz_xyzw"),
    ],
)
def test_refusals_say_why(call, message):
    with pytest.raises(PoseError, match=message.replace("[", r"\[")):
        call()


def test_plan_items_gain_poses_in_pybullet_order():
    notes: list[str] = []
    place = {
        "action_id": "2.3",
        "action_name": "place_actor",
        "parameters": {"actor": "block", "arm_tag": "left", "target_pose": [0, 0, 0.9, 0, 1, 0, 0]},
    }
    move = {
        "action_id": "2.4",
        "action_name": "move_by_displacement",
        "parameters": {"arm_tag": "left", "z": 0.1, "quat": [0, 0, 0, 0]},
    }
    converted = plan_to_internal([place, move, ROW, ROW[:15]], notes=notes)
    assert converted[0]["poses"] == {
        "target_pose": {"position": [0.0, 0.0, 0.9], "orientation": [1.0, 0.0, 0.0, 0.0]}
    }
    assert converted[0]["parameters"] == place["parameters"]  # what the model said, unchanged
    assert "poses" not in converted[1]
    assert converted[2]["left"]["orientation"] == [-0.2843, 0.64743, 0.2843, 0.64743]
    assert converted[3] == {"row": ROW[:15]}
    assert notes == [
        "executable_plan[1]: quat is zero",
        "executable_plan[3]: a dual-arm row needs 16 numbers, not 15",
    ]
    assert isinstance(row16_from_wire(ROW), DualArmCommand)
