"""The HOI review panel on a real imported JRDB project, used as reviewers do: click a label
in the queue, click a difficulty, Accept; Reject with a typed comment and Enter; the author
reads what came back in "Returned to me". Outcomes are read from the HOI store."""

from __future__ import annotations

import pytest
from hoi_fixtures import build_hoi_project, copy_of
from PySide6.QtCore import Qt

from annotation.jrdb.hoi_review import HALF, RETURNED
from store import open_project
from widgets.hoi.panel import ID_ROLE
from widgets.hoi.review_panel import HoiReviewPanel
from widgets.hoi.review_state import RETURNED as RETURNED_LIST
from widgets.hoi.review_state import HoiReviewState
from widgets.hoi.state import HoiState
from widgets.jrdb.state import JrdbViewState

LEFT = Qt.MouseButton.LeftButton


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("hoi_review_panel"))


@pytest.fixture
def labelled(base, tmp_path):
    """A private copy with one of Alice's labels: pedestrian 2 standing, in the second frame."""
    hp = copy_of(base, tmp_path)
    with open_project(hp.db) as project:
        alice = project.annotators.sign_in("Alice")
        label = project.hoi.add_label(
            frame_id=hp.frame_ids[1],
            subject_entity_id=hp.persons["pedestrian:2"],
            object_entity_id=None,
            category="pose",
            predicate="standing",
            difficulty=1,
            annotator=alice,
        )
        yield project, hp, label.id


def _panel(qtbot, project, hp, name):
    view = JrdbViewState()
    hoi = HoiState(view)
    view.load(project, hp.sequence_id)
    hoi.set_source(project.hoi, project.annotators.sign_in(name))
    review = HoiReviewState(hoi)
    review.refresh()
    panel = HoiReviewPanel(review)
    qtbot.addWidget(panel)
    panel.resize(560, 520)
    panel.show()
    qtbot.waitExposed(panel)
    panel.activateWindow()  # no window manager under Xvfb: focus needs an active window
    with qtbot.waitActive(panel):
        pass
    return panel, review, view


def _click(qtbot, widget):
    qtbot.mouseClick(widget, LEFT, pos=widget.rect().center())


def _click_row(qtbot, panel, row):
    rect = panel.list.visualRect(panel.list.model().index(row, 0))
    qtbot.mouseClick(panel.list.viewport(), LEFT, pos=rect.center())


def _text(panel, row):
    return panel.list.model().index(row, 0).data()


def _selected(panel, row) -> bool:
    return panel.list.selectionModel().isSelected(panel.list.model().index(row, 0))


def _tabs(panel) -> list[str]:
    return [panel.tabs.tabText(i) for i in range(panel.tabs.count())]


def test_the_queue_lists_the_label_and_a_click_opens_it(qtbot, labelled):
    project, hp, label_id = labelled
    panel, review, view = _panel(qtbot, project, hp, "Bob")
    assert _tabs(panel) == ["To review (1)", "Returned to me (0)", "Quality check (0)"]
    assert _text(panel, 0) == "frame 1  person 2: 'standing'  ·  0/2 reviews"
    assert panel.title.text() == "Open a label from the list (J / K)."
    assert not panel.accept_button.isEnabled() and not panel.resubmit_button.isVisible()
    _click_row(qtbot, panel, 0)
    assert review.current.id == label_id and _selected(panel, 0)
    assert panel.title.text() == (
        f"<b>person 2: &#x27;standing&#x27;</b> in frame 1 (label #{label_id}, round 1)"
    )
    assert view.frame.id == hp.frame_ids[1] and view.selected == hp.persons["pedestrian:2"]
    assert panel.reviews.text() == ""  # blind: Alice's difficulty and others' verdicts hidden
    assert panel.accept_button.isEnabled()


def test_a_clicked_difficulty_and_accept_save_the_review(qtbot, labelled):
    project, hp, label_id = labelled
    panel, review, _view = _panel(qtbot, project, hp, "Bob")
    _click_row(qtbot, panel, 0)
    _click(qtbot, panel.accept_button)  # no difficulty yet: refused, nothing saved
    assert project.hoi.record(label_id).reviews == ()
    _click(qtbot, panel.difficulty.button(3))
    assert review.draft.difficulty == 3 and panel.difficulty.button(3).isChecked()
    _click(qtbot, panel.accept_button)
    record = project.hoi.record(label_id)
    assert record.status == HALF
    assert [(r.verdict, r.difficulty) for r in record.reviews] == [("accept", 3)]
    assert panel.list.model().rowCount() == 0 and _tabs(panel)[0] == "To review (0)"
    assert panel.title.text() == "Open a label from the list (J / K)."


def test_reject_wants_a_comment_and_enter_sends_it_back(qtbot, labelled):
    project, hp, label_id = labelled
    panel, review, _view = _panel(qtbot, project, hp, "Bob")
    _click_row(qtbot, panel, 0)
    _click(qtbot, panel.reject_button)
    assert panel.comment.hasFocus() and project.hoi.record(label_id).reviews == ()
    qtbot.keyClicks(panel.comment, "sitting, not standing")
    assert review.draft.comment == "sitting, not standing"
    qtbot.keyClick(panel.comment, Qt.Key.Key_Return)
    record = project.hoi.record(label_id)
    assert record.status == RETURNED
    assert [(r.verdict, r.comment) for r in record.reviews] == [("reject", "sitting, not standing")]
    assert not panel.comment.hasFocus()  # the keys label and review again


def test_the_author_reads_what_came_back(qtbot, labelled):
    project, hp, label_id = labelled
    bob = project.annotators.sign_in("Bob")
    project.hoi.review(label_id, reviewer=bob, verdict="reject", comment="sitting")
    panel, review, _view = _panel(qtbot, project, hp, "Alice")
    assert _tabs(panel) == ["To review (0)", "Returned to me (1)", "Quality check (0)"]
    bar = panel.tabs
    qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(1).center())
    assert review.list_name == RETURNED_LIST
    assert _text(panel, 0) == "frame 1  person 2: 'standing'  ·  returned ✗"
    assert panel.resubmit_button.isVisible()
    _click_row(qtbot, panel, 0)
    assert panel.reviews.text() == "<b>Bob</b>: reject — “sitting”"  # the author sees all
    assert not panel.accept_button.isEnabled() and not panel.comment.isEnabled()
    _click(qtbot, panel.resubmit_button)  # unchanged, back for review: a new round
    record = project.hoi.record(label_id)
    assert (record.round, record.status) == (2, "unreviewed")


def test_the_queue_is_a_model_of_the_open_list(qtbot, qtmodeltester, labelled):
    """One row a record of `review.records`, its id in ID_ROLE; J selects the row it opens,
    another list clears the selection."""
    project, hp, label_id = labelled
    panel, review, _view = _panel(qtbot, project, hp, "Bob")
    queue = panel.list.model()
    assert queue is panel.queue
    qtmodeltester.check(queue)
    assert (
        [queue.index(r, 0).data(ID_ROLE) for r in range(queue.rowCount())]
        == [r.id for r in review.records]
        == [label_id]
    )
    assert not panel.list.selectionModel().hasSelection()
    review.step(1)  # J
    assert review.current.id == label_id and _selected(panel, 0)
    review.show_list(RETURNED_LIST)
    assert queue.rowCount() == 0 and not panel.list.selectionModel().hasSelection()
