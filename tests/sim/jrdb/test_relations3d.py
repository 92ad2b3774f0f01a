"""Point-cloud distances (KD-tree vs brute force) and the per-frame geometric relations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from annotation.jrdb.geometry import describe_relation
from annotation.models import Box3D
from sim.jrdb import relations as relations3d
from sim.jrdb.relations import (
    KnnIndex,
    frame_relations,
    human_object_distance,
    human_object_distances,
    knn_mean_distance,
    knn_mean_distance_brute,
)


def person(entity_id, cx, cy, cz, rot_z=0.0, l=0.6, w=0.6, h=1.7) -> Box3D:  # noqa: E741
    return Box3D(entity_id, 1, cx, cy, cz, l, w, h, rot_z)


def ring(centre, radius, n=10, plane="yz") -> np.ndarray:
    """n points on a circle around `centre` in the given plane."""
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    c, s = radius * np.cos(a), radius * np.sin(a)
    zero = np.zeros(n)
    cols = {"yz": (zero, c, s), "xy": (c, s, zero)}[plane]
    return np.column_stack(cols) + np.asarray(centre, dtype=float)


# --- KD-tree vs brute force -------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_kdtree_equals_brute_force_on_random_clouds(seed):
    rng = np.random.default_rng(seed)
    source = rng.normal(size=(rng.integers(1, 400), 3)) * rng.uniform(0.1, 3)
    target = rng.normal(size=(rng.integers(1, 600), 3)) + rng.uniform(-5, 5, 3)
    for k in (1, 3, 10, 1000):  # 1000 > any target size: clipped to all points
        fast = knn_mean_distance(source, target, k)
        slow = knn_mean_distance_brute(source, target, k)
        assert abs(fast - slow) <= 1e-9


def test_brute_force_blocks_do_not_change_the_result(monkeypatch):
    rng = np.random.default_rng(7)
    source, target = rng.random((500, 3)), rng.random((300, 3)) + 1
    whole = knn_mean_distance_brute(source, target, 10)
    monkeypatch.setattr(relations3d, "BRUTE_BLOCK_ROWS", 64)
    assert abs(knn_mean_distance_brute(source, target, 10) - whole) <= 1e-12


def test_scipy_fallback_gives_the_same_numbers(monkeypatch):
    rng = np.random.default_rng(3)
    source, target = rng.random((200, 3)), rng.random((150, 3)) + [2, 0, 0]
    with_open3d = knn_mean_distance(source, target, 10)
    monkeypatch.setattr(relations3d, "_o3d", None)
    assert relations3d.kd_backend() == "scipy"
    assert abs(knn_mean_distance(source, target, 10) - with_open3d) <= 1e-9
    assert (
        abs(knn_mean_distance(source, target, 1) - knn_mean_distance_brute(source, target, 1))
        <= 1e-9
    )


def test_knn_on_constructed_sets():
    line = np.array([[1.0, 0, 0], [2.0, 0, 0], [3.0, 0, 0], [4.0, 0, 0]])
    origin = np.zeros((1, 3))
    assert knn_mean_distance(origin, line, 3) == pytest.approx(2.0)  # (1 + 2 + 3) / 3
    assert knn_mean_distance(origin, line, 1) == pytest.approx(1.0)
    assert knn_mean_distance(origin, line, 99) == pytest.approx(2.5)  # all four
    # two query points: 0 sees 1 and 2, 10 sees 4 and 3 -> (1 + 2 + 6 + 7) / 4
    two = np.array([[0.0, 0, 0], [10.0, 0, 0]])
    assert knn_mean_distance(two, line, 2) == pytest.approx(4.0)
    assert knn_mean_distance_brute(two, line, 2) == pytest.approx(4.0)
    # every point of a sphere-like ring is 2 m from its centre
    assert knn_mean_distance(origin, ring((0, 0, 0), 2.0, n=12), 10) == pytest.approx(2.0)
    # not symmetric: the line's points see the origin at 1, 2, 3, 4 -> 2.5
    assert knn_mean_distance(line, origin, 10) == pytest.approx(2.5)


def test_human_object_distance_on_known_geometry():
    # a person's points: a vertical stick 1 m tall; an object: a ring 0.4 m around a point
    # 0.3 m in front of the stick's foot, in the plane of constant x
    stick = np.array([[0.0, 0.0, z] for z in (0.0, 0.5, 1.0)])
    cup = ring((0.3, 0.0, 0.0), 0.4, n=10)
    expected = np.mean(
        [np.linalg.norm(cup - p, axis=1) for p in stick]
    )  # k=10 takes the whole ring for every stick point
    assert human_object_distance(stick, cup) == pytest.approx(expected)
    assert human_object_distance(stick[:1], cup) == pytest.approx(0.5)  # ring is 0.5 m from foot
    assert human_object_distance(stick, cup, brute=True) == pytest.approx(expected)


def test_empty_sets_and_bad_k_are_refused():
    pts = np.ones((3, 3))
    with pytest.raises(ValueError):
        knn_mean_distance(np.empty((0, 3)), pts)
    with pytest.raises(ValueError):
        knn_mean_distance_brute(pts, [])
    with pytest.raises(ValueError):
        KnnIndex(pts).distances(pts, k=0)


def test_human_object_distances_batch_matches_pairs():
    rng = np.random.default_rng(11)
    persons = {i: rng.random((rng.integers(1, 80), 3)) + [i, 0, 0] for i in (1, 2, 3)}
    objects = {o: rng.random((rng.integers(1, 50), 3)) + [0, o, 0] for o in (10, 20)}
    fast = human_object_distances(persons, objects, 5)
    slow = human_object_distances(persons, objects, 5, brute=True)
    assert set(fast) == {(o, p) for o in objects for p in persons} == set(slow)
    for (o, p), d in fast.items():
        assert abs(d - slow[(o, p)]) <= 1e-9
        assert abs(d - knn_mean_distance(persons[p], objects[o], 5)) <= 1e-12
    assert human_object_distances({}, objects) == {}


# --- per-frame relations ----------------------------------------------------------------------


def test_frame_relations_on_a_constructed_frame():
    a = person(1, 2.0, 0.0, -0.5, rot_z=math.pi)  # faces the robot
    b = person(2, 2.0, 1.0, -0.4, rot_z=0.0)  # faces away from the robot
    # the cup: a ring 0.3 m in radius, 0.4 m in front of A, level with A's centre
    cup = ring((1.6, 0.0, -0.5), 0.3, n=10)
    rels = frame_relations(
        42, [a, b], {10: cup, 11: np.empty((0, 3))}, person_points={1: np.array([[2.0, 0, -0.5]])}
    )
    # 2 to the robot + 2 ordered person pairs + 1 object x 2 persons + the object to the robot
    # (the empty object skipped)
    assert len(rels) == 7 and {r.frame_id for r in rels} == {42}
    by_key = {(r.subject_entity_id, r.reference_entity_id): r for r in rels}

    to_robot = by_key[(1, None)]
    assert (to_robot.direction, to_robot.vertical, to_robot.distance_bin) == (
        "front",
        "down",
        "moderate",
    )
    assert to_robot.distance_m == pytest.approx(math.hypot(2.0, 0.5))
    assert to_robot.method == "box_centre"
    assert by_key[(2, None)].direction == "front"  # atan2(1, 2) = 26.6 degrees

    # B seen from A (facing -x): B is at +y, which is A's right
    b_from_a = by_key[(2, 1)]
    assert (b_from_a.direction, b_from_a.vertical, b_from_a.distance_bin) == (
        "right",
        "up",
        "close",
    )
    assert b_from_a.distance_m == pytest.approx(math.sqrt(1.01))
    # A seen from B (facing +x): A is at -y, B's right, and lower
    a_from_b = by_key[(1, 2)]
    assert (a_from_b.direction, a_from_b.vertical) == ("right", "down")
    assert a_from_b.distance_m == b_from_a.distance_m

    # the cup seen from A: straight ahead, level (up), every ring point 0.5 m from A's point
    cup_a = by_key[(10, 1)]
    assert (cup_a.direction, cup_a.vertical) == ("front", "up")
    assert cup_a.distance_m == 0.5 and cup_a.distance_bin == "close"  # the edge belongs to close
    assert cup_a.method == "knn10_points"
    # B has no points and no cloud: queried from its box centre
    cup_b = by_key[(10, 2)]
    assert cup_b.method == "knn10_centre"
    assert cup_b.distance_m == pytest.approx(np.linalg.norm(cup - [2.0, 1.0, -0.4], axis=1).mean())
    assert cup_b.direction == "right"  # offset (-0.4, -1) from B facing +x: -111.8 degrees
    assert describe_relation(cup_a, "cup 10", "person 1") == "cup 10: close, in front of person 1"
    assert describe_relation(to_robot, "person 1") == "person 1: moderate, in front of the robot"


def test_frame_relations_takes_person_points_from_the_cloud():
    a = person(1, 0.0, 3.0, 0.0, rot_z=-math.pi / 2, l=0.5, w=0.5, h=1.0)  # faces -y, the robot
    inside = np.array([[0.0, 3.0, 0.4], [0.1, 3.1, -0.4], [-0.2, 2.9, 0.0]])
    outside = np.array([[5.0, 5.0, 0.0], [0.0, 3.0, 0.6]])  # the second is just above the box
    cloud = np.vstack([inside, outside])
    lamp = np.array([[1.0, 3.0, 0.0], [1.0, 3.0, 0.2]])  # on A's left (world +x), 1 m away
    rels = frame_relations(7, [a], {5: lamp}, cloud=cloud, k=2)
    pairs = [(r.subject_entity_id, r.reference_entity_id) for r in rels]
    assert pairs == [(1, None), (5, 1), (5, None)]
    robot, lamp_a, _ = rels
    assert (robot.direction, robot.vertical, robot.distance_bin) == ("left", "up", "moderate")
    assert lamp_a.method == "knn2_points" and lamp_a.direction == "left"
    assert lamp_a.vertical == "up"  # lamp centroid z 0.1 above A's centre
    assert lamp_a.distance_m == pytest.approx(knn_mean_distance_brute(inside, lamp, 2))
    # a person the cloud misses is measured from the box centre
    far = person(2, -4.0, 0.0, 0.0)
    rels = frame_relations(7, [far], {5: lamp}, cloud=cloud, k=2)
    assert rels[-2].method == "knn2_centre"
    assert rels[-2].distance_m == pytest.approx(knn_mean_distance([[-4.0, 0, 0]], lamp, 2))


def test_frame_relations_counts_and_order():
    people = [person(i, float(i), -float(i), 0.0, rot_z=-2.5 * i) for i in range(1, 5)]
    rng = np.random.default_rng(0)
    objects = {100 + j: rng.random((20, 3)) + [j, j, 0] for j in range(3)}
    rels = frame_relations(1, people, objects)
    n, m = len(people), len(objects)
    assert len(rels) == n + n * (n - 1) + m * n + m
    assert all(r.reference_entity_id is None for r in rels[:n])
    assert all(r.method == "box_centre" for r in rels[: n + n * (n - 1)])
    assert all(r.method == "knn10_centre" for r in rels[n + n * (n - 1) : -m])
    assert all(r.method == "points_centroid" and r.to_robot for r in rels[-m:])
    assert len({(r.subject_entity_id, r.reference_entity_id) for r in rels}) == len(rels)
    # objects are placed relative to the robot even with nobody in the frame
    assert frame_relations(1, [], objects) == rels[-m:]
    assert len(frame_relations(1, people)) == n + n * (n - 1)


def test_objects_relative_to_the_robot():
    """Object to robot: the object's point centroid seen from the robot (16 directions, 5
    bins), the distance from the robot point to that centroid."""
    bag = ring((0.0, -3.0, -0.8), 0.2, n=12, plane="xy")  # 3 m to the robot's right, low
    box = ring((12.0, 0.5, 0.3), 0.3, n=12)  # far ahead, above the lidar
    rels = frame_relations(3, [], {21: bag, 22: box})
    by_id = {r.subject_entity_id: r for r in rels}
    assert all(r.to_robot and r.method == "points_centroid" for r in rels)
    b = by_id[21]
    assert (b.direction, b.vertical, b.distance_bin) == ("right", "down", "moderate")
    assert b.distance_m == pytest.approx(np.linalg.norm(bag.mean(axis=0)))
    assert b.direction16 == "down right"
    f = by_id[22]
    assert (f.direction, f.vertical, f.distance_bin) == ("front", "up", "very-far")
    words = describe_relation(b, "bag 21", show_vertical=True)
    assert words == "bag 21: moderate, right of and below the robot"
