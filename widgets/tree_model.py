"""The part every two-level tree model shares: top-level rows (headings), each with its
rows, and column headers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtGui import QFont

from widgets.table_model import Index


def bold_font() -> QFont:
    """The font of a heading (the view's own, bold)."""
    font = QFont()
    font.setBold(True)
    return font


class GroupTreeModel(QAbstractItemModel):
    """Headings with rows under them; subclasses give HEADERS, `group_sizes`, `heading_data`
    and `row_data`. A heading is enabled but not selectable.

    A heading's index has internal id 0, a row's the number of its heading + 1."""

    HEADERS: tuple[str, ...] = ()

    def group_sizes(self) -> Sequence[int]:
        """How many rows each heading has, top to bottom (one number a heading)."""
        raise NotImplementedError

    def heading_data(self, group: int, column: int, role: int) -> Any:
        raise NotImplementedError

    def row_data(self, group: int, row: int, column: int, role: int) -> Any:
        raise NotImplementedError

    def row_index(self, group: int, row: int, column: int = 0) -> QModelIndex:
        """The index of row `row` under heading `group`."""
        return self.createIndex(row, column, group + 1)

    @staticmethod
    def group_of(index: Index) -> int | None:
        """The heading a row is under (None: the index is a heading)."""
        return index.internalId() - 1 if index.internalId() else None

    def reset(self) -> None:
        self.beginResetModel()
        self.endResetModel()

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0)
        return self.row_index(parent.row(), row, column)

    def parent(self, child: Index) -> QModelIndex:  # type: ignore[override]
        group = self.group_of(child) if child.isValid() else None
        return QModelIndex() if group is None else self.createIndex(group, 0, 0)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        if not parent.isValid():
            return len(self.group_sizes())
        if self.group_of(parent) is None and parent.column() == 0:
            return self.group_sizes()[parent.row()]
        return 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return len(self.HEADERS)

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if index.isValid() and self.group_of(index) is None:
            return Qt.ItemFlag.ItemIsEnabled
        return super().flags(index)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        group = self.group_of(index)
        if group is None:
            return self.heading_data(index.row(), index.column(), role)
        return self.row_data(group, index.row(), index.column(), role)
