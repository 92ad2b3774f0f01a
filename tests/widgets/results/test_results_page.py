"""A Results page as a person reads it: the wheel scrolls the page wherever the pointer is
(over a plot, its axes, or a table as tall as its rows), and plot titles and legends fit
the plot's width instead of running off its edge; a table is a view over a `CellTableModel`
of rows of cells."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QGridLayout, QHeaderView, QLabel, QScrollArea, QWidget

from widgets.results.plots import BarPlot
from widgets.results.table import (
    Cell,
    CellTableModel,
    average,
    cell_table,
    fill_table,
    scrolling_page,
    text_row,
)

TITLE = "Success per task and mode (mean over models)"
SERIES = ("Direct", "Perception", "Manipulation", "Chance (direct)", "No number")
COLUMNS = ["Model / agent", "Mode", "n", "Count", "Find", "Beneath", "Compare", "Average"]


def bar_plot(title=TITLE, names=SERIES) -> BarPlot:
    plot = BarPlot(title, "success (%)")
    colours = [QColor(0, 114, 178), QColor(230, 159, 0), QColor(0, 158, 115)]
    series = [(name, [40.0, 60.0], colours[k % 3]) for k, name in enumerate(names)]
    plot.draw(["Count", "Find"], series, y_max=100)
    return plot


def a_table(rows: int = 4, columns=COLUMNS):
    table = cell_table(columns)
    cells = [
        text_row(
            [f"scripted-search-agent-{r}"] + [f"{r * c}.0 (12)" for c in range(1, len(columns))]
        )
        for r in range(rows)
    ]
    fill_table(table, cells)
    return table


@pytest.fixture
def page(qtbot):
    """A page 860 px wide (what Results gets at 1280 x 860 beside the Project panel):
    a table, two plots side by side, another table."""
    owner = QWidget()
    owner.plots = [bar_plot(), bar_plot("Count: under, exact and over")]
    owner.tables = [a_table(), a_table(6), a_table(5)]
    grid = QGridLayout()
    for i, plot in enumerate(owner.plots):
        grid.addWidget(plot, 0, i)
        grid.setColumnStretch(i, 1)
    sections = (owner.tables[0], grid, owner.tables[1], owner.tables[2])
    scrolling_page(owner, QLabel("A summary."), sections)
    owner.resize(860, 480)
    qtbot.addWidget(owner)
    owner.show()
    qtbot.waitExposed(owner)
    qtbot.wait(20)
    owner.bar = owner.findChild(QScrollArea).verticalScrollBar()
    assert owner.bar.maximum() > 100  # the page is taller than the window
    return owner


def turn_wheel(widget: QWidget, pos: QPoint, delta: QPoint | None = None) -> None:
    """One notch of the wheel with the pointer at `pos` on `widget`, as the mouse sends it."""
    window = widget.window()
    at = QPointF(widget.mapTo(window, pos))
    QTest.wheelEvent(window.windowHandle(), at, QPoint(0, -120) if delta is None else delta)
    QApplication.processEvents()


def scrolls_page(page, widget: QWidget, pos: QPoint) -> bool:
    """Whether a turn of the wheel over `pos` on `widget` moves the page (scrolled to show
    `pos` first; the turn goes up when the page is at its end)."""
    scroll = page.findChild(QScrollArea)
    at = widget.mapTo(scroll.widget(), pos)
    scroll.ensureVisible(at.x(), at.y(), 10, 10)
    QApplication.processEvents()
    start = page.bar.value()
    turn_wheel(widget, pos, QPoint(0, 120 if start == page.bar.maximum() else -120))
    return page.bar.value() != start


def test_the_wheel_scrolls_the_page_over_a_plot_and_its_axes(page):
    plot = page.plots[0]
    item = plot.getPlotItem()
    parts = {
        "bars": item.vb,
        "left axis": plot.getAxis("left"),
        "bottom axis": plot.getAxis("bottom"),
        "title": item.titleLabel,
        "legend": plot.legend,
    }
    for name, part in parts.items():
        where = plot.mapFromScene(part.sceneBoundingRect().center())  # on the viewport
        assert scrolls_page(page, plot.viewport(), where), name


def test_the_wheel_scrolls_the_page_over_a_fixed_height_table(page):
    for table in page.tables:
        assert table.verticalScrollBar().maximum() == 0  # every row shows: nothing to scroll
        assert scrolls_page(page, table, table.rect().center())


def test_a_wheel_event_sent_to_a_plot_scrolls_the_page(page):
    plot = page.plots[1]
    page.bar.setValue(0)
    centre = QPointF(plot.viewport().rect().center())
    event = QWheelEvent(
        centre,
        QPointF(plot.viewport().mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(plot.viewport(), event)
    assert page.bar.value() > 0


def test_a_sideways_turn_over_a_wide_table_scrolls_the_table(qtbot, page):
    page.resize(520, 600)  # the table no longer fits across
    qtbot.waitUntil(lambda: page.tables[0].horizontalScrollBar().maximum() > 0)
    table = page.tables[0]
    qtbot.waitUntil(lambda: table.horizontalScrollBar().isVisible())
    assert table.verticalScrollBar().maximum() == 0  # its height made room for the bar
    page.bar.setValue(0)
    turn_wheel(table, table.rect().center(), QPoint(-120, 0))
    assert table.horizontalScrollBar().value() > 0 and page.bar.value() == 0


def visible_scene(plot):
    return plot.mapToScene(plot.viewport().rect()).boundingRect()


def test_titles_and_legends_fit_the_plot(qtbot, page):
    for plot in page.plots:
        assert plot.width() < 430  # two plots side by side on the page
        view = visible_scene(plot)
        title = plot.getPlotItem().titleLabel
        assert view.contains(title.item.sceneBoundingRect()), title.text
        assert title.item.toPlainText().split() == plot.title.split()  # every word shown
        for sample, label in plot.legend.items:
            assert view.contains(label.item.sceneBoundingRect()), label.text
            assert view.contains(sample.sceneBoundingRect())
        # the legend sits below the axes, never over the bars
        below = plot.getAxis("bottom").sceneBoundingRect().bottom()
        assert plot.legend.sceneBoundingRect().top() >= below - 1
    assert len(page.plots[0].title_lines) == 2  # wrapped, not cut
    assert page.plots[0].legend.columnCount < len(SERIES)  # fewer columns, more rows


def test_a_wide_plot_keeps_one_line_and_one_legend_row(qtbot):
    plot = bar_plot(names=SERIES[:3])
    qtbot.addWidget(plot)
    plot.resize(900, 320)
    plot.show()
    qtbot.waitExposed(plot)
    assert plot.title_lines == [TITLE] and plot.legend.columnCount == 3


def test_the_cell_model_shows_rows_of_cells(qapp):
    model = CellTableModel(["Model", ("n", "episodes run")])
    assert (model.rowCount(), model.columnCount()) == (0, 2)
    heads = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(2)]
    tips = [
        model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
        for c in range(2)
    ]
    assert heads == ["Model", "n"] and tips == [None, "episodes run"]
    assert model.headerData(0, Qt.Orientation.Vertical) is None
    shade = QColor(236, 240, 246)
    model.set_rows(
        [
            text_row(["gpt-5", "12"]),
            [Cell("m", right=False), Cell("7.00", tip="mean", shade=shade, bold=True)],
            [Cell("x", right=False), average("1.00", ["Rank1", "Hand2"], "mean", "runs of {}")],
        ]
    )
    assert (model.rowCount(), model.columnCount()) == (3, 2)
    assert [[model.index(r, c).data() for c in range(2)] for r in range(3)] == [
        ["gpt-5", "12"],
        ["m", "7.00"],
        ["x", "incomplete"],
    ]
    right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    align = Qt.ItemDataRole.TextAlignmentRole
    assert model.index(0, 0).data(align) is None and model.index(0, 1).data(align) == right
    plain, rich = model.index(0, 1), model.index(1, 1)
    for role in (
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.BackgroundRole,
        Qt.ItemDataRole.FontRole,
    ):
        assert plain.data(role) is None, role
    assert rich.data(Qt.ItemDataRole.ToolTipRole) == "mean"
    assert rich.data(Qt.ItemDataRole.BackgroundRole) == QBrush(shade)
    assert rich.data(Qt.ItemDataRole.FontRole).bold()
    tip = model.index(2, 1).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == "no average: no runs of Rank1, Hand2"
    model.set_rows([[Cell("reference (scripted)", right=False, italic=True), Cell("1")]])
    font = model.index(0, 0).data(Qt.ItemDataRole.FontRole)
    assert font.italic() and not font.bold()
    assert model.index(0, 1).data(Qt.ItemDataRole.FontRole) is None
    model.set_rows([[Cell("chance (baseline)", right=False, mark="baseline"), Cell("1")]])
    assert model.index(0, 0).data(Qt.ItemDataRole.UserRole) == "baseline"
    assert model.index(0, 1).data(Qt.ItemDataRole.UserRole) is None
    model.set_rows([text_row(["a", "b", "c"])], ["One", "Two", ("Three", "the third")])
    assert (model.rowCount(), model.columnCount()) == (1, 3)
    assert model.headerData(2, Qt.Orientation.Horizontal) == "Three"


def test_a_cell_table_is_as_tall_as_its_rows(qtbot):
    table = a_table(3)
    qtbot.addWidget(table)
    assert isinstance(table.model(), CellTableModel) and table.model().rowCount() == 3
    assert table.verticalHeader().isHidden() and table.model().columnCount() == len(COLUMNS)
    header = table.horizontalHeader()
    assert header.sectionResizeMode(1) == QHeaderView.ResizeMode.ResizeToContents
    rows = sum(table.rowHeight(r) for r in range(3))
    assert table.height() - header.height() - rows in (
        6,
        6 + table.horizontalScrollBar().sizeHint().height(),
    )
    assert not (table.model().flags(table.model().index(0, 0)) & Qt.ItemFlag.ItemIsEditable)


def test_a_table_made_without_columns_gets_them_with_its_rows(qtbot):
    """Its columns fit their text; with `first_stretches` the first takes the room left,
    and keeps it when the rows come again."""
    mode = QHeaderView.ResizeMode
    for stretches in (False, True):
        table = cell_table()
        qtbot.addWidget(table)
        table.resize(900, 200)
        for _ in range(2):
            fill_table(
                table, [text_row(["a", "1", "2"])], ["Model", "n", "m"], first_stretches=stretches
            )
            header = table.horizontalHeader()
            assert table.model().columnCount() == 3
            assert header.sectionResizeMode(0) == (
                mode.Stretch if stretches else mode.ResizeToContents
            )
            assert header.sectionResizeMode(2) == mode.ResizeToContents
