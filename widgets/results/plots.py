"""Plots the Results pages share."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget


class BarPlot(pg.PlotWidget):
    """Grouped or stacked bars with category labels under them."""

    def __init__(self, title: str, y_label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent, background=None)
        self.setTitle(title)
        self.setLabel("left", y_label)
        self.setMouseEnabled(x=False, y=False)
        self.setMenuEnabled(False)
        self.hideButtons()
        self.setMinimumHeight(260)
        self.getAxis("bottom").setHeight(42)  # room for two-line category labels
        self.legend = pg.LegendItem(colCount=4)  # below the axis, never over the bars
        self.getPlotItem().layout.addItem(self.legend, 4, 1)
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
