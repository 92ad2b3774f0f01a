"""The people and objects of the current frame, in the colours the image and the cloud use.

`EntityTreeModel` reads the frame from the shared `JrdbViewState`: two headings,
People and Objects, each with its entities. A click picks the entity through
the state (it selects it, or hands it to a labelling panel that asked for a
target); the arrow keys move the selection.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeView, QVBoxLayout, QWidget

from widgets.jrdb.state import JrdbViewState, entity_colour
from widgets.tree_model import GroupTreeModel, bold_font

ID_ROLE = Qt.ItemDataRole.UserRole
HEADINGS = ("People", "Objects")


def colour_icon(rgb: tuple[int, int, int], size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(*rgb))
    return QIcon(pixmap)


class EntityTreeModel(GroupTreeModel):
    """The current frame's people and objects (`JrdbViewState`) as a tree: a heading row a
    group ("People (3)", bold, not selectable), under it a row an entity with its name and
    colour, which boxes it has here (2D, 3D) and what it is doing; the entity id in ID_ROLE.

    The state works out which entities a frame holds (`people_in_frame`,
    `objects_in_frame`); the model keeps the ids it last read (`refresh`), so its rows
    change only when its views are told."""

    HEADERS = ("Entity", "Boxes", "Doing")

    def __init__(self, state: JrdbViewState, parent: Any = None) -> None:
        super().__init__(parent)
        self.state = state
        self.groups: tuple[list[int], list[int]] = ([], [])  # people, objects

    def refresh(self) -> None:
        """Read the frame's people and objects again."""
        self.beginResetModel()
        self.groups = (self.state.people_in_frame(), self.state.objects_in_frame())
        self.endResetModel()

    def entity_ids(self) -> list[int]:
        """The listed entities, top to bottom."""
        return [entity_id for ids in self.groups for entity_id in ids]

    def index_of(self, entity_id: int) -> QModelIndex:
        """The row of an entity (its first column), or an invalid index if not listed."""
        for group, ids in enumerate(self.groups):
            if entity_id in ids:
                return self.row_index(group, ids.index(entity_id))
        return QModelIndex()

    def group_sizes(self) -> list[int]:
        return [len(ids) for ids in self.groups]

    def heading_data(self, group: int, column: int, role: int) -> Any:
        if column != 0:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{HEADINGS[group]} ({len(self.groups[group])})"
        return bold_font() if role == Qt.ItemDataRole.FontRole else None

    def row_data(self, group: int, row: int, column: int, role: int) -> Any:
        s, entity_id = self.state, self.groups[group][row]
        if role == ID_ROLE:
            return entity_id
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return colour_icon(entity_colour(entity_id))
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            return s.entities[entity_id].key
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        if column == 2:
            return ", ".join(s.labels_of(entity_id, "action"))
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if column == 0:
            return s.label(entity_id)
        return " ".join(
            d for d, box in (("2D", s.box_2d), ("3D", s.box_3d)) if box(entity_id) is not None
        )


class EntityListPanel(QWidget):
    """Two groups, People and Objects, with which boxes each has here and what people do."""

    def __init__(self, state: JrdbViewState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("entity_list")
        self.state = state
        self.summary = QLabel("No frame.")
        self.summary.setObjectName("entity_summary")
        self.model = EntityTreeModel(state, self)
        self.tree = QTreeView()
        self.tree.setObjectName("entity_tree")
        self.tree.setModel(self.model)
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setIndentation(8)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree, 1)
        self._syncing = False
        self.tree.clicked.connect(self._clicked)
        self.tree.activated.connect(self._clicked)
        self.tree.selectionModel().currentChanged.connect(self._current_changed)
        state.sequence_changed.connect(self.rebuild)
        state.frame_changed.connect(lambda _i: self.rebuild())
        state.boxes_changed.connect(self.rebuild)
        state.selection_changed.connect(self._show_selection)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(400, 220)

    def rebuild(self) -> None:
        """List the current frame's people and objects again."""
        s = self.state
        self._syncing = True
        self.model.refresh()
        for row in range(self.model.rowCount()):
            self.tree.setFirstColumnSpanned(row, QModelIndex(), True)
        self.tree.expandAll()
        people, objects = self.model.groups
        if s.frame is None:
            self.summary.setText("No frame.")
        else:
            self.summary.setText(
                f"{len(people)} people and {len(objects)} objects in frame #{s.frame.index:06d}"
            )
        self._syncing = False
        self._show_selection(s.selected)

    def _show_selection(self, entity_id: int | None) -> None:
        self._syncing = True
        index = self.model.index_of(entity_id) if entity_id is not None else QModelIndex()
        if not index.isValid():
            self.tree.setCurrentIndex(QModelIndex())
            self.tree.clearSelection()
        else:
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index)
        self._syncing = False

    def _clicked(self, index: QModelIndex) -> None:
        entity_id = index.data(ID_ROLE)
        if entity_id is not None:
            self.state.pick(int(entity_id))
            self._show_selection(self.state.selected)  # a pick for a label leaves it as it was

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex | None = None) -> None:
        """The arrow keys select (they never answer a labelling panel's request for a target)."""
        if self._syncing or not current.isValid() or self.state.picking:
            return
        entity_id = current.data(ID_ROLE)
        if entity_id is not None:
            self.state.select(int(entity_id))

    def entity_ids(self) -> list[int]:
        """The listed entities, top to bottom."""
        return self.model.entity_ids()
