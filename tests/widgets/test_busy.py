"""A view's stand-in while its content is made: centred light text on the viewport's dark."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from widgets.busy import OpeningPage, busy_page

BACKGROUND = (0x2A, 0x2D, 0x33)


def pixels(widget) -> np.ndarray:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    rows = [
        np.frombuffer(image.constScanLine(y), np.uint8, image.width() * 3).reshape(-1, 3)
        for y in range(image.height())
    ]
    return np.stack(rows)


def test_the_page_is_named_centred_and_wraps(qtbot):
    page = busy_page("verify_busy")
    qtbot.addWidget(page)
    assert page.objectName() == "verify_busy"
    assert page.alignment() == Qt.AlignmentFlag.AlignCenter
    assert page.wordWrap()


def test_it_draws_light_text_in_the_middle_of_a_dark_page(qtbot):
    page = busy_page("explore_busy")
    qtbot.addWidget(page)
    page.resize(400, 200)
    page.setText("Restoring scene 3…")
    rgb = pixels(page)
    assert tuple(rgb[2, 2]) == BACKGROUND and tuple(rgb[-3, -3]) == BACKGROUND
    light = rgb.min(axis=2) > 150
    rows, cols = np.nonzero(light)
    assert light.sum() > 50  # the words are drawn ...
    assert abs(rows.mean() - 100) < 15 and abs(cols.mean() - 200) < 40  # ... in the middle
    page.setText("")
    assert not (pixels(page).min(axis=2) > 150).any()


def test_an_opening_page_says_once_that_it_is_on_screen(qtbot):
    page = OpeningPage("verify_opening", "Opening Verify questions…")
    qtbot.addWidget(page)
    told = []
    page.painted.connect(lambda: told.append(page.was_painted))
    assert page.objectName() == "verify_opening" and page.text() == "Opening Verify questions…"
    assert not page.was_painted  # built, not shown: nothing is said yet
    page.resize(400, 200)
    with qtbot.waitSignal(page.painted, timeout=5000):
        page.show()
    assert told == [True]
    page.repaint()
    qtbot.wait(50)
    assert told == [True]  # only the first paint
    rgb = pixels(page)
    assert tuple(rgb[2, 2]) == BACKGROUND and (rgb.min(axis=2) > 150).sum() > 50
