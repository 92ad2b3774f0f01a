"""The live scene-graph view, driven as a person would: graphs change, nodes stay put,
kinds are filtered with the toolbar, nodes are clicked and hovered, the wheel zooms."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QHelpEvent, QWheelEvent
from PySide6.QtWidgets import QApplication, QToolTip

from annotation.jrdb.synthetic import synthetic_frames
from annotation.scene_graph import Entity, Relation, SceneGraph
from widgets.graph.items import describe_entity, inside_caption, short_value, wrap_label
from widgets.graph.placement import MIN_GAP, dense_kinds, merge_edges, update_layout
from widgets.graph.view import SceneGraphView


def obj(key, x, y, visible=0.8, **extra):
    return Entity(
        key,
        "object",
        key.replace("_", " "),
        {
            "position": [x, y, 0.65],
            "visible_fraction": visible,
            "rgba": [0.9, 0.1, 0.1, 1],
            **extra,
        },
    )


def tabletop(keys, relations=(), visible=None):
    """A simulator-like graph: the table, the basket, objects on a row, each on the table."""
    visible = visible or {}
    entities = [Entity("table", "surface", "table"), Entity("basket", "surface", "basket")]
    entities += [obj(k, 0.05 * i, 0.02 * (i % 2), visible.get(k, 0.8)) for i, k in enumerate(keys)]
    on = [Relation(k, "on", "table", "support") for k in keys]
    return SceneGraph({e.id: e for e in entities}, tuple(on) + tuple(relations))


@pytest.fixture
def view(qtbot):
    v = SceneGraphView()
    qtbot.addWidget(v)
    v.resize(520, 480)
    v.show()
    qtbot.waitExposed(v)
    return v


def node_point(view, entity_id) -> QPoint:
    """Where a node is drawn in the canvas's viewport."""
    return view.canvas.mapFromScene(view.nodes[entity_id].pos())


def drawn(view, kind=None):
    return {(e.a, e.b) for e in view.drawn_edges() if kind is None or e.kind == kind}


def test_nodes_keep_their_place_as_the_graph_changes(view):
    first = tabletop(["red_box", "blue_box", "mug", "duck"])
    view.set_graph(first)
    before = dict(view.positions)
    assert set(before) == set(first.entities)
    items = {k: (n.pos().x(), n.pos().y()) for k, n in view.nodes.items()}
    assert items == before
    # the duck leaves, two things arrive, the red box goes into the basket
    second = tabletop(
        ["red_box", "blue_box", "mug", "ball", "cup"],
        [Relation("red_box", "in basket", "basket", "spatial")],
    )
    view.set_graph(second)
    assert "duck" not in view.nodes and {"ball", "cup"} <= set(view.nodes)
    for key in ("table", "basket", "red_box", "blue_box", "mug"):
        assert view.positions[key] == before[key]  # exactly where they were
        assert (view.nodes[key].pos().x(), view.nodes[key].pos().y()) == before[key]
    for new in ("ball", "cup"):  # new nodes go to a free spot
        others = [p for k, p in view.positions.items() if k != new]
        x, y = view.positions[new]
        assert min(math.hypot(x - a, y - b) for a, b in others) >= 0.5 * MIN_GAP
    assert ("red_box", "basket") in drawn(view, "spatial")
    # the duck comes back where it was
    view.set_graph(first)
    assert view.positions["duck"] == before["duck"]
    assert ("red_box", "basket") not in drawn(view)


def test_the_layout_is_deterministic(qtbot):
    graphs = [
        tabletop(["a", "b", "c"]),
        tabletop(["a", "b", "c", "d", "e"], [Relation("d", "on", "e", "support")]),
    ]
    runs = []
    for _ in range(2):
        v = SceneGraphView()
        qtbot.addWidget(v)
        for g in graphs:
            v.set_graph(g)
        runs.append(dict(v.positions))
    assert runs[0] == runs[1]


def test_changed_attributes_update_the_node_in_place(view, qtbot):
    view.set_graph(tabletop(["mug"]))
    node, where = view.nodes["mug"], view.positions["mug"]
    moved = tabletop(["mug"]).entities["mug"]
    moved = Entity("mug", "object", "mug", {**moved.attributes, "visible_fraction": 0.0})
    g = tabletop(["mug"])
    view.set_graph(SceneGraph({**g.entities, "mug": moved}, g.relations))
    assert view.nodes["mug"] is node and view.positions["mug"] == where
    assert node.unseen and "visible_fraction: 0" in node.toolTip()


