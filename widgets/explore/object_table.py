"""The objects of the open scene: name, category and how much of each the model sees."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtWidgets import QHeaderView, QTableView, QVBoxLayout, QWidget

from widgets.table_model import RowTableModel

_Index = QModelIndex | QPersistentModelIndex
SORT_ROLE = Qt.ItemDataRole.UserRole + 1


@dataclass(frozen=True)
class ObjectRow:
    key: str
    name: str
    category: str
    visibility: float | None  # fraction 0..1


class ObjectTableModel(RowTableModel):
    HEADERS = ("Object", "Category", "Visible")

    def row_list(self):
        return self.rows

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[ObjectRow] = []

    def set_rows(self, rows: list[ObjectRow]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r = self.rows[index.row()]
        vis = "" if r.visibility is None else f"{100 * r.visibility:.0f} %"
        if role == Qt.ItemDataRole.DisplayRole:
            return (r.name, r.category, vis)[index.column()]
        if role == SORT_ROLE:
            return (r.name, r.category, -1 if r.visibility is None else r.visibility)[
                index.column()
            ]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{r.key}: {r.name}"
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def row_of(self, key: str) -> int:
        return next((i for i, r in enumerate(self.rows) if r.key == key), -1)


class ObjectTablePanel(QWidget):
    object_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ObjectTableModel()
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(2, Qt.SortOrder.AscendingOrder)
        self.view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.view.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.view.setAlternatingRowColors(True)
        self.view.selectionModel().currentRowChanged.connect(self._row_changed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.view)
        self._quiet = False

    def sizeHint(self):  # noqa: N802
        from PySide6.QtCore import QSize

        return QSize(360, 300)

    def set_rows(self, rows: list[ObjectRow]) -> None:
        self._quiet = True
        self.model.set_rows(rows)
        self._quiet = False

    def select_key(self, key: str) -> None:
        """Select a row without announcing it (the selection came from elsewhere)."""
        self._quiet = True
        try:
            row = self.model.row_of(key)
            selection = self.view.selectionModel()
            if row < 0:
                selection.clearSelection()
                return
            index = self.proxy.mapFromSource(self.model.index(row, 0))
            selection.setCurrentIndex(
                index,
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
            self.view.scrollTo(index)
        finally:
            self._quiet = False

    def selected_key(self) -> str:
        index = self.view.selectionModel().currentIndex()
        if not index.isValid():
            return ""
        return self.model.rows[self.proxy.mapToSource(index).row()].key

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._quiet or not current.isValid():
            return
        self.object_clicked.emit(self.model.rows[self.proxy.mapToSource(current).row()].key)
