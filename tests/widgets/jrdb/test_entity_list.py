"""The entity list as a model: People and Objects headings over the frame's entities of a
`JrdbViewState`, and the tree view showing it (selection both ways, clicks pick)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QIcon

from annotation.jrdb.dataset import SequenceEntity
from annotation.models import Box2D, Box3D, Frame, Sequence
from widgets.jrdb.entity_list import ID_ROLE, EntityListPanel, EntityTreeModel
from widgets.jrdb.state import JrdbViewState

ENTITIES = [
    SequenceEntity(11, "pedestrian:10", "human", "pedestrian", {}, "jrdb"),
    SequenceEntity(12, "pedestrian:2", "human", "pedestrian", {}, "jrdb"),
    SequenceEntity(13, "chair:1", "object", "chair", {}, "jrdb"),
    SequenceEntity(14, "pedestrian:3", "human", "pedestrian", {}, "jrdb"),  # not in frame 1
]


class Sequences:
    """What `JrdbViewState` reads of `project.sequences`: one sequence of two frames."""

    def get(self, sequence_id):
        return Sequence(sequence_id, "cafe", "/nowhere", {}, 2)

    def frames(self, sequence_id):
        return [Frame(1, sequence_id, 0, None), Frame(2, sequence_id, 1, None)]

    def entities(self, sequence_id, kind=None):
        return ENTITIES

    def boxes_2d(self, frame_id):
        return [Box2D(11, frame_id, 0, 0, 10, 10), Box2D(13, frame_id, 5, 5, 10, 10)]

    def boxes_3d(self, frame_id):
        boxes = [Box3D(11, frame_id, 1, 1, 0, 1, 1, 1, 0), Box3D(12, frame_id, 2, 2, 0, 1, 1, 1, 0)]
        return boxes + ([Box3D(14, frame_id, 3, 3, 0, 1, 1, 1, 0)] if frame_id == 2 else [])

    def person_labels(self, frame_id):
        return [
            {"entity_id": 11, "kind": "action", "label": "walking"},
            {"entity_id": 11, "kind": "action", "label": "talking"},
            {"entity_id": 11, "kind": "social_activity", "label": "chatting"},
        ]

    def frame_times(self, sequence_id):
        return {0: 0.0, 1: 0.1}


def load(state: JrdbViewState) -> None:
    state.load(SimpleNamespace(sequences=Sequences()), 5)


@pytest.fixture
def state(qapp):
    return JrdbViewState()


@pytest.fixture
def panel(qtbot, state):
    p = EntityListPanel(state)
    qtbot.addWidget(p)
    p.resize(400, 300)
    p.show()
    qtbot.waitExposed(p)
    load(state)
    return p


def test_the_model_has_a_heading_a_group_and_a_row_an_entity(state):
    load(state)
    model = EntityTreeModel(state)
    assert model.rowCount() == 2 and model.columnCount() == 3
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(3)] == [
        "Entity",
        "Boxes",
        "Doing",
    ]
    assert model.index(0, 0).data() == "People (0)"  # not read yet
    model.refresh()
    people, objects = model.index(0, 0), model.index(1, 0)
    assert (people.data(), objects.data()) == ("People (2)", "Objects (1)")
    assert people.data(Qt.ItemDataRole.FontRole).bold() and people.data(ID_ROLE) is None
    assert model.flags(people) == Qt.ItemFlag.ItemIsEnabled  # a heading is not selectable
    assert model.rowCount(people) == 2 and model.rowCount(objects) == 1
    assert not model.parent(people).isValid()
    # people in key order ("pedestrian:2" before "pedestrian:10")
    rows = [[model.index(r, c, people).data() for c in range(3)] for r in range(2)]
    assert rows == [["person 2", "3D", ""], ["person 10", "2D 3D", "walking, talking"]]
    assert [[model.index(0, c, objects).data() for c in range(3)]] == [["chair 1", "2D", ""]]
    ten = model.index(1, 0, people)
    assert model.parent(ten) == people and model.rowCount(ten) == 0
    assert ten.data(ID_ROLE) == 11 and model.entity_ids() == [12, 11, 13]
    assert ten.data(Qt.ItemDataRole.ToolTipRole) == "pedestrian:10"
    assert ten.siblingAtColumn(2).data(Qt.ItemDataRole.ToolTipRole) == "walking, talking"
    assert ten.siblingAtColumn(1).data(Qt.ItemDataRole.ToolTipRole) is None
    assert isinstance(ten.data(Qt.ItemDataRole.DecorationRole), QIcon)
    assert model.flags(ten) & Qt.ItemFlag.ItemIsSelectable
    assert model.index_of(13) == model.index(0, 0, objects) and not model.index_of(14).isValid()
    assert model.data(QModelIndex()) is None
    state.set_frame(1)
    model.refresh()
    assert model.index(0, 0).data() == "People (3)" and 14 in model.entity_ids()


def test_the_tree_follows_the_state_and_a_click_selects(qtbot, panel, state):
    tree = panel.tree
    assert tree.objectName() == "entity_tree" and tree.model() is panel.model
    assert panel.entity_ids() == [12, 11, 13]
    assert panel.summary.text() == "2 people and 1 objects in frame #000000"
    assert tree.isExpanded(panel.model.index(0, 0)) and tree.isFirstColumnSpanned(0, QModelIndex())
    state.select(11)
    assert tree.currentIndex() == panel.model.index_of(11)
    assert tree.selectionModel().isSelected(panel.model.index_of(11))
    state.select(None)
    assert not tree.currentIndex().isValid() and not tree.selectionModel().hasSelection()
    chair = panel.model.index_of(13)
    qtbot.mouseClick(
        tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualRect(chair).center()
    )
    assert state.selected == 13 and tree.currentIndex() == chair
    tree.setFocus()
    qtbot.keyClick(tree, Qt.Key.Key_Up)  # onto the Objects heading: it selects nothing
    assert state.selected == 13 and tree.currentIndex() == panel.model.index(1, 0)
    assert not tree.selectionModel().hasSelection()
    qtbot.keyClick(tree, Qt.Key.Key_Up)  # the arrow keys select
    assert state.selected == 11 and tree.selectionModel().isSelected(panel.model.index_of(11))
    # a labelling panel asks for a target: a click answers it and the selection stays
    picked: list[int] = []
    state.target_picked.connect(picked.append)
    state.picking = True
    first = panel.model.index_of(12)
    qtbot.mouseClick(
        tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualRect(first).center()
    )
    assert (
        picked == [12] and state.selected == 11 and tree.currentIndex() == panel.model.index_of(11)
    )
