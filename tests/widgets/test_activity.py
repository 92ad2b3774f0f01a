"""The activity panel: a real project's audit log, newest first, as the table shows it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, Qt

from widgets.activity import ActivityPanel, AuditTableModel


def shown_rows(model: AuditTableModel) -> list[list[str]]:
    return [
        [model.data(model.index(r, c)) for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


@pytest.fixture
def panel(qtbot, project):
    project.annotators.sign_in("Alice")
    project.annotators.sign_in("Bob")
    project.questions.add(
        {"benchmark": "mgvqa", "task": "count", "text": "How many mugs?", "answer": 2}
    )
    p = ActivityPanel(project.audit.recent)
    qtbot.addWidget(p)
    p.refresh()
    return p


def test_the_log_is_shown_newest_first_with_who_did_what(panel):
    model = panel.model
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(5)] == list(
        AuditTableModel.HEADERS
    )
    rows = shown_rows(model)
    assert [r[1:] for r in rows] == [
        ["(system)", "create", "questions #1", ""],
        ["Bob", "create", "annotators #2", "name=Bob"],
        ["Alice", "create", "annotators #1", "name=Alice"],
    ]
    when = rows[0][0]
    assert len(when) == 19 and when[10] == " " and "T" not in when  # "YYYY-MM-DD HH:MM:SS"
    assert model.entry(1).annotator == "Bob"


def test_refresh_reads_the_source_again(panel, project):
    assert panel.model.rowCount() == 3
    project.annotators.sign_in("Carol")
    assert panel.model.rowCount() == 3  # nothing changes until asked
    panel.refresh()
    assert panel.model.rowCount() == 4
    assert shown_rows(panel.model)[0][1:4] == ["Carol", "create", "annotators #3"]


def test_no_source_shows_an_empty_log(panel):
    panel.set_source(None)
    assert panel.model.rowCount() == 0
    assert panel.view.model() is panel.model


def test_the_model_answers_only_display_and_tooltip_roles(panel):
    model = panel.model
    index = model.index(1, 4)
    assert model.data(index, Qt.ItemDataRole.ToolTipRole) == "name=Bob"
    assert model.data(index, Qt.ItemDataRole.EditRole) is None
    assert model.data(QModelIndex()) is None
    assert model.rowCount(index) == 0  # a flat table: rows have no children
