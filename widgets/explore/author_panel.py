"""The Author question dock of Explore scenes: a task, the objects it is about (clicked in
the scene), tags; the checks' verdict shown in words (docs/scene-authoring.md)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

TASKS = ("count", "find", "beneath", "compare")
HINTS = {
    "count": "Click one object: the question counts every object of its kind.",
    "find": "Click the object to find (it must be hidden: at most the threshold visible).",
    "beneath": "Click the cover first, then the object hidden beneath it.",
    "compare": "Click three objects: they are lettered A, B, C in that order.",
}
NEEDED = {"count": 1, "find": 1, "beneath": 2, "compare": 3}


class AuthorPanel(QWidget):
    """Asks for one question; `submit_requested` when the author checks it."""

    add_target_requested = Signal()
    submit_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("author_panel")
        self.task = QComboBox()
        self.task.addItems([t.capitalize() for t in TASKS])
        self.hint = QLabel(wordWrap=True)
        self.targets = QListWidget()
        self.targets.setMaximumHeight(90)
        self.add_button = QPushButton("Add selected object (Ctrl+T)")
        self.add_button.clicked.connect(self.add_target_requested)
        self.clear_button = QPushButton("Clear")
        self.clear_button.clicked.connect(self.clear_targets)
        self.extreme = QComboBox()
        self.extreme.addItems(["largest", "smallest"])
        self.tags = QLineEdit()
        self.tags.setPlaceholderText("e.g. hard (comma-separated; 'authored' is added)")
        self.threshold = QDoubleSpinBox(minimum=1, maximum=50, value=10, decimals=0, suffix=" %")
        self.threshold.setToolTip("Largest visible share of the hidden evidence")
        self.submit = QPushButton("Check and add question")
        self.submit.setObjectName("author_submit")
        self.submit.clicked.connect(self.submit_requested)
        self.result = QLabel(wordWrap=True)
        self.result.setObjectName("author_result")
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button, 1)
        buttons.addWidget(self.clear_button)
        form = QFormLayout()
        form.addRow("Task", self.task)
        form.addRow(self.hint)
        form.addRow("Objects", self.targets)
        form.addRow(buttons)
        form.addRow("Asks for the", self.extreme)
        form.addRow("Tags", self.tags)
        form.addRow("Hidden at most", self.threshold)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.submit)
        layout.addWidget(self.result)
        layout.addStretch(1)
        self._form = form
        self.task.currentIndexChanged.connect(self._task_changed)
        self._task_changed()

    # -- what was asked ----------------------------------------------------------------
    def current_task(self) -> str:
        return TASKS[self.task.currentIndex()]

    def target_keys(self) -> list[str]:
        return [self.targets.item(i).data(256) for i in range(self.targets.count())]

    def tag_list(self) -> list[str]:
        return [t.strip() for t in self.tags.text().split(",") if t.strip()]

    def fraction(self) -> float:
        return self.threshold.value() / 100

    # -- changing it -------------------------------------------------------------------
    def add_target(self, key: str, label: str) -> bool:
        """Add an object (once); count and find take one, so it replaces theirs."""
        if key in self.target_keys():
            return False
        if self.targets.count() >= NEEDED[self.current_task()]:
            if NEEDED[self.current_task()] > 1:
                return False
            self.targets.clear()
        item = QListWidgetItem(
            f"{chr(65 + self.targets.count())}  {label}"
            if self.current_task() == "compare"
            else label
        )
        item.setData(256, key)
        self.targets.addItem(item)
        self.refresh()
        return True

    def clear_targets(self) -> None:
        self.targets.clear()
        self.refresh()

    def show_result(self, ok: bool, text: str) -> None:
        colour = "#1b7f3a" if ok else "#b3261e"
        self.result.setText(f'<span style="color:{colour}">{text}</span>')

    def _task_changed(self) -> None:
        task = self.current_task()
        self.hint.setText(HINTS[task])
        self._form.setRowVisible(self.extreme, task == "compare")
        self.targets.clear()
        self.result.clear()
        self.refresh()

    def refresh(self) -> None:
        need = NEEDED[self.current_task()]
        self.submit.setEnabled(self.targets.count() == need)
        self.submit.setToolTip("" if self.targets.count() == need else f"Click {need} object(s)")