def test_the_toolbar_filters_relation_kinds(view, qtbot):
    g = tabletop(
        ["red_box", "blue_box"],
        [
            Relation("red_box", "left of", "blue_box", "spatial"),
            Relation("blue_box", "right of", "red_box", "spatial"),
            Relation("red_box", "held by", "basket", "state"),
        ],
    )
    view.set_graph(g)
    assert drawn(view, "support") and drawn(view, "spatial") == {("red_box", "blue_box")}
    visible = [k for k, a in view.kind_actions.items() if a.isVisible()]
    assert visible == ["support", "spatial", "state"]  # only the kinds the graph has
    button = view.toolbar.widgetForAction(view.kind_actions["support"])
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert view.hidden_kinds == {"support"}
    assert not drawn(view, "support") and drawn(view, "spatial") and drawn(view, "state")
    assert all(e.kind != "support" for e in (i.edge for i in view.edge_items.values()))
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert drawn(view, "support") == {("red_box", "table"), ("blue_box", "table")}


def test_inverse_and_symmetric_predicates_make_one_edge():
    g = tabletop(
        ["a", "b"],
        [
            Relation("b", "right of", "a", "spatial"),
            Relation("a", "left of", "b", "spatial"),
            Relation("a", "near", "b", "spatial", 0, {"distance_m": 0.05}),
            Relation("b", "near", "a", "spatial", 0, {"distance_m": 0.05}),
            Relation("a", "on", "b", "support"),
            Relation("b", "under", "a", "support"),
        ],
    )
    edges = {e.key: e for e in merge_edges(g.relations)}
    spatial = edges[("spatial", "a", "b")]
    assert spatial.forward == ("left of", "near") and spatial.backward == ()
    assert spatial.label == "left of, near" and not spatial.symmetric
    assert edges[("support", "a", "b")].label == "on"
    near_only = merge_edges(
        [Relation("a", "near", "b", "spatial"), Relation("b", "near", "a", "spatial")]
    )
    assert len(near_only) == 1 and near_only[0].symmetric
    both = merge_edges(
        [Relation("p", "holding", "q", "hoi"), Relation("q", "looking at", "p", "hoi")]
    )
    assert both[0].label == "holding\n← looking at"


def test_a_jrdb_social_interaction_is_one_mutual_edge_with_its_own_toggle(view, qtbot):
    """An H-interaction label (both ways in the graph) is drawn once, without arrowheads, in
    its own colour, and the toolbar filters it like any kind."""
    people = [Entity(k, "human", k, {"slots": [0]}) for k in ("pedestrian:1", "pedestrian:2")]
    people.append(Entity("robot", "robot", "the robot"))
    attrs = {"label": "conversation", "difficulty": 1}
    g = SceneGraph(
        {e.id: e for e in people},
        (
            Relation("pedestrian:1", "conversation", "pedestrian:2", "hhi", 0, attrs),
            Relation("pedestrian:2", "conversation", "pedestrian:1", "hhi", 0, attrs),
        ),
    )
    (edge,) = merge_edges(g.relations)
    assert edge.symmetric and edge.label == "conversation"
    view.set_graph(g)
    assert drawn(view, "hhi") == {("pedestrian:1", "pedestrian:2")}
    assert [k for k, a in view.kind_actions.items() if a.isVisible()] == ["hhi"]
    item = next(i for i in view.edge_items.values() if i.edge.kind == "hhi")
    assert item.colour.name() == "#2e7d32"
    qtbot.mouseClick(
        view.toolbar.widgetForAction(view.kind_actions["hhi"]), Qt.MouseButton.LeftButton
    )
    assert view.hidden_kinds == {"hhi"} and not drawn(view, "hhi")


def test_parallel_edges_of_one_pair_bow_apart(view):
    g = tabletop(
        ["a", "b"], [Relation("a", "on", "b", "support"), Relation("a", "near", "b", "spatial")]
    )
    view.set_graph(g)
    offsets = {
        i.edge.kind: i.offset for k, i in view.edge_items.items() if {k[1], k[2]} == {"a", "b"}
    }
    assert offsets == {"spatial": -8.0, "support": 8.0}  # kinds in order, centred


def test_a_dense_kind_shows_the_focus_and_the_robot(view, qtbot):
    graph = synthetic_frames(30, 10, 1)[0]
    view.set_graph(graph)
    assert view.dense == {"geometry"}
    geometry = drawn(view, "geometry")
    assert geometry and all("robot" in pair for pair in geometry)  # the spokes only
    assert len(geometry) == 40  # every person and object seen from the robot
    view.select("pedestrian:5")
    mine = drawn(view, "geometry") - geometry
    assert mine and all("pedestrian:5" in pair for pair in mine)
    assert len(mine) == 39  # everyone and everything else, each pair one edge
    assert "dense" in view.kind_actions["geometry"].toolTip()
    assert "geometry: the selection's edges" in view.status.text()
    qtbot.mouseClick(view.toolbar.widgetForAction(view.all_action), Qt.MouseButton.LeftButton)
    assert len(drawn(view, "geometry")) == len([e for e in view.edges if e.kind == "geometry"])
    assert "783 of 783 edges drawn" in view.status.text()


