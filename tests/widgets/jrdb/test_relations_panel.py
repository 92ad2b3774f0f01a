"""The relations panel as a model: headings over a frame's relations, nearest first, the
selected entity's in bold, and the tree view showing it (a click names the subject)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, Qt

from annotation.jrdb.geometry import GeometricRelation
from widgets.jrdb.relations_panel import HINT, ID_ROLE, RelationsModel, RelationsPanel

NAMES = {None: "the robot", 1: "person 1", 2: "person 2", 3: "chair 1"}


def relation(subject, reference, distance, direction="front", bin_="close"):
    return GeometricRelation(7, subject, reference, direction, "down", bin_, distance, "3d")


RELATIONS = [
    relation(1, None, 2.25, "front-left"),
    relation(2, None, 1.04, bin_="very-close"),
    relation(3, 1, 0.8),
    relation(2, 1, 3.1, "left", "moderate"),
    relation(1, 2, 3.1, "right", "moderate"),
]


@pytest.fixture
def panel(qtbot):
    p = RelationsPanel()
    qtbot.addWidget(p)
    p.resize(420, 320)
    p.show()
    qtbot.waitExposed(p)
    return p


def test_the_model_lists_a_heading_a_group_nearest_first(qapp):
    model = RelationsModel()
    assert model.rowCount() == 0  # nothing until relations are handed in
    model.set_relations([])
    assert model.rowCount() == 1 and model.index(0, 0).data() == "Seen from the robot (0)"
    assert model.columnCount() == 2
    assert model.headerData(1, Qt.Orientation.Horizontal) == "m"
    assert model.headerData(1, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) == (
        "Distance in metres"
    )
    model.set_relations(RELATIONS, NAMES.get)
    robot, hint = model.index(0, 0), model.index(1, 0)
    assert model.rowCount() == 2 and robot.data() == "Seen from the robot (2)"
    assert robot.data(Qt.ItemDataRole.FontRole).bold() and model.flags(robot) == (
        Qt.ItemFlag.ItemIsEnabled
    )
    assert hint.data() == HINT and model.flags(hint) == Qt.ItemFlag.NoItemFlags
    assert model.rowCount(hint) == 0
    rows = [[model.index(r, c, robot).data() for c in range(2)] for r in range(2)]
    assert rows == [  # nearest first
        ["person 2: very close, in front of the robot", "1.0"],
        ["person 1: close, front-left of the robot", "2.2"],
    ]
    first = model.index(0, 0, robot)
    assert model.parent(first) == robot and not model.parent(robot).isValid()
    assert first.data(ID_ROLE) == 2 == first.siblingAtColumn(1).data(ID_ROLE)
    assert first.data(Qt.ItemDataRole.ToolTipRole) == "down front · very-close · 1.04 m · 3d"
    assert first.siblingAtColumn(1).data(Qt.ItemDataRole.TextAlignmentRole) == int(
        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    )
    assert first.data(Qt.ItemDataRole.FontRole) is None
    assert model.data(QModelIndex()) is None
    model.set_selected(1)
    titles = [model.index(g, 0).data() for g in range(model.rowCount())]
    assert titles == [
        "Seen from the robot (2)",
        "Seen from person 1 (2)",
        "Where person 1 is for others (1)",
    ]
    person_1 = model.index(1, 0, model.index(0, 0))
    assert person_1.data(ID_ROLE) == 1 and person_1.data(Qt.ItemDataRole.FontRole).bold()
    assert model.index(0, 0, model.index(1, 0)).data() == "chair 1: close, in front of person 1"
    assert [title for title, _ in model.groups()] == [
        "Seen from the robot",
        "Seen from person 1",
        "Where person 1 is for others",
    ]


def test_the_panel_shows_the_relations_and_a_click_names_the_subject(qtbot, panel):
    clicked: list[int] = []
    panel.entity_clicked.connect(clicked.append)
    tree = panel.tree
    assert tree.objectName() == "relations_tree" and tree.model() is panel.model
    panel.set_relations(None, status="")
    assert panel.status.text() == "Relations not computed yet."
    panel.set_relations(RELATIONS, NAMES.get)
    assert panel.status.text() == "5 relations in this frame."
    assert panel.relations == RELATIONS and panel.selected is None
    assert panel.texts() == [
        "person 1: close, front-left of the robot",
        "person 2: very close, in front of the robot",
    ]
    panel.set_selected(1)
    assert panel.selected == 1 and tree.isExpanded(panel.model.index(1, 0))
    row = panel.model.index(1, 1, panel.model.index(0, 0))  # person 1, its distance
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualRect(row).center())
    heading = panel.model.index(0, 0)
    qtbot.mouseClick(
        tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualRect(heading).center()
    )
    assert clicked == [1]  # a heading names nobody
    panel.set_relations([], NAMES.get, "No 3D boxes here: no relations.")
    assert panel.status.text() == "No 3D boxes here: no relations."
    assert panel.model.rowCount() == 3 and panel.texts() == []
