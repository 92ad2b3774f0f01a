"""The Verify queue panel on a real project: the table's rows are the state's list, a click
opens a question, the open question stays selected, and the tabs switch lists."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from annotation.verification import Verdict
from widgets.verify.queue import QueueTableModel, VerifyQueuePanel
from widgets.verify.state import ADJUDICATION, QUEUE, VerifyState

APPROVE = Verdict(True, True, True, "approve")
REJECT = Verdict(True, False, True, "reject", reason="the mug is in plain view")
LEFT = Qt.MouseButton.LeftButton


def _add(project, text, task="count"):
    record = {"benchmark": "mgvqa", "task": task, "text": text, "answer": 1}
    return project.questions.add({**record, "evidence_ids": ["obj_01"]}).id


@pytest.fixture
def questions(project):
    return [
        _add(project, "How many mugs?"),
        _add(project, "What lies under the tray?", "beneath"),
        _add(project, "How many cubes?"),
    ]


def _panel(qtbot, state):
    panel = VerifyQueuePanel(state)
    qtbot.addWidget(panel)
    panel.resize(420, 300)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def _rows(model) -> list[list[str]]:
    return [
        [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def _selected_rows(panel) -> list[int]:
    return [i.row() for i in panel.view.selectionModel().selectedRows()]


def test_the_table_shows_the_queue_and_follows_the_open_question(qtbot, project, alice, questions):
    state = VerifyState(project.verifications, alice, scenes=project.scenes)
    panel = _panel(qtbot, state)
    model = panel.model
    assert isinstance(model, QueueTableModel)
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(3)] == [
        "#",
        "Task",
        "Question",
    ]
    assert _rows(model) == [
        [str(questions[0]), "Count", "How many mugs?"],
        [str(questions[1]), "Beneath", "What lies under the tray?"],
        [str(questions[2]), "Count", "How many cubes?"],
    ]
    assert model.index(1, 2).data(Qt.ItemDataRole.ToolTipRole) == (
        f"Question #{questions[1]} v1 (mgvqa): What lies under the tray?"
    )
    assert panel.tabs.tabText(0) == "Queue (3)" and panel.tabs.tabText(1) == "Adjudication (0)"
    assert panel.hint.text() == "J / ↓ next, K / ↑ previous."
    assert _selected_rows(panel) == [0]
    state.next()  # J in the mode: the selection follows
    assert _selected_rows(panel) == [1]


def test_a_click_on_a_row_opens_that_question(qtbot, project, alice, questions):
    state = VerifyState(project.verifications, alice, scenes=project.scenes)
    panel = _panel(qtbot, state)
    rect = panel.view.visualRect(panel.model.index(2, 2))
    with qtbot.waitSignal(state.question_opened):
        qtbot.mouseClick(panel.view.viewport(), LEFT, pos=rect.center())
    assert state.current.id == questions[2] and _selected_rows(panel) == [2]


def test_the_adjudication_tab_shows_the_disagreements(qtbot, project, alice, bob, questions):
    project.verifications.submit(questions[0], alice, APPROVE, 1.0)
    project.verifications.submit(questions[0], bob, REJECT, 1.0)
    carol = project.annotators.sign_in("Carol")
    state = VerifyState(project.verifications, carol, scenes=project.scenes)
    panel = _panel(qtbot, state)
    assert state.list_name == QUEUE  # two questions still wait for a first round
    assert panel.tabs.tabText(0) == "Queue (2)" and panel.tabs.tabText(1) == "Adjudication (1)"
    bar = panel.tabs
    with qtbot.waitSignal(state.queue_changed):
        qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(1).center())
    assert state.list_name == ADJUDICATION and state.current.id == questions[0]
    assert _rows(panel.model) == [[str(questions[0]), "Count", "How many mugs?"]]
    state.show_list(QUEUE)  # from the state (a key): the tab follows
    assert panel.tabs.currentIndex() == 0 and panel.model.rowCount() == 2


def test_the_hint_says_why_the_list_is_empty(qtbot, project, alice, bob, questions):
    state = VerifyState(project.verifications, None, scenes=project.scenes)
    panel = _panel(qtbot, state)
    assert panel.hint.text() == "Sign in to see the questions waiting for you."
    assert panel.model.rowCount() == 0 and panel.tabs.tabText(0) == "Queue (0)"
    for qid in questions:  # Alice has judged them all; one waits for a third person
        project.verifications.submit(qid, alice, APPROVE, 1.0)
    project.verifications.submit(questions[0], bob, REJECT, 1.0)
    state.set_source(project.verifications, alice, project.scenes)
    assert (
        panel.hint.text()
        == "Your queue is empty: every pending question has your verdict or two already."
    )
    for qid in questions[1:]:
        project.verifications.submit(qid, bob, APPROVE, 1.0)
    carol = project.annotators.sign_in("Carol")
    state.set_source(project.verifications, carol, project.scenes)
    assert state.list_name == ADJUDICATION and panel.tabs.currentIndex() == 1
    assert panel.hint.text() == "J / ↓ next, K / ↑ previous."
    state.show_list(QUEUE)
    assert panel.hint.text().endswith("1 wait for adjudication: see the Adjudication tab.")
    state.set_source(project.verifications, alice, project.scenes)
    state.show_list(ADJUDICATION)
    assert panel.hint.text() == "Nothing to adjudicate for you."
