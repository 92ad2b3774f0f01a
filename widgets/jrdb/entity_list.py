"""The people and objects of the current frame, in the colours the image and the cloud use.

A click picks the entity through the shared `JrdbViewState` (it selects it,
or hands it to a labelling panel that asked for a target); the arrow keys
move the selection.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from widgets.jrdb.state import JrdbViewState, entity_colour

ID_ROLE = Qt.ItemDataRole.UserRole


def colour_icon(rgb: tuple[int, int, int], size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(*rgb))
    return QIcon(pixmap)


class EntityListPanel(QWidget):
    """Two groups, People and Objects, with which boxes each has here and what people do."""

    def __init__(self, state: JrdbViewState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("entity_list")
        self.state = state
        self.summary = QLabel("No frame.")
        self.summary.setObjectName("entity_summary")
        self.tree = QTreeWidget()
        self.tree.setObjectName("entity_tree")
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["Entity", "Boxes", "Doing"])
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
        self.items: dict[int, QTreeWidgetItem] = {}
        self._syncing = False
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemActivated.connect(self._clicked)
        self.tree.currentItemChanged.connect(self._current_changed)
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
        self.tree.clear()
        self.items = {}
        people, objects = s.people_in_frame(), s.objects_in_frame()
        has_2d = {b.entity_id for b in s.boxes_2d}
        has_3d = {b.entity_id for b in s.boxes_3d}
        for title, ids in (
            (f"People ({len(people)})", people),
            (f"Objects ({len(objects)})", objects),
        ):
            group = QTreeWidgetItem(self.tree, [title])
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            group.setFirstColumnSpanned(True)
            for entity_id in ids:
                boxes = " ".join(
                    d for d, has in (("2D", has_2d), ("3D", has_3d)) if entity_id in has
                )
                doing = ", ".join(s.labels_of(entity_id, "action"))
                item = QTreeWidgetItem(group, [s.label(entity_id), boxes, doing])
                item.setIcon(0, colour_icon(entity_colour(entity_id)))
                item.setData(0, ID_ROLE, entity_id)
                item.setToolTip(0, s.entities[entity_id].key)
                item.setToolTip(2, doing)
                self.items[entity_id] = item
            group.setExpanded(True)
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
        item = self.items.get(entity_id) if entity_id is not None else None
        if item is None:
            self.tree.setCurrentItem(None)
            self.tree.clearSelection()
        else:
            self.tree.setCurrentItem(item)
            self.tree.scrollToItem(item)
        self._syncing = False

    def _clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        entity_id = item.data(0, ID_ROLE)
        if entity_id is not None:
            self.state.pick(int(entity_id))
            self._show_selection(self.state.selected)  # a pick for a label leaves it as it was

    def _current_changed(self, item: QTreeWidgetItem | None, _previous=None) -> None:
        """The arrow keys select (they never answer a labelling panel's request for a target)."""
        if self._syncing or item is None or self.state.picking:
            return
        entity_id = item.data(0, ID_ROLE)
        if entity_id is not None:
            self.state.select(int(entity_id))

    def entity_ids(self) -> list[int]:
        """The listed entities, top to bottom."""
        return list(self.items)
