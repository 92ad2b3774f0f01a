"""The Human study form on a real project, used as a participant does: click a rating, go
Back, type a count and press Enter, see a drawn box, clear it. The form shows the question
blind and says why nothing is open."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from widgets.study.panel import ERROR_STYLE, PROMPTS, StudyPanel
from widgets.study.state import ANSWER, StudyState

LEFT = Qt.MouseButton.LeftButton
JRDB = {"benchmark": "jrdb", "options": None}


def _table(project, text, **more):
    record = {"benchmark": "mgvqa", "task": "count", "text": text, "answer": 2, **more}
    record.setdefault("options", None)
    return project.questions.add(record).id


def _panel(qtbot, state):
    panel = StudyPanel(state)
    qtbot.addWidget(panel)
    panel.resize(900, 260)
    panel.show()
    qtbot.waitExposed(panel)
    panel.activateWindow()  # no window manager under Xvfb: focus needs an active window
    with qtbot.waitActive(panel):
        pass
    return panel


def _click(qtbot, button):
    qtbot.mouseClick(button, LEFT, pos=button.rect().center())


def test_clicking_a_rating_saves_it_and_back_shows_it(qtbot, project, alice):
    shown = {  # id -> (header's task, text): blind, the difficulty is never shown
        _table(project, "How many mugs?", difficulty={"S": 3, "R": 1, "T": 1}): (
            "Count",
            "How many mugs?",
        ),
        _table(project, "Which is heavier?", task="compare", options=["mug", "cube"]): (
            "Compare",
            "Which is heavier?\nOptions: mug, cube",
        ),
    }
    state = StudyState(project.reasoning, alice, project.questions)
    panel = _panel(qtbot, state)
    assert panel.rate_page.isVisible() and not panel.answer_page.isVisible()
    assert panel.progress.text() == "0 / 2 rated"
    assert not panel.back_button.isEnabled() and not panel.forward_button.isEnabled()
    first = state.current
    task, text = shown[first.id]
    assert panel.header.text() == f"{task} · mgvqa · question #{first.id}"
    assert panel.text.text() == text
    with qtbot.waitSignal(state.saved):
        _click(qtbot, panel.findChild(QPushButton, "study_rate_3"))
    assert [(r.question_id, r.rating) for r in project.reasoning.ratings(annotator=alice)] == [
        (first.id, 3)
    ]
    assert panel.progress.text() == "1 / 2 rated" and state.current.id != first.id
    assert panel.text.text() == shown[state.current.id][1]
    _click(qtbot, panel.back_button)
    assert state.current.id == first.id
    assert panel.scale.button(3).isChecked() and not panel.scale.button(4).isChecked()
    assert panel.review_note.text() == (
        "<i>Rated earlier: 3 (moderate). A new key replaces it.</i>"
    )
    assert panel.forward_button.isEnabled() and not panel.back_button.isEnabled()
    _click(qtbot, panel.forward_button)
    assert panel.review_note.text() == "" and not panel.scale.button(3).isChecked()


def test_a_typed_count_is_submitted_with_enter(qtbot, project, alice):
    qid = project.questions.add(
        {**JRDB, "task": "vqa-count", "text": "How many persons sit?", "answer": 3}
    ).id
    state = StudyState(project.reasoning, alice, project.questions)
    panel = _panel(qtbot, state)
    state.set_task(ANSWER)
    assert not panel.rate_page.isVisible() and panel.answer_page.isVisible()
    assert panel.answer_prompt.text() == PROMPTS["count"]
    assert panel.count_field.isVisible() and not panel.text_field.isVisible()
    assert panel.count_field.hasFocus()  # type at once
    qtbot.keyClicks(panel.count_field, "3")
    qtbot.keyClick(panel.count_field, Qt.Key.Key_Return)
    (stored,) = project.reasoning.human_answers(annotator=alice)
    assert (stored.question_id, stored.answer, stored.correct) == (qid, 3, True)
    assert panel.feedback.text() == f"Question #{qid}: answer saved"
    assert panel.text.text() == "You have answered every JRDB question. Thank you!"
    assert panel.progress.text() == "1 / 1 answered"


def test_the_drawn_boxes_are_shown_and_cleared(qtbot, project, alice):
    answer = {"entity_ids": ["pedestrian:1"], "image_id": "0.jpg", "boxes": [[100, 50, 40, 120]]}
    project.questions.add({**JRDB, "task": "vg", "text": "Find the tallest one.", "answer": answer})
    state = StudyState(project.reasoning, alice, project.questions)
    panel = _panel(qtbot, state)
    state.set_task(ANSWER)
    assert panel.box_label.isVisible() and panel.clear_button.isVisible()
    assert panel.box_label.text() == "<i>no box drawn yet</i>"
    _click(qtbot, panel.submit_button)  # nothing drawn: said, in red
    assert panel.message.text().startswith("Draw a box around the answer first")
    assert panel.message.styleSheet() == ERROR_STYLE
    state.set_box((101.4, 52, 38, 118))  # a drag on the image
    assert panel.box_label.text() == "Box: (101, 52) 38 × 118 px"
    state.set_box((300, 40, 20, 60), add=True)
    assert panel.box_label.text() == "Boxes: (101, 52) 38 × 118 px; (300, 40) 20 × 60 px"
    _click(qtbot, panel.clear_button)
    assert state.boxes == [] and panel.box_label.text() == "<i>no box drawn yet</i>"
    state.set_show_feedback(True)
    state.set_box((100, 50, 40, 120))
    _click(qtbot, panel.submit_button)
    assert panel.feedback.text().endswith(": Right (IoU 1.00)")
    assert "color: #1e7b34" in panel.feedback.styleSheet()


@pytest.mark.parametrize(
    ("who", "task", "expected"),
    [
        (None, "rate", "Sign in to take part (Ctrl+Shift+U)."),
        ("Alice", "rate", "You have rated every question. Thank you!"),
        ("Alice", ANSWER, "No JRDB questions to answer: "),
    ],
)
def test_the_form_says_why_no_question_is_open(qtbot, project, who, task, expected):
    qid = _table(project, "How many mugs?")
    annotator = project.annotators.sign_in(who) if who else None
    if annotator is not None:
        project.reasoning.rate(qid, annotator, 2)
    state = StudyState(project.reasoning, annotator, project.questions)
    panel = _panel(qtbot, state)
    state.set_task(task)
    assert panel.text.text().startswith(expected)
    assert not any(panel.scale.button(v).isEnabled() for v in range(1, 6))
    assert panel.progress.text() == ("" if who is None else state.progress_text())


def test_no_store_and_completions(qtbot):
    panel = _panel(qtbot, StudyState())
    assert panel.text.text() == "This project has no human-study store yet."
    panel.set_completions(["adult", "Child", "adult", "baby"])
    assert panel.completer.model().stringList() == ["adult", "baby", "Child"]
