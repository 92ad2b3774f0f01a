"""The HOI labels panel: the selected person's labels in this frame, with difficulty, target,
author and review status; the difficulty new labels get; copying along the track; progress.

It reads a `HoiState` on its signals and writes only through its methods. The
label keys themselves are the mode's "HOI labels" toolbar (one action a label).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from annotation.jrdb.hoi_review import ACCEPTED, HALF, RETURNED, REVIEW, UNREVIEWED, LabelRecord
from annotation.models import HOI_DIFFICULTIES
from widgets.hoi.state import HoiState
from widgets.hoi.targets import TargetChooser

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
        self.targets = QListWidget()  # while a label waits for its target: the nearest objects
        self.targets.setObjectName("hoi_target_list")
        self.targets.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.targets.itemClicked.connect(
            lambda item: self.chooser.take(item.data(Qt.ItemDataRole.UserRole))
        )
        self.targets.hide()
        self.chooser.changed.connect(self._show_targets)
        self.list = QListWidget()
        self.list.setObjectName("hoi_label_list")
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the mode's actions
        self.list.itemClicked.connect(self._clicked)
        self.empty = QLabel(wordWrap=True)
        self.empty.setStyleSheet("color: #666")

        self.difficulty = QButtonGroup(self)
        row = QHBoxLayout()
        row.addWidget(QLabel("Difficulty:"))
        for level, words in HOI_DIFFICULTIES.items():
            button = QPushButton(f"{level} {words}", checkable=True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self.difficulty.addButton(button, level)
            row.addWidget(button)
        self.difficulty.idClicked.connect(state.set_difficulty)

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

    # -- reading the state ----------------------------------------------------------------
    def _show_labels(self) -> None:
        state = self.state
        own = state.annotator.id if state.annotator else None
        self.list.clear()
        for record in state.labels:
            item = QListWidgetItem(describe_label(state, record, own_id=own))
            item.setData(Qt.ItemDataRole.UserRole, record.id)
            if record.label.annotator_id != own:  # someone else's: review it, do not edit
                item.setForeground(Qt.GlobalColor.darkGray)
            tips = [f"#{record.id}, by {record.author_name}, round {record.round}"]
            tips += [f"{r.reviewer_name}: {r.verdict} {r.comment}" for r in record.current(REVIEW)]
            item.setToolTip("\n".join(tips) if record.status == RETURNED else tips[0])
            self.list.addItem(item)
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
        for row in range(self.list.count()):
            item = self.list.item(row)
            item.setSelected(item.data(Qt.ItemDataRole.UserRole) == label_id)
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
        self.targets.clear()
        for entity_id, distance in chooser.candidates:
            item = QListWidgetItem(chooser.describe(entity_id, distance))
            item.setData(Qt.ItemDataRole.UserRole, entity_id)
            self.targets.addItem(item)
        if 0 <= chooser.index < self.targets.count():
            self.targets.item(chooser.index).setSelected(True)
            self.targets.scrollToItem(self.targets.item(chooser.index))
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

    def _clicked(self, item: QListWidgetItem) -> None:
        self.state.select_label(item.data(Qt.ItemDataRole.UserRole))
