"""Error labels for the current step: tick a kind from the taxonomy and it is saved at once.

The tree is the episode-error taxonomy (categories, their subcategories);
its ticks are the signed-in annotator's labels on the current step. Ticking
saves a label (with the note typed above, if any), unticking removes it. The
list below shows every label on the episode, by anyone.

A dual-arm episode (benchmark "bimanual") is offered the dual-arm paper's kinds only
(environment, perceptual reasoning, strategic planning, format errors); the MG-VQA
evidence-gathering kinds are hidden. On a step whose reply could not be read, Format Error
is marked as suggested (not ticked: a label is a person's judgement).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from annotation.bimanual.metrics import BIMANUAL_CATEGORIES, is_bimanual
from widgets.replay.state import ReplayState

PAIR_ROLE = Qt.ItemDataRole.UserRole
LABEL_ROLE = Qt.ItemDataRole.UserRole + 1
FORMAT_ERROR = ("format", "")


class ErrorLabelPanel(QWidget):
    def __init__(self, state: ReplayState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.note = QLineEdit(placeholderText="Note, saved with the next label you tick")
        self.tree = QTreeWidget()
        self.tree.setObjectName("replay_label_tree")
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setMinimumHeight(70)
        self.items: dict[tuple[str, str], QTreeWidgetItem] = {}
        self.tops: dict[str, QTreeWidgetItem] = {}
        self.suggested: tuple[str, str] | None = None
        for category in state.taxonomy.categories:
            top = QTreeWidgetItem([category.label])
            self.tops[category.id] = top
            top.setToolTip(0, f"{category.description} ({category.source})")
            self.tree.addTopLevelItem(top)
            if not category.subcategories:
                self._checkable(top, (category.id, ""))
            for sub in category.subcategories:
                child = QTreeWidgetItem([sub.label])
                child.setToolTip(0, sub.description)
                top.addChild(child)
                self._checkable(child, (category.id, sub.id))
        self.tree.expandAll()
        self.tree.itemChanged.connect(self._item_changed)
        self.existing = QListWidget()
        self.existing.setObjectName("replay_label_list")
        self.existing.setWordWrap(True)
        self.existing.setMinimumHeight(44)
        self.remove_button = QPushButton("Remove mine")
        self.remove_button.setToolTip("Take the selected label off (only your own)")
        self.remove_button.clicked.connect(self._remove_selected)
        row = QHBoxLayout()
        row.addWidget(QLabel("On this episode"))
        row.addStretch(1)
        row.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.heading)
        layout.addWidget(self.note)
        layout.addWidget(self.tree, 3)
        layout.addLayout(row)
        layout.addWidget(self.existing, 1)
        state.labels_changed.connect(self.refresh)
        state.step_changed.connect(lambda _i: self.refresh())
        state.episode_opened.connect(self.refresh)
        self.refresh()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(340, 300)

    def _checkable(self, item: QTreeWidgetItem, pair: tuple[str, str]) -> None:
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(0, Qt.CheckState.Unchecked)
        item.setData(0, PAIR_ROLE, pair)
        self.items[pair] = item

    def refresh(self) -> None:
        """Ticks from the annotator's labels on the current step; the episode's label list."""
        s = self.state
        open_ = s.episode is not None
        if not open_:
            self.heading.setText("Open an episode to label its steps.")
        elif s.annotator is None:
            self.heading.setText("Sign in to label errors.")
        else:
            self.heading.setText(
                f"Label step {s.index} as {s.annotator.name}: a tick saves, untick removes."
            )
        self.tree.setEnabled(open_ and s.annotator is not None)
        self.tree.blockSignals(True)
        try:
            self._offer_kinds()
            for pair, item in self.items.items():
                on = open_ and s.own_label(*pair) is not None
                item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        finally:
            self.tree.blockSignals(False)
        self.existing.clear()
        for label in s.labels:
            item = QListWidgetItem(s.describe_label(label))
            item.setData(LABEL_ROLE, label.id)
            if label.step_index == s.index:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.existing.addItem(item)
        if not s.labels:
            self.existing.addItem("No labels yet.")

    def _offer_kinds(self) -> None:
        """Dual-arm episodes: the paper's kinds only; a format-error step suggests its kind."""
        s = self.state
        bimanual = s.episode is not None and is_bimanual(s.episode)
        for category_id, top in self.tops.items():
            top.setHidden(bimanual and category_id not in BIMANUAL_CATEGORIES)
        step = s.step_dicts[s.index] if s.step_dicts else {}
        suggested = FORMAT_ERROR if step.get("kind") == "format_error" else None
        if suggested is not None and s.annotator is not None:
            self.heading.setText(self.heading.text() + " Suggested: Format Error.")
        if suggested == self.suggested:
            return
        for pair, on in ((self.suggested, False), (suggested, True)):
            item = self.items.get(pair) if pair else None
            if item is None:
                continue
            font = item.font(0)
            font.setBold(on)
            item.setFont(0, font)
            label = s.taxonomy.describe(*pair).split(" › ")[-1]
            item.setText(0, f"{label}  (suggested: the reply could not be read)" if on else label)
        self.suggested = suggested

    def _item_changed(self, item: QTreeWidgetItem, _column: int) -> None:
        pair = item.data(0, PAIR_ROLE)
        if not pair:
            return
        on = item.checkState(0) == Qt.CheckState.Checked
        if self.state.set_label(pair[0], pair[1], on, self.note.text()) and on:
            self.note.clear()

    def _remove_selected(self) -> None:
        item = self.existing.currentItem()
        label_id = item.data(LABEL_ROLE) if item else None
        if label_id is not None:
            self.state.remove_label(int(label_id))

    def choose(self, category: str, subcategory: str = "", on: bool = True) -> None:
        """Tick (or untick) a kind as a click on its box would."""
        self.items[(category, subcategory)].setCheckState(
            0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
        )
