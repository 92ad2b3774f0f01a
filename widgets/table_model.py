"""The part every list-of-rows model shares: counts, bounds and (for tables) column headers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

Index = QModelIndex | QPersistentModelIndex


class RowTableModel(QAbstractTableModel):
    """A flat table over a Python sequence of rows; subclasses give HEADERS, `row_list`, `data`."""

    HEADERS: tuple[str, ...] = ()

    def row_list(self) -> Sequence[Any]:
        raise NotImplementedError

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.row_list())

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return None

    def reset(self) -> None:
        self.beginResetModel()
        self.endResetModel()


class RowListModel(QAbstractListModel):
    """A flat list over a Python sequence of rows; subclasses give `row_list` and `row_data`
    (what the row numbered `r`, holding `row`, shows for `role`)."""

    def row_list(self) -> Sequence[Any]:
        raise NotImplementedError

    def row_data(self, r: int, row: Any, role: int) -> Any:
        raise NotImplementedError

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.row_list())

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        rows = self.row_list()
        if not index.isValid() or not 0 <= index.row() < len(rows):
            return None
        return self.row_data(index.row(), rows[index.row()], role)

    def reset(self) -> None:
        self.beginResetModel()
        self.endResetModel()
