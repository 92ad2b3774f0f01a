"""The Verify questions queue: the first-round queue or the adjudication queue, as a table.

A table model over `VerifyState.questions`; clicking a row opens that question
through the state, and the state's open question stays selected here.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTabBar,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from widgets.table_model import RowTableModel
from widgets.verify.state import ADJUDICATION, QUEUE, VerifyState
from widgets.verify.text import task_words

_Index = QModelIndex | QPersistentModelIndex


class QueueTableModel(RowTableModel):
    HEADERS = ("#", "Task", "Question")

    def __init__(self, state: VerifyState) -> None:
        super().__init__()
        self.state = state
        state.queue_changed.connect(self.reset)

    def row_list(self):
        return self.state.questions

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        q = self.state.questions[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (f"{q.id}", task_words(q.task), q.text)[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"Question #{q.id} v{q.version} ({q.benchmark}): {q.text}"
        return None


class VerifyQueuePanel(QWidget):
    """The questions waiting for this annotator: first round, or adjudication (a tab)."""

    def __init__(self, state: VerifyState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.tabs = QTabBar()
        self.tabs.addTab("Queue")
        self.tabs.addTab("Adjudication")
        self.tabs.setToolTip("Your first-round queue, or disagreements awaiting a third verifier")
        self.tabs.currentChanged.connect(
            lambda i: state.show_list(ADJUDICATION if i == 1 else QUEUE)
        )
        self.model = QueueTableModel(state)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.view.setWordWrap(False)
        self.view.setAlternatingRowColors(True)
        self.view.clicked.connect(lambda index: state.open_row(index.row()))
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.tabs)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.hint)
        state.queue_changed.connect(self._update)
        state.question_opened.connect(self._select_current)
        self._update()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(330, 220)

    def _update(self) -> None:
        first, second = (len(self.state.lists[k]) for k in (QUEUE, ADJUDICATION))
        self.tabs.setTabText(0, f"Queue ({first})")
        self.tabs.setTabText(1, f"Adjudication ({second})")
        self.tabs.blockSignals(True)
        self.tabs.setCurrentIndex(1 if self.state.list_name == ADJUDICATION else 0)
        self.tabs.blockSignals(False)
        if self.state.annotator is None:
            text = "Sign in to see the questions waiting for you."
        elif not self.state.questions and self.state.list_name == ADJUDICATION:
            text = "Nothing to adjudicate for you."
        elif not self.state.questions:
            text = "Your queue is empty: every pending question has your verdict or two already."
            if second:
                text += f" {second} wait for adjudication: see the Adjudication tab."
        else:
            text = "J / ↓ next, K / ↑ previous."
        self.hint.setText(text)
        self._select_current()

    def _select_current(self) -> None:
        row = self.state.index
        if row < 0:
            self.view.clearSelection()
        else:
            self.view.selectRow(row)
            self.view.scrollTo(self.model.index(row, 0))
