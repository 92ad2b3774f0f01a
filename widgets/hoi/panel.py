"""The HOI labels panel: the selected person's labels in this frame, with difficulty, target,
author and review status; the difficulty new labels get; copying along the track; progress.

It reads a `HoiState` on its signals and writes only through its methods. The
label keys themselves are the mode's "HOI labels" toolbar (one action a label). Its
two lists are views of models over the state: `LabelListModel` (the person's labels)
and `TargetListModel` (the objects offered as a waiting label's target).
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QAbstractListModel, QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QListView,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from annotation.jrdb.hoi_review import ACCEPTED, HALF, RETURNED, REVIEW, UNREVIEWED, LabelRecord
from annotation.models import HOI_DIFFICULTIES
from widgets.hoi.state import HoiState
from widgets.hoi.targets import TargetChooser
from widgets.table_model import RowListModel

ID_ROLE = Qt.ItemDataRole.UserRole  # a label's id, a target's entity id

STATUS_WORDS = {
    UNREVIEWED: "not reviewed",
    HALF: "1 of 2 reviews",
    ACCEPTED: "accepted ✓✓",
    RETURNED: "returned ✗",
}
BANNER_STYLE = "padding: 4px 8px; background: #fff4d6; color: #5a4300;"


def status_text(record: LabelRecord) -> str:
    """A label's review status in words, with its round once it has been returned."""
    words = STATUS_WORDS[record.status]
    return words + (f" (round {record.round})" if record.round > 1 else "")


def describe_label(state: HoiState, record: LabelRecord, *, own_id: int | None) -> str:
    """One row: key, label, target, difficulty, author, review status."""
    label = record.label
    kind = state.taxonomy.label(label.predicate)
    key = f"{kind.key}  " if kind else ""
    target = f" → {state.view.label(label.object_entity_id)}" if label.object_entity_id else ""
    author = "you" if label.annotator_id == own_id else (record.author_name or "someone")
    difficulty = f"{label.difficulty} {HOI_DIFFICULTIES[label.difficulty]}"
    return (
        f"{key}{state.taxonomy.words(label.predicate)}{target}  ·  {difficulty}  ·  "
        f"{status_text(record)}  ·  {author}"
    )


class LabelListModel(RowListModel):
    """The selected person's labels in this frame (`HoiState.labels`), one row a label: its
    words, its id (ID_ROLE), dark grey when someone else's (review it, do not edit), who
    wrote it and, once returned, the reviews in the tooltip."""

    def __init__(self, state: HoiState, parent: Any = None) -> None:
        super().__init__(parent)
        self.state = state
        # the rows: `state.labels` (the state's own records) when last refreshed; the state
        # computes that list, so the model keeps the one its views were told about
        self.records: list[LabelRecord] = []

    def refresh(self) -> None:
        """Read the labels again (on `HoiState.labels_changed`)."""
        self.beginResetModel()
        self.records = self.state.labels
        self.endResetModel()

    def row_list(self) -> list[LabelRecord]:
        return self.records

    def row_of(self, label_id: object) -> int:
        """The row of the label with this id, or -1."""
        return next((r for r, record in enumerate(self.records) if record.id == label_id), -1)

    def row_data(self, r: int, record: LabelRecord, role: int) -> Any:
        state = self.state
        own = state.annotator.id if state.annotator else None
        if role == Qt.ItemDataRole.DisplayRole:
            return describe_label(state, record, own_id=own)
        if role == ID_ROLE:
            return record.id
        if role == Qt.ItemDataRole.ForegroundRole and record.label.annotator_id != own:
            return QBrush(Qt.GlobalColor.darkGray)
        if role == Qt.ItemDataRole.ToolTipRole:
            tips = [f"#{record.id}, by {record.author_name}, round {record.round}"]
            tips += [f"{r.reviewer_name}: {r.verdict} {r.comment}" for r in record.current(REVIEW)]
            return "\n".join(tips) if record.status == RETURNED else tips[0]
        return None


class TargetListModel(RowListModel):
    """The objects offered as the waiting label's target (`TargetChooser.candidates`),
    nearest the person first: name and distance, the entity id in ID_ROLE."""

    def __init__(self, chooser: TargetChooser, parent: Any = None) -> None:
        super().__init__(parent)
        self.chooser = chooser

    def refresh(self) -> None:
        """Read the candidates again (on `TargetChooser.changed`)."""
        self.reset()

    def row_list(self) -> list[tuple[int, float]]:
        return self.chooser.candidates

    def row_data(self, r: int, row: tuple[int, float], role: int) -> Any:
        entity_id, distance = row
        if role == Qt.ItemDataRole.DisplayRole:
            return self.chooser.describe(entity_id, distance)
        if role == ID_ROLE:
            return entity_id
        return None


def list_view(name: str, model: QAbstractListModel) -> QListView:
    """A list the keyboard never enters (keys stay with the mode's actions)."""
    view = QListView()
    view.setObjectName(name)
    view.setModel(model)
    view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    return view


