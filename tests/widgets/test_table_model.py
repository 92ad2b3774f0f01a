"""The shared list-of-rows table model: counts and headers over a plain Python list, a
model Qt's own checker accepts, and a reset that shows the list as it is now."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QTableView

from widgets.table_model import RowListModel, RowTableModel


class SceneRows(RowTableModel):
    """The smallest real subclass: scenes as (seed, objects, status) tuples."""

    HEADERS = ("Seed", "Objects", "Status")

    def __init__(self, rows: list[tuple[int, int, str]]) -> None:
        super().__init__()
        self.rows = rows

    def row_list(self):
        return self.rows

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or role != Qt.ItemDataRole.DisplayRole:
            return None
        return str(self.rows[index.row()][index.column()])


@pytest.fixture
def model():
    return SceneRows([(0, 8, "settled"), (1, 12, "settled"), (2, 15, "unstable")])


def test_counts_and_headers_come_from_the_rows_and_headers(model):
    assert model.rowCount() == 3 and model.columnCount() == 3
    horizontal = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(3)]
    assert horizontal == ["Seed", "Objects", "Status"]
    assert model.headerData(0, Qt.Orientation.Vertical) is None
    assert model.headerData(0, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) is None
    cell = model.index(2, 1)
    assert model.rowCount(cell) == 0 and model.columnCount(cell) == 0  # flat: no children
    assert model.rowCount(QModelIndex()) == 3


def test_qts_model_checker_accepts_it(qtmodeltester, model):
    qtmodeltester.check(model)


def test_reset_shows_the_list_as_it_is_now(qtbot, model):
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    model.rows.append((3, 9, "settled"))
    assert view.model().rowCount() == 4  # the count always reads the list ...
    with qtbot.waitSignal(model.modelReset, timeout=1000):  # ... views hear of it on reset
        model.reset()
    model.rows[:] = model.rows[1:]
    model.reset()
    shown = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert shown == ["1", "2", "3"]


def test_a_subclass_without_rows_says_so():
    with pytest.raises(NotImplementedError):
        RowTableModel().rowCount()


class NameRows(RowListModel):
    """The smallest real list subclass: names, numbered in the display role."""

    def __init__(self, names: list[str]) -> None:
        super().__init__()
        self.names = names

    def row_list(self):
        return self.names

    def row_data(self, r, name, role):
        return f"{r + 1}. {name}" if role == Qt.ItemDataRole.DisplayRole else None


def test_a_list_model_counts_its_rows_and_shows_each_with_its_number(qtmodeltester):
    model = NameRows(["mug", "bowl"])
    assert model.rowCount() == 2 and model.rowCount(model.index(0)) == 0  # flat
    assert [model.index(r).data() for r in range(2)] == ["1. mug", "2. bowl"]
    assert model.index(0).data(Qt.ItemDataRole.ToolTipRole) is None
    assert model.data(model.index(5)) is None and model.data(QModelIndex()) is None
    qtmodeltester.check(model)


def test_a_list_model_reset_shows_the_list_as_it_is_now(qtbot):
    model = NameRows(["mug"])
    model.names = ["mug", "bowl", "sponge"]
    with qtbot.waitSignal(model.modelReset):
        model.reset()
    assert model.rowCount() == 3 and model.index(2).data() == "3. sponge"
