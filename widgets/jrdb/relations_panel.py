"""A frame's geometric relations in words: where each person is from the robot, and, for the
selected entity, where everyone and everything is from them and where they are from others.

The relations are handed in (the app layer computes and stores them); the
panel only words them with `annotation.jrdb.geometry.describe_relation`, e.g.
"person 7: close, front-left of the robot", with the distance in metres in
a second column. Clicking a row picks its subject. `RelationsModel` holds the
relations and shows them as a tree: a heading a group, its relations nearest first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QModelIndex, QSize, Qt, Signal
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeView, QVBoxLayout, QWidget

from annotation.jrdb.geometry import GeometricRelation, describe_relation
from widgets.table_model import Index
from widgets.tree_model import GroupTreeModel, bold_font

ID_ROLE = Qt.ItemDataRole.UserRole
HINT = "Select someone to see the relations around them."


def default_label(entity_id: int | None) -> str:
    return "the robot" if entity_id is None else f"entity {entity_id}"


class RelationsModel(GroupTreeModel):
    """A frame's relations, the selected entity and how entities are named; as a tree: a
    heading a group ("Seen from the robot (4)", bold, not selectable), under it its
    relations nearest first (the sentence, the distance), the selected entity's own in
    bold, the subject's id in ID_ROLE; with nothing selected, a last (disabled) row says
    to select someone."""

    HEADERS = ("Relation", "m")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.relations: list[GeometricRelation] = []
        self.label: Callable[[int | None], str] = default_label
        self.selected: int | None = None
        self.rows: list[tuple[str, list[GeometricRelation]]] = []  # `groups()`, sorted
        self.hint = False

    def set_relations(
        self,
        relations: Iterable[GeometricRelation] | None,
        label: Callable[[int | None], str] | None = None,
    ) -> None:
        self.relations = list(relations or [])
        if label is not None:
            self.label = label
        self.refresh()

    def set_selected(self, entity_id: int | None) -> None:
        self.selected = entity_id
        self.refresh()

    def refresh(self) -> None:
        self.beginResetModel()
        self.rows = [
            (title, sorted(rows, key=lambda r: r.distance_m)) for title, rows in self.groups()
        ]
        self.hint = self.selected is None and bool(self.relations)
        self.endResetModel()

    def sentence(self, relation: GeometricRelation) -> str:
        """One relation in words, e.g. "person 7: close, front-left of the robot"."""
        subject = self.label(relation.subject_entity_id)
        reference = self.label(relation.reference_entity_id)
        return describe_relation(relation, subject, reference)

    def groups(self) -> list[tuple[str, list[GeometricRelation]]]:
        """What is listed, as (heading, relations) in order."""
        to_robot = [r for r in self.relations if r.to_robot]
        out = [("Seen from the robot", to_robot)]
        chosen = self.selected
        if chosen is not None:
            name = self.label(chosen)
            around = [r for r in self.relations if r.reference_entity_id == chosen]
            seen = [
                r
                for r in self.relations
                if r.subject_entity_id == chosen and r.reference_entity_id is not None
            ]
            out += [(f"Seen from {name}", around), (f"Where {name} is for others", seen)]
        return out

    # -- the tree --------------------------------------------------------------------------
    def group_sizes(self) -> list[int]:
        return [len(rows) for _title, rows in self.rows] + ([0] if self.hint else [])

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole and section == 1:
            return "Distance in metres" if orientation == Qt.Orientation.Horizontal else None
        return super().headerData(section, orientation, role)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if index.isValid() and self.group_of(index) is None and index.row() == len(self.rows):
            return Qt.ItemFlag.NoItemFlags  # the hint
        return super().flags(index)

    def heading_data(self, group: int, column: int, role: int) -> Any:
        if column != 0:
            return None
        if group == len(self.rows):
            return HINT if role == Qt.ItemDataRole.DisplayRole else None
        if role == Qt.ItemDataRole.DisplayRole:
            title, rows = self.rows[group]
            return f"{title} ({len(rows)})"
        return bold_font() if role == Qt.ItemDataRole.FontRole else None

    def row_data(self, group: int, row: int, column: int, role: int) -> Any:
        r = self.rows[group][1][row]
        if role == ID_ROLE:
            return r.subject_entity_id
        if role == Qt.ItemDataRole.DisplayRole:
            return self.sentence(r) if column == 0 else f"{r.distance_m:.1f}"
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if column != 0:
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{r.direction16} · {r.distance_bin} · {r.distance_m:.2f} m · {r.method}"
        if role == Qt.ItemDataRole.FontRole and r.subject_entity_id == self.selected:
            return bold_font()
        return None


class RelationsPanel(QWidget):
    """Relations grouped by reference; `entity_clicked(subject id)` when a row is clicked."""

    entity_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("relations_panel")
        self.status = QLabel("No frame.")
        self.status.setObjectName("relations_status")
        self.status.setWordWrap(True)
        self.model = RelationsModel(self)
        self.tree = QTreeView()
        self.tree.setObjectName("relations_tree")
        self.tree.setModel(self.model)
        self.tree.setRootIsDecorated(False)
        self.tree.setIndentation(8)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.status)
        layout.addWidget(self.tree, 1)
        self.tree.clicked.connect(self._clicked)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(400, 280)

    @property
    def relations(self) -> list[GeometricRelation]:
        return self.model.relations

    @property
    def label(self) -> Callable[[int | None], str]:
        return self.model.label

    @property
    def selected(self) -> int | None:
        return self.model.selected

    def set_relations(
        self,
        relations: Iterable[GeometricRelation] | None,
        label: Callable[[int | None], str] | None = None,
        status: str = "",
    ) -> None:
        """Show a frame's relations (None: not known yet); `label` names entities."""
        self.model.set_relations(relations, label)
        if status:
            self.status.setText(status)
        elif relations is None:
            self.status.setText("Relations not computed yet.")
        else:
            self.status.setText(f"{len(self.relations)} relations in this frame.")
        self.tree.expandAll()

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    def set_selected(self, entity_id: int | None) -> None:
        self.model.set_selected(entity_id)
        self.tree.expandAll()

    def sentence(self, relation: GeometricRelation) -> str:
        """One relation in words, e.g. "person 7: close, front-left of the robot"."""
        return self.model.sentence(relation)

    def groups(self) -> list[tuple[str, list[GeometricRelation]]]:
        """What the panel lists, as (heading, relations) in order."""
        return self.model.groups()

    def texts(self) -> list[str]:
        """Every sentence shown, top to bottom (headings excluded)."""
        return [self.sentence(r) for _title, rows in self.groups() for r in rows]

    def _clicked(self, index: QModelIndex) -> None:
        entity_id = index.data(ID_ROLE)
        if entity_id is not None:
            self.entity_clicked.emit(int(entity_id))