class HoiPanel(QWidget):
    """The current person's HOI labels and the controls that act on them."""

    def __init__(self, state: HoiState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.header = QLabel(wordWrap=True)
        self.header.setObjectName("hoi_header")
        self.banner = QLabel(wordWrap=True)
        self.banner.setObjectName("hoi_pick_banner")
        self.banner.setStyleSheet(BANNER_STYLE)
        self.banner.hide()
        self.chooser = TargetChooser(state)
        # while a label waits for its target: the nearest objects
        self.target_model = TargetListModel(self.chooser, self)
        self.targets = list_view("hoi_target_list", self.target_model)
        self.targets.clicked.connect(lambda index: self.chooser.take(index.data(ID_ROLE)))
        self.targets.hide()
        self.chooser.changed.connect(self._show_targets)
        self.label_model = LabelListModel(state, self)
        self.list = list_view("hoi_label_list", self.label_model)
        self.list.clicked.connect(self._clicked)
        self.empty = QLabel(wordWrap=True)
        self.empty.setStyleSheet("color: #666")

        row = self._build_difficulty(state)
        copy = self._build_copy(state)

        self.progress = QLabel(wordWrap=True)
        self.progress.setObjectName("hoi_progress")
        self.progress.setStyleSheet("color: #444")
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.banner)
        layout.addWidget(self.targets, 3)  # the choice at hand gets the room
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty)
        layout.addLayout(row)
        layout.addLayout(copy)
        layout.addWidget(self.progress)

        state.labels_changed.connect(self._show_labels)
        state.label_selected.connect(self._show_selection)
        state.defaults_changed.connect(self._show_defaults)
        state.picking_changed.connect(self._show_picking)
        state.view.sequence_changed.connect(self.show_progress)
        self._show_labels()
        self._show_defaults()
        self.show_progress()

    def _build_difficulty(self, state: HoiState) -> QHBoxLayout:
        """Difficulty 1 / 2 / 3 as buttons (the digit keys belong to the mode's actions)."""
        self.difficulty = QButtonGroup(self)
        row = QHBoxLayout()
        row.addWidget(QLabel("Difficulty:"))
        for level, words in HOI_DIFFICULTIES.items():
            button = QPushButton(f"{level} {words}", checkable=True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self.difficulty.addButton(button, level)
            row.addWidget(button)
        self.difficulty.idClicked.connect(state.set_difficulty)
        return row

    def _build_copy(self, state: HoiState) -> QHBoxLayout:
        """Copy the selected label back or forward along the person's track."""
        copy = QHBoxLayout()
        self.count = QSpinBox(minimum=1, maximum=9999, value=state.propagate_count)
        self.count.setObjectName("hoi_propagate_count")
        self.count.setSuffix(" frames")
        self.count.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.count.valueChanged.connect(state.set_propagate_count)
        self.count.editingFinished.connect(self.count.clearFocus)  # digits set difficulty again
        back = QPushButton("◀ Copy back (Ctrl+←)")
        forward = QPushButton("Copy forward (Ctrl+→) ▶")
        for button, direction in ((back, -1), (forward, 1)):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(lambda _=False, d=direction: state.propagate(d))
        copy.addWidget(back)
        copy.addWidget(self.count)
        copy.addWidget(forward)
        return copy

    # -- reading the state ----------------------------------------------------------------
    def _show_labels(self) -> None:
        state = self.state
        self.label_model.refresh()
        view, person = state.view, state.person
        frame = view.frame
        if frame is None:
            self.header.setText("No sequence open.")
        else:
            who = view.label(person) if person is not None else "nobody selected"
            self.header.setText(
                f"<b>{html.escape(who)}</b> — frame {frame.index} "
                f"({view.frame_index + 1} of {len(view.frames)})"
            )
        if person is None:
            self.empty.setText("Click a person in the image or the cloud, or press Tab.")
        elif not state.labels:
            self.empty.setText("No labels yet: press a label key (the HOI labels toolbar).")
        self.empty.setVisible(person is None or not state.labels)
        self._show_selection(state.selected_id)

    def _show_selection(self, label_id: object) -> None:
        _select_row(self.list, self.label_model.row_of(label_id))
        self._show_defaults()

    def _show_defaults(self) -> None:
        selected = self.state.selected
        level = selected.label.difficulty if selected is not None else self.state.difficulty
        button = self.difficulty.button(level)
        if button is not None and not button.isChecked():
            button.setChecked(True)
        if self.count.value() != self.state.propagate_count:
            self.count.setValue(self.state.propagate_count)

    def _show_picking(self, picking: bool) -> None:
        pending = self.state.pending
        what = f"what the person is {pending.label}" if pending else "the new target"
        self.banner.setText(
            f"Choose {what}: Tab / Shift+Tab through the objects nearest the person and "
            "Enter, a click in the list below, or a click in the image or the cloud "
            "(Esc cancels)"
        )
        self.banner.setVisible(picking)

    def _show_targets(self) -> None:
        chooser = self.chooser
        self.target_model.refresh()
        if _select_row(self.targets, chooser.index):
            self.targets.scrollTo(self.target_model.index(chooser.index))
        self.targets.setVisible(bool(chooser.candidates))

    def show_progress(self) -> None:
        """Progress of the sequence (it scans the sequence: the mode calls it when typing
        pauses, not on every key)."""
        p = self.state.progress()
        if p is None:
            self.progress.setText("")
            return
        self.progress.setText(
            f"Sequence: {p.labelled_person_frames} of {p.person_frames} person-frames labelled "
            f"({p.labelled_pct:.0f} %); {p.reviewed_twice} of {p.labels} labels reviewed twice, "
            f"{p.accepted} accepted, {p.returned} returned."
        )

    def _clicked(self, index: QModelIndex) -> None:
        self.state.select_label(index.data(ID_ROLE))


def _select_row(view: QListView, row: int) -> bool:
    """Select only `row` of a list (none when it has no such row); whether it had it."""
    selection, model = view.selectionModel(), view.model()
    if 0 <= row < model.rowCount():
        selection.select(model.index(row, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect)
        return True
    selection.clearSelection()
    return False
