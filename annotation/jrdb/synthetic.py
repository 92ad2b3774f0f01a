"""Synthetic JRDB-like content built in memory, seeded so that it repeats exactly.

Crowds of people around the robot as `FrameFacts` or scene graphs (with every
geometric relation a real frame gets: each person and object seen from the
robot, every person seen from every other person, every object seen from every
person; and in a crowded frame JRDB-Social race labels and interactions), and a street-level lidar cloud. The tests and the perf cases of
`reasonscope bench` share them; nothing here reads or writes files (a synthetic
JRDB folder on disk is `app.demo.jrdb_synth`).
"""

from __future__ import annotations

import math

import numpy as np

from annotation.jrdb.geometry import GeometricRelation, ReferencePose, relate
from annotation.jrdb.graph import (
    FrameFacts,
    HoiFacts,
    InteractionFacts,
    ObjectFacts,
    PersonFacts,
    graph_from_jrdb,
)
from annotation.scene_graph import SceneGraph

GENDERS = ("female", "male")
AGES = ("young_adulthood", "adulthood", "middle_adulthood", "late_adulthood")
ACTIONS = ("walking", "standing", "sitting", "talking on the phone", "looking at sth")
CATEGORIES = ("chair", "table", "bag", "laptop", "trolley")
RACES = ("Caucasian/White", "Mongoloid/Asian", "Negroid/Black", "Others")
INTERACTIONS = ("conversation", "walking together", "sitting together", "standing together")
METHOD = "synthetic"  # the `method` of every geometric relation made here


def _relation(frame: int, subject: int, reference: int | None, where, pose) -> GeometricRelation:
    p = relate(where, pose)
    return GeometricRelation(
        frame, subject, reference, p.direction, p.vertical, p.distance_bin, p.distance_m, METHOD
    )


def synthetic_frames(people: int, objects: int, frames: int, seed: int = 7) -> list[SceneGraph]:
    """One graph per frame of a crowd walking around the robot, each person a little
    further along their heading every frame (seeded, so repeatable)."""
    rng = np.random.default_rng(seed)
    xy = rng.uniform(-10, 10, (people, 2))
    heading = rng.uniform(-math.pi, math.pi, people)
    things = rng.uniform(-8, 8, (objects, 2))
    step = np.column_stack([np.cos(heading), np.sin(heading)]) * 0.4
    categories = ("chair", "table", "bag", "laptop")
    persons = [PersonFacts(1 + i, f"pedestrian:{i + 1}", "female", "adult") for i in range(people)]
    kit = [
        ObjectFacts(1000 + j, f"{categories[j % 4]}:{j + 1}", categories[j % 4])
        for j in range(objects)
    ]
    hoi = tuple(
        HoiFacts(1 + i, "holding", 1000 + i % objects, "physical", 1 + i % 3)
        for i in range(0, people, 4)
    )
    graphs = []
    for f in range(frames):
        pos = xy + step * f
        geometry = []
        for i in range(people):
            geometry.append(_relation(f, 1 + i, None, (*pos[i], 0.0), ReferencePose()))
            me = ReferencePose(float(pos[i, 0]), float(pos[i, 1]), 0.0, float(heading[i]))
            for j in range(people):
                if j != i:
                    geometry.append(_relation(f, 1 + j, 1 + i, (*pos[j], 0.0), me))
            for j in range(objects):
                geometry.append(_relation(f, 1000 + j, 1 + i, (*things[j], -0.4), me))
        for j in range(objects):
            geometry.append(_relation(f, 1000 + j, None, (*things[j], -0.4), ReferencePose()))
        facts = FrameFacts(0, tuple(persons), tuple(kit), hoi, tuple(geometry), f, f)
        graphs.append(graph_from_jrdb([facts]))
    return graphs


def crowded_frame(people: int, objects: int = 10, seed: int = 3) -> FrameFacts:
    """One frame's facts: `people` persons of varied gender, age, race and action standing
    around the robot, `objects` objects, some HOI labels, a JRDB-Social interaction for
    every fifth person and their neighbour, every geometric relation computed."""
    rng = np.random.default_rng(seed)
    xy = rng.uniform(-10, 10, (people, 2))
    heading = rng.uniform(-math.pi, math.pi, people)
    things = rng.uniform(-8, 8, (objects, 2))
    persons = tuple(
        PersonFacts(
            1 + i,
            f"pedestrian:{i + 1}",
            GENDERS[int(rng.integers(2))],
            AGES[int(rng.integers(len(AGES)))],
            {ACTIONS[int(rng.integers(len(ACTIONS)))]: 1},
        )
        for i in range(people)
    )
    kit = tuple(
        ObjectFacts(1000 + j, f"{CATEGORIES[j % 5]}:{j + 1}", CATEGORIES[j % 5])
        for j in range(objects)
    )
    hoi = tuple(
        HoiFacts(
            1 + i,
            ("holding", "sitting_on", "looking_at")[i % 3],
            1000 + i % objects,
            "physical",
            1 + i % 3,
        )
        for i in range(0, people, 3)
    )
    geometry = []
    for i in range(people):
        geometry.append(_relation(0, 1 + i, None, (*xy[i], 0.0), ReferencePose()))
        me = ReferencePose(float(xy[i, 0]), float(xy[i, 1]), 0.0, float(heading[i]))
        for j in range(people):
            if j != i:
                geometry.append(_relation(0, 1 + j, 1 + i, (*xy[j], 0.0), me))
        for j in range(objects):
            geometry.append(_relation(0, 1000 + j, 1 + i, (*things[j], -0.4), me))
    for j in range(objects):
        geometry.append(_relation(0, 1000 + j, None, (*things[j], -0.4), ReferencePose()))
    # JRDB-Social labels from a generator of their own: the rest repeats as it was
    social = np.random.default_rng(seed + 1)
    persons = tuple(
        PersonFacts(
            p.entity_id, p.key, p.gender, p.age, p.actions, {"race": RACES[social.integers(4)]}
        )
        for p in persons
    )
    interactions = tuple(
        InteractionFacts(1 + i, INTERACTIONS[int(social.integers(len(INTERACTIONS)))], 2 + i, 1)
        for i in range(0, people - 1, 5)
    )
    return FrameFacts(0, persons, kit, hoi, tuple(geometry), 0, 0, interactions)


def lidar_like(count: int, seed: int = 0) -> np.ndarray:
    """A street-level cloud of `count` points around the origin, float32 (N, 3): a floor
    disc of 25 m radius 1 m below the sensor (60 %), walls in a ring 20-25 m out (30 %)
    and 40 people-sized blobs (10 %)."""
    rng = np.random.default_rng(seed)
    n_floor, n_wall = int(count * 0.6), int(count * 0.3)
    n_blob = count - n_floor - n_wall
    r = 25 * np.sqrt(rng.random(n_floor))
    a = rng.uniform(0, 2 * np.pi, n_floor)
    floor = np.column_stack([r * np.cos(a), r * np.sin(a), rng.normal(-1.0, 0.02, n_floor)])
    r = rng.uniform(20, 25, n_wall)
    a = rng.uniform(0, 2 * np.pi, n_wall)
    wall = np.column_stack([r * np.cos(a), r * np.sin(a), rng.uniform(-1.0, 2.0, n_wall)])
    centres = rng.uniform(-12, 12, (40, 2))
    pick = rng.integers(0, len(centres), n_blob)
    blob = np.column_stack(
        [centres[pick] + rng.normal(0, 0.15, (n_blob, 2)), rng.uniform(-1.0, 0.75, n_blob)]
    )
    return np.vstack([floor, wall, blob]).astype(np.float32)
