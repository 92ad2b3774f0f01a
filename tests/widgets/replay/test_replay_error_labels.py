"""The Replay error-label panel on a real project's episode: a tick (Space on a kind) saves
a label on the current step with the typed note, unticking removes it, the list shows the
episode's labels, and the kinds offered follow the episode and the step."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, Qt
from recorded_steps import STEPS, add_episode

from widgets.replay.error_labels import LABEL_ROLE, PAIR_ROLE, ErrorLabelPanel
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
    panel.tree.setCurrentIndex(panel.model.index_of(pair))
    qtbot.keyClick(panel.tree, Qt.Key.Key_Space)


def _check(panel, pair):
    """The tick the tree shows on a kind's row."""
    return panel.model.index_of(pair).data(Qt.ItemDataRole.CheckStateRole)


def _bold(index):
    font = index.data(Qt.ItemDataRole.FontRole)
    return font is not None and font.bold()


def _row(panel, row):
    """A row of the episode's label list."""
    return panel.existing.model().index(row, 0)


def _listed(panel):
    model = panel.existing.model()
    return [model.index(r, 0).data() for r in range(model.rowCount())]


def _hidden(panel, category):
    """Whether the tree hides a category (and its kinds)."""
    return panel.tree.isRowHidden(panel.model.index_of((category, "")).row(), QModelIndex())


def _stored(project, episode):
    return [
        (lab.step_index, lab.category, lab.subcategory, lab.note)
        for lab in project.episodes.labels(episode)
    ]


def test_nothing_open_then_the_step_to_label(labelling):
    panel, state, episode = labelling
    assert panel.heading.text() == "Open an episode to label its steps."
    assert not panel.tree.isEnabled()
    assert _listed(panel) == ["No labels yet."]
    state.open(episode)
    state.seek(3)
    assert panel.heading.text() == "Label step 3 as Alice: a tick saves, untick removes."
    assert panel.tree.isEnabled()
    pairs = state.taxonomy.pairs()
    assert all(_check(panel, pair) == Qt.CheckState.Unchecked for pair in pairs)


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
    assert _check(panel, FLAW) == Qt.CheckState.Checked
    row = _row(panel, 0)
    assert row.data() == (
        "step 3 · Environment error › Tool execution flaw — Alice: the gripper opens 8.5 cm"
    )
    assert _bold(row)  # on the step shown
    state.seek(2)  # another step: its own ticks, the list stays
    assert _check(panel, FLAW) == Qt.CheckState.Unchecked
    assert not _bold(_row(panel, 0))
    state.seek(3)
    _tick(qtbot, panel, FLAW)  # untick: removed
    assert _stored(project, episode) == []
    assert _listed(panel) == ["No labels yet."]


def test_remove_mine_takes_off_only_ones_own(qtbot, labelling, project, bob):
    panel, state, episode = labelling
    project.episodes.add_label(episode, 1, "format", "", "", bob)
    state.open(episode)
    refused: list[str] = []
    state.refused.connect(refused.append)
    _tick(qtbot, panel, ("strategic_planning", "action_sequencing"))
    assert [_row(panel, i).data().split(" — ")[1] for i in range(2)] == ["Alice", "Bob"]
    for row, who in ((1, "Bob"), (0, "Alice")):  # by step: Alice's on 0, Bob's on 1
        panel.existing.setCurrentIndex(_row(panel, row))
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
    hidden = {c.id for c in state.taxonomy.categories if _hidden(panel, c.id)}
    assert hidden == {"evidence_gathering"}  # a dual-arm episode: the paper's kinds only
    state.seek(4)  # the reply that could not be read
    assert panel.heading.text().endswith(" Suggested: Format Error.")
    item = panel.model.index_of(("format", ""))
    assert item.data() == "Format Error  (suggested: the reply could not be read)"
    assert _bold(item) and _check(panel, ("format", "")) == Qt.CheckState.Unchecked
    state.seek(len(STEPS) - 1)
    assert item.data() == "Format Error" and not _bold(item)
    state.set_annotator(None)
    assert panel.heading.text() == "Sign in to label errors." and not panel.tree.isEnabled()


