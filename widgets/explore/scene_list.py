"""The scene list with its filters (object count, seed)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from sim.robotiq import model_for_asset
from widgets.explore.state import ExploreState, SceneFilter
from widgets.table_model import RowTableModel

_Index = QModelIndex | QPersistentModelIndex


class SceneTableModel(RowTableModel):
    HEADERS = ("Scene", "Seed", "Objects")

    def row_list(self):
        return self.state.scenes

    def __init__(self, state: ExploreState) -> None:
        super().__init__()
        self.state = state
        state.scenes_changed.connect(self.reset)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        s = self.state.scenes[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (f"#{s.id}", "" if s.seed is None else str(s.seed), str(s.object_count))[
                index.column()
            ]
        if role == Qt.ItemDataRole.ToolTipRole:
            robot = f"; the robot carries a {model_for_asset(s.gripper_asset).name}"
            return f"{s.name}, created {s.created_at[:19].replace('T', ' ')}" + (
                robot if s.gripper_asset else ""
            )
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def scene_id(self, row: int) -> int:
        return self.state.scenes[row].id


class SceneListPanel(QWidget):
    """Pick a scene; filter by object count and seed. Emits `open_requested(scene_id)`."""

    open_requested = Signal(int)

    def __init__(self, state: ExploreState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.model = SceneTableModel(state)
        self.min_objects = QSpinBox(minimum=0, maximum=15, value=0)
        self.max_objects = QSpinBox(minimum=0, maximum=15, value=15)
        self.seed = QLineEdit(placeholderText="any seed")
        self.seed.setMaximumWidth(90)
        for w in (self.min_objects, self.max_objects):
            w.setToolTip("objects in the scene")
            w.valueChanged.connect(self._apply_filter)
        self.seed.editingFinished.connect(self._apply_filter)
        filters = QHBoxLayout()
        filters.addWidget(QLabel("Objects"))
        filters.addWidget(self.min_objects)
        filters.addWidget(QLabel("to"))
        filters.addWidget(self.max_objects)
        filters.addSpacing(8)
        filters.addWidget(QLabel("Seed"))
        filters.addWidget(self.seed)
        filters.addStretch(1)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.view.setAlternatingRowColors(True)
        self.view.selectionModel().currentRowChanged.connect(self._row_changed)
        self.count_label = QLabel()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(filters)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.count_label)
        state.scenes_changed.connect(self._update_count)
        self._update_count()

    def _apply_filter(self) -> None:
        text = self.seed.text().strip()
        seed = int(text) if text.lstrip("-").isdigit() else None
        if text and seed is None:
            self.seed.setStyleSheet("color: #c0392b")
        else:
            self.seed.setStyleSheet("")
        lo, hi = self.min_objects.value(), self.max_objects.value()
        self.state.set_filter(SceneFilter(lo or None, hi if hi < 15 else None, seed))

    def _update_count(self) -> None:
        n = len(self.state.scenes)
        self.count_label.setText(f"{n} scene{'s' if n != 1 else ''}")

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.open_requested.emit(self.model.scene_id(current.row()))

    def select_row(self, row: int) -> None:
        self.view.selectRow(row)
