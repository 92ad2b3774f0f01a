"""The Author question dock of Explore scenes: a task, the objects it is about (clicked in
the scene), tags; the checks' verdict shown in words (docs/scene-authoring.md).

The objects are a list view of `AuthorTargetModel`, a model of the (key, name) pairs
clicked so far."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from widgets.table_model import RowListModel

TASKS = ("count", "find", "beneath", "compare")
HINTS = {
    "count": "Click one object: the question counts every object of its kind.",
    "find": "Click the object to find (it must be hidden: at most the threshold visible).",
    "beneath": "Click the cover first, then the object hidden beneath it.",
    "compare": "Click three objects: they are lettered A, B, C in that order.",
}
NEEDED = {"count": 1, "find": 1, "beneath": 2, "compare": 3}
KEY_ROLE = Qt.ItemDataRole.UserRole


class AuthorTargetModel(RowListModel):
    """The objects a question is about, in the order they were added: (key, name) pairs in
    `targets`, one row each, showing the name (lettered A, B, C… when `lettered`: a Compare
    question) with the key in KEY_ROLE."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.targets: list[tuple[str, str]] = []
        self.lettered = False

    def keys(self) -> list[str]:
        return [key for key, _name in self.targets]

    def add(self, key: str, name: str) -> None:
        row = len(self.targets)
        self.beginInsertRows(QModelIndex(), row, row)
        self.targets.append((key, name))
        self.endInsertRows()

    def clear(self, lettered: bool | None = None) -> None:
        """No objects (and, given, whether the rows are lettered from now on)."""
        self.beginResetModel()
        self.targets = []
        if lettered is not None:
            self.lettered = lettered
        self.endResetModel()

    def row_list(self) -> list[tuple[str, str]]:
        return self.targets

    def row_data(self, r: int, row: tuple[str, str], role: int) -> Any:
        key, name = row
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{chr(65 + r)}  {name}" if self.lettered else name
        return key if role == KEY_ROLE else None


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
        self.target_model = AuthorTargetModel(self)
        self.targets = QListView()
        self.targets.setModel(self.target_model)
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
        return self.target_model.keys()

    def tag_list(self) -> list[str]:
        return [t.strip() for t in self.tags.text().split(",") if t.strip()]

    def fraction(self) -> float:
        return self.threshold.value() / 100

    # -- changing it -------------------------------------------------------------------
    def add_target(self, key: str, label: str) -> bool:
        """Add an object (once); count and find take one, so it replaces theirs."""
        if key in self.target_keys():
            return False
        if len(self.target_model.targets) >= NEEDED[self.current_task()]:
            if NEEDED[self.current_task()] > 1:
                return False
            self.target_model.clear()
        self.target_model.add(key, label)
        self.refresh()
        return True

    def clear_targets(self) -> None:
        self.target_model.clear()
        self.refresh()

    def show_result(self, ok: bool, text: str) -> None:
        colour = "#1b7f3a" if ok else "#b3261e"
        self.result.setText(f'<span style="color:{colour}">{text}</span>')

    def _task_changed(self) -> None:
        task = self.current_task()
        self.hint.setText(HINTS[task])
        self._form.setRowVisible(self.extreme, task == "compare")
        self.target_model.clear(lettered=task == "compare")
        self.result.clear()
        self.refresh()

    def refresh(self) -> None:
        need, have = NEEDED[self.current_task()], len(self.target_model.targets)
        self.submit.setEnabled(have == need)
        self.submit.setToolTip("" if have == need else f"Click {need} object(s)")
