"""The activity panel: the project's audit log, newest first."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtWidgets import QHeaderView, QTableView, QVBoxLayout, QWidget

from widgets.table_model import RowTableModel

if TYPE_CHECKING:  # a type only: the window shows this panel before any project is read
    from annotation.models import AuditEntry

_Index = QModelIndex | QPersistentModelIndex


class AuditTableModel(RowTableModel):
    """A read-only table adapter over a list of `AuditEntry`."""

    HEADERS = ("When (UTC)", "Who", "Action", "What", "Detail")

    def row_list(self):
        return self._entries

    def __init__(self, entries: list[AuditEntry] | None = None) -> None:
        super().__init__()
        self._entries: list[AuditEntry] = list(entries or [])

    def set_entries(self, entries: list[AuditEntry]) -> None:
        self.beginResetModel()
        self._entries = list(entries)
        self.endResetModel()

    def entry(self, row: int) -> AuditEntry:
        return self._entries[row]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role not in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.ToolTipRole,
        ):
            return None
        e = self._entries[index.row()]
        detail = ", ".join(f"{k}={v}" for k, v in e.detail.items())
        values = (
            e.at[:19].replace("T", " "),
            e.annotator or "(system)",
            e.action,
            f"{e.table} #{e.row_id}",
            detail,
        )
        return values[index.column()]


class ActivityPanel(QWidget):
    """Shows the latest changes from an entries source (e.g. `AuditRepository.recent`)."""

    def __init__(
        self, source: Callable[[], list[AuditEntry]] | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._source = source
        self.model = AuditTableModel()
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)

    def sizeHint(self) -> QSize:  # noqa: N802 - a short strip under the mode's main view
        return QSize(720, 190)

    def set_source(self, source: Callable[[], list[AuditEntry]] | None) -> None:
        self._source = source
        self.refresh()

    def refresh(self) -> None:
        self.model.set_entries(self._source() if self._source else [])
