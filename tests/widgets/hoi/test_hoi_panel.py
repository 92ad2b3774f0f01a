"""The HOI labels panel's two lists as models: the person's labels (`LabelListModel`) and the
objects offered as a waiting label's target (`TargetListModel`), and the panel's lists
showing them (selection follows the state; a click selects or takes)."""

from __future__ import annotations

import pytest
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush

from store import open_project
from widgets.hoi.panel import ID_ROLE, HoiPanel, LabelListModel, TargetListModel
from widgets.hoi.state import HoiState
from widgets.jrdb.state import JrdbViewState


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("hoi_panel"))


@pytest.fixture
def panel(qtbot, base, tmp_path):
    import shutil

    db = tmp_path / "copy.reasonscope"
    shutil.copyfile(base.db, db)
    with open_project(db) as project:
        view = JrdbViewState()
        state = HoiState(view)
        view.load(project, base.sequence_id)
        state.set_source(project.hoi, project.annotators.sign_in("Alice"))
        p = HoiPanel(state)
        qtbot.addWidget(p)
        p.resize(500, 500)
        p.show()
        qtbot.waitExposed(p)
        yield p, state, project


def test_the_label_model_has_a_row_a_label_of_the_person(panel):
    p, state, project = panel
    model = p.list.model()
    assert isinstance(model, LabelListModel) and p.list.objectName() == "hoi_label_list"
    assert model.rowCount() == 0
    state.next_person()
    state.press("walking")
    state.press("standing")
    assert model.rowCount() == 2 == len(state.labels)
    assert model.rowCount(model.index(0, 0)) == 0  # a flat list
    walking = model.index(0, 0)
    assert walking.data() == (
        f"{state.taxonomy.label('walking').key}  walking  ·  1 easy  ·  not reviewed  ·  you"
    )
    assert [model.index(r, 0).data(ID_ROLE) for r in range(2)] == [r.id for r in state.labels]
    assert walking.data(Qt.ItemDataRole.ForegroundRole) is None  # one's own: plain
    assert walking.data(Qt.ItemDataRole.ToolTipRole) == (
        f"#{state.labels[0].id}, by Alice, round 1"
    )
    assert model.row_of(state.labels[1].id) == 1 and model.row_of(-5) == -1
    assert model.data(QModelIndex()) is None
    # the selected label is the list's selection
    assert state.selected_id == state.labels[1].id
    assert [i.row() for i in p.list.selectionModel().selectedIndexes()] == [1]
    state.select_label(None)
    assert p.list.selectionModel().selectedIndexes() == []
    # someone else's label: dark grey, "someone" wrote it
    state.set_source(project.hoi, project.annotators.sign_in("Bob"))
    assert model.rowCount() == 2
    assert model.index(0, 0).data().endswith("·  Alice")
    assert model.index(0, 0).data(Qt.ItemDataRole.ForegroundRole) == QBrush(Qt.GlobalColor.darkGray)


def test_a_click_in_the_list_selects_the_label(qtbot, panel):
    p, state, _project = panel
    state.next_person()
    state.press("walking")
    state.press("standing")
    first = p.list.model().index(0, 0)
    qtbot.mouseClick(
        p.list.viewport(), Qt.MouseButton.LeftButton, pos=p.list.visualRect(first).center()
    )
    assert state.selected_id == state.labels[0].id


def test_the_target_model_lists_the_candidates_nearest_first(panel):
    p, state, _project = panel
    model = p.targets.model()
    assert isinstance(model, TargetListModel) and p.targets.objectName() == "hoi_target_list"
    assert model.rowCount() == 0 and p.targets.isHidden()
    state.next_person()
    state.press("holding")  # waits for its target
    chooser = p.chooser
    assert model.rowCount() == len(chooser.candidates) > 1 and p.targets.isVisible()
    for row, (entity_id, distance) in enumerate(chooser.candidates):
        assert model.index(row, 0).data() == chooser.describe(entity_id, distance)
        assert model.index(row, 0).data(ID_ROLE) == entity_id
    assert [i.row() for i in p.targets.selectionModel().selectedIndexes()] == [0]
    chooser.cycle(1)
    assert [i.row() for i in p.targets.selectionModel().selectedIndexes()] == [1]
    state.cancel_pick()
    assert model.rowCount() == 0 and p.targets.isHidden()
