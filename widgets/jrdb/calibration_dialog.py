"""Adjusting the two lidars' calibration by hand (the published values misalign the sweeps).

For each lidar (upper, lower): translation x, y, z in metres and roll, pitch,
yaw in degrees, in JRDB's convention p_label = Rz(yaw) Ry(pitch) Rx(roll)
(p_sensor - translation). Apply emits `applied` with the values; the mode
saves them and reads the frame's cloud again. The dialog is not modal, so the
cloud stays in reach while someone tries values.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

SENSORS = ("upper", "lower")
AXES = ("x", "y", "z")
ANGLES = ("roll", "pitch", "yaw")

# {sensor: ((x, y, z) metres, (roll, pitch, yaw) radians)}
Poses = dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]]


class CalibrationDialog(QDialog):
    """Translation and rotation of the upper and the lower lidar."""

    applied = Signal(object)  # Poses

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("calibration_dialog")
        self.setWindowTitle("Lidar calibration")
        self.spins: dict[tuple[str, str], QDoubleSpinBox] = {}
        self.saved: Poses = {}
        row = QHBoxLayout()
        for sensor in SENSORS:
            group = QGroupBox(f"{sensor.capitalize()} lidar")
            form = QFormLayout(group)
            for axis in AXES:
                form.addRow(f"{axis} (m)", self._spin(sensor, axis, 10.0, 0.01, 3))
            for angle in ANGLES:
                form.addRow(f"{angle} (°)", self._spin(sensor, angle, 180.0, 0.1, 2))
            row.addWidget(group)
        note = QLabel(
            "p_label = Rz(yaw) Ry(pitch) Rx(roll) (p_sensor − translation). "
            "Apply saves the values with your name and shows the merged cloud again."
        )
        note.setWordWrap(True)
        self.status = QLabel("")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Apply
            | QDialogButtonBox.StandardButton.Reset
            | QDialogButtonBox.StandardButton.Close
        )
        self.apply_button = buttons.button(QDialogButtonBox.StandardButton.Apply)
        self.apply_button.clicked.connect(self.apply)
        reset = buttons.button(QDialogButtonBox.StandardButton.Reset)
        reset.setText("Revert")
        reset.setToolTip("Back to the values last saved")
        reset.clicked.connect(lambda: self.set_values(self.saved))
        buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addLayout(row)
        column.addWidget(note)
        column.addWidget(self.status)
        column.addWidget(buttons)

    def _spin(self, sensor: str, name: str, limit: float, step: float, decimals: int):
        spin = QDoubleSpinBox()
        spin.setObjectName(f"calibration_{sensor}_{name}")
        spin.setRange(-limit, limit)
        spin.setSingleStep(step)
        spin.setDecimals(decimals)
        self.spins[(sensor, name)] = spin
        return spin

    def set_values(self, poses: Poses) -> None:
        """Show (and remember, for Revert) the stored poses; rotations in radians."""
        self.saved = {s: (tuple(t), tuple(r)) for s, (t, r) in poses.items()}
        for sensor, (translation, rotation) in self.saved.items():
            for axis, value in zip(AXES, translation, strict=True):
                self.spins[(sensor, axis)].setValue(value)
            for angle, value in zip(ANGLES, rotation, strict=True):
                self.spins[(sensor, angle)].setValue(
                    math.degrees(math.remainder(value, 2 * math.pi))
                )

    def values(self) -> Poses:
        out: Poses = {}
        for sensor in SENSORS:
            translation = tuple(self.spins[(sensor, a)].value() for a in AXES)
            rotation = tuple(math.radians(self.spins[(sensor, a)].value()) for a in ANGLES)
            out[sensor] = (translation, rotation)  # type: ignore[assignment]
        return out

    def apply(self) -> None:
        self.applied.emit(self.values())
