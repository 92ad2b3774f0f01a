"""The shared two-level tree model: headings with rows under them over plain Python lists,
a model Qt's own checker accepts, and headings a person cannot select in a tree view."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QTreeView

from widgets.tree_model import GroupTreeModel, bold_font

HEADINGS = ("People", "Objects")


class EntityGroups(GroupTreeModel):
    """The smallest real subclass: people and objects of a frame, by name and boxes."""

    HEADERS = ("Entity", "Boxes")

    def __init__(self, groups: tuple[list[tuple[str, str]], ...]) -> None:
        super().__init__()
        self.groups = groups

    def group_sizes(self):
        return [len(rows) for rows in self.groups]

    def heading_data(self, group, column, role):
        if column == 0 and role == Qt.ItemDataRole.DisplayRole:
            return f"{HEADINGS[group]} ({len(self.groups[group])})"
        if column == 0 and role == Qt.ItemDataRole.FontRole:
            return bold_font()
        return None

    def row_data(self, group, row, column, role):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        return self.groups[group][row][column]


@pytest.fixture
def model():
    return EntityGroups(
        (
            [("person 1", "2D 3D"), ("person 2", "2D")],
            [("bag 1", "3D"), ("cup 1", "2D"), ("table 1", "2D 3D")],
        )
    )


def shown(model: GroupTreeModel) -> list[tuple[str, list[str]]]:
    out = []
    for g in range(model.rowCount()):
        heading = model.index(g, 0)
        rows = [model.index(r, 0, heading).data() for r in range(model.rowCount(heading))]
        out.append((heading.data(), rows))
    return out


def test_headings_with_their_rows_under_them(model):
    assert shown(model) == [
        ("People (2)", ["person 1", "person 2"]),
        ("Objects (3)", ["bag 1", "cup 1", "table 1"]),
    ]
    assert model.columnCount() == 2
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(2)] == list(
        EntityGroups.HEADERS
    )
    assert model.index(0, 0).data(Qt.ItemDataRole.FontRole).bold()
    cup = model.row_index(1, 1, 1)
    assert cup.data() == "2D" and model.group_of(cup) == 1
    assert model.parent(cup) == model.index(1, 0) and not model.parent(model.index(1, 0)).isValid()
    assert model.group_of(model.index(1, 0)) is None
    assert model.rowCount(cup) == 0 and model.rowCount(model.index(1, 1)) == 0
    assert not model.index(5, 0).isValid() and model.data(QModelIndex()) is None


def test_qts_model_checker_accepts_it(qtmodeltester, model):
    qtmodeltester.check(model)


def test_a_heading_is_enabled_but_not_selectable(model):
    heading, row = model.index(0, 0), model.row_index(0, 1)
    assert model.flags(heading) == Qt.ItemFlag.ItemIsEnabled
    assert model.flags(row) & Qt.ItemFlag.ItemIsSelectable


def test_clicking_a_heading_selects_nothing_and_a_row_selects_it(qtbot, model):
    tree = QTreeView()
    qtbot.addWidget(tree)
    tree.setModel(model)
    tree.expandAll()
    tree.resize(300, 300)
    tree.show()
    qtbot.waitExposed(tree)

    def click(index):
        pos = tree.visualRect(index).center()
        qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=pos)

    click(model.index(1, 0))
    assert tree.selectionModel().selectedIndexes() == []
    click(model.row_index(1, 2))
    assert [i.data() for i in tree.selectionModel().selectedRows()] == ["table 1"]


def test_reset_shows_the_groups_as_they_are_now(qtbot, model):
    model.groups[0].append(("person 3", ""))
    with qtbot.waitSignal(model.modelReset, timeout=1000):
        model.reset()
    assert shown(model)[0] == ("People (3)", ["person 1", "person 2", "person 3"])
