"""Error labels for the current step: tick a kind from the taxonomy and it is saved at once.

The tree is the episode-error taxonomy (categories, their subcategories);
its ticks are the signed-in annotator's labels on the current step. Ticking
saves a label (with the note typed above, if any), unticking removes it. The
list below shows every label on the episode, by anyone.

A dual-arm episode (benchmark "bimanual") is offered the dual-arm paper's kinds only
(environment, perceptual reasoning, strategic planning, format errors); the MG-VQA
evidence-gathering kinds are hidden. On a step whose reply could not be read, Format Error
is marked as suggested (not ticked: a label is a person's judgement).

The tree is a view of `ErrorKindModel` (the state's taxonomy, its ticks read from the
state's labels), the list one of `EpisodeLabelModel` (the state's labels).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from annotation.bimanual.metrics import BIMANUAL_CATEGORIES, is_bimanual
from annotation.error_taxonomy import Category
from annotation.models import ErrorLabel
from widgets.replay.state import ReplayState
from widgets.table_model import Index, RowListModel
from widgets.tree_model import GroupTreeModel, bold_font

PAIR_ROLE = Qt.ItemDataRole.UserRole
LABEL_ROLE = Qt.ItemDataRole.UserRole + 1
FORMAT_ERROR = ("format", "")
SUGGESTED = "  (suggested: the reply could not be read)"
NO_LABELS = "No labels yet."


class ErrorKindModel(GroupTreeModel):
    """The error taxonomy (`ReplayState.taxonomy`) as a tree: a heading a category (its
    description and source in the tooltip), under it its subcategories (their descriptions).

    A kind one can choose (a subcategory, or a category without any) has a check box,
    ticked when the signed-in annotator has labelled the current step with it (read from
    the state), and its (category, subcategory) in PAIR_ROLE. The kind the current step
    suggests (Format Error on a reply that could not be read) is bold and says so.
    Ticking or unticking emits `chosen(category, subcategory, on)`: the panel saves it
    through the state, and the tick follows the state (`refresh`)."""

    HEADERS = ("Kind",)
    chosen = Signal(str, str, bool)

    def __init__(self, state: ReplayState, parent: Any = None) -> None:
        super().__init__(parent)
        self.state = state

    @property
    def categories(self) -> tuple[Category, ...]:
        return self.state.taxonomy.categories

    def refresh(self) -> None:
        """The ticks and the suggestion again (on a new step, episode, labels): the rows stay,
        so the views keep their expanded rows, current row and selection."""
        last = len(self.categories) - 1
        if last < 0:
            return
        self.dataChanged.emit(self.index(0, 0), self.index(last, 0))
        for group, size in enumerate(self.group_sizes()):
            if size:
                self.dataChanged.emit(self.row_index(group, 0), self.row_index(group, size - 1))

    def suggested(self) -> tuple[str, str] | None:
        """The kind the current step suggests: Format Error on a reply that could not be read."""
        s = self.state
        step = s.step_dicts[s.index] if s.step_dicts else {}
        return FORMAT_ERROR if step.get("kind") == "format_error" else None

    def pair(self, index: Index) -> tuple[str, str] | None:
        """The (category, subcategory) of a row one can tick (None: a heading with kinds)."""
        if not index.isValid():
            return None
        group = self.group_of(index)
        if group is None:
            category = self.categories[index.row()]
            return None if category.subcategories else (category.id, "")
        category = self.categories[group]
        return category.id, category.subcategories[index.row()].id

    def index_of(self, pair: tuple[str, str]) -> QModelIndex:
        """The row of a kind (a category's, for "" as the subcategory), or an invalid index."""
        category_id, sub_id = pair
        for group, category in enumerate(self.categories):
            if category.id != category_id:
                continue
            if not sub_id:
                return self.index(group, 0)
            subs = [sub.id for sub in category.subcategories]
            return self.row_index(group, subs.index(sub_id)) if sub_id in subs else QModelIndex()
        return QModelIndex()

    def check_state(self, pair: tuple[str, str]) -> Qt.CheckState:
        s = self.state
        on = s.episode is not None and s.own_label(*pair) is not None
        return Qt.CheckState.Checked if on else Qt.CheckState.Unchecked

    # -- the tree --------------------------------------------------------------------------
    def group_sizes(self) -> list[int]:
        return [len(category.subcategories) for category in self.categories]

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if self.pair(index) is not None:
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    def heading_data(self, group: int, column: int, role: int) -> Any:
        category = self.categories[group]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{category.description} ({category.source})"
        choosable = not category.subcategories
        return self._kind_data(category.label, (category.id, ""), choosable, role)

    def row_data(self, group: int, row: int, column: int, role: int) -> Any:
        category = self.categories[group]
        sub = category.subcategories[row]
        if role == Qt.ItemDataRole.ToolTipRole:
            return sub.description
        return self._kind_data(sub.label, (category.id, sub.id), True, role)

    def _kind_data(self, label: str, pair: tuple[str, str], choosable: bool, role: int) -> Any:
        """A row's text and font; a kind one can choose, its tick and its pair too."""
        suggested = choosable and pair == self.suggested()
        if role == Qt.ItemDataRole.DisplayRole:
            return label + SUGGESTED if suggested else label
        if role == Qt.ItemDataRole.FontRole:
            return bold_font() if suggested else None
        if not choosable:
            return None
        if role == Qt.ItemDataRole.CheckStateRole:
            return self.check_state(pair)
        return pair if role == PAIR_ROLE else None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        """A tick or an untick from the view: `chosen`, when it changes the kind's tick."""
        pair = self.pair(index)
        if pair is None or role != Qt.ItemDataRole.CheckStateRole:
            return False
        on = Qt.CheckState(value) == Qt.CheckState.Checked
        if on == (self.check_state(pair) == Qt.CheckState.Checked):
            return False
        self.chosen.emit(*pair, on)
        self.dataChanged.emit(index, index)
        return True


class EpisodeLabelModel(RowListModel):
    """The open episode's labels (`ReplayState.labels`, as last read by `refresh`), one row a
    label described in words, its id in LABEL_ROLE, bold when on the step shown; with none,
    one row saying so."""

    def __init__(self, state: ReplayState, parent: Any = None) -> None:
        super().__init__(parent)
        self.state = state
        self.labels: list[ErrorLabel] = []  # the state's own list, when last read

    def refresh(self) -> None:
        """Read the labels again (new labels, step, episode)."""
        self.beginResetModel()
        self.labels = self.state.labels
        self.endResetModel()

    def row_list(self) -> Sequence[ErrorLabel | None]:
        return self.labels or [None]  # with none, one row saying so

    def row_data(self, r: int, label: ErrorLabel | None, role: int) -> Any:
        if label is None:
            return NO_LABELS if role == Qt.ItemDataRole.DisplayRole else None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.state.describe_label(label)
        if role == LABEL_ROLE:
            return label.id
        if role == Qt.ItemDataRole.FontRole and label.step_index == self.state.index:
            return bold_font()
        return None


class ErrorLabelPanel(QWidget):
    def __init__(self, state: ReplayState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.note = QLineEdit(placeholderText="Note, saved with the next label you tick")
        self.model = ErrorKindModel(state, self)
        self.model.chosen.connect(self._chosen)
        self.tree = QTreeView()
        self.tree.setObjectName("replay_label_tree")
        self.tree.setModel(self.model)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setMinimumHeight(70)
        self.tree.expandAll()
        self.label_model = EpisodeLabelModel(state, self)
        self.existing = QListView()
        self.existing.setObjectName("replay_label_list")
        self.existing.setModel(self.label_model)
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
        if self.model.suggested() is not None and s.annotator is not None:
            self.heading.setText(self.heading.text() + " Suggested: Format Error.")
        self.tree.setEnabled(open_ and s.annotator is not None)
        self._offer_kinds()
        self.model.refresh()
        self.label_model.refresh()

    def _offer_kinds(self) -> None:
        """Dual-arm episodes: the paper's kinds only."""
        s = self.state
        bimanual = s.episode is not None and is_bimanual(s.episode)
        for row, category in enumerate(self.model.categories):
            hidden = bimanual and category.id not in BIMANUAL_CATEGORIES
            self.tree.setRowHidden(row, QModelIndex(), hidden)

    def _chosen(self, category: str, subcategory: str, on: bool) -> None:
        if self.state.set_label(category, subcategory, on, self.note.text()) and on:
            self.note.clear()

    def _remove_selected(self) -> None:
        label_id = self.existing.currentIndex().data(LABEL_ROLE)
        if label_id is not None:
            self.state.remove_label(int(label_id))

    def choose(self, category: str, subcategory: str = "", on: bool = True) -> None:
        """Tick (or untick) a kind as a click on its box would."""
        index = self.model.index_of((category, subcategory))
        if not index.isValid():
            raise KeyError((category, subcategory))
        value = Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
        self.model.setData(index, value, Qt.ItemDataRole.CheckStateRole)
