"""The lidar calibration dialog: the stored poses shown in metres and degrees, edited from
the keyboard, Apply hands them on in radians, Revert goes back to the stored ones."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from annotation.jrdb.dataset import Calibration
from app.demo.jrdb_synth import TRUE_CALIBRATION
from widgets.jrdb.calibration_dialog import AXES, SENSORS, CalibrationDialog

LEFT = Qt.MouseButton.LeftButton


def poses_of(calibration: Calibration):
    return {s: (calibration.pose(s).translation, calibration.pose(s).rotation) for s in SENSORS}


@pytest.fixture
def dialog(qtbot):
    d = CalibrationDialog()
    qtbot.addWidget(d)
    d.set_values(poses_of(TRUE_CALIBRATION))
    d.show()
    qtbot.waitExposed(d)
    return d


def type_into(qtbot, dialog: CalibrationDialog, sensor: str, name: str, text: str) -> None:
    line = dialog.spins[(sensor, name)].lineEdit()
    line.selectAll()
    qtbot.keyClicks(line, text)
    qtbot.keyClick(line, Qt.Key.Key_Tab)  # leaving the field takes the value


def test_the_stored_poses_are_shown_in_metres_and_degrees(dialog):
    assert dialog.spins[("lower", "x")].value() == pytest.approx(0.02)
    assert dialog.spins[("lower", "z")].value() == pytest.approx(0.45)
    assert dialog.spins[("upper", "z")].value() == pytest.approx(-0.35)
    assert dialog.spins[("upper", "yaw")].value() == pytest.approx(math.degrees(0.08), abs=0.01)
    assert dialog.spins[("lower", "yaw")].value() == pytest.approx(math.degrees(-0.03), abs=0.01)
    assert len(dialog.spins) == 12  # x, y, z, roll, pitch, yaw of each lidar
    dialog.set_values({"upper": ((0, 0, 0), (0, 0, 2 * math.pi + 0.1))})  # a whole turn more
    assert dialog.spins[("upper", "yaw")].value() == pytest.approx(math.degrees(0.1), abs=0.01)


def test_apply_hands_on_the_edited_poses_in_radians(qtbot, dialog):
    type_into(qtbot, dialog, "lower", "x", "0.52")
    type_into(qtbot, dialog, "lower", "yaw", "8.28")
    with qtbot.waitSignal(dialog.applied, timeout=1000) as applied:
        qtbot.mouseClick(dialog.apply_button, LEFT)
    poses = applied.args[0]
    assert set(poses) == set(SENSORS)
    translation, rotation = poses["lower"]
    assert translation == pytest.approx((0.52, 0.0, 0.45))
    assert rotation == pytest.approx((0.0, 0.0, math.radians(8.28)))
    assert poses["upper"][0] == pytest.approx(TRUE_CALIBRATION.upper.translation)
    assert poses["upper"][1] == pytest.approx(TRUE_CALIBRATION.upper.rotation, abs=1e-4)
    # what the mode stores from them: the calibration with the new lower pose
    stored = TRUE_CALIBRATION.with_pose("lower", translation=translation, rotation=rotation)
    assert stored.lower.origin()[0] != pytest.approx(TRUE_CALIBRATION.lower.origin()[0])


def test_revert_goes_back_to_the_stored_values(qtbot, dialog):
    type_into(qtbot, dialog, "upper", "z", "-1.2")
    type_into(qtbot, dialog, "upper", "roll", "3")
    assert dialog.spins[("upper", "z")].value() == pytest.approx(-1.2)
    buttons = dialog.findChild(QDialogButtonBox)
    revert = buttons.button(QDialogButtonBox.StandardButton.Reset)
    assert revert.text() == "Revert"
    qtbot.mouseClick(revert, LEFT)
    assert dialog.spins[("upper", "z")].value() == pytest.approx(-0.35)
    assert dialog.spins[("upper", "roll")].value() == 0.0
    assert [dialog.values()["upper"][0][i] for i in range(3)] == pytest.approx([0.0, 0.0, -0.35])
    assert AXES == ("x", "y", "z")


def test_close_hides_it_without_applying(qtbot, dialog):
    close = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close)
    with qtbot.assertNotEmitted(dialog.applied), qtbot.waitSignal(dialog.rejected, timeout=1000):
        qtbot.mouseClick(close, LEFT)
    assert not dialog.isVisible()
