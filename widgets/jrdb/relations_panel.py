"""A frame's geometric relations in words: where each person is from the robot, and, for the
selected entity, where everyone and everything is from them and where they are from others.

The relations are handed in (the app layer computes and stores them); the
panel only words them with `annotation.jrdb.geometry.describe_relation`, e.g.
"person 7: close, front-left of the robot", with the distance in metres in
a second column. Clicking a row picks its subject.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from annotation.jrdb.geometry import GeometricRelation, describe_relation

ID_ROLE = Qt.ItemDataRole.UserRole


class RelationsPanel(QWidget):
    """Relations grouped by reference; `entity_clicked(subject id)` when a row is clicked."""

    entity_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("relations_panel")
        self.status = QLabel("No frame.")
        self.status.setObjectName("relations_status")
        self.status.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setObjectName("relations_tree")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Relation", "m"])
        self.tree.setRootIsDecorated(False)
        self.tree.setIndentation(8)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.headerItem().setToolTip(1, "Distance in metres")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.status)
        layout.addWidget(self.tree, 1)
        self.relations: list[GeometricRelation] = []
        self.label: Callable[[int | None], str] = lambda i: (
            "the robot" if i is None else f"entity {i}"
        )
        self.selected: int | None = None
        self.tree.itemClicked.connect(self._clicked)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(400, 280)

    def set_relations(
        self,
        relations: Iterable[GeometricRelation] | None,
        label: Callable[[int | None], str] | None = None,
        status: str = "",
    ) -> None:
        """Show a frame's relations (None: not known yet); `label` names entities."""
        self.relations = list(relations or [])
        if label is not None:
            self.label = label
        if status:
            self.status.setText(status)
        elif relations is None:
            self.status.setText("Relations not computed yet.")
        else:
            self.status.setText(f"{len(self.relations)} relations in this frame.")
        self._rebuild()

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    def set_selected(self, entity_id: int | None) -> None:
        self.selected = entity_id
        self._rebuild()

    def sentence(self, relation: GeometricRelation) -> str:
        """One relation in words, e.g. "person 7: close, front-left of the robot"."""
        subject = self.label(relation.subject_entity_id)
        reference = self.label(relation.reference_entity_id)
        return describe_relation(relation, subject, reference)

    def groups(self) -> list[tuple[str, list[GeometricRelation]]]:
        """What the panel lists, as (heading, relations) in order."""
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

    def texts(self) -> list[str]:
        """Every sentence shown, top to bottom (headings excluded)."""
        return [self.sentence(r) for _title, rows in self.groups() for r in rows]

    def _rebuild(self) -> None:
        self.tree.clear()
        for title, rows in self.groups():
            group = QTreeWidgetItem(self.tree, [f"{title} ({len(rows)})"])
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            for r in sorted(rows, key=lambda r: r.distance_m):
                item = QTreeWidgetItem(group, [self.sentence(r), f"{r.distance_m:.1f}"])
                item.setData(0, ID_ROLE, r.subject_entity_id)
                item.setTextAlignment(
                    1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                )
                item.setToolTip(
                    0, f"{r.direction16} · {r.distance_bin} · {r.distance_m:.2f} m · {r.method}"
                )
                if r.subject_entity_id == self.selected:
                    font = item.font(0)
                    font.setBold(True)
                    item.setFont(0, font)
            group.setExpanded(True)
        if self.selected is None and self.relations:
            hint = QTreeWidgetItem(self.tree, ["Select someone to see the relations around them."])
            hint.setFlags(Qt.ItemFlag.NoItemFlags)

    def _clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        entity_id = item.data(0, ID_ROLE)
        if entity_id is not None:
            self.entity_clicked.emit(int(entity_id))
