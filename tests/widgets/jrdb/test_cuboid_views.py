"""The top, side and front views of one 3D box, driven with the mouse as an annotator does:
edges resize with the opposite edge fixed, the body moves, Top's handle turns, and no drag
makes a side thinner than the minimum; plus the cropping that keeps a 120,000-point frame
cheap."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from annotation.models import Box3D
from widgets.jrdb.cloud_points import HIGHLIGHT
from widgets.jrdb.cuboid_views import (
    MAX_POINTS,
    MIN_SIZE,
    BoxFrame,
    CuboidViews,
    crop_points,
    dragged,
    find_target,
    thin,
)

LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier
YAW = 0.6
BOX = Box3D(7, 1, 3.0, 1.0, 0.5, 1.0, 0.5, 1.0, YAW)  # a 1 x 0.5 x 1 m box, turned 34 degrees


def box_surface(box: Box3D, count: int = 3000, seed: int = 0) -> np.ndarray:
    """Points on the box's sides (an object as a lidar sees it) and a floor around it."""
    rng = np.random.default_rng(seed)
    local = rng.uniform(-0.5, 0.5, (count, 3)) * (box.l, box.w, box.h)
    side = rng.integers(0, 2, count)  # pushed onto a length or a width face
    local[side == 0, 0] = np.sign(local[side == 0, 0]) * box.l / 2
    local[side == 1, 1] = np.sign(local[side == 1, 1]) * box.w / 2
    c, s = math.cos(box.rot_z), math.sin(box.rot_z)
    world = np.column_stack(
        [
            box.cx + local[:, 0] * c - local[:, 1] * s,
            box.cy + local[:, 0] * s + local[:, 1] * c,
            box.cz + local[:, 2],
        ]
    )
    floor = np.column_stack(
        [rng.uniform(-10, 10, count), rng.uniform(-10, 10, count), np.zeros(count)]
    )
    return np.vstack([world, floor]).astype(np.float32)


@pytest.fixture
def views(qtbot):
    widget = CuboidViews()
    qtbot.addWidget(widget)
    widget.resize(900, 320)
    widget.set_points(box_surface(BOX))
    widget.show_box(BOX.entity_id, "bag 1", BOX)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def drag(qtbot, view, start: QPointF, end: QPointF) -> None:
    """Press at `start`, move in two steps and release at `end`, as a hand does."""
    a, b = start.toPoint(), end.toPoint()
    qtbot.mousePress(view, LEFT, NONE, a)
    qtbot.mouseMove(view, (a + b) / 2)
    qtbot.mouseMove(view, b)
    qtbot.mouseRelease(view, LEFT, NONE, b)


def edited(qtbot, views, view, start: QPointF, end: QPointF) -> tuple[float, ...]:
    with qtbot.waitSignal(views.box_edited, timeout=2000) as blocker:
        drag(qtbot, view, start, end)
    entity_id, values = blocker.args
    assert entity_id == BOX.entity_id
    return values


def edge_point(box: tuple[float, ...], sign: float) -> np.ndarray:
    """The world x, y of the middle of the box's front (+1) or back (-1) face."""
    c, s = math.cos(box[6]), math.sin(box[6])
    return np.array([box[0] + sign * box[3] / 2 * c, box[1] + sign * box[3] / 2 * s])


def moved_by(view, start: QPoint, end: QPoint) -> tuple[float, float]:
    """How far a drag from `start` to `end` goes in the view's plane, in metres."""
    (u0, v0), (u1, v1) = view.to_plane(QPointF(start)), view.to_plane(QPointF(end))
    return u1 - u0, v1 - v0


def test_dragging_the_front_edge_in_top_resizes_and_keeps_the_back_edge(qtbot, views):
    top = views.views["top"]
    start = top.to_screen(BOX.l / 2, 0.0)
    end = start + QPointF(40, 0)
    du, _dv = moved_by(top, start.toPoint(), end.toPoint())  # at the scale of the drag
    values = edited(qtbot, views, top, start, end)
    before = (BOX.cx, BOX.cy, BOX.cz, BOX.l, BOX.w, BOX.h, BOX.rot_z)
    assert values[3] == pytest.approx(BOX.l + du, abs=1e-4)
    assert values[3] > BOX.l + 0.1  # 40 px is a good deal at this scale
    assert values[4:6] == pytest.approx((BOX.w, BOX.h)) and values[6] == pytest.approx(YAW)
    assert edge_point(values, -1) == pytest.approx(edge_point(before, -1), abs=1e-4)
    assert values[2] == pytest.approx(BOX.cz)
    # the views centre on the box as released
    assert views.values == pytest.approx(values)
    assert top.box[:2] == pytest.approx((0.0, 0.0), abs=1e-6)


def test_dragging_a_side_edge_in_top_changes_the_width(qtbot, views):
    top = views.views["top"]
    start = top.to_screen(0.0, BOX.w / 2)  # the box's left face (up in Top)
    _du, dv = moved_by(top, start.toPoint(), (start + QPointF(0, 20)).toPoint())
    values = edited(qtbot, views, top, start, start + QPointF(0, 20))  # down: inwards
    assert values[4] == pytest.approx(BOX.w + dv, abs=1e-4) and values[4] < BOX.w
    assert values[3] == pytest.approx(BOX.l)


