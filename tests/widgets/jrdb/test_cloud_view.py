"""The lidar view: colouring by entity, wireframes with headings, picking, and the level of detail."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from PySide6.QtCore import Qt

from annotation.models import Box3D
from widgets.jrdb.cloud_points import (
    HIGHLIGHT,
    UNLABELLED,
    box_wireframe,
    point_entities,
    prepare_cloud,
    stride_order,
)
from widgets.jrdb.cloud_view import CloudView

PERSON = Box3D(7, 1, 3.0, 1.0, -0.1, 0.5, 0.6, 1.7, 0.5)
TABLE = Box3D(8, 1, -2.0, 2.0, -0.6, 1.2, 0.8, 0.8, 0.0)
LAPTOP = Box3D(9, 1, -2.0, 2.0, -0.15, 0.35, 0.25, 0.1, 0.0)  # on the table, inside its box
COLOURS = {7: (200, 60, 60), 8: (150, 110, 70), 9: (40, 160, 200)}


def scene_points(n: int, seed: int = 0) -> np.ndarray:
    """A floor disc with a few hundred points inside each box."""
    rng = np.random.default_rng(seed)
    floor = np.column_stack([rng.uniform(-10, 10, (n, 2)), np.full(n, -1.05)])
    parts = [floor]
    for box, count in ((PERSON, 400), (TABLE, 300), (LAPTOP, 100)):
        local = (rng.random((count, 3)) - 0.5) * 0.9 * np.array([box.l, box.w, box.h])
        c, s = math.cos(box.rot_z), math.sin(box.rot_z)
        world = local @ np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]]) + [box.cx, box.cy, box.cz]
        parts.append(world)
    return np.vstack(parts).astype(np.float32)


@pytest.fixture
def view(qtbot):
    v = CloudView(point_budget=5_000, min_budget=1_000, still_frame_ms=None, still_delay_ms=80)
    qtbot.addWidget(v)
    v.resize(480, 360)
    v.show()
    qtbot.waitExposed(v)
    return v


def test_points_inside_a_box_take_its_entity_colour(view):
    pts = scene_points(3_000)
    view.set_boxes([PERSON, TABLE, LAPTOP], COLOURS, {7: "7", 8: "table 1", 9: "laptop 1"})
    view.set_cloud(pts)
    assert view.colour_mode == "height"
    view.set_colour_mode("entity")
    colours = view.point_colours()
    order_free = {tuple(c[:3]) for c in colours}
    assert {COLOURS[7], COLOURS[8], COLOURS[9], UNLABELLED} <= order_free
    expected = point_entities(pts, [PERSON, TABLE, LAPTOP])
    for entity, rgb in COLOURS.items():
        assert (colours[expected == entity, :3] == rgb).all()
    # the laptop's points belong to the laptop, not to the table around it
    assert (expected == 9).sum() == 100 and (expected == 8).sum() == 300
    assert (colours[expected == -1, :3] == UNLABELLED).all()
    view.set_selected(7)
    assert (view.point_colours()[expected == 7, :3] == HIGHLIGHT).all()
    assert view.cycle_colour_mode() == "sensor" and view.cycle_colour_mode() == "height"
    with pytest.raises(ValueError):
        view.set_colour_mode("rainbow")


def test_wireframes_have_twelve_edges_and_a_heading_arrow():
    segments = box_wireframe(PERSON)
    assert segments.shape == (2 * (12 + 3), 3)
    tail, tip = segments[24], segments[25]
    heading = (tip - tail)[:2] / np.linalg.norm((tip - tail)[:2])
    assert heading == pytest.approx([math.cos(PERSON.rot_z), math.sin(PERSON.rot_z)], abs=1e-6)
    assert tail[2] == pytest.approx(PERSON.cz + PERSON.h / 2)


def test_level_of_detail_stays_under_budget_while_moving_and_is_full_when_still(qtbot, view):
    total = 60_000
    view.set_cloud(scene_points(total - 800))
    assert view.total_count == total
    view.view.grabFramebuffer()
    assert view.moving and view.drawn_count <= view.point_budget
    qtbot.waitUntil(lambda: not view.moving, timeout=3000)
    view.view.grabFramebuffer()
    assert view.drawn_count == total
    for _ in range(3):  # orbiting: every frame is a coarse one
        view.view.orbit(15, 2)
        view.view.grabFramebuffer()
        assert view.moving and view.drawn_count == view.point_budget
    assert "while moving" in view.caption.text()
    qtbot.waitUntil(lambda: not view.moving, timeout=3000)
    image = view.view.grabFramebuffer()
    assert view.drawn_count == total and "while moving" not in view.caption.text()
    assert image.width() > 0


def test_budget_falls_with_distance_and_the_still_frame_respects_its_time(view):
    view.set_cloud(scene_points(40_000))
    view.moving = True
    near = view.budget()
    view.view.opts["distance"] = view.ref_distance * 2
    assert view.budget() == max(view.min_budget, near // 4)
    view.view.opts["distance"] = view.ref_distance * 50
    assert view.budget() == view.min_budget
    view.moving = False
    assert view.budget() == view.total_count
    view.still_frame_ms, view.ms_per_point = 100.0, 0.01  # 10,000 points fit in 100 ms
    assert view.still_budget() == 10_000
    view.full_budget = 8_000
    assert view.still_budget() == 8_000


def test_stride_order_is_a_permutation_whose_prefixes_spread_evenly():
    order = stride_order(100_003)
    assert np.array_equal(np.sort(order), np.arange(100_003))
    prefix = np.sort(order[:1000])
    gaps = np.diff(np.concatenate([[0], prefix, [100_003]]))
    assert gaps.max() <= 3 * 100_003 / 1000
    prepared = prepare_cloud(np.array([[0, 0, 0], [np.nan, 0, 0], [1, 1, 1]], np.float32))
    assert len(prepared) == 2 and sorted(prepared.order.tolist()) == [0, 1]


def test_clicking_a_box_picks_its_entity(qtbot, view):
    view.set_cloud(scene_points(2_000))
    view.set_boxes([PERSON, TABLE, LAPTOP], COLOURS, {7: "7", 8: "table 1", 9: "laptop 1"})
    view.view.grabFramebuffer()
    picked, empty = [], []
    view.entity_clicked.connect(picked.append)
    view.background_clicked.connect(lambda: empty.append(True))
    for entity in (7, 9):
        pos = view.screen_position(entity)
        assert pos is not None
        qtbot.mouseClick(view.view, Qt.MouseButton.LeftButton, pos=pos.toPoint())
    qtbot.mouseClick(view.view, Qt.MouseButton.LeftButton, pos=view.view.rect().topLeft())
    assert picked == [7, 9] and empty == [True]  # the laptop wins over the table around it
    assert [t.text() for t in view.texts] == ["7", "table 1", "laptop 1"]


def test_an_interpolated_box_is_drawn_with_dashed_edges():
    from widgets.jrdb.cloud_points import box_wires, dashed

    edge = np.array([[0.0, 0, 0], [1.0, 0, 0]])
    assert dashed(edge)[:, 0] == pytest.approx([0, 0.2, 0.4, 0.6, 0.8, 1])
    keyed = Box3D(1, 1, 0, 0, 0, 1, 1, 1, 0.0, attributes={"interpolated": False})
    derived = Box3D(2, 1, 0, 0, 0, 1, 1, 1, 0.0, attributes={"interpolated": True})
    (solid, _), _ = box_wires([keyed], {}, None)
    (broken, _), _ = box_wires([derived], {}, None)
    assert len(broken) == 3 * len(solid)  # each edge in three dashes


def test_name_tags_are_reused_from_frame_to_frame(view):
    """A step to a frame with the same boxes makes no new tag widgets (each frame made and
    dropped one styled QLabel per box before: about 1 MB a JRDB frame until the event loop
    deleted them), and a frame with fewer boxes hides the tags it does not use."""
    labels = {7: "7", 8: "table 1", 9: "laptop 1"}
    view.set_boxes([PERSON, TABLE, LAPTOP], COLOURS, labels)
    made = list(view.tag_pool)
    for _ in range(5):
        view.set_boxes([PERSON, TABLE, LAPTOP], COLOURS, labels)
    assert view.tag_pool == made and len(made) == 3
    view.set_boxes([TABLE], COLOURS, {8: "table 1"})
    assert [t.text() for t in view.texts] == ["table 1"]
    assert view.texts[0].isVisibleTo(view) and not made[2].isVisibleTo(view)
    tags = [t for t in view.findChildren(type(made[0])) if t is not view.caption]
    assert len(tags) == len(made)


def test_a_new_frame_paints_the_gl_view_once(qtbot, view):
    """A step shows new points and boxes: one GL frame, not a coarse one and then a full
    one, nor a second one because the name tags moved (tags over the view are its siblings,
    and moving a child of the GL view would repaint it)."""
    view.set_cloud(scene_points(2_000))
    view.set_boxes([PERSON, TABLE, LAPTOP], COLOURS, {7: "7", 8: "table 1", 9: "laptop 1"})
    qtbot.wait(300)
    painted = []
    view.painted.connect(lambda: painted.append(True))
    view.set_cloud(scene_points(2_000, seed=1))
    moved = [dataclasses.replace(b, cx=b.cx - 1.0, cy=b.cy - 0.5) for b in (PERSON, TABLE)]
    view.set_boxes(moved, COLOURS, {7: "7", 8: "table 1"})  # the tags move with them
    qtbot.waitUntil(lambda: bool(painted), timeout=5000)
    qtbot.wait(300)  # longer than the still delay (80 ms here)
    assert len(painted) == 1
    assert [t.text() for t in view.texts] == ["7", "table 1"]
    assert all(view.view.geometry().contains(t.geometry().center()) for t in view.texts)


def test_a_box_being_dragged_elsewhere_moves_its_wireframe_only(view):
    """`preview_box`: the wireframe follows a drag in the cuboid views at once; the points
    keep their entity colours until the box is saved (`set_boxes`)."""
    view.set_cloud(scene_points(2_000))
    view.set_boxes([PERSON, TABLE, LAPTOP], COLOURS, {7: "7", 8: "table 1", 9: "laptop 1"})
    entities = view.entities.copy()
    before = view.wires.pos.copy()
    view.preview_box(dataclasses.replace(TABLE, cx=TABLE.cx + 1.0))
    assert [b.cx for b in view.boxes] == [PERSON.cx, TABLE.cx + 1.0, LAPTOP.cx]
    assert not np.array_equal(view.wires.pos, before)
    assert np.array_equal(view.entities, entities)
