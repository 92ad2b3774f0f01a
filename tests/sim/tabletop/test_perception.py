"""Perception tools see what the camera sees, and nothing it does not."""

from __future__ import annotations

import pytest

from sim.tabletop.perception import OraclePerceiver, find_object
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

CAM = TOP_DOWN.with_size(320, 320)
X, Y = WORKSPACE_CENTRE


@pytest.fixture(scope="module")
def world():
    w = TabletopWorld(with_robot=False)
    w.add_primitive(
        "ball", "sphere", (0.025,), (X, Y, TABLE_TOP_Z + 0.025), rgba=(1, 0, 0, 1), name="red ball"
    )
    w.add_primitive(
        "lid",
        "box",
        (0.07, 0.07, 0.005),
        (X, Y, TABLE_TOP_Z + 0.08),
        rgba=(0, 0, 1, 1),
        name="blue lid",
    )
    w.add_primitive(
        "cube",
        "box",
        (0.02, 0.02, 0.02),
        (X + 0.15, Y + 0.1, TABLE_TOP_Z + 0.02),
        rgba=(0, 1, 0, 1),
        name="green cube",
    )
    yield w
    w.close()


def test_perceive_lists_only_visible_objects_with_points_on_them(world):
    p = OraclePerceiver().perceive(world, CAM)
    names = [o.name for o in p.objects]
    assert sorted(names) == ["blue lid", "green cube"]  # the ball is under the lid
    result = p.as_tool_result()
    assert "red ball" not in str(result)
    for o in p.objects:
        assert find_object(world, CAM, o.point).body_key == p.body_keys[o.id]


def test_relations_follow_the_image(world):
    p = OraclePerceiver().perceive(world, CAM)
    ids = {o.name: o.id for o in p.objects}
    rel = set(p.relations)
    lid, cube = ids["blue lid"], ids["green cube"]
    # the cube is at +x (image right) and +y (image top: away from the robot)
    assert (min(lid, cube), "left of" if lid < cube else "right of", max(lid, cube)) in rel
    assert (min(lid, cube), "in front of" if lid < cube else "behind", max(lid, cube)) in rel


def test_find_object_refuses_the_table_and_points_outside(world):
    with pytest.raises(ValueError, match="no object at .*table"):
        find_object(world, CAM, (2, 2))
    with pytest.raises(ValueError, match="outside"):
        find_object(world, CAM, (999, 5))
    p = OraclePerceiver().perceive(world, CAM)
    lid = next(o for o in p.objects if o.name == "blue lid")
    m = find_object(world, CAM, lid.point)
    assert m.area_px == lid.visible_px and m.mask[lid.point[1], lid.point[0]]