def test_dragging_the_body_in_top_moves_the_centre_in_the_world(qtbot, views):
    top = views.views["top"]
    start = top.to_screen(0.1, 0.05)
    end = start + QPointF(30, -15)
    du, dv = moved_by(top, start.toPoint(), end.toPoint())
    values = edited(qtbot, views, top, start, end)
    c, s = math.cos(YAW), math.sin(YAW)  # the view's axes are the box's
    assert values[0] == pytest.approx(BOX.cx + du * c - dv * s, abs=1e-4)
    assert values[1] == pytest.approx(BOX.cy + du * s + dv * c, abs=1e-4)
    assert values[2:] == pytest.approx((BOX.cz, BOX.l, BOX.w, BOX.h, YAW))


def test_dragging_the_body_up_in_side_moves_it_up_only(qtbot, views):
    side = views.views["side"]
    start = side.to_screen(0.0, 0.0)
    end = start + QPointF(0, -25)
    _du, dv = moved_by(side, start.toPoint(), end.toPoint())
    values = edited(qtbot, views, side, start, end)
    assert values[2] == pytest.approx(BOX.cz + dv, abs=1e-4) and dv > 0
    assert values[:2] == pytest.approx((BOX.cx, BOX.cy), abs=1e-6)
    assert values[3:] == pytest.approx((BOX.l, BOX.w, BOX.h, YAW))


def test_dragging_the_top_edge_in_front_keeps_the_bottom(qtbot, views):
    front = views.views["front"]
    start = front.to_screen(0.0, BOX.h / 2)
    end = start + QPointF(0, -30)  # higher
    values = edited(qtbot, views, front, start, end)
    assert values[5] > BOX.h
    assert values[2] - values[5] / 2 == pytest.approx(BOX.cz - BOX.h / 2, abs=1e-4)
    assert values[3:5] == pytest.approx((BOX.l, BOX.w))


def test_the_handle_in_top_turns_the_box_about_its_centre(qtbot, views):
    top = views.views["top"]
    assert top.target_at(top.to_screen(BOX.l / 2, 0.0)) == ("edge", 0, 1)
    knob = top.to_screen(BOX.l / 2 + 22 / top.scale, 0.0)  # in front of the box
    assert top.target_at(knob) == ("turn",)
    quarter = top.to_screen(0.0, BOX.l / 2 + 22 / top.scale)  # a quarter turn to the left
    values = edited(qtbot, views, top, knob, quarter)
    assert values[6] == pytest.approx(YAW + math.pi / 2, abs=0.05)
    assert values[:6] == pytest.approx((BOX.cx, BOX.cy, BOX.cz, BOX.l, BOX.w, BOX.h))


def test_a_drag_past_the_opposite_edge_stops_at_the_minimum_size(qtbot, views):
    side = views.views["side"]
    start = side.to_screen(BOX.l / 2, 0.0)  # the front edge, dragged far past the back one
    values = edited(qtbot, views, side, start, start - QPointF(400, 0))
    before = (BOX.cx, BOX.cy, BOX.cz, BOX.l, BOX.w, BOX.h, BOX.rot_z)
    assert values[3] == pytest.approx(MIN_SIZE) and values[3] > 0
    assert edge_point(values, -1) == pytest.approx(edge_point(before, -1), abs=1e-4)
    front = views.views["front"]
    start = front.to_screen(0.0, -BOX.h / 2)  # the bottom, dragged far over the top
    values = edited(qtbot, views, front, start, start - QPointF(0, 600))
    assert values[5] == pytest.approx(MIN_SIZE)
    assert values[2] + values[5] / 2 == pytest.approx(BOX.cz + BOX.h / 2, abs=1e-4)


def test_the_other_views_and_the_listeners_follow_a_drag_live(qtbot, views):
    top, side = views.views["top"], views.views["side"]
    seen = []
    views.box_changing.connect(lambda _e, values: seen.append(values))
    start = top.to_screen(BOX.l / 2, 0.0)
    qtbot.mousePress(top, LEFT, NONE, start.toPoint())
    qtbot.mouseMove(top, (start + QPointF(30, 0)).toPoint())
    assert seen and seen[-1][3] > BOX.l  # reported while the button is down
    assert side.box[3] == pytest.approx(seen[-1][3])  # Side shows the new length already
    # Esc puts it back and nothing is edited
    with qtbot.assertNotEmitted(views.box_edited):
        qtbot.keyClick(top, Qt.Key.Key_Escape)
        qtbot.mouseRelease(top, LEFT, NONE, (start + QPointF(30, 0)).toPoint())
    assert side.box[3] == pytest.approx(BOX.l) and top.box[3] == pytest.approx(BOX.l)


