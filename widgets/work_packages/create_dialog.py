"""File > Work packages > Create…: whom to send what, as `reasonscope pack create`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

ROLES = ("verifier", "reviewer", "adjudicator", "annotator", "rater", "human-baseline")
WHAT = {
    "verifier": "Pending questions (or ids, comma-separated) the person may verify",
    "adjudicator": "Questions whose two verdicts disagree, for a third person",
    "reviewer": "HOI labels the person may review (not their own; two reviewers a round)",
    "annotator": "Frames of a sequence to label",
    "rater": "Questions the person has not rated (or ids), to rate 1-5 blind: the package "
    "holds no difficulty, answer, evidence or steps, and nobody's ratings",
    "human-baseline": "JRDB questions the person has not answered (or ids), to answer as the "
    "human baseline: the package holds no answers, and nobody else's",
}
#: The roles that hand out questions; they may keep to one benchmark.
QUESTION_ROLES = ("verifier", "adjudicator", "rater", "human-baseline")
ANY_BENCHMARK = "any benchmark"
BENCHMARKS = (ANY_BENCHMARK, "jrdb", "mgvqa")
BASELINE_BENCHMARK = "jrdb"  # the human baseline answers JRDB questions only


@dataclass(frozen=True)
class PackageOrder:
    """The dialog's answer, field for field the options of `pack create`."""

    person: str
    role: str
    questions: str | None
    labels: str | None
    sequence: str | None
    frames: str | None
    limit: int | None
    out: Path
    benchmark: str | None = None

    def command(self) -> str:
        parts = [f"reasonscope pack create --for {self.person!r} --role {self.role}"]
        for flag, value in (
            ("--questions", self.questions),
            ("--benchmark", self.benchmark),
            ("--labels", self.labels),
            ("--sequence", self.sequence),
            ("--frames", self.frames),
        ):
            if value:
                parts.append(f"{flag} {value}")
        if self.limit:
            parts.append(f"--limit {self.limit}")
        parts.append(f"--out {self.out}")
        return " ".join(parts)


class CreatePackageDialog(QDialog):
    """Ask for one package: person, role, what, how many, where to write it."""

    def __init__(
        self, people: list[str], sequences: list[str], folder: Path, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("create_package_dialog")
        self.setWindowTitle("Create a work package")
        self.setMinimumWidth(520)
        self.folder = folder
        self.person = QComboBox(editable=True)
        self.person.addItems(people)
        self.person.setCurrentText("")
        self.person.lineEdit().setPlaceholderText("who works on it")
        self.role = QComboBox()
        self.role.addItems(ROLES)
        self.items = QLineEdit("pending")
        self.benchmark = QComboBox()
        self.benchmark.addItems(BENCHMARKS)
        self.sequence = QComboBox()
        self.sequence.addItems(sequences)
        self.frames = QLineEdit()
        self.frames.setPlaceholderText("A-B (all frames when empty)")
        self.limit = QSpinBox(minimum=0, maximum=1_000_000, value=0, specialValueText="no limit")
        self.out = QLineEdit()
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        out_row = QHBoxLayout()
        out_row.addWidget(self.out, 1)
        out_row.addWidget(browse)
        self.what = QLabel(wordWrap=True)
        form = QFormLayout()
        form.addRow("Person", self.person)
        form.addRow("Role", self.role)
        form.addRow("Items", self.items)
        form.addRow("Benchmark", self.benchmark)
        form.addRow("Sequence", self.sequence)
        form.addRow("Frames", self.frames)
        form.addRow("At most", self.limit)
        form.addRow("Package file", out_row)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create package")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.command = QLabel(wordWrap=True)
        self.command.setObjectName("package_command")
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.what)
        layout.addWidget(self.command)
        layout.addWidget(self.buttons)
        for signal in (
            self.person.currentTextChanged,
            self.role.currentTextChanged,
            self.items.textChanged,
            self.frames.textChanged,
            self.out.textChanged,
            self.sequence.currentTextChanged,
            self.benchmark.currentTextChanged,
        ):
            signal.connect(self._update)
        self.limit.valueChanged.connect(self._update)
        self._form = form
        self._update()

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Package file", str(self._default_out()), "Work packages (*.rspack)"
        )
        if path:
            self.out.setText(path if path.endswith(".rspack") else path + ".rspack")

    def _default_out(self) -> Path:
        person = re.sub(r"[^a-z0-9]+", "-", self.person.currentText().lower()).strip("-")
        person = person or "person"
        return self.folder / f"{person}-{self.role.currentText()}.rspack"

    def _update(self) -> None:
        role = self.role.currentText()
        frames = role == "annotator"
        for widget in (self.sequence, self.frames):
            self._form.setRowVisible(widget, frames)
        self._form.setRowVisible(self.items, not frames)
        self._form.setRowVisible(self.benchmark, role in QUESTION_ROLES)
        baseline = role == "human-baseline"
        if baseline != (not self.benchmark.isEnabled()):  # into or out of the baseline
            self.benchmark.setCurrentText(BASELINE_BENCHMARK if baseline else ANY_BENCHMARK)
        self.benchmark.setEnabled(not baseline)
        if role == "reviewer" and self.items.text() == "pending":
            self.items.setText("all")
        elif role != "reviewer" and self.items.text() == "all":
            self.items.setText("pending")
        self.what.setText(WHAT[role])
        order = self.order()
        ok = bool(order.person) and (
            frames and bool(order.sequence) or bool(order.questions or order.labels)
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)
        self.command.setText(f"Same as: {order.command()}" if ok else "")

    def order(self) -> PackageOrder:
        role = self.role.currentText()
        items = self.items.text().strip() or None
        out = self.out.text().strip()
        benchmark = self.benchmark.currentText()
        return PackageOrder(
            person=self.person.currentText().strip(),
            role=role,
            questions=items if role in QUESTION_ROLES else None,
            labels=items if role == "reviewer" else None,
            sequence=self.sequence.currentText() or None if role == "annotator" else None,
            frames=self.frames.text().strip() or None if role == "annotator" else None,
            limit=self.limit.value() or None,
            out=Path(out) if out else self._default_out(),
            benchmark=benchmark if role in QUESTION_ROLES and benchmark != ANY_BENCHMARK else None,
        )
