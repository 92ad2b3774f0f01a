"""The Bimanual results page fills its success table and error-category plot from the
`bimanual` metrics of real imported episodes, says when there is nothing to show, and
keeps a slot for the spatial-grounding scores; Results mode shows it as a tab."""

from __future__ import annotations

import pytest
from bimanual_corpus import imported_project
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from app.jobs.metrics import project_bimanual_metrics
from store import open_project
from widgets.results.bimanual import BimanualResultsView

LOST = "bimanibench:handover_block:gpt-5:2025-06-01_120000:round0:episode1"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bimanual_results")
    path = imported_project(tmp, "runs.reasonscope")
    with open_project(path) as project:
        ada = project.annotators.sign_in("Ada")
        lost = project.episodes.find(LOST).id
        project.episodes.add_label(
            lost, 1, "perceptual_reasoning", "end_effector_allocation", "", ada
        )
        project.episodes.add_label(lost, 3, "strategic_planning", "action_parameters", "", ada)
    return path


def _cells(table):
    model = table.model()
    return [
        [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def _heads(table, role=Qt.ItemDataRole.DisplayRole):
    model = table.model()
    return [
        model.headerData(c, Qt.Orientation.Horizontal, role) for c in range(model.columnCount())
    ]


def _tip(table, row, column):
    return table.model().index(row, column).data(Qt.ItemDataRole.ToolTipRole)


def test_the_table_and_the_plot_show_the_metrics(qtbot, db):
    with open_project(db) as project:
        metrics = project_bimanual_metrics(project)
    view = BimanualResultsView()
    qtbot.addWidget(view)
    view.set_metrics(metrics)
    table = view.success_table
    headers = _heads(table)
    assert headers == ["Model", "handover_block", "stack_blocks_two", "Average", "Format errors"]
    # each model has one of the two tasks: no average (it read 50 for both)
    assert _cells(table) == [
        ["gpt-5", "50 (1/2)", "–", "incomplete", "1"],
        ["gpt-5_base", "–", "50 (1/2)", "incomplete", "1"],
    ]
    assert _tip(table, 0, 3) == "no average: no episodes of stack_blocks_two"
    assert "lacks any column" in view.success_note.text()
    assert _tip(table, 0, 1) == "1 of 2 episodes succeeded"
    assert "4 dual-arm episodes of 2 models on 2 tasks; 2 unreadable replies." in (
        view.summary.text()
    )
    # one bar item per category (and one for automatic format errors), at its kinds
    heights = {}
    for item in view.error_plot.bars:
        xs, hs = item.opts["x"], item.opts["height"]
        heights.update(dict(zip(xs, hs, strict=True)))
    assert heights == {0: 0, 1: 0, 2: 0, 3: 1, 4: 0, 5: 0, 6: 0, 7: 1, 8: 0, 9: 2}
    assert view.error_counts["end_effector_allocation"] == 1
    assert view.error_counts["format_error_steps"] == 2
    ticks = [label for _x, label in view.error_plot.getAxis("bottom")._tickLevels[0]]
    assert ticks[3] == "End-effector\nallocation" and ticks[-1] == "Format errors\n(automatic)"
    assert view.error_note.text().startswith("2 labelled steps")


def test_empty_states_and_the_spatial_slot(qtbot):
    view = BimanualResultsView()
    qtbot.addWidget(view)
    view.show()
    assert view.summary.text() == "No project open."
    view.set_metrics({"episodes": 0})
    assert "No dual-arm episodes yet" in view.summary.text() and not view.content.isVisible()
    spatial = QLabel("spatial grounding scores")
    view.set_spatial_widget(spatial)
    view.set_metrics({"episodes": 0})
    assert view.content.isVisible() and spatial.isVisible()  # its own content shows anyway
    assert spatial.parent() is view.spatial_box
    view.set_spatial_widget(None)
    assert spatial.parent() is None and view.spatial_widget is None


def test_results_mode_has_a_bimanual_tab(qtbot, db, tmp_path):
    from gestures import open_as_ada

    window = open_as_ada(qtbot, db, "results", copy_to=tmp_path)
    try:
        results = window.mode("results")
        tabs = results.tabs
        assert tabs.tabText(tabs.indexOf(results.bimanual_results)) == "Bimanual"
        assert tabs.currentWidget() is results.bimanual_results  # the only data there is
        assert results.bimanual_results.success_table.model().rowCount() == 2
    finally:
        window.close()


def test_the_papers_table_layout(qtbot, db):
    """The imported BiManiBench run (high level) is Handover2 of the planning table; the
    EmbodiedBench run records no tier and stack_blocks_two is no planning-tier column."""
    with open_project(db) as project:
        metrics = project_bimanual_metrics(project)
    view = BimanualResultsView()
    qtbot.addWidget(view)
    view.show()
    view.set_metrics(metrics)
    paper = view.paper_tables
    table = paper.planning_table
    headers = _heads(table)
    assert headers[:3] == ["Models", "Indep.\nAvg.", "Place1"]
    assert headers[4:6] == ["Rank1", "Rank2"]  # the paper's own column heads
    assert headers[8:11] == ["Seq.\nAvg.", "Hand1", "Hand2"]
    assert headers[-1] == "Total\nAvg." and len(headers) == 18
    assert _heads(table, Qt.ItemDataRole.ToolTipRole)[10] == "Handover2: handover_block"
    rows = {r[0]: r for r in _cells(table)}
    assert rows["gpt-5"][10] == "50" and rows["gpt-5"][2] == "–"
    assert rows["gpt-5"][1] == "incomplete" and rows["gpt-5"][-1] == "incomplete"
    assert _tip(table, 0, 10) == "handover_block: 1 of 2 episodes succeeded"
    assert paper.planning_box.isVisible() and not paper.fine_box.isVisible()
    assert "Table 1 layout" in paper.planning_box.title()
    assert "gpt-5_base" not in rows  # none of its episodes is of a Table 1 task


def test_the_fine_control_table(qtbot):
    from annotation.bimanual.paper_tables import FINE, paper_tables

    counts = {
        FINE: {
            "m": {
                "grab_roller": {"success": 3, "episodes": 4},
                "place_bread_skillet_vla": {"success": 1, "episodes": 2},
            }
        }
    }
    view = BimanualResultsView()
    qtbot.addWidget(view)
    view.show()
    view.paper_tables.set_tables(paper_tables(counts, ["m"]))
    table = view.paper_tables.fine_table
    headers = _heads(table)
    assert headers == ["Models", "Place8", "Place9", "Place10", "Grab1", "Stack3", "Avg."]
    assert _cells(table) == [["m", "–", "–", "50", "75", "–", "incomplete"]]
    assert _tip(table, 0, 6).startswith("no average: no episodes of Place8")
    assert not view.paper_tables.fine_box.isHidden()
    assert view.paper_tables.planning_box.isHidden()
