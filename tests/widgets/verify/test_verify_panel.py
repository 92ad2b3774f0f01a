"""The Verify question form on a real project, used as a verifier does with the mouse and
the keyboard: tick criteria, approve, reject with a typed reason, correct in the editor.
Every check reads the store or the state, and the text the form shows."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from annotation.verification import Verdict
from widgets.verify.panel import (
    COMPARE_BLOCKED_NOTE,
    TABLETOP_WORDING,
    VOLUMES_WORDING,
    QuestionPanel,
    criteria_wording,
    decision_needs,
)
from widgets.verify.state import VerifyState

LEFT = Qt.MouseButton.LeftButton
APPROVE = Verdict(True, True, True, "approve")


def _add(project, text, answer, *, benchmark="mgvqa", task="count", options=None):
    record = {"benchmark": benchmark, "task": task, "text": text, "options": options}
    return project.questions.add({**record, "answer": answer, "evidence_ids": ["obj_01"]}).id


@pytest.fixture
def questions(project):
    return [
        _add(project, "Which cup is under the tray?", "red cup", options=["red cup", "blue cup"]),
        _add(project, "How many <b>mugs</b>?", 2),
    ]


@pytest.fixture
def form(qtbot, project, alice, questions):
    state = VerifyState(project.verifications, alice, scenes=project.scenes, needs=decision_needs)
    panel = QuestionPanel(state)
    qtbot.addWidget(panel)
    panel.resize(460, 900)
    panel.show()
    qtbot.waitExposed(panel)
    panel.activateWindow()  # no window manager under Xvfb: focus needs an active window
    with qtbot.waitActive(panel):
        pass
    return panel, state


def _click(qtbot, widget):
    qtbot.mouseClick(widget, LEFT, pos=widget.rect().center())


def test_the_form_shows_the_open_question(form, questions):
    panel, state = form
    assert panel.header.text() == (
        f"<b>Count</b> · question #{questions[0]} v1 · mgvqa · no stored scene"
    )
    assert panel.text.text() == "<b>Which cup is under the tray?</b>"
    assert panel.options.text() == "<b>✓ red cup</b><br>&nbsp;&nbsp;&nbsp;blue cup"
    assert panel.answer.text() == "<b>red cup</b>"
    assert [b.text() for b in panel.criteria.values() if b.isVisible()] == [
        f"{i}  {label}" for i, label in enumerate(TABLETOP_WORDING.labels, 1)
    ]
    assert not panel.criteria["volumes_distinct"].isVisible()  # Compare questions only
    assert panel.criteria_box.title() == "Criteria (1, 2, 3)"
    # nothing ticked: only a reject is possible
    assert {d: b.isEnabled() for d, b in panel.buttons.items()} == {
        "approve": False,
        "reject": True,
        "correct": False,
    }
    assert not panel.editor.isVisible() and panel.last.text() == "<i>none yet</i>"
    state.next()
    assert panel.text.text() == "<b>How many &lt;b&gt;mugs&lt;/b&gt;?</b>"  # never markup
    assert panel.options.text() == "<i>open question: no options</i>"


def test_ticking_the_criteria_and_clicking_approve_saves_it(qtbot, form, project, alice, questions):
    panel, state = form
    for box in panel.criteria.values():
        if box.isVisible():
            _click(qtbot, box)
    assert all(state.draft.criteria.values())
    assert "volumes_distinct" not in state.draft.criteria  # not asked of a Count question
    assert panel.buttons["approve"].isEnabled()
    with qtbot.waitSignal(state.verdict_saved):
        _click(qtbot, panel.buttons["approve"])
    record = project.verifications.last_verdict(alice)
    assert (record.question_id, record.decision) == (questions[0], "approve")
    assert panel.message.text().startswith(f"Saved: approve on question #{questions[0]}")
    assert state.current.id == questions[1]  # the next one opened, unticked
    assert not any(box.isChecked() for box in panel.criteria.values())
    assert panel.last.text().startswith(f"Question #{questions[0]}, after ")
    assert "<b>You</b> (first round): <b>approve</b>" in panel.last.text()
    assert "Ctrl+Z undoes it." in panel.last.text()


def test_reject_asks_for_a_reason_and_enter_saves_it(qtbot, form, project, alice, questions):
    panel, state = form
    _click(qtbot, panel.buttons["reject"])
    assert panel.message.text() == "A reject needs a reason: type it, then press Enter"
    assert panel.message.styleSheet() == "color: #c0392b"
    assert panel.reason.hasFocus()
    qtbot.keyClicks(panel.reason, "two cups are under it")
    assert state.draft.reason == "two cups are under it"
    qtbot.keyClick(panel.reason, Qt.Key.Key_Return)
    record = project.verifications.last_verdict(alice)
    assert (record.question_id, record.decision) == (questions[0], "reject")
    assert record.verdict.reason == "two cups are under it"
    assert panel.reason.text() == "" and not panel.reason.hasFocus()  # the next question


def test_a_correction_is_typed_in_the_editor_and_saved(qtbot, form, project, alice, questions):
    panel, state = form
    _click(qtbot, panel.criteria["evidence_withheld"])
    assert panel.buttons["correct"].isEnabled() is False
    _click(qtbot, panel.criteria["evidence_recoverable"])
    _click(qtbot, panel.buttons["correct"])  # opens the editor, filled with the question
    assert panel.editor.isVisible() and panel.edit_text.hasFocus()
    assert panel.edit_options.toPlainText() == "red cup\nblue cup"
    assert "Saved as a new version" in panel.editor_note.text()
    panel.edit_answer.selectAll()
    qtbot.keyClicks(panel.edit_answer, "blue cup")
    assert state.corrections() == {"answer": "blue cup"}
    qtbot.keyClick(panel.edit_answer, Qt.Key.Key_Return)
    record = project.verifications.last_verdict(alice)
    assert record.decision == "correct"
    assert project.questions.get(record.proposed_question_id).answer == "blue cup"
    assert not panel.editor.isVisible() and state.current.id == questions[1]


def test_the_form_is_blind_and_words_criteria_per_benchmark(qtbot, project, alice, bob):
    qid = _add(project, "Who stands left of the door?", "pedestrian 2", benchmark="jrdb")
    project.verifications.submit(qid, alice, APPROVE, 2.0)
    state = VerifyState(project.verifications, bob, scenes=project.scenes, needs=decision_needs)
    panel = QuestionPanel(state)
    qtbot.addWidget(panel)
    assert state.current.id == qid
    assert panel.verdicts.text().startswith("<i>None yet.")  # Alice's verdict stays hidden
    jrdb = criteria_wording("jrdb")
    assert panel.criteria["unambiguous"].text() == f"1  {jrdb.labels[0]}"
    assert panel.criteria["evidence_withheld"].toolTip() == jrdb.tips[1]
    assert panel.editor_note.text() == f"<i>{jrdb.blocked_note}</i>"
    state.correct()  # the editor opens; saving is not allowed without 2 and 3
    assert panel.editor.isVisibleTo(panel)
    state.correct()  # refused, in JRDB's words
    assert panel.message.text() == jrdb.correct_needs
    state.set_source(project.verifications, None, project.scenes)
    assert panel.header.text() == "No question open" and panel.text.text() == "Sign in to verify."
    assert not any(box.isEnabled() for box in panel.criteria.values())


def test_a_compare_question_shows_criterion_4_and_approve_waits_for_it(
    qtbot, form, project, alice, questions
):
    """MG-VQA C.2: the fourth box shows for a Compare question only; approve stays off until
    it is ticked, and with it unticked a correction is refused too (an invalid scene)."""
    panel, state = form
    compare = _add(project, "Which labelled object is largest?", "B", task="compare")
    state.refresh()
    state.open_row([q.id for q in state.questions].index(compare))
    volumes = panel.criteria["volumes_distinct"]
    assert volumes.isVisible() and not volumes.isChecked() and volumes.isEnabled()
    assert volumes.text() == f"4  {VOLUMES_WORDING.label}"
    assert panel.criteria_box.title() == "Criteria (1, 2, 3, 4)"
    for name in ("unambiguous", "evidence_withheld", "evidence_recoverable"):
        _click(qtbot, panel.criteria[name])
    assert state.draft.volumes_distinct is False
    assert {d: b.isEnabled() for d, b in panel.buttons.items()} == {
        "approve": False,
        "reject": True,
        "correct": False,
    }
    assert panel.editor_note.text() == f"<i>{COMPARE_BLOCKED_NOTE}</i>"
    state.approve()  # the key A: refused, saying what is missing
    assert panel.message.text() == "Approve needs all four criteria (1, 2, 3, 4)"
    assert project.verifications.last_verdict(alice) is None
    _click(qtbot, volumes)
    assert state.draft.volumes_distinct is True
    assert all(b.isEnabled() for b in panel.buttons.values())
    with qtbot.waitSignal(state.verdict_saved):
        _click(qtbot, panel.buttons["approve"])
    record = project.verifications.last_verdict(alice)
    assert (record.question_id, record.decision) == (compare, "approve")
    assert record.verdict.volumes_distinct is True
    stored = project.db.execute(
        "SELECT volumes_distinct FROM verifications WHERE id = ?", [record.id]
    ).fetchone()
    assert stored == (1,)
    assert state.current.task != "compare" and not volumes.isVisible()


def test_criterion_4_is_not_asked_of_other_tasks(form):
    panel, state = form
    state.toggle(4)  # the key 4 on a Count question
    assert state.draft.volumes_distinct is None
    assert panel.message.text() == (
        "Criterion 4 (volumes distinct) is asked of Compare questions only"
    )
