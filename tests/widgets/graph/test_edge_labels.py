"""Scene-graph edge labels never overlap: each is placed along its edge clear of the other
labels and of the nodes, at any zoom (the real view under Xvfb)."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QPointF, QRectF

from annotation.scene_graph import Entity, Relation, SceneGraph
from widgets.graph.labels import LabelRequest, curve_point, place_labels
from widgets.graph.view import SceneGraphView


def obj(key, x, y):
    attributes = {"position": [x, y, 0.65], "visible_fraction": 0.8, "rgba": [0.9, 0.1, 0.1, 1]}
    return Entity(key, "object", key.replace("_", " "), attributes)


def crowded_graph() -> SceneGraph:
    """Four objects, each left of and near the next ones, one stacked on another: the
    stacked pair's support and spatial edges used to put their labels on top of each
    other."""
    keys = ["red_box", "blue_box", "mug", "duck"]
    entities = [Entity("table", "surface", "table"), Entity("basket", "surface", "basket")]
    entities += [obj(k, 0.06 * i, 0.03 * (i % 2)) for i, k in enumerate(keys)]
    relations = [Relation(k, "on", "table", "support") for k in keys]
    for a, b in itertools.combinations(keys, 2):
        relations += [Relation(a, "left of", b, "spatial"), Relation(a, "near", b, "spatial")]
    relations.append(Relation("mug", "on", "red_box", "support"))
    return SceneGraph({e.id: e for e in entities}, tuple(relations))


def hub_graph(n: int = 9) -> SceneGraph:
    """One object with a different relation to each of `n` others close around it."""
    entities = [obj("hub", 0.0, 0.0)] + [obj(f"thing_{i}", 0.01 * i, 0.02) for i in range(n)]
    predicates = ["left of", "behind", "near", "right of", "in front of"]
    relations = [
        Relation("hub", predicates[i % len(predicates)], f"thing_{i}", "spatial") for i in range(n)
    ]
    relations += [Relation(f"thing_{i}", "on", "hub", "support") for i in range(0, n, 2)]
    return SceneGraph({e.id: e for e in entities}, tuple(relations))


@pytest.fixture
def view(qtbot):
    v = SceneGraphView()
    qtbot.addWidget(v)
    v.resize(520, 480)
    v.show()
    qtbot.waitExposed(v)
    return v


def label_rects(view) -> dict[tuple, QRectF]:
    """Every shown edge label's rectangle on screen (viewport pixels)."""
    to_screen = view.canvas.viewportTransform()
    return {
        key: item.label.deviceTransform(to_screen).mapRect(item.label.boundingRect())
        for key, item in view.edge_items.items()
        if item.label is not None and item.label.isVisible()
    }


def overlapping(rects: dict) -> list:
    return [
        (a, b) for (a, ra), (b, rb) in itertools.combinations(rects.items(), 2) if ra.intersects(rb)
    ]


def node_rects(view) -> list[QRectF]:
    to_screen = view.canvas.viewportTransform()
    return [
        n.deviceTransform(to_screen).mapRect(n.outline().boundingRect())
        for n in view.nodes.values()
    ]


def test_labels_of_a_small_crowded_graph_do_not_overlap(view):
    view.set_graph(crowded_graph())
    rects = label_rects(view)
    assert len(rects) == len(view.edge_items)  # every edge still has its label here
    assert overlapping(rects) == []
    # the labels' scene rects too (they ignore the zoom: pixels at the label's anchor)
    scene_rects = {k: view.edge_items[k].label.sceneBoundingRect() for k in rects}
    assert overlapping(scene_rects) == []
    for rect in rects.values():  # nor do they cover a node
        assert not any(rect.intersects(n) for n in node_rects(view))


def test_labels_stay_apart_round_a_hub_and_at_every_zoom(view):
    view.set_graph(hub_graph())
    view.select("hub")
    for zoom in (1.0, 0.6, 2.5):
        view.canvas.scale(zoom, zoom)
        view._zoomed()  # what a wheel turn does after scaling
        rects = label_rects(view)
        assert rects and overlapping(rects) == [], zoom
    # the labels that are shown sit on their own edge
    for item in view.edge_items.values():
        if item.label.isVisible():
            pos = item.label.pos()
            samples = [item.point_at(t / 50) for t in range(51)]
            assert min((QPointF(*p) - pos).manhattanLength() for p in samples) < 1.5


def test_place_labels_moves_a_label_along_its_edge_or_leaves_it_out():
    box = (-20.0, -6.0, 20.0, 6.0)
    same = [LabelRequest(i, (0.0, 0.0), (100.0, 0.0), (200.0, 0.0), box) for i in range(3)]
    spots = place_labels(same)
    assert spots[0] == 0.4 and spots[1] is not None and spots[1] != 0.4
    points = [curve_point((0, 0), (100, 0), (200, 0), spots[i]) for i in (0, 1, 2) if spots[i]]
    for p, q in itertools.combinations(points, 2):
        assert abs(p[0] - q[0]) >= 40  # side by side along the edge, never on top
    # no room at all: the label is left out
    wall = [(-1000.0, -1000.0, 1000.0, 1000.0)]
    assert place_labels(same[:1], wall) == {0: None}
