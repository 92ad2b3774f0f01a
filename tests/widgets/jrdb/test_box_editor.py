"""Editing boxes by hand, on a panorama of its own: Ctrl+drag draws a new rectangle, dragging
the selected box (or a corner handle) moves (or resizes) it, across the seam too; and the
Box panel's numbers for one 3D box, edited from the keyboard."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QGraphicsRectItem

from annotation.models import Box2D, Box3D
from widgets.jrdb.box_editor import Box3DPanel, PanoramaBoxGestures
from widgets.jrdb.panorama import PanoramaView

WIDTH, HEIGHT = 3760, 480
CTRL = Qt.KeyboardModifier.ControlModifier
NONE = Qt.KeyboardModifier.NoModifier
LEFT = Qt.MouseButton.LeftButton
PERSON = Box2D(1, 1, 1400.0, 120.0, 100.0, 200.0)
ON_THE_SEAM = Box2D(2, 1, 3700.0, 100.0, 120.0, 300.0)  # runs 60 px past the right edge


@pytest.fixture
def panorama(qtbot):
    view = PanoramaView()
    qtbot.addWidget(view)
    view.resize(1200, 240)
    image = QImage(WIDTH, HEIGHT, QImage.Format.Format_RGB888)
    image.fill(QColor(90, 90, 90))
    view.set_image(image)
    view.set_boxes([PERSON, ON_THE_SEAM], {1: (200, 60, 60), 2: (60, 110, 200)})
    gestures = PanoramaBoxGestures(view)
    view.show()
    qtbot.waitExposed(view)
    return view, gestures


def drag(qtbot, panorama: PanoramaView, start, end, modifier=NONE) -> None:
    """Press at image point `start`, move and release at `end` (image pixels)."""
    viewport = panorama.view.viewport()
    a = panorama.scene_to_widget(*start).toPoint()
    b = panorama.scene_to_widget(*end).toPoint()
    qtbot.mousePress(viewport, LEFT, modifier, a)
    qtbot.mouseMove(viewport, (a + b) / 2)
    qtbot.mouseMove(viewport, b)
    qtbot.mouseRelease(viewport, LEFT, modifier, b)


def xywh(rect: QRectF) -> tuple[float, float, float, float]:
    return rect.x(), rect.y(), rect.width(), rect.height()


def test_ctrl_drag_draws_a_rectangle_kept_inside_the_image(qtbot, panorama):
    view, gestures = panorama
    with qtbot.waitSignal(view.box_drawn, timeout=1000) as drawn:
        drag(qtbot, view, (400, 420), (200, 200), CTRL)  # drawn up and to the left
    x, y, w, h = xywh(drawn.args[0])
    assert x == pytest.approx(200, abs=5) and y == pytest.approx(200, abs=5)
    assert w == pytest.approx(200, abs=8) and h == pytest.approx(220, abs=8)
    assert not gestures.preview.isVisible()  # the dashed preview goes with the release
    with qtbot.waitSignal(view.box_drawn, timeout=1000) as drawn:
        drag(qtbot, view, (3600, 300), (3900, 700), CTRL)  # past the right and bottom edges
    rect = drawn.args[0]
    assert rect.right() == WIDTH and rect.bottom() == HEIGHT


def test_a_tiny_or_disabled_drag_draws_nothing(qtbot, panorama):
    view, gestures = panorama
    view.zoom_by(10.0)  # zoomed in, a drag of a few screen pixels is under 3 image pixels
    c = view.visible_rect().center()
    with qtbot.assertNotEmitted(view.box_drawn):
        drag(qtbot, view, (c.x(), c.y()), (c.x() + 2.0, c.y() + 2.0), CTRL)
        gestures.enabled = False
        drag(qtbot, view, (c.x(), c.y()), (c.x() + 60.0, c.y() + 60.0), CTRL)
    assert gestures.gesture is None


def test_dragging_the_selected_box_moves_it_and_a_corner_resizes_it(qtbot, panorama):
    view, _gestures = panorama
    with qtbot.assertNotEmitted(view.box_edited):
        drag(qtbot, view, (1450, 220), (1750, 220))  # not selected yet: the drag pans
    view.set_selected(1)
    with qtbot.waitSignal(view.box_edited, timeout=1000) as edited:
        drag(qtbot, view, (1450, 220), (1750, 220))
    entity, rect = edited.args
    x, y, w, h = xywh(rect)
    assert entity == 1
    assert x == pytest.approx(1700, abs=6) and y == pytest.approx(120, abs=4)
    assert (w, h) == (100.0, 200.0)  # moved, not resized
    with qtbot.waitSignal(view.box_edited, timeout=1000) as edited:
        drag(qtbot, view, (1500, 320), (1590, 470))  # the bottom-right corner handle
    x, y, w, h = xywh(edited.args[1])
    assert x == pytest.approx(1400, abs=1) and y == pytest.approx(120, abs=1)  # corner kept
    assert w == pytest.approx(190, abs=8) and h == pytest.approx(350, abs=8)


def test_a_box_on_the_seam_moves_from_its_copy_at_the_left_edge(qtbot, panorama):
    view, _gestures = panorama
    view.set_selected(2)
    with qtbot.waitSignal(view.box_edited, timeout=1000) as edited:
        drag(qtbot, view, (20, 250), (120, 250))  # the part past the seam, shown at x < 60
    entity, rect = edited.args
    assert entity == 2
    # 100 px to the right of 3700 is 3800: stored starting in [0, width) again
    assert rect.x() == pytest.approx(40, abs=6) and rect.width() == 120


def test_a_click_on_the_selected_box_stays_a_click(qtbot, panorama):
    view, gestures = panorama
    view.set_selected(1)
    handles = [c for item in view.items[1] for c in item.childItems()]
    assert sum(isinstance(c, QGraphicsRectItem) for c in handles) == 4  # its corner handles
    point = view.scene_to_widget(1450, 220).toPoint()
    with qtbot.assertNotEmitted(view.box_edited), qtbot.waitSignal(view.entity_clicked) as hit:
        qtbot.mouseClick(view.view.viewport(), LEFT, pos=point)
    assert hit.args == [1] and gestures.gesture is None


# -- the Box panel ----------------------------------------------------------------------------
CHAIR = Box3D(5, 1, -1.5, 3.6, -0.55, 0.5, 0.5, 0.9, math.pi / 2)


@pytest.fixture
def panel(qtbot):
    p = Box3DPanel()
    qtbot.addWidget(p)
    p.show()
    qtbot.waitExposed(p)
    return p


def test_the_panel_shows_a_box_with_its_yaw_in_degrees(qtbot, panel):
    assert panel.title.text() == "Select a person or an object."
    assert not any(s.isEnabled() for s in panel.spins.values()) and panel.create.isHidden()
    with qtbot.assertNotEmitted(panel.box_edited):  # showing is not editing
        panel.show_box(5, "chair 1", CHAIR)
    assert panel.title.text() == "chair 1: 3D box in this frame (saved as you edit)"
    shown = {field: spin.value() for field, spin in panel.spins.items()}
    assert shown == {"cx": -1.5, "cy": 3.6, "cz": -0.55, "l": 0.5, "w": 0.5, "h": 0.9, "rot_z": 90}
    assert all(s.isEnabled() for s in panel.spins.values()) and panel.create.isHidden()
    turned = Box3D(5, 1, 0, 0, 0, 1, 1, 1, 3.5)  # more than half a turn: shown as -159.5 deg
    assert Box3DPanel.to_display(turned)[6] == pytest.approx(math.degrees(3.5 - 2 * math.pi))


def test_typing_a_value_and_enter_emits_the_edited_box_in_radians(qtbot, panel):
    panel.show_box(5, "chair 1", CHAIR)
    line = panel.spins["rot_z"].lineEdit()
    line.selectAll()
    with qtbot.assertNotEmitted(panel.box_edited):
        qtbot.keyClicks(line, "30")  # no keyboard tracking: nothing until Enter
    with qtbot.waitSignal(panel.box_edited, timeout=1000) as edited:
        qtbot.keyClick(line, Qt.Key.Key_Return)
    entity, values = edited.args
    assert entity == 5
    assert values[:6] == pytest.approx((-1.5, 3.6, -0.55, 0.5, 0.5, 0.9))
    assert values[6] == pytest.approx(math.radians(30))
    with qtbot.waitSignal(panel.box_edited, timeout=1000) as edited:
        qtbot.keyClick(panel.spins["cx"], Qt.Key.Key_Up)  # one step: 5 cm forward
    assert edited.args[1][0] == pytest.approx(-1.45)


def test_an_entity_without_a_3d_box_offers_to_add_one(qtbot, panel):
    panel.show_box(7, "bag 3", None)
    assert panel.title.text() == "bag 3: no 3D box in this frame."
    assert panel.create.isVisible() and not panel.spins["cx"].isEnabled()
    with qtbot.waitSignal(panel.create_requested, timeout=1000) as asked:
        qtbot.mouseClick(panel.create, LEFT)
    assert asked.args == [7]
    with qtbot.assertNotEmitted(panel.box_edited):
        panel.spins["cx"].setValue(2.0)  # no box: nothing to save
