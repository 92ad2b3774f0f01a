"""`VerifyState` on a real project's verification store, without a screen: which list it
starts on, walking and switching the queues, the correction draft, the evidence names and
the clock. (The verdict round trip itself is in tests/app/modes/verify/test_verify_mode.py.)"""

from __future__ import annotations

import pytest

from annotation.verification import Verdict
from widgets.verify.state import ADJUDICATION, QUEUE, Draft, VerifyState

APPROVE = Verdict(True, True, True, "approve")
REJECT = Verdict(True, False, True, "reject", reason="the mug is in plain view")
MUG = {
    "id": "mug_1",
    "name": "red mug",
    "asset": "mug.urdf",
    "position": [0, 0, 0.8],
    "orientation": [0, 0, 0, 1],
}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def _add(project, text, answer, *, options=None, task="count", scene_id=None, evidence=None):
    record = {"benchmark": "mgvqa", "task": task, "text": text, "options": options}
    record.update(answer=answer, evidence_ids=evidence or ["obj_01"], scene_id=scene_id)
    return project.questions.add(record).id


@pytest.fixture
def three(project):
    return [
        _add(project, "How many mugs?", 2),
        _add(project, "Which cup is under the tray?", "red cup", options=["red cup", "blue cup"]),
        _add(project, "How many cubes?", 3),
    ]


def _state(project, annotator, **kw):
    state = VerifyState(project.verifications, annotator, scenes=project.scenes, **kw)
    refused: list[str] = []
    state.refused.connect(refused.append)
    return state, refused


def test_next_and_previous_walk_the_queue_and_stop_at_its_ends(project, alice, three):
    state, refused = _state(project, alice)
    opened: list[int] = []
    state.question_opened.connect(lambda: opened.append(state.current.id))
    assert (state.list_name, state.index, state.current.id) == (QUEUE, 0, three[0])
    state.previous()  # already the first: nothing opens
    assert opened == [] and state.current.id == three[0]
    state.next()
    state.next()
    state.next()  # past the last: stays on it
    assert opened == three[1:] and state.index == 2
    state.open_row(0)
    state.open_row(7)  # no such row
    assert opened == [*three[1:], three[0]] and state.current.id == three[0]
    assert refused == []


def test_an_empty_queue_refuses_next_and_shows_the_adjudication_list(project, alice, bob, three):
    for qid in three[:2]:  # Alice and Bob disagree on two questions; both approve the third
        project.verifications.submit(qid, alice, APPROVE, 1.0)
        project.verifications.submit(qid, bob, REJECT, 1.0)
    project.verifications.submit(three[2], alice, APPROVE, 1.0)
    project.verifications.submit(three[2], bob, APPROVE, 1.0)
    mine, refused = _state(project, alice)
    assert mine.lists == {QUEUE: [], ADJUDICATION: []} and mine.current is None
    mine.next()
    assert refused == ["No questions in the queue"]
    carol = project.annotators.sign_in("Carol")
    state, _ = _state(project, carol)
    # nothing left for a first round: Carol starts where the work is
    assert state.list_name == ADJUDICATION
    assert [q.id for q in state.questions] == three[:2] and state.current.id == three[0]
    assert {r.annotator_name for r in state.verdicts} == {"Alice", "Bob"}
    with pytest.raises(ValueError, match="list must be"):
        state.show_list("elsewhere")
    changed: list[str] = []
    state.queue_changed.connect(lambda: changed.append(state.list_name))
    state.show_list(QUEUE)
    assert changed == [QUEUE] and state.current is None and state.allowed() == ()


def test_cancel_correction_restores_the_question_and_corrections_parse(project, alice, three):
    state, _ = _state(project, alice)
    state.open_row(1)
    assert state.draft == Draft(
        text="Which cup is under the tray?",
        options_text=("red cup\nblue cup"),
        answer_text="red cup",
    )
    state.correct()  # opens the editor
    assert state.draft.editing
    state.set_correction(
        text="  Which cup is under the tray?  ",
        options_text="red cup\n\nblue cup\n",
        answer_text="blue cup",
    )
    assert state.corrections() == {"answer": "blue cup"}  # spaces and blank lines are no change
    state.cancel_correction()
    assert state.draft == Draft(
        text="Which cup is under the tray?", options_text="red cup\nblue cup", answer_text="red cup"
    )
    state.open_row(0)  # a count: the typed answer is JSON
    state.set_correction(text="How many mugs?", options_text="", answer_text=" 4 ")
    assert state.corrections() == {"answer": 4}


def test_evidence_names_come_from_the_scene_and_visibility_is_announced(project, alice):
    scene = project.scenes.add({"name": "one mug", "seed": 1, "bodies": [MUG]})
    _add(project, "Is there a mug?", "yes", task="find", scene_id=scene, evidence=["mug_1", "lid"])
    state, _ = _state(project, alice)
    assert state.scene.id == scene
    assert state.evidence_names() == {"mug_1": "red mug", "lid": "lid"}  # unknown: its key
    with_signal = []
    state.evidence_changed.connect(lambda: with_signal.append(dict(state.visibility)))
    seen = {"mug_1": 0.25}
    state.set_visibility(seen)
    seen["mug_1"] = 1.0  # the state keeps its own copy
    assert with_signal == [{"mug_1": 0.25}] and state.visibility == {"mug_1": 0.25}


def test_refresh_keeps_the_draft_and_the_clock_counts_from_opening(project, alice, bob, three):
    clock = Clock()
    state, _ = _state(project, alice, clock=clock)
    clock.now += 5
    state.toggle(1)
    state.set_reason("half typed")
    state.refresh()  # still listed: same question, same draft
    assert state.current.id == three[0] and state.draft.reason == "half typed"
    assert state.draft.unambiguous and state.seconds_on_task() == 5
    carol = project.annotators.sign_in("Carol")
    for other in (bob, carol):  # the question fills up while Alice looks at it
        project.verifications.submit(three[0], other, APPROVE, 1.0)
    clock.now += 3
    state.refresh()  # gone from her queue: the next one takes its row, afresh
    assert state.current.id == three[1] and state.draft.reason == ""
    assert state.seconds_on_task() == 0
    clock.now -= 10  # a clock going back never gives negative time
    assert state.seconds_on_task() == 0
