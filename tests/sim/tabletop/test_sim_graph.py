"""The simulator scene graph: support from contacts, image-frame sides, basket, visibility."""

from __future__ import annotations

import pytest

from sim.tabletop.graph import BASKET_ID, TABLE_ID, colour_name, graph_from_world
from sim.tabletop.world import BASKET_CENTRE, TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

CAM = TOP_DOWN.with_size(256, 256)


@pytest.fixture(scope="module")
def graph():
    x, y = WORKSPACE_CENTRE
    with TabletopWorld() as world:
        world.add_primitive(
            "base",
            "box",
            (0.03,) * 3,
            (x - 0.1, y, TABLE_TOP_Z + 0.03),
            rgba=(1, 0, 0, 1),
            mass=0.2,
            name="red box",
        )
        world.add_primitive(
            "top",
            "box",
            (0.02,) * 3,
            (x - 0.1, y, TABLE_TOP_Z + 0.081),
            rgba=(0, 0, 1, 1),
            mass=0.1,
            name="blue box",
        )
        world.add_primitive(
            "right",
            "box",
            (0.025,) * 3,
            (x + 0.1, y + 0.08, TABLE_TOP_Z + 0.025),
            rgba=(0, 0.8, 0, 1),
            mass=0.2,
            name="green box",
        )
        bx, by = BASKET_CENTRE
        world.add_primitive(
            "binned",
            "box",
            (0.02,) * 3,
            (bx, by, TABLE_TOP_Z + 0.027),
            rgba=(1, 1, 0, 1),
            mass=0.1,
            name="yellow box",
        )
        world.step(120)
        yield graph_from_world(world, CAM)


def _edges(g):
    return {(r.subject, r.predicate, r.object) for r in g.relations}


def test_support_edges_from_contacts(graph):
    edges = _edges(graph)
    assert ("top", "on", "base") in edges and ("base", "under", "top") in edges
    assert ("base", "on", TABLE_ID) in edges and ("right", "on", TABLE_ID) in edges
    assert ("top", "on", TABLE_ID) not in edges
    assert ("binned", "on", TABLE_ID) not in edges
    assert all(r.kind == "support" for r in graph.relations if r.predicate in ("on", "under"))


def test_image_frame_sides_and_basket(graph):
    edges = _edges(graph)
    assert ("base", "left of", "right") in edges and ("right", "right of", "base") in edges
    assert ("right", "behind", "base") in edges and ("base", "in front of", "right") in edges
    # a stack is neither left nor right of itself, and its two boxes are near
    assert not {("top", "left of", "base"), ("base", "left of", "top")} & edges
    assert ("top", "near", "base") in edges and ("base", "near", "top") in edges
    assert ("right", "near", "base") not in edges
    assert ("binned", "in basket", BASKET_ID) in edges
    assert [e for e in edges if e[1] == "in basket"] == [("binned", "in basket", BASKET_ID)]
    assert not any(r.predicate == "held by" for r in graph.relations)


def test_object_attributes(graph):
    top = graph.entity("top")
    assert top.kind == "object" and top.label == "blue box"
    assert top.attributes["colour"] == "blue" and colour_name((0, 0.8, 0)) == "green"
    assert top.attributes["size"] == pytest.approx([0.04, 0.04, 0.04], abs=1e-3)
    assert top.attributes["visible_fraction"] > 0.9
    assert graph.entity("base").attributes["visible_fraction"] < 0.9  # partly under "top"
    assert graph.entity("binned").attributes["visible_fraction"] == 0.0  # outside the view
    assert {e.kind for e in graph.entities.values()} == {"object", "surface", "robot"}
    assert graph.slots == (0,)


def test_an_object_lifted_between_the_fingers_is_held_by_the_gripper():
    """Close the gripper on a box and lift it: the graph says `held by`, not `on` the table."""
    from sim.render import render
    from sim.tabletop.grasp.execute import drive_fingers, enable_finger_dynamics, grasp_height
    from sim.tabletop.grasp.plan import plan_grasp
    from sim.tabletop.motion import DOWN, move_tool_to

    x, y = WORKSPACE_CENTRE
    with TabletopWorld() as world:
        box = world.add_primitive(
            "box",
            "box",
            (0.018, 0.04, 0.025),
            (x + 0.05, y, TABLE_TOP_Z + 0.025),
            rgba=(0.9, 0.2, 0.2, 1),
            mass=0.15,
            name="red box",
        )
        world.step(60)
        resting = graph_from_world(world, CAM)
        assert ("box", "on", TABLE_ID) in {
            (r.subject, r.predicate, r.object) for r in resting.relations
        }
        assert not [r for r in resting.relations if r.predicate == "held by"]
        view = render(world, CAM)
        plan = plan_grasp(
            CAM, view.segmentation == box.uid, view, world.gripper_model, table_z=TABLE_TOP_Z
        )
        c = world.client
        down = c.multiplyTransforms(
            (0, 0, 0), c.getQuaternionFromEuler((0, 0, plan.yaw)), (0, 0, 0), DOWN
        )[1]
        px, py, _ = plan.centre
        model = world.gripper_model
        enable_finger_dynamics(world)  # one motor drives the coupled linkage
        drive_fingers(world, model.open_angle, 30)
        move_tool_to(world, (px, py, plan.top_z + model.fingertip_offset + 0.1), down)
        move_tool_to(world, (px, py, grasp_height(plan, model)), down, step_m=0.005)
        drive_fingers(world, model.closed_angle)
        move_tool_to(world, (px, py, grasp_height(plan, model) + 0.12), down, step_m=0.005)
        held = graph_from_world(world, CAM)
    edges = {(r.subject, r.predicate, r.object, r.kind) for r in held.relations}
    assert ("box", "held by", "gripper", "state") in edges
    assert ("box", "on", TABLE_ID, "support") not in edges
    assert held.entity("gripper").kind == "robot"
