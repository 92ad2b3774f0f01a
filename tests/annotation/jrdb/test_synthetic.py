"""Synthetic JRDB-like content: seeded, the sizes asked for, every relation a real frame gets."""

from __future__ import annotations

import numpy as np

from annotation.jrdb.graph import graph_from_jrdb
from annotation.jrdb.synthetic import METHOD, crowded_frame, lidar_like, synthetic_frames


def test_synthetic_frames_repeat_for_a_seed_and_people_move():
    frames = synthetic_frames(4, 2, 3)
    assert frames == synthetic_frames(4, 2, 3)
    assert frames != synthetic_frames(4, 2, 3, seed=8)
    assert len(frames) == 3 and frames[0] != frames[1]
    g = frames[0]
    assert len(g.entities) == 4 + 2 + 1  # people, objects, the robot
    # seen from the robot, from each other person, objects from each person; one HOI
    assert len(g.relations) == 4 + 4 * 3 + 4 * 2 + 2 + 1


def test_crowded_frame_has_every_geometric_relation():
    facts = crowded_frame(5, objects=3)
    assert facts == crowded_frame(5, objects=3)
    assert len(facts.persons) == 5 and len(facts.objects) == 3
    assert len(facts.geometry) == 5 + 5 * 4 + 5 * 3 + 3  # objects from the robot too
    assert {g.method for g in facts.geometry} == {METHOD}
    graph = graph_from_jrdb([facts])
    assert len(graph.entities) == 5 + 3 + 1
    # JRDB-Social: everyone's race, an interaction of pedestrian 1 with 2 (both ways)
    assert all("race" in p.attributes for p in graph.of_kind("human"))
    assert [(r.subject, r.object) for r in graph.relations if r.kind == "hhi"] == [
        ("pedestrian:1", "pedestrian:2"),
        ("pedestrian:2", "pedestrian:1"),
    ]


def test_lidar_like_is_a_street_around_the_sensor():
    points = lidar_like(10_000, seed=1)
    assert points.shape == (10_000, 3) and points.dtype == np.float32
    np.testing.assert_array_equal(points, lidar_like(10_000, seed=1))
    floor = np.abs(points[:, 2] + 1.0) < 0.1
    assert floor.mean() > 0.6  # the floor, and the feet of walls and people
    assert np.hypot(points[:, 0], points[:, 1]).max() <= 25
