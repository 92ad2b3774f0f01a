"""Beneath's two rules on scenes laid out by hand (still bodies, no physics), each where
breaking the rule would make a different question: a "hidden" object must be at most
the threshold visible, and its cover must reveal at least MIN_REVEAL of it."""

from __future__ import annotations

import pytest

from sim.tabletop import questions
from sim.tabletop.questions import MAX_VISIBILITY, MIN_REVEAL
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld
from tests.criteria_checks import reveal, visible

CAM = TOP_DOWN.with_size(256, 256)
X, Y = WORKSPACE_CENTRE[0], WORKSPACE_CENTRE[1]
CUBE = (0.02, 0.02, 0.02)


def _world(bodies) -> TabletopWorld:
    world = TabletopWorld(with_robot=False)
    for key, half, (x, y, z) in bodies:
        world.add_primitive(key, "box", half, (X + x, Y + y, TABLE_TOP_Z + z), mass=0.0)
    return world


def _pairs(world):
    keys = [b.key for b in world.objects()]
    return questions._beneath_pairs(world, CAM, keys, MAX_VISIBILITY)[1]


def test_an_object_partly_in_view_is_never_the_hidden_one():
    """A plate over two cubes: one wholly under it, one a third in view. Making the plate
    transparent reveals most of both, but only the buried cube is a hidden object."""
    with _world(
        [
            ("buried", CUBE, (0.0, 0.0, 0.02)),
            ("peeking", CUBE, (0.075, 0.0, 0.02)),
            ("plate", (0.06, 0.06, 0.004), (0.02, 0.0, 0.06)),
        ]
    ) as world:
        assert visible(world, CAM, "buried") <= MAX_VISIBILITY
        assert 0.2 <= visible(world, CAM, "peeking") <= 0.6  # the rule's case
        assert reveal(world, CAM, "plate", "peeking") >= MIN_REVEAL
        assert {hidden for _, _, hidden, _ in _pairs(world)} == {"buried"}


def test_a_cover_that_reveals_too_little_is_no_cover():
    """A cube under a plate, with a narrower card above the plate: without the plate only
    a sliver of the cube shows (the card still hides the rest), without the card nothing
    does. Neither is its cover."""
    with _world(
        [
            ("cube", CUBE, (0.0, 0.0, 0.02)),
            ("plate", (0.06, 0.06, 0.004), (0.0, 0.0, 0.05)),
            ("card", (0.016, 0.03, 0.004), (0.0, 0.0, 0.07)),
        ]
    ) as world:
        assert visible(world, CAM, "cube") <= MAX_VISIBILITY
        sliver = reveal(world, CAM, "plate", "cube")
        assert 0.03 <= sliver < MIN_REVEAL  # the rule's case
        assert [p for p in _pairs(world) if p[2] == "cube"] == []


@pytest.mark.parametrize("half_x", [0.005])
def test_with_the_card_narrow_the_plate_is_the_cover(half_x):
    """The same stack with a narrow card: the plate reveals most of the cube, and is its cover."""
    with _world(
        [
            ("cube", CUBE, (0.0, 0.0, 0.02)),
            ("plate", (0.06, 0.06, 0.004), (0.0, 0.0, 0.05)),
            ("card", (half_x, 0.03, 0.004), (0.0, 0.0, 0.07)),
        ]
    ) as world:
        assert reveal(world, CAM, "plate", "cube") >= MIN_REVEAL
        assert [(cover, hidden) for _, cover, hidden, _ in _pairs(world)] == [("plate", "cube")]
