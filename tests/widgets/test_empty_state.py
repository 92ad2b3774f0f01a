"""A mode's empty page: what it is for, how data gets in, and a status line about the project."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from widgets.empty_state import EmptyState
from widgets.icons import icon

PURPOSE = (
    "Check generated benchmark questions (Count, Find, Beneath, Compare) against the "
    "restored scene, two verifiers per question, blind to each other; then approve, "
    "correct or reject."
)
HOW_TO = (
    "Generate questions with <code>reasonscope questions generate --task all --n 5 "
    "--seed 0 --db PROJECT</code>."
)


@pytest.fixture
def page(qtbot):
    p = EmptyState(title="Verify questions", purpose=PURPOSE, how_to=HOW_TO, icon=icon("verify"))
    qtbot.addWidget(p)
    p.resize(1200, 700)
    p.show()
    qtbot.waitExposed(p)
    return p


def test_it_says_what_the_mode_is_for_and_how_data_gets_in(page):
    assert page.title_label.text() == "Verify questions"
    assert page.title_label.font().bold()
    assert page.title_label.font().pointSizeF() > page.purpose_label.font().pointSizeF()
    assert page.purpose_label.text() == PURPOSE
    assert page.how_to_label.textFormat() == Qt.TextFormat.RichText  # <code> is shown as code
    assert page.how_to_label.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    pixmap = page.icon_label.pixmap()
    assert not pixmap.isNull() and pixmap.width() == 72 * pixmap.devicePixelRatio()


def test_the_status_line_follows_the_project(page, project):
    assert page.status_label.text() == ""
    project.questions.add(
        {"benchmark": "mgvqa", "task": "count", "text": "How many mugs?", "answer": 2}
    )
    summary = project.summary.summary()
    page.set_status(f"This project holds {sum(summary.questions.values())} question(s).")
    assert page.status_label.text() == "This project holds 1 question(s)."
    assert page.status_label.font().bold()


def test_the_text_is_a_centred_column_of_at_most_640_px(page):
    for label in (page.purpose_label, page.how_to_label):
        assert label.width() <= 640
        centre = label.mapTo(page, QPoint(0, 0)).x() + label.width() / 2
        assert abs(centre - page.width() / 2) <= 2
    # the long purpose wraps to several lines inside the column
    line = page.purpose_label.fontMetrics().height()
    assert page.purpose_label.height() >= 2 * line
