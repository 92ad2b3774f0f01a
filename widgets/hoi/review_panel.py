"""The HOI review panel: the three queues (to review, returned to me, quality check) and the
review form (your difficulty, a comment, accept or reject).

It reads a `HoiReviewState` on its signals and writes only through its
methods. The form is blind: what it shows of other reviews comes from
`visible_reviews` (everything only on one's own returned labels). The queue is a
view of `ReviewQueueModel`, a model over the open list's records.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from annotation.jrdb.hoi_review import REVIEW, LabelRecord
from annotation.models import HOI_DIFFICULTIES
from widgets.hoi.panel import ID_ROLE, list_view, status_text
from widgets.hoi.review_state import LISTS, RETURNED, HoiReviewState
from widgets.table_model import RowListModel


class ReviewQueueModel(RowListModel):
    """The open review list (`HoiReviewState.records`), one row a label: its frame, person,
    words and how far its review is (or, returned to me, its status); its id in ID_ROLE."""

    def __init__(self, review: HoiReviewState, parent: Any = None) -> None:
        super().__init__(parent)
        self.review = review
        # the rows: the open list when last refreshed (the state's own records)
        self.records: list[LabelRecord] = []

    def refresh(self) -> None:
        """Read the open list again (on `HoiReviewState.queues_changed`)."""
        self.beginResetModel()
        self.records = self.review.records
        self.endResetModel()

    def row_list(self) -> list[LabelRecord]:
        return self.records

    def row_data(self, r: int, record: LabelRecord, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return self.row_text(record)
        if role == ID_ROLE:
            return record.id
        return None

    def row_text(self, record: LabelRecord) -> str:
        review = self.review
        hoi, label = review.hoi, record.label
        done = len(record.current(REVIEW))
        state = status_text(record) if review.list_name == RETURNED else f"{done}/2 reviews"
        return (
            f"frame {record.frame_index}  {hoi.view.label(label.subject_entity_id)}: "
            f"{hoi.words(record)}  ·  {state}"
        )


class HoiReviewPanel(QWidget):
    def __init__(self, review: HoiReviewState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.review = review
        self.tabs = QTabBar()
        self.tabs.setObjectName("hoi_review_lists")
        self.tabs.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.names = list(LISTS)
        for name in self.names:
            self.tabs.addTab(LISTS[name])
        self.tabs.currentChanged.connect(lambda i: review.show_list(self.names[i]))
        self.queue = ReviewQueueModel(review, self)
        self.list = list_view("hoi_review_queue", self.queue)
        self.list.clicked.connect(lambda index: review.open_row(index.row()))

        self.title = QLabel(wordWrap=True)
        self.title.setObjectName("hoi_review_title")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.reviews = QLabel(wordWrap=True)
        self.reviews.setTextFormat(Qt.TextFormat.RichText)
        self.difficulty = QButtonGroup(self)
        row = QHBoxLayout()
        row.addWidget(QLabel("Your difficulty:"))
        for level, words in HOI_DIFFICULTIES.items():
            button = QPushButton(f"Alt+{level} {words}", checkable=True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self.difficulty.addButton(button, level)
            row.addWidget(button)
        self.difficulty.idClicked.connect(review.set_difficulty)
        self.comment = QLineEdit(placeholderText="Comment (needed to reject); Enter rejects")
        self.comment.setObjectName("hoi_review_comment")
        self.comment.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # letters are label keys
        self.comment.textEdited.connect(review.set_comment)
        self.comment.returnPressed.connect(self._reject_typed)
        buttons = QHBoxLayout()
        self.accept_button = QPushButton("Accept (A)")
        self.reject_button = QPushButton("Reject (R)")
        self.resubmit_button = QPushButton("Resubmit unchanged")
        for button, slot in (
            (self.accept_button, review.accept),
            (self.reject_button, review.reject),
            (self.resubmit_button, review.resubmit),
        ):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(slot)
            buttons.addWidget(button)

        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.title)
        layout.addWidget(self.reviews)
        layout.addLayout(row)
        layout.addWidget(self.comment)
        layout.addLayout(buttons)

        review.queues_changed.connect(self._show_lists)
        review.current_changed.connect(self._show_current)
        review.draft_changed.connect(self._show_draft)
        review.focus_requested.connect(lambda _where: self.comment.setFocus())
        self._show_lists()
        self._show_current()
        self._show_draft()

    def _reject_typed(self) -> None:
        if self.review.reject():
            self.comment.clearFocus()  # the keys label and review again

    def _show_lists(self) -> None:
        review = self.review
        for i, name in enumerate(self.names):
            self.tabs.setTabText(i, f"{LISTS[name]} ({len(review.lists[name])})")
        index = self.names.index(review.list_name)
        if self.tabs.currentIndex() != index:
            self.tabs.blockSignals(True)
            self.tabs.setCurrentIndex(index)
            self.tabs.blockSignals(False)
        self.queue.refresh()
        self._show_current()

    def _show_current(self) -> None:
        review = self.review
        row, selection = review.index, self.list.selectionModel()
        if 0 <= row < self.queue.rowCount():
            selection.select(
                self.queue.index(row), QItemSelectionModel.SelectionFlag.ClearAndSelect
            )
        else:
            selection.clearSelection()
        record = review.current
        returned = review.list_name == RETURNED
        self.resubmit_button.setVisible(returned)
        for widget in (self.accept_button, self.reject_button, self.comment):
            widget.setEnabled(record is not None and not returned)
        if record is None:
            self.title.setText("Open a label from the list (J / K).")
            self.reviews.setText("")
            return
        hoi = review.hoi
        self.title.setText(
            f"<b>{html.escape(hoi.view.label(record.label.subject_entity_id))}: "
            f"{html.escape(hoi.words(record))}</b> in frame {record.frame_index} "
            f"(label #{record.id}, round {record.round})"
        )
        lines = [
            f"<b>{html.escape(r.reviewer_name)}</b>: {r.verdict}"
            + (f" — “{html.escape(r.comment)}”" if r.comment else "")
            for r in review.visible_reviews()
        ]
        self.reviews.setText("<br>".join(lines))

    def _show_draft(self) -> None:
        draft = self.review.draft
        self.difficulty.setExclusive(False)
        for level in HOI_DIFFICULTIES:
            self.difficulty.button(level).setChecked(level == draft.difficulty)
        self.difficulty.setExclusive(True)
        if self.comment.text() != draft.comment:
            self.comment.setText(draft.comment)