def test_the_tree_is_a_model_of_the_taxonomy_ticked_from_the_state(qtbot, qtmodeltester, labelling):
    """A heading a category, its kinds under it (descriptions in the tooltips); only a kind
    one can choose has a box and its pair; Qt's model checker accepts it open and closed."""
    panel, state, episode = labelling
    model = panel.model
    assert panel.tree.model() is model and panel.tree.objectName() == "replay_label_tree"
    qtmodeltester.check(model)
    categories = state.taxonomy.categories
    assert [model.index(r, 0).data() for r in range(model.rowCount())] == [
        c.label for c in categories
    ]
    for row, category in enumerate(categories):
        heading = model.index(row, 0)
        assert heading.data(Qt.ItemDataRole.ToolTipRole) == (
            f"{category.description} ({category.source})"
        )
        assert panel.tree.isExpanded(heading) or not category.subcategories
        kinds = [model.index(r, 0, heading) for r in range(model.rowCount(heading))]
        assert [k.data() for k in kinds] == [s.label for s in category.subcategories]
        assert [k.data(Qt.ItemDataRole.ToolTipRole) for k in kinds] == [
            s.description for s in category.subcategories
        ]
        assert [k.data(PAIR_ROLE) for k in kinds] == [
            (category.id, s.id) for s in category.subcategories
        ]
        choosable = bool(model.flags(heading) & Qt.ItemFlag.ItemIsUserCheckable)
        assert choosable == (not category.subcategories)
        assert (heading.data(Qt.ItemDataRole.CheckStateRole) is None) == bool(kinds)
        assert all(model.flags(k) & Qt.ItemFlag.ItemIsUserCheckable for k in kinds)
    state.open(episode)
    state.seek(3)
    qtmodeltester.check(model)
    assert [model.index_of(p).data(PAIR_ROLE) for p in state.taxonomy.pairs()] == (
        state.taxonomy.pairs()
    )
    assert not model.index_of(("environment", "no such kind")).isValid()


def test_a_tick_keeps_the_rows_and_the_arrows_and_space_tick_another(qtbot, labelling, project):
    """The tree is never rebuilt: after a tick the current row, the expanded rows and the
    rows themselves stay; Down then Space ticks the next kind."""
    panel, state, episode = labelling
    state.open(episode)
    state.seek(3)
    model, tree = panel.model, panel.tree
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    _tick(qtbot, panel, FLAW)
    assert tree.currentIndex() == model.index_of(FLAW) and resets == []
    assert tree.isExpanded(model.index_of(FLAW).parent())
    qtbot.keyClick(tree, Qt.Key.Key_Down)
    after = tree.currentIndex()
    qtbot.keyClick(tree, Qt.Key.Key_Space)
    assert after.data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    assert [(s, c, sub) for s, c, sub, _n in _stored(project, episode)] == [
        (3, *FLAW),
        (3, *after.data(PAIR_ROLE)),
    ]
    state.seek(2)
    assert tree.currentIndex() == after and resets == []


def test_ticking_as_it_is_changes_nothing(qtbot, labelling, project):
    """`choose` on a kind already ticked asks nothing of the state and keeps the note."""
    panel, state, episode = labelling
    state.open(episode)
    panel.choose(*FLAW)
    panel.note.setText("still typing")
    with qtbot.assertNotEmitted(panel.model.chosen):
        panel.choose(*FLAW)
    assert panel.note.text() == "still typing" and len(_stored(project, episode)) == 1
    with pytest.raises(KeyError):
        panel.choose("environment", "no such kind")


def test_the_label_list_is_a_model_of_the_states_labels(qtbot, qtmodeltester, labelling, bob):
    """One row a label of `state.labels`, its id in LABEL_ROLE; with none, one row saying so."""
    panel, state, episode = labelling
    model = panel.existing.model()
    assert model is panel.label_model and panel.existing.objectName() == "replay_label_list"
    qtmodeltester.check(model)
    assert model.rowCount() == 1 and _row(panel, 0).data(LABEL_ROLE) is None
    state.open(episode)
    panel.choose(*FLAW)
    state.seek(2)
    panel.choose("format")
    qtmodeltester.check(model)
    ids = [_row(panel, r).data(LABEL_ROLE) for r in range(model.rowCount())]
    assert ids == [label.id for label in state.labels] and len(ids) == 2
    assert [_bold(_row(panel, r)) for r in range(2)] == [
        label.step_index == 2 for label in state.labels
    ]
