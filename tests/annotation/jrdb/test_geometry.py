"""Geometric relations (JRDB-Reasoning Table 1): hand-computed sectors, bins, headings, boxes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from annotation.jrdb.geometry import (
    DISTANCE_BINS,
    ROBOT_POSE,
    SECTOR_LIMITS_DEG,
    SECTORS,
    GeometricRelation,
    Placement,
    ReferencePose,
    box_corners,
    box_gap_distance,
    centre_distance,
    describe_relation,
    distance_bin,
    heading_relative_angle,
    knn_method,
    points_in_box,
    relate,
    sector,
    vertical,
    wrap_degrees,
)
from annotation.models import Box3D

TINY = 1e-6  # far above the 1e-9 snapping, far below anything a sensor resolves


def box(cx=0.0, cy=0.0, cz=0.0, l=1.0, w=1.0, h=1.0, rot_z=0.0, entity_id=1) -> Box3D:  # noqa: E741
    return Box3D(entity_id, 1, cx, cy, cz, l, w, h, rot_z)


def at_angle(deg: float, r: float = 2.0, origin=(0.0, 0.0), z: float = 0.0) -> tuple:
    return (
        origin[0] + r * math.cos(math.radians(deg)),
        origin[1] + r * math.sin(math.radians(deg)),
        z,
    )


# --- sectors ---------------------------------------------------------------------------------

EDGE_CASES = [
    # (angle, sector): every edge, and just either side of it
    (0.0, "front"),
    (30.0, "front"),
    (30.0 + TINY, "front-left"),
    (45.0, "front-left"),
    (45.0 + TINY, "left"),
    (90.0, "left"),
    (135.0, "left"),
    (135.0 + TINY, "back-left"),
    (145.0, "back-left"),
    (145.0 + TINY, "back"),
    (180.0, "back"),
    (-180.0, "back"),
    (-145.0 - TINY, "back"),
    (-145.0, "back-right"),
    (-135.0 - TINY, "back-right"),
    (-135.0, "right"),
    (-90.0, "right"),
    (-45.0 - TINY, "right"),
    (-45.0, "front-right"),
    (-30.0 - TINY, "front-right"),
    (-30.0, "front"),
]


@pytest.mark.parametrize(("angle", "expected"), EDGE_CASES)
def test_sector_edges(angle, expected):
    assert sector(angle) == expected


def test_sector_limits_table_agrees_with_sector():
    for name, low, low_in, high, high_in in SECTOR_LIMITS_DEG:
        assert sector(low) == (name if low_in else sector(low - TINY))
        assert sector(high) == (name if high_in else sector(high + TINY))
        assert sector((low + high) / 2) == name
    assert set(SECTORS) == {row[0] for row in SECTOR_LIMITS_DEG} | {"back"}


@pytest.mark.parametrize(
    ("angle", "expected"),
    [
        (390.0, "front"),
        (-330.0, "front"),
        (540.0, "back"),
        (-400.0, "front-right"),
        (214.0, "back"),
        (215.0, "back-right"),
    ],
)
def test_sector_wraps_any_angle(angle, expected):
    assert sector(angle) == expected


def test_sector_snaps_float_noise_onto_the_edge():
    assert sector(29.999999999999996) == "front"
    assert sector(45.00000000000001) == "front-left"
    assert sector(-30.000000000000004) == "front"


def test_wrap_degrees():
    assert wrap_degrees(180.0) == 180.0
    assert wrap_degrees(-180.0) == 180.0
    assert wrap_degrees(540.0) == 180.0
    assert wrap_degrees(-190.0) == 170.0
    assert wrap_degrees(190.0) == -170.0
    assert wrap_degrees(-0.0) == 0.0 and math.copysign(1, wrap_degrees(-0.0)) == 1


# --- distance bins and up/down -------------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "expected"),
    [
        (0.0, "very-close"),
        (0.5 - TINY, "very-close"),
        (0.5, "close"),
        (1.5 - TINY, "close"),
        (1.5, "moderate"),
        (5.0 - TINY, "moderate"),
        (5.0, "far"),
        (10.0 - TINY, "far"),
        (10.0, "very-far"),
        (1e6, "very-far"),
        (0.49999999999999994, "close"),  # float noise just under an edge counts as the edge
    ],
)
def test_distance_bin_edges(d, expected):
    assert distance_bin(d) == expected


@pytest.mark.parametrize("bad", [-0.1, float("nan")])
def test_distance_bin_rejects_bad_values(bad):
    with pytest.raises(ValueError):
        distance_bin(bad)


def test_vertical_is_up_when_level_or_above():
    assert vertical(0.3) == "up"
    assert vertical(0.0) == "up"
    assert vertical(-1e-12) == "up"  # float noise: level
    assert vertical(-TINY) == "down"
    assert vertical(-2.0) == "down"


# --- headings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("xy", "angle", "expected"),
    [
        ((1.0, 0.0), 0.0, "front"),
        ((1.0, 1.0), 45.0, "front-left"),
        ((0.0, 1.0), 90.0, "left"),
        ((-1.0, 1.0), 135.0, "left"),
        ((-1.0, 0.0), 180.0, "back"),
        ((-1.0, -1.0), -135.0, "right"),
        ((0.0, -1.0), -90.0, "right"),
        ((1.0, -1.0), -45.0, "front-right"),
    ],
)
def test_robot_heading_faces_plus_x(xy, angle, expected):
    assert heading_relative_angle(xy, ROBOT_POSE) == angle
    assert sector(heading_relative_angle(xy)) == expected


def test_person_heading_turns_the_sectors():
    facing_y = ReferencePose(2.0, 3.0, 0.0, math.pi / 2)  # faces +y: its left is -x
    assert relate((2.0, 4.0, 0.0), facing_y).direction == "front"
    assert relate((1.0, 3.0, 0.0), facing_y).direction == "left"
    assert relate((3.0, 3.0, 0.0), facing_y).direction == "right"
    assert relate((2.0, 2.0, 0.0), facing_y).direction == "back"
    assert relate((1.0, 4.0, 0.0), facing_y).direction == "front-left"  # exactly 45 degrees


def test_negative_rot_z():
    facing_minus_y = ReferencePose.of_box(box(rot_z=-math.pi / 2))  # its left is +x
    assert relate((1.0, 0.0, 0.0), facing_minus_y).direction == "left"
    assert relate((-1.0, 0.0, 0.0), facing_minus_y).direction == "right"
    assert relate((0.0, -1.0, 0.0), facing_minus_y).direction == "front"
    # exact edges after the rotation: world -60 deg is +30 relative (front, inclusive),
    # world -135 is -45 relative (front-right, inclusive)
    assert heading_relative_angle(at_angle(-60.0)[:2], facing_minus_y) == 30.0
    assert relate(at_angle(-60.0), facing_minus_y).direction == "front"
    assert heading_relative_angle(at_angle(-135.0)[:2], facing_minus_y) == -45.0
    assert relate(at_angle(-135.0), facing_minus_y).direction == "front-right"
    # a yaw beyond -2 pi behaves like its wrapped value
    wound = ReferencePose(0.0, 0.0, 0.0, -math.pi / 2 - 4 * math.pi)
    assert relate((1.0, 0.0, 0.0), wound).direction == "left"


def test_rotated_edges_are_exact():
    ref = ReferencePose(1.0, -2.0, 0.0, math.radians(60.0))
    for rel, expected in [
        (45.0, "front-left"),
        (135.0, "left"),
        (145.0, "back-left"),
        (-135.0, "right"),
        (-145.0, "back-right"),
        (30.0, "front"),
    ]:
        p = relate(at_angle(60.0 + rel, origin=(1.0, -2.0)), ref)
        assert p.angle_deg == rel and p.direction == expected


def test_wrap_around_at_plus_minus_pi():
    for yaw in (math.pi, -math.pi, 3 * math.pi):
        facing_minus_x = ReferencePose(0.0, 0.0, 0.0, yaw)
        assert relate((1.0, 0.0, 0.0), facing_minus_x).angle_deg == 180.0
        assert relate((1.0, 0.0, 0.0), facing_minus_x).direction == "back"
        assert relate((-1.0, 0.0, 0.0), facing_minus_x).direction == "front"
        assert relate((1.0, 1e-3, 0.0), facing_minus_x).direction == "back"
        assert relate((0.0, 1.0, 0.0), facing_minus_x).direction == "right"
    # heading 170 deg, subject at -170 deg: 20 deg to the reference's left, across the seam
    ref = ReferencePose(yaw=math.radians(170.0))
    assert relate(at_angle(-170.0), ref).angle_deg == pytest.approx(20.0)
    assert relate(at_angle(-170.0), ref).direction == "front"
    assert relate(at_angle(-150.0), ref).direction == "front-left"
    assert relate(at_angle(-130.0), ref).direction == "left"
    ref = ReferencePose(yaw=math.radians(-170.0))
    assert relate(at_angle(170.0), ref).direction == "front"
    assert relate(at_angle(150.0), ref).direction == "front-right"


def test_subject_straight_above_counts_as_front():
    p = relate((0.0, 0.0, 2.0), ROBOT_POSE)
    assert (p.angle_deg, p.direction, p.vertical, p.distance_bin) == (
        0.0,
        "front",
        "up",
        "moderate",
    )


# --- relate ---------------------------------------------------------------------------------


def test_relate_worked_examples():
    # docs/relations.md, example 1: a person at (1, 1, -0.2) seen from the robot
    p = relate((1.0, 1.0, -0.2))
    assert (p.angle_deg, p.direction, p.vertical) == (45.0, "front-left", "down")
    assert p.distance_m == pytest.approx(math.sqrt(2.04)) and p.distance_bin == "close"
    assert p.direction16 == "down front-left"
    # example 2: person B at (3, 4, 0.1) seen from person A at (3, 1, 0) facing -x (rot_z = pi)
    a = ReferencePose.of_box(box(cx=3.0, cy=1.0, cz=0.0, rot_z=math.pi))
    p = relate((3.0, 4.0, 0.1), a)
    assert (p.angle_deg, p.direction, p.vertical) == (-90.0, "right", "up")
    assert p.distance_bin == "moderate"  # sqrt(9.01) = 3.0017
    # a given distance overrides the centre distance
    assert relate((3.0, 4.0, 0.1), a, distance_m=0.4).distance_bin == "very-close"


def test_relate_distance_edges_from_positions():
    for d, expected in [(0.5, "close"), (1.5, "moderate"), (5.0, "far"), (10.0, "very-far")]:
        assert relate(at_angle(33.0, r=d)).distance_bin == expected
        assert (
            relate(at_angle(33.0, r=d - TINY)).distance_bin
            == DISTANCE_BINS[DISTANCE_BINS.index(expected) - 1]
        )


# --- boxes -------------------------------------------------------------------------------------


def test_centre_distance():
    assert centre_distance(box(), box(cx=3.0, cy=4.0)) == 5.0
    assert centre_distance(box(cz=1.0), box(cz=-1.0)) == 2.0


def test_box_gap_distance():
    a = box()
    assert box_gap_distance(a, box(cx=2.0)) == pytest.approx(1.0)
    assert box_gap_distance(a, box(cx=0.9)) == 0.0  # overlapping
    assert box_gap_distance(a, box(cx=1.0)) == 0.0  # touching faces
    assert box_gap_distance(a, box(cx=2.0, rot_z=math.pi / 4)) == pytest.approx(
        1.5 - math.sqrt(0.5)
    )
    assert box_gap_distance(a, box(cz=3.0)) == pytest.approx(2.0)
    assert box_gap_distance(a, box(cx=2.0, cy=2.0, cz=3.0)) == pytest.approx(math.sqrt(6.0))
    # a thin bar across the diagonal: a's corner (0.5, 0.5) meets the bar's long side
    thin = box(cx=1.5, cy=1.5, l=2.0, w=0.2, rot_z=-math.pi / 4)
    assert box_gap_distance(a, thin) == pytest.approx(math.sqrt(2.0) - 0.1)
    # a bar along the diagonal: a's corner meets the bar's end face
    along = box(cx=2.0, cy=2.0, l=2.0, w=0.2, rot_z=math.pi / 4)
    assert box_gap_distance(along, a) == pytest.approx(1.5 * math.sqrt(2.0) - 1.0)
    assert box_gap_distance(thin, a) == pytest.approx(box_gap_distance(a, thin))


def test_box_corners_and_points_in_box():
    b = box(cx=1.0, cy=2.0, cz=0.5, l=2.0, w=1.0, h=1.0, rot_z=math.pi / 2)
    corners = box_corners(b)
    assert corners.shape == (8, 3)
    assert np.allclose(corners[:, 2], [0.0] * 4 + [1.0] * 4)
    # turned a quarter: the length now runs along y
    assert np.allclose(sorted(set(np.round(corners[:, 1], 9))), [1.0, 3.0])
    assert np.allclose(sorted(set(np.round(corners[:, 0], 9))), [0.5, 1.5])
    points = np.array(
        [
            [1.0, 2.0, 0.5],  # centre
            [1.0, 2.9, 0.5],  # inside along the length
            [1.9, 2.0, 0.5],  # outside: past the width
            [1.5, 3.0, 1.0],  # on a corner: inside
            [1.0, 2.0, 1.01],  # above
        ]
    )
    assert points_in_box(points, b).tolist() == [True, True, False, True, False]
    assert points_in_box(corners, b).all()
    assert points_in_box(np.empty((0, 3)), b).shape == (0,)


# --- relation rows and words -----------------------------------------------------------------


def test_relation_row_maps_onto_the_table():
    p = relate((1.0, 1.0, -0.2))
    rel = GeometricRelation.from_placement(5, 7, None, p, "box_centre")
    row = rel.as_row()
    assert list(row) == [
        "frame_id",
        "subject_entity_id",
        "reference_entity_id",
        "direction",
        "vertical",
        "distance_bin",
        "distance_m",
        "method",
    ]
    assert row["reference_entity_id"] is None and rel.to_robot
    assert GeometricRelation(**row) == rel
    assert rel.direction16 == "down front-left"
    with pytest.raises(ValueError):
        GeometricRelation(1, 2, None, "ahead", "up", "close", 1.0, "box_centre")
    with pytest.raises(ValueError):
        GeometricRelation(1, 2, None, "front", "level", "close", 1.0, "box_centre")
    with pytest.raises(ValueError):
        GeometricRelation(1, 2, None, "front", "up", "near", 1.0, "box_centre")
    assert knn_method(10) == "knn10_points" and knn_method(3, from_points=False) == "knn3_centre"


def test_describe_relation():
    rel = GeometricRelation.from_placement(5, 7, None, relate((1.0, 1.0, -0.2)), "box_centre")
    assert describe_relation(rel, "person 7") == "person 7: close, front-left of the robot"
    assert describe_relation(rel) == "entity 7: close, front-left of the robot"
    assert (
        describe_relation(rel, "person 7", show_vertical=True, show_metres=True)
        == "person 7: close (1.4 m), front-left of and below the robot"
    )
    behind = GeometricRelation(5, 3, 7, "back", "up", "very-far", 12.0, "box_centre")
    assert (
        describe_relation(behind, "person 3", "person 7") == "person 3: very far, behind person 7"
    )
    assert describe_relation(behind) == "entity 3: very far, behind entity 7"
    ahead = Placement(0.0, "front", "down", 0.2, "very-close")
    assert describe_relation(ahead, "the cup", "person 2", show_vertical=True) == (
        "the cup: very close, in front of and below person 2"
    )


def test_box_corners_come_in_a_fixed_order():
    # the bottom four counter-clockwise from front-left (+length, +width), then the top four
    # above them; a yaw turns them all about the centre
    corners = box_corners(box(cx=1.0, cy=2.0, cz=3.0, l=4.0, w=2.0, h=1.0))
    front_left, back_left, back_right, front_right = (2, 1), (-2, 1), (-2, -1), (2, -1)
    expected = [
        [1.0 + dx, 2.0 + dy, 3.0 + dz]
        for dz in (-0.5, 0.5)
        for dx, dy in (front_left, back_left, back_right, front_right)
    ]
    assert corners.tolist() == expected
    turned = box_corners(box(l=4.0, w=2.0, h=1.0, rot_z=math.pi / 2))
    assert np.allclose(turned[0], [-1.0, 2.0, -0.5])  # front-left now points along +y
    assert np.allclose(turned[3], [1.0, 2.0, -0.5])
