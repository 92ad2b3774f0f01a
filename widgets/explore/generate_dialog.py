"""Explore scenes > Generate scenes…: how many seeded scenes, from which seed, with how many
objects, and on how many workers (docs/scale-out.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sim.robotiq import DEFAULT_GRIPPER, GRIPPERS


@dataclass(frozen=True)
class SceneBatch:
    """What to generate: seeds seed .. seed + n - 1, as `reasonscope scenes generate`."""

    n: int
    seed: int
    objects: tuple[int, int]
    gripper: str
    workers: int
    ray_address: str | None
    resume: bool

    def command(self) -> str:
        """The same batch as a command line, for scripts and clusters."""
        lo, hi = self.objects
        parts = [
            f"reasonscope scenes generate --n {self.n} --seed {self.seed}",
            f"--objects {lo}-{hi}",
            f"--gripper {self.gripper}",
        ]
        if self.workers > 1:
            parts.append(f"--workers {self.workers}")
        if self.ray_address:
            parts.append(f"--ray-address {self.ray_address}")
        if self.resume:
            parts.append("--resume")
        return " ".join(parts)


class GenerateScenesDialog(QDialog):
    """Ask for a scene batch; `batch()` is the answer once accepted."""

    def __init__(self, parent: QWidget | None = None, *, next_seed: int = 0) -> None:
        super().__init__(parent)
        self.setObjectName("generate_scenes_dialog")
        self.setWindowTitle("Generate scenes")
        self.n = QSpinBox(minimum=1, maximum=100_000, value=20)
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1, value=next_seed)
        self.low = QSpinBox(minimum=1, maximum=15, value=8)
        self.high = QSpinBox(minimum=1, maximum=15, value=15)
        self.low.valueChanged.connect(lambda v: self.high.setValue(max(v, self.high.value())))
        self.high.valueChanged.connect(lambda v: self.low.setValue(min(v, self.low.value())))
        self.gripper = QComboBox()
        for key, model in GRIPPERS.items():
            self.gripper.addItem(model.name, key)
        self.gripper.setCurrentIndex(list(GRIPPERS).index(DEFAULT_GRIPPER))
        self.workers = QSpinBox(minimum=1, maximum=1024, value=1)
        self.workers.setToolTip(
            f"1: in this process. More: a local Ray with that many CPUs "
            f"(this machine has {os.cpu_count()})"
        )
        self.address = QLineEdit(placeholderText="none: this machine")
        self.address.setToolTip("An existing Ray cluster ('auto': the one `ray start` made here)")
        self.resume = QCheckBox("Skip seeds that already have a scene")
        objects = QHBoxLayout()
        objects.addWidget(self.low)
        objects.addWidget(QLabel("to"))
        objects.addWidget(self.high)
        objects.addStretch(1)
        form = QFormLayout()
        form.addRow("Scenes", self.n)
        form.addRow("First seed", self.seed)
        form.addRow("Objects", objects)
        form.addRow("Gripper", self.gripper)
        form.addRow("Workers", self.workers)
        form.addRow("Ray cluster", self.address)
        form.addRow("", self.resume)
        hint = QLabel(
            "Each scene is stored as soon as it is settled and checked; cancelling "
            "keeps the scenes made so far."
        )
        hint.setWordWrap(True)
        hint.setObjectName("hint")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Generate")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(hint)
        layout.addWidget(buttons)

    def batch(self) -> SceneBatch:
        return SceneBatch(
            n=self.n.value(),
            seed=self.seed.value(),
            objects=(self.low.value(), self.high.value()),
            gripper=self.gripper.currentData(),
            workers=self.workers.value(),
            ray_address=self.address.text().strip() or None,
            resume=self.resume.isChecked(),
        )
