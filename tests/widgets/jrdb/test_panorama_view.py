"""The stitched panorama: seam-crossing boxes at both ends, zoom, pan, clicks that pick."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage, QWheelEvent
from PySide6.QtWidgets import QApplication

from annotation.models import Box2D
from widgets.jrdb.panorama import HIGHLIGHT, PanoramaView

WIDTH, HEIGHT = 3760, 480


@pytest.fixture
def view(qtbot):
    v = PanoramaView()
    qtbot.addWidget(v)
    v.resize(1200, 200)
    image = QImage(WIDTH, HEIGHT, QImage.Format.Format_RGB888)
    image.fill(QColor(90, 90, 90))
    v.set_image(image)
    v.set_boxes(
        [
            Box2D(1, 1, 3700.0, 100.0, 120.0, 300.0),  # runs 60 px past the seam
            Box2D(2, 1, 1800.0, 80.0, 160.0, 360.0),
            Box2D(3, 1, 1850.0, 200.0, 40.0, 60.0),  # a bag in front of person 2
        ],
        {1: (200, 60, 60), 2: (60, 110, 200), 3: (60, 160, 90)},
        {1: "1", 2: "2", 3: "bag 1"},
    )
    v.show()
    qtbot.waitExposed(v)
    return v


def click(qtbot, view: PanoramaView, x: float, y: float) -> None:
    pos = view.scene_to_widget(x, y).toPoint()
    qtbot.mouseClick(view.view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def wheel(view: PanoramaView, at: QPoint, steps: int) -> None:
    """Turn the wheel `steps` notches (positive: away from the person, zooming in)."""
    for _ in range(abs(steps)):
        event = QWheelEvent(
            QPointF(at),
            QPointF(view.view.viewport().mapToGlobal(at)),
            QPoint(0, 0),
            QPoint(0, 120 if steps > 0 else -120),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(view.view.viewport(), event)


def test_a_box_past_the_seam_is_drawn_at_both_ends(view):
    rects = sorted(view.box_rects(1), key=lambda r: r.left())
    assert [(r.left(), r.right()) for r in rects] == [(-60.0, 60.0), (3700.0, 3820.0)]
    assert len(view.box_rects(2)) == 1
    # both copies pick the same person; the clip item keeps them inside the image
    assert view.entity_at(20, 200) == 1 and view.entity_at(3750, 200) == 1
    assert view.entity_at(100, 200) is None
    assert view.clip.rect().width() == WIDTH


def test_clicking_either_end_of_a_seam_box_picks_it(qtbot, view):
    picked: list[int] = []
    view.entity_clicked.connect(picked.append)
    click(qtbot, view, 30, 250)
    click(qtbot, view, 3740, 250)
    assert picked == [1, 1]


def test_the_smaller_box_wins_and_empty_image_clicks_say_so(qtbot, view):
    picked, empty = [], []
    view.entity_clicked.connect(picked.append)
    view.background_clicked.connect(lambda: empty.append(True))
    click(qtbot, view, 1870, 230)  # inside the bag and inside person 2
    click(qtbot, view, 1820, 120)  # only person 2
    click(qtbot, view, 900, 240)  # nobody
    assert picked == [3, 2] and empty == [True]


def test_fit_zoom_and_pan(qtbot, view):
    assert view.fitted
    fit = view.zoom
    assert fit == pytest.approx(view.view.viewport().width() / WIDTH, rel=0.02)
    centre = view.view.viewport().rect().center()
    wheel(view, centre, 2)
    assert view.zoom == pytest.approx(fit * 1.25**2, rel=1e-6)
    assert not view.fitted
    wheel(view, centre, -10)  # never smaller than the whole image
    assert view.zoom == pytest.approx(fit, rel=1e-6) and view.fitted
    view.zoom_by(4.0)
    bar = view.view.horizontalScrollBar()
    before, shown = bar.value(), view.visible_rect()
    assert shown.width() < WIDTH / 3
    start = view.view.viewport().rect().center()
    qtbot.mousePress(view.view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    for dx in (20, 60, 120):
        qtbot.mouseMove(view.view.viewport(), start - QPoint(dx, 0))
    qtbot.mouseRelease(view.view.viewport(), Qt.MouseButton.LeftButton, pos=start - QPoint(120, 0))
    assert bar.value() > before  # dragging left shows what is further right
    view.fit()
    assert view.zoom == pytest.approx(fit) and view.fitted


def test_selection_is_highlighted_and_scrolled_into_view(view):
    view.zoom_by(6.0)
    view.set_selected(1)
    pens = {item.pen().color().name() for item in view.items[1]}
    assert pens == {HIGHLIGHT.name()}
    assert view.items[2][0].pen().color().name() != HIGHLIGHT.name()
    visible = view.visible_rect()
    assert any(visible.intersects(r) for r in view.box_rects(1))
    view.set_selected(None)
    assert HIGHLIGHT.name() not in {item.pen().color().name() for item in view.items[1]}


def test_a_missing_image_keeps_the_boxes(view):
    view.set_image(None)
    assert not view.has_image
    assert len(view.box_rects(1)) == 2 and view.width_px == WIDTH
