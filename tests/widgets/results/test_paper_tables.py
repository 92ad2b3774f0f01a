"""Results > Paper tables as a widget: the chosen table's rows with numbers right-aligned,
its notes under it, and a new choice announced."""

from __future__ import annotations

from PySide6.QtCore import Qt

from widgets.results.paper_tables import PaperTablesView


def test_a_table_is_shown_with_its_notes_and_a_choice_is_announced(qtbot):
    view = PaperTablesView([("a", "Table A"), ("b", "Table B")])
    qtbot.addWidget(view)
    view.show_table(
        "Success", ["Model", "Count", "Avg."], [["vlm-a", "50.0", "incomplete (no find)"]], ["n."]
    )
    model = view.table.model()
    assert model.rowCount() == 1 and model.headerData(1, Qt.Orientation.Horizontal) == "Count"
    right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    assert model.index(0, 1).data(Qt.ItemDataRole.TextAlignmentRole) == right
    assert model.index(0, 2).data(Qt.ItemDataRole.TextAlignmentRole) != right  # words
    assert view.notes.text() == "n." and "Success" in view.title.text()
    with qtbot.waitSignal(view.chosen) as chosen:
        view.choice.setCurrentIndex(1)
    assert chosen.args == ["b"] and view.name == "b"
    view.show_table("Empty", ["Model"], [], ["How."])
    assert view.table.model().rowCount() == 0 and view.notes.text() == "No rows yet. How."