def test_clicking_a_node_emits_its_id_and_selects_it(view, qtbot):
    view.set_graph(tabletop(["red_box", "blue_box"]))
    with qtbot.waitSignal(view.entity_clicked, timeout=2000) as signal:
        qtbot.mouseClick(
            view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=node_point(view, "blue_box")
        )
    assert signal.args == ["blue_box"]
    assert view.selected == "blue_box" and view.nodes["blue_box"].selected
    assert not view.nodes["red_box"].selected


def test_hovering_a_node_shows_its_attributes(view, qtbot):
    view.set_graph(tabletop(["red_box"], visible={"red_box": 0.25}))
    viewport = view.canvas.viewport()
    point = node_point(view, "red_box")
    qtbot.mouseMove(viewport, point)
    QApplication.sendEvent(
        viewport, QHelpEvent(QEvent.Type.ToolTip, point, viewport.mapToGlobal(point))
    )
    qtbot.waitUntil(QToolTip.isVisible, timeout=3000)
    text = QToolTip.text()
    assert text.startswith("red box (red_box) — object")
    assert "visible_fraction: 0.25" in text and "position: [0, 0, 0.65]" in text
    QToolTip.hideText()


def test_hover_texts_are_short():
    e = Entity(
        "pedestrian:3",
        "human",
        "pedestrian 3",
        {
            "slots": list(range(9)),
            "actions": {"walking": 1, "a": 2, "b": 3, "c": 1, "d": 2},
            "distance": 1.23456,
            "nested": {"x": [1, 2, 3]},
        },
    )
    text = describe_entity(e)
    assert "slots: [0, 1, 2, 3, … +5]" in text
    assert "actions: {walking: 1, a: 2, b: 3, c: 1, … +1}" in text
    assert "distance: 1.23" in text and "nested: {x: [3]}" in text
    assert short_value("x" * 60).endswith("…") and len(short_value("x" * 60)) == 40
    assert inside_caption(e) == "3" and inside_caption(obj("mug", 0, 0)) == ""
    assert wrap_label("ochre toy fish") == "ochre toy\nfish"


def test_highlight_fades_the_rest(view):
    view.set_graph(tabletop(["a", "b", "c"], [Relation("a", "on", "b", "support")]))
    view.highlight(["a", "b"])
    assert view.nodes["a"].highlighted and view.nodes["a"].opacity() == 1.0
    assert view.nodes["c"].opacity() < 0.5 and not view.nodes["c"].highlighted
    assert view.edge_items[("support", "a", "b")].opacity() == 1.0
    assert view.edge_items[("support", "c", "table")].opacity() < 0.5
    view.highlight([])
    assert all(n.opacity() == 1.0 for n in view.nodes.values())


def test_visible_only_hides_what_the_camera_cannot_see(view, qtbot):
    view.set_graph(tabletop(["seen", "hidden"], visible={"hidden": 0.0}))
    assert view.visible_action.isVisible() and view.nodes["hidden"].unseen
    qtbot.mouseClick(view.toolbar.widgetForAction(view.visible_action), Qt.MouseButton.LeftButton)
    assert "hidden" not in view.shown_entities() and "seen" in view.shown_entities()
    assert ("hidden", "table") not in drawn(view)


def test_wheel_zooms_and_fit_brings_everything_back(view, qtbot):
    view.set_graph(tabletop(["a", "b", "c", "d"]))
    scale = view.canvas.transform().m11()
    viewport = view.canvas.viewport()
    centre = QPointF(viewport.width() / 2, viewport.height() / 2)
    wheel = QWheelEvent(
        centre,
        viewport.mapToGlobal(centre),
        QPoint(0, 0),
        QPoint(0, 240),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(viewport, wheel)
    assert view.canvas.transform().m11() > scale * 1.3 and not view.following
    view.set_graph(tabletop(["a", "b", "c", "d", "e"]))  # no refit while the user is zoomed in
    assert not view.following
    qtbot.mouseClick(view.toolbar.widgetForAction(view.fit_action), Qt.MouseButton.LeftButton)
    assert view.following
    visible = view.canvas.mapToScene(viewport.rect()).boundingRect()
    for node in view.nodes.values():
        assert visible.contains(node.pos())


def test_layout_places_new_nodes_near_their_neighbours():
    g1 = tabletop(["a", "b"])
    springs = [("a", "table"), ("b", "table")]
    p1 = update_layout({}, g1, springs)
    g2 = SceneGraph(
        {**g1.entities, "p": Entity("p", "human", "person")},
        g1.relations + (Relation("p", "holding", "a", "hoi"),),
    )
    p2 = update_layout(p1, g2, [*springs, ("p", "a")])
    assert {k: p2[k] for k in p1} == p1
    ax, ay = p2["a"]
    px, py = p2["p"]
    far = max(math.hypot(x - ax, y - ay) for k, (x, y) in p2.items() if k not in ("a", "p"))
    assert math.hypot(px - ax, py - ay) <= far  # beside its neighbour, not off somewhere
    assert dense_kinds(merge_edges(g2.relations), len(g2.entities)) == frozenset()