def test_a_click_without_a_drag_or_outside_the_box_edits_nothing(qtbot, views):
    top = views.views["top"]
    with qtbot.assertNotEmitted(views.box_edited):
        qtbot.mouseClick(top, LEFT, NONE, top.to_screen(0.0, 0.0).toPoint())
        drag(qtbot, top, QPointF(5, top.height() - 5), QPointF(60, top.height() - 40))
    assert views.values == pytest.approx((3.0, 1.0, 0.5, 1.0, 0.5, 1.0, YAW))


def test_the_points_are_drawn_and_those_in_the_box_highlighted(qtbot, views):
    top = views.views["top"]
    assert 0 < len(top.points) <= MAX_POINTS
    image = top.grab().toImage()
    yellow = sum(
        image.pixelColor(x, y).getRgb()[:3] == HIGHLIGHT
        for x in range(0, image.width(), 2)
        for y in range(0, image.height(), 2)
    )
    assert yellow > 50  # the box's points (and its outline)
    assert top.caption().startswith("Top · l 1.00 × w 0.50 m")
    assert views.views["side"].caption().startswith("Side · l 1.00 × h 1.00 m")
    assert views.views["front"].caption().startswith("Front · w 0.50 × h 1.00 m")


def test_without_a_box_the_views_say_so_and_grab_nothing(qtbot, views):
    views.show_box(3, "chair 1", None)
    assert "no 3D box" in views.title.text()
    top = views.views["top"]
    assert top.box is None and top.target_at(QPointF(100, 100)) is None
    with qtbot.assertNotEmitted(views.box_edited):
        drag(qtbot, top, QPointF(100, 100), QPointF(150, 120))


def test_an_interpolated_box_says_a_drag_keys_it(qtbot, views):
    derived = Box3D(**{**BOX.__dict__, "attributes": {"interpolated": True}})
    views.show_box(BOX.entity_id, "bag 1", derived)
    assert "interpolated" in views.title.text() and views.views["top"].interpolated


def test_a_big_frame_is_cropped_and_thinned():
    rng = np.random.default_rng(1)
    cloud = rng.uniform(-20, 20, (120_000, 3)).astype(np.float32)
    cloud[:, 2] = rng.uniform(-1, 2, len(cloud))
    values = (3.0, 1.0, 0.5, 1.0, 0.5, 1.0, YAW)
    near = crop_points(cloud, values, margin=0.5)
    frame = BoxFrame.of(values)
    local = frame.local_points(cloud)
    expected = (
        (np.abs(local[:, 0]) <= 1.0) & (np.abs(local[:, 1]) <= 0.75) & (np.abs(local[:, 2]) <= 1.0)
    )
    assert len(near) == int(expected.sum()) > 0
    many = np.arange(30_000 * 3, dtype=np.float32).reshape(-1, 3)
    kept = thin(many, MAX_POINTS)
    assert len(kept) == MAX_POINTS and np.array_equal(kept, thin(many, MAX_POINTS))
    assert kept[0, 0] == 0 and kept[-1, 0] == many[-1, 0]  # spread over the whole cloud


def test_the_frame_goes_to_the_box_and_back():
    frame = BoxFrame.of((3.0, 1.0, 0.5, 1.0, 0.5, 1.0, YAW))
    world = (3.4, 0.7, 0.9, 2.0, 0.3, 0.4, YAW + 0.2)
    assert frame.to_world(frame.to_local(world)) == pytest.approx(world)
    assert frame.to_local((3.0, 1.0, 0.5, 1.0, 0.5, 1.0, YAW))[:3] == pytest.approx((0, 0, 0))


def test_gestures_are_pure_functions():
    box = (0.0, 0.0, 0.0, 1.0, 0.5, 1.0, 0.0)
    assert find_target(box, plane="side", point=(0.0, 0.52), tolerance=0.05, gap=0.2) == (
        "edge",
        2,
        1,
    )
    assert find_target(box, plane="side", point=(0.0, 0.0), tolerance=0.05, gap=0.2) == ("move",)
    assert find_target(box, plane="front", point=(2.0, 0.0), tolerance=0.05, gap=0.2) is None
    grown = dragged(box, plane="front", target=("edge", 1, -1), start=(-0.25, 0), now=(-0.75, 0))
    assert grown[4] == pytest.approx(1.0) and grown[1] == pytest.approx(-0.25)
    squashed = dragged(box, plane="top", target=("edge", 0, 1), start=(0.5, 0), now=(-3.0, 0))
    assert squashed[3] == pytest.approx(MIN_SIZE) and squashed[0] - squashed[3] / 2 == (
        pytest.approx(-0.5)
    )


def test_hidden_views_crop_only_when_shown(qtbot):
    widget = CuboidViews()
    qtbot.addWidget(widget)
    widget.set_points(box_surface(BOX))
    widget.show_box(BOX.entity_id, "bag 1", BOX)
    assert widget.stale and widget.views["top"].box is None  # nothing cropped off screen
    widget.show()
    qtbot.waitExposed(widget)
    assert not widget.stale and len(widget.views["side"].points) > 0
