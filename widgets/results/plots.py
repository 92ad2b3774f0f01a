"""Plots the Results pages share: a title wrapped to the plot's width, the legend below the
axes in as many columns as fit, and wheel turns that scroll the page, not the plot."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QWidget

from widgets.results.table import pass_wheel_to_page

TITLE_POINT_SIZE = 11  # pyqtgraph's own title size
TITLE_LINE_GAP = 8  # the title row's margin above and below the text
TEXT_MARGINS = 12  # a pyqtgraph label's text document margins (4 a side), and some slack
EDGE = 4  # what the plot's layout keeps free beside the axes
LEFT_AXIS = 60  # the y axis with its label and three-digit ticks (it widens once laid out)


def wrap_words(text: str, width: float, metrics: QFontMetrics) -> list[str]:
    """`text` broken at spaces into lines no wider than `width` (a single word wider than
    that gets a line to itself)."""
    lines: list[str] = []
    for word in text.split():
        if lines and metrics.horizontalAdvance(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


class ResultsPlot(pg.PlotWidget):
    """A static plot on a scrolling Results page (no zoom or pan).

    The title wraps onto more lines and the legend (below the axes, never over the data)
    takes fewer columns when the plot is narrow, so neither is ever cut off; the plot grows
    taller to keep its data area. Turning the wheel over it scrolls the page."""

    def __init__(
        self,
        title: str | None,
        y_label: str,
        parent: QWidget | None = None,
        *,
        min_height: int = 260,
    ) -> None:
        super().__init__(parent, background=None)
        self.title = title or ""
        self.base_height = min_height
        self.title_lines: list[str] = []
        self.setLabel("left", y_label)
        self.setMouseEnabled(x=False, y=False)
        self.setMenuEnabled(False)
        self.hideButtons()
        self.setMinimumHeight(min_height)
        self.title_font = QFont(self.font())
        self.title_font.setPointSize(TITLE_POINT_SIZE)
        self.legend = pg.LegendItem(colCount=1)
        self.getPlotItem().layout.addItem(self.legend, 4, 1)
        self.max_legend_columns = 4
        pass_wheel_to_page(self)
        self.refit()

    def set_legend_columns(self, columns: int) -> None:
        """At most this many legend entries side by side (fewer when they do not fit)."""
        self.max_legend_columns = columns
        self.refit()

    def text_width(self) -> float:
        """The width the title and the legend may take: the data area's column."""
        left = self.getAxis("left")  # as wide as its widest tick: at least LEFT_AXIS
        used = max(left.width(), LEFT_AXIS) if left.isVisible() else 0
        return max(self.width() - used - EDGE, 40)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        # pyqtgraph resizes while it builds the plot, and after `close()` has dropped it
        if "legend" in self.__dict__ and self.__dict__.get("plotItem") is not None:
            self.refit()  # which lays the plot out again for the new size
        else:
            super().resizeEvent(event)

    def refit(self) -> None:
        """Wrap the title and choose the legend's columns for the current width."""
        width = self.text_width()
        extra = 0
        item = self.getPlotItem()
        if self.title:
            metrics = QFontMetrics(self.title_font)
            self.title_lines = wrap_words(self.title, width - TEXT_MARGINS, metrics)
            height = len(self.title_lines) * metrics.lineSpacing() + TITLE_LINE_GAP
            item.setTitle("<br>".join(self.title_lines))
            item.titleLabel.setMaximumHeight(height)
            item.layout.setRowFixedHeight(0, height)
            extra += height - 30  # pyqtgraph's one-line title row
        else:
            self.title_lines = []
            item.setTitle(None)
        entries = len(self.legend.items)
        if entries:
            for columns in range(min(self.max_legend_columns, entries), 0, -1):
                self.legend.setColumnCount(columns)
                if self.legend_size().width() <= width:
                    break
            extra += int(self.legend_size().height())
        self.setMinimumHeight(self.base_height + max(extra, 0))
        # the plot's layout again, with its new least width (what pyqtgraph does on a resize)
        pg.GraphicsView.resizeEvent(self, None)

    def legend_size(self) -> QSizeF:
        """The least room the legend takes as its entries are laid out now."""
        return self.legend.effectiveSizeHint(Qt.SizeHint.MinimumSize)


class BarPlot(ResultsPlot):
    """Grouped or stacked bars with category labels under them."""

    def __init__(
        self, title: str, y_label: str, parent: QWidget | None = None, *, min_height: int = 260
    ) -> None:
        super().__init__(title, y_label, parent, min_height=min_height)
        self.getAxis("bottom").setHeight(42)  # room for two-line category labels
        self.bars: list[pg.BarGraphItem] = []

    def draw(
        self,
        labels: list[str],
        series: list[tuple[str, list[float | None], QColor]],
        *,
        stacked: bool = False,
        y_max: float | None = None,
    ) -> None:
        """One bar per (label, series); side by side, or stacked when `stacked`."""
        self.clear()
        self.legend.clear()
        self.bars = []
        n = max(len(series), 1)
        width = 0.7 if stacked else 0.8 / n
        bottoms = [0.0] * len(labels)
        for k, (name, values, colour) in enumerate(series):
            xs, heights, y0 = [], [], []
            for i, value in enumerate(values):
                if value is None:
                    continue
                xs.append(i if stacked else i - 0.4 + width * (k + 0.5))
                heights.append(value)
                y0.append(bottoms[i] if stacked else 0.0)
                if stacked:
                    bottoms[i] += value
            item = pg.BarGraphItem(
                x=xs, height=heights, y0=y0, width=width, brush=colour, pen=None, name=name
            )
            self.addItem(item)
            self.legend.addItem(item, name)
            self.bars.append(item)
        self.getAxis("bottom").setTicks([list(enumerate(labels))])
        self.setXRange(-0.6, max(len(labels), 1) - 0.4, padding=0)
        if y_max is None:
            tops = bottoms if stacked else [v for _, vs, _ in series for v in vs if v is not None]
            y_max = max([1.0, *tops]) * 1.15
        self.setYRange(0, y_max, padding=0.02)
        self.refit()
