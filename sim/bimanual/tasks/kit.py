"""What the dual-arm tasks are made of: the task record, seeded placement helpers,
the plan-building helpers and the geometric tests the success checks share."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from sim.bimanual.world import DualArmWorld

POS_TOL = 0.03  # metres: "at" a target / on top of another block


@dataclass(frozen=True)
class BimanualTask:
    name: str
    instruction: str
    setup: Callable[[DualArmWorld, int], None]
    check: Callable[[DualArmWorld], tuple[bool, str]]
    reference_plan: Callable[[DualArmWorld], list[dict]]
    #: other spellings of this task's actors that BiManiBench's harness accepts
    #: (its take_action_by_dict), mapped to our object keys: {"left_can": "can_left"}
    aliases: Mapping[str, str] = field(default_factory=dict)


def act(name: str, **params) -> dict:
    """One action as the paper's planner writes it."""
    return {"action_name": name, "parameters": params}


def pos(world, key) -> np.ndarray:
    return world.body_pose(key)[0]


def tilt(world, key) -> float:
    """How far (radians) a body's z axis leans from the vertical."""
    rot = np.array(world.client.getMatrixFromQuaternion(world.body_pose(key)[1])).reshape(3, 3)
    return math.acos(float(np.clip(rot[2, 2], -1.0, 1.0)))


def held(world, key) -> bool:
    return key in (world.held_body("left"), world.held_body("right"))


def scatter(rng, n, sides, y_range=(-0.12, 0.10), min_gap=0.09, x_range=(0.12, 0.28)):
    """n table positions, the i-th on side sides[i] ('left' x<0, 'right' x>0), at least
    min_gap apart (rejection sampling; starts over when a position will not fit)."""
    out: list[tuple[float, float]] = []
    tries = 0
    while len(out) < n:
        side = sides[len(out)]
        x = rng.uniform(*x_range) * (-1 if side == "left" else 1)
        y = rng.uniform(*y_range)
        tries += 1
        if all(math.hypot(x - a, y - b) >= min_gap for a, b in out):
            out.append((x, y))
        elif tries > 200:
            out, tries = [], 0
    return out


def random_yaw(rng, spread=0.5) -> tuple[float, ...]:
    """A quaternion turning about z by up to +-spread radians."""
    a = rng.uniform(-spread, spread) / 2
    return (0.0, 0.0, math.sin(a), math.cos(a))


def settle(world) -> None:
    world.step(60)


def arm_for(world, key) -> str:
    """The arm on the object's side of the table."""
    return "left" if pos(world, key)[0] < 0 else "right"


def pick_and_place(world, key, target, arm=None, **place) -> list[dict]:
    """grasp, lift 0.1, place, lift 0.1, back to origin (the paper's main steps)."""
    arm = arm or arm_for(world, key)
    options = {"functional_point_id": 0, "constrain": "align", "pre_dis": 0.09, "dis": 0.01}
    options.update(place)
    grasp = {"pre_grasp_dis": 0.09, "grasp_dis": 0.0}
    if "contact_point_id" in options:
        grasp["contact_point_id"] = options.pop("contact_point_id")
    return [
        act("grasp_actor", actor=key, arm_tag=arm, **grasp),
        act("move_by_displacement", arm_tag=arm, z=0.1, move_axis="world"),
        act("place_actor", actor=key, arm_tag=arm, target_pose=list(target), **options),
        act("move_by_displacement", arm_tag=arm, z=0.1, move_axis="world"),
        act("back_to_origin", arm_tag=arm),
    ]
