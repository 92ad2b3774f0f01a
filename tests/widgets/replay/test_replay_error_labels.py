"""The Replay error-label panel on a real project's episode: a tick (Space on a kind) saves
a label on the current step with the typed note, unticking removes it, the list shows the
episode's labels, and the kinds offered follow the episode and the step."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from recorded_steps import STEPS, add_episode

from widgets.replay.error_labels import ErrorLabelPanel
from widgets.replay.state import ReplayState

LEFT = Qt.MouseButton.LeftButton
FLAW = ("environment", "execution_flaw")


@pytest.fixture
def labelling(qtbot, project, alice):
    episode = add_episode(project)
    state = ReplayState(project.episodes, alice)
    panel = ErrorLabelPanel(state)
    qtbot.addWidget(panel)
    panel.resize(360, 640)
    panel.show()
    qtbot.waitExposed(panel)
    return panel, state, episode


def _tick(qtbot, panel, pair):
    """Space on a kind's row: what a person does after choosing it with the arrows."""
    item = panel.items[pair]
    panel.tree.setCurrentItem(item)
    qtbot.keyClick(panel.tree, Qt.Key.Key_Space)


def _stored(project, episode):
    return [
        (lab.step_index, lab.category, lab.subcategory, lab.note)
        for lab in project.episodes.labels(episode)
    ]


def test_nothing_open_then_the_step_to_label(labelling):
    panel, state, episode = labelling
    assert panel.heading.text() == "Open an episode to label its steps."
    assert not panel.tree.isEnabled()
    assert [panel.existing.item(i).text() for i in range(panel.existing.count())] == [
        "No labels yet."
    ]
    state.open(episode)
    state.seek(3)
    assert panel.heading.text() == "Label step 3 as Alice: a tick saves, untick removes."
    assert panel.tree.isEnabled()
    assert all(i.checkState(0) == Qt.CheckState.Unchecked for i in panel.items.values())


def test_a_tick_saves_with_the_note_and_untick_removes(qtbot, labelling, project):
    panel, state, episode = labelling
    state.open(episode)
    state.seek(3)
    qtbot.keyClicks(panel.note, "the gripper opens 8.5 cm")
    with qtbot.waitSignal(state.saved) as saved:
        _tick(qtbot, panel, FLAW)
    assert saved.args == ["Saved: Environment error › Tool execution flaw on step 3"]
    assert _stored(project, episode) == [(3, *FLAW, "the gripper opens 8.5 cm")]
    assert panel.note.text() == ""  # the note went with the label
    assert panel.items[FLAW].checkState(0) == Qt.CheckState.Checked
    row = panel.existing.item(0)
    assert row.text() == (
        "step 3 · Environment error › Tool execution flaw — Alice: the gripper opens 8.5 cm"
    )
    assert row.font().bold()  # on the step shown
    state.seek(2)  # another step: its own ticks, the list stays
    assert panel.items[FLAW].checkState(0) == Qt.CheckState.Unchecked
    assert not panel.existing.item(0).font().bold()
    state.seek(3)
    _tick(qtbot, panel, FLAW)  # untick: removed
    assert _stored(project, episode) == []
    assert panel.existing.item(0).text() == "No labels yet."


def test_remove_mine_takes_off_only_ones_own(qtbot, labelling, project, bob):
    panel, state, episode = labelling
    project.episodes.add_label(episode, 1, "format", "", "", bob)
    state.open(episode)
    refused: list[str] = []
    state.refused.connect(refused.append)
    _tick(qtbot, panel, ("strategic_planning", "action_sequencing"))
    assert [panel.existing.item(i).text().split(" — ")[1] for i in range(2)] == ["Alice", "Bob"]
    for row, who in ((1, "Bob"), (0, "Alice")):  # by step: Alice's on 0, Bob's on 1
        panel.existing.setCurrentRow(row)
        qtbot.mouseClick(panel.remove_button, LEFT)
        if who == "Bob":
            assert "belongs to another annotator" in refused[-1]
    assert _stored(project, episode) == [(1, "format", "", "")]


def test_the_kinds_offered_follow_the_episode_and_the_step(qtbot, project, alice):
    dual = add_episode(project, benchmark="bimanual", model="gamma")
    state = ReplayState(project.episodes, alice)
    panel = ErrorLabelPanel(state)
    qtbot.addWidget(panel)
    state.open(dual)
    hidden = {cid for cid, top in panel.tops.items() if top.isHidden()}
    assert hidden == {"evidence_gathering"}  # a dual-arm episode: the paper's kinds only
    state.seek(4)  # the reply that could not be read
    assert panel.heading.text().endswith(" Suggested: Format Error.")
    item = panel.items[("format", "")]
    assert item.text(0) == "Format Error  (suggested: the reply could not be read)"
    assert item.font(0).bold() and item.checkState(0) == Qt.CheckState.Unchecked
    state.seek(len(STEPS) - 1)
    assert item.text(0) == "Format Error" and not item.font(0).bold()
    state.set_annotator(None)
    assert panel.heading.text() == "Sign in to label errors." and not panel.tree.isEnabled()
