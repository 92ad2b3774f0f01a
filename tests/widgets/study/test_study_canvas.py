"""The Human study's image (`StudyImage`): a drag draws the answer box in image pixels,
Shift+drag adds one, a panorama wraps round its seam (a box may be drawn across it), the
drawn boxes are shown (at both ends of a panorama), and with drawing off a drag pans."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QImage

from widgets.study.canvas import WRAP_MARGIN, StudyImage

LEFT = Qt.MouseButton.LeftButton
SHIFT = Qt.KeyboardModifier.ShiftModifier
NONE = Qt.KeyboardModifier.NoModifier
PANORAMA = (3760, 480)


def image(width: int, height: int) -> QImage:
    img = QImage(width, height, QImage.Format.Format_RGB888)
    img.fill(QColor(90, 100, 110))
    return img


@pytest.fixture
def canvas(qtbot):
    c = StudyImage()
    qtbot.addWidget(c)
    c.resize(900, 400)
    c.show()
    qtbot.waitExposed(c)
    return c


def widget_point(canvas: StudyImage, x: float, y: float):
    point = canvas.panorama.scene_to_widget(x, y).toPoint()
    assert canvas.panorama.view.viewport().rect().contains(point), (x, y)  # on screen
    return point


def press_and_move(qtbot, canvas: StudyImage, start, end, modifier=NONE) -> None:
    viewport = canvas.panorama.view.viewport()
    a, b = widget_point(canvas, *start), widget_point(canvas, *end)
    qtbot.mousePress(viewport, LEFT, modifier, a)
    qtbot.mouseMove(viewport, (a + b) / 2)
    qtbot.mouseMove(viewport, b)


def release(qtbot, canvas: StudyImage, end, modifier=NONE) -> None:
    viewport = canvas.panorama.view.viewport()
    qtbot.mouseRelease(viewport, LEFT, modifier, widget_point(canvas, *end))


def drag(qtbot, canvas: StudyImage, start, end, modifier=NONE) -> None:
    press_and_move(qtbot, canvas, start, end, modifier)
    release(qtbot, canvas, end, modifier)


def test_a_drag_draws_the_answer_box_and_shift_adds_one(qtbot, canvas):
    canvas.set_image(image(256, 256), "Top-down image of scene #1")
    canvas.set_drawing(True)
    assert canvas.caption.text() == "Top-down image of scene #1"
    assert canvas.panorama.wrap_margin == 0  # a flat image
    with qtbot.waitSignal(canvas.box_drawn, timeout=1000) as drawn:
        drag(qtbot, canvas, (180, 150), (60, 40))
    box, added = drawn.args
    assert added is False
    assert box == pytest.approx([60, 40, 120, 110], abs=2)
    with qtbot.waitSignal(canvas.box_drawn, timeout=1000) as drawn:
        drag(qtbot, canvas, (200, 200), (255.5, 255.5), SHIFT)  # to the corner, Shift held
    box, added = drawn.args
    assert added is True
    assert box[0] + box[2] <= 256 and box[1] + box[3] <= 256  # inside the image
    assert box[:2] == pytest.approx([200, 200], abs=2)


def test_a_box_is_drawn_across_a_panoramas_seam(qtbot, canvas):
    canvas.set_image(image(*PANORAMA), "synthetic-cafe_0, frame 000000.jpg", panorama=True)
    canvas.set_drawing(True)
    assert canvas.panorama.wrap_margin == WRAP_MARGIN
    view = canvas.panorama.view
    canvas.panorama.zoom_by(3.0)
    view.horizontalScrollBar().setValue(view.horizontalScrollBar().maximum())  # to the seam
    press_and_move(qtbot, canvas, (3600, 100), (3800, 300))  # 40 px past the seam
    previews = [item.rect() for item in canvas.gesture.previews if item.isVisible()]
    assert sorted(round(r.x()) for r in previews) == [
        pytest.approx(3600 - PANORAMA[0], abs=3),
        pytest.approx(3600, abs=3),
        pytest.approx(3600 + PANORAMA[0], abs=3),
    ]  # the box, and its copies one panorama width to either side
    with qtbot.waitSignal(canvas.box_drawn, timeout=1000) as drawn:
        release(qtbot, canvas, (3800, 300))
    box, _added = drawn.args
    assert box[0] == pytest.approx(3600, abs=3) and box[2] == pytest.approx(200, abs=4)
    assert box[0] + box[2] > PANORAMA[0]  # stored as JRDB stores a box across the seam
    assert not any(item.isVisible() for item in canvas.gesture.previews)


def test_the_drawn_boxes_are_shown_and_replaced(canvas):
    canvas.set_image(image(*PANORAMA), "a frame", panorama=True)
    scene = canvas.panorama.scene
    empty = len(scene.items())
    canvas.show_boxes([[3700.0, 100.0, 120.0, 200.0], [100.0, 50.0, 40.0, 40.0]])
    rects = sorted((r.x(), r.y()) for r in (i.rect() for i in canvas.gesture.box_items))
    assert rects == [
        (-3660.0, 50.0),
        (-60.0, 100.0),  # the part past the seam, at the left edge
        (100.0, 50.0),
        (3700.0, 100.0),
        (3860.0, 50.0),
        (7460.0, 100.0),
    ]
    assert len(scene.items()) == empty + 6
    canvas.show_boxes([])
    assert canvas.gesture.box_items == [] and len(scene.items()) == empty
    canvas.set_image(image(256, 256), "flat")
    canvas.show_boxes([[10.0, 10.0, 50.0, 50.0]])
    assert [i.rect().x() for i in canvas.gesture.box_items] == [10.0]  # one copy on a flat image


def test_with_drawing_off_a_drag_pans_and_draws_nothing(qtbot, canvas):
    canvas.set_image(image(*PANORAMA), "a frame", panorama=True)
    canvas.set_drawing(False)
    viewport = canvas.panorama.view.viewport()
    assert viewport.cursor().shape() == Qt.CursorShape.OpenHandCursor
    canvas.panorama.zoom_by(4.0)
    bar = canvas.panorama.view.horizontalScrollBar()
    before = bar.value()
    with qtbot.assertNotEmitted(canvas.box_drawn):
        drag(qtbot, canvas, (1900, 240), (1800, 240))
    assert bar.value() > before  # dragged left: what is further right shows
    canvas.set_drawing(True)
    assert viewport.cursor().shape() == Qt.CursorShape.CrossCursor
    assert not canvas.gesture.press(QPointF(100, 600), NONE)  # below the image: no box


def test_no_image_shows_a_blank_flat_page_with_its_caption(canvas):
    canvas.set_image(None, "This question has no image.", panorama=True)
    assert canvas.caption.text() == "This question has no image."
    assert canvas.panorama.wrap_margin == 0 and not canvas.panorama.has_image
