"""The Project dock: a real project's counts, one line each, and nothing without a project."""

from __future__ import annotations

import pytest

from widgets.summary import ROWS, SummaryView


@pytest.fixture
def view(qtbot):
    v = SummaryView()
    qtbot.addWidget(v)
    return v


def test_counts_of_a_real_project(view, project):
    project.annotators.sign_in("Alice")
    for text in ("How many mugs?", "How many bowls?"):
        project.questions.add({"benchmark": "mgvqa", "task": "count", "text": text, "answer": 2})
    view.set_summary(project.summary.summary())
    assert view.path_label.text() == str(project.path)
    assert view.value_labels["annotators"].text() == "1"
    assert view.value_labels["questions"].text() == "2 (2 pending)"  # a dict: total, then parts
    assert view.value_labels["scenes"].text() == "0"
    assert set(view.value_labels) == {key for key, _ in ROWS}


def test_every_row_has_its_title_in_the_form(view):
    titles = [
        view.form.itemAt(row, view.form.ItemRole.LabelRole).widget().text()
        for row in range(view.form.rowCount())
    ]
    assert titles == ["Project", *[title for _, title in ROWS]]


def test_closing_the_project_clears_the_counts(view, project):
    view.set_summary(project.summary.summary())
    assert view.value_labels["questions"].text() == "0"  # no parts when every count is 0
    view.set_summary(None)
    assert view.path_label.text() == "no project open"
    assert all(label.text() == "" for label in view.value_labels.values())


def test_it_is_as_wide_as_the_counts_and_never_taller_than_480(view, project):
    view.set_summary(project.summary.summary())
    hint = view.sizeHint()
    assert hint.height() <= 480
    assert hint.width() >= view.widget().sizeHint().width()
    assert view.minimumSizeHint().height() == 120
