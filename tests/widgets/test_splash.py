"""The start splash: the app's name on a calm background, a status line that paints at once."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QWidget

from widgets.icons import icon
from widgets.splash import SIZE, StartSplash, splash_pixmap


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    width, height = image.width(), image.height()
    data = np.frombuffer(image.constBits(), np.uint8, image.bytesPerLine() * height)
    return data.reshape(height, image.bytesPerLine())[:, : width * 3].reshape(height, width, 3)


def test_the_picture_has_the_icon_and_the_name_on_a_light_background(qtbot):
    image = pixels(splash_pixmap(icon("app")).toImage())
    assert image.shape[:2] == (SIZE[1], SIZE[0])
    assert tuple(image[5, 5]) == (250, 250, 252)  # the background, away from everything
    title = image[44:84, 118:330]  # where "ReasonScope" is written, dark on light
    assert (title.sum(axis=2) < 300).mean() > 0.03
    icon_area = image[44:116, 28:100]
    assert (np.abs(icon_area.astype(int) - (250, 250, 252)).sum(axis=2) > 30).mean() > 0.1


def test_say_shows_the_step_at_once_and_finish_closes_it(qtbot):
    splash = StartSplash(icon("app"))
    qtbot.addWidget(splash)
    splash.show()
    splash.say("Loading the simulator")
    assert splash.text == "Loading the simulator"
    assert splash.status.text() == "Loading the simulator"
    assert splash.isVisible()
    screen = QApplication.primaryScreen().availableGeometry()
    assert abs(splash.geometry().center().x() - screen.center().x()) <= 2  # centred
    window = QWidget()
    qtbot.addWidget(window)
    splash.finish(window)
    assert not splash.isVisible()
