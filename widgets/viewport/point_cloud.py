"""A small 3D point-cloud view: coloured points and line sketches, orbit with the mouse.

Used by replay to show the 3D points a grasp lifted from its depth image,
with the planned and the actual gripper drawn as lines.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
import pyqtgraph.opengl as gl
from PySide6.QtCore import QCoreApplication, QSize, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

# Every GL widget shares one context group (pyqtgraph keeps its shaders per process).
if QCoreApplication.instance() is None:
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)

BACKGROUND = (36, 38, 44)
POINT_SIZE = 4.0  # pixels


class PointCloudView(QWidget):
    """Points (N, 3) with colours (N, 3 or 4, 0..1), and line segments (point pairs)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("point_cloud")
        self.view = gl.GLViewWidget()
        self.view.setBackgroundColor(BACKGROUND)
        self.view.setMinimumSize(160, 110)
        self.grid = gl.GLGridItem()
        self.grid.setSize(0.3, 0.3)
        self.grid.setSpacing(0.01, 0.01)
        self.grid.setColor((255, 255, 255, 40))
        self.view.addItem(self.grid)
        self.scatter = gl.GLScatterPlotItem(pos=np.zeros((0, 3)), size=POINT_SIZE, pxMode=True)
        self.scatter.setGLOptions("opaque")
        self.view.addItem(self.scatter)
        self.lines: list[gl.GLLinePlotItem] = []
        self.framing: tuple[np.ndarray, float] | None = None  # centre and size to keep in view
        self.caption = QLabel("No grasp at this step.")
        self.caption.setObjectName("point_cloud_caption")
        self.caption.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.caption)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(360, 210)

    @property
    def point_count(self) -> int:
        pos = self.scatter.pos
        return 0 if pos is None else len(pos)

    def set_cloud(
        self,
        points: np.ndarray,
        colours: np.ndarray | None = None,
        lines: Sequence[tuple[np.ndarray, tuple[float, float, float, float]]] = (),
        caption: str = "",
    ) -> None:
        """Show these points and line sketches; the camera orbits their centre."""
        points = np.asarray(points, dtype=np.float32).reshape(-1, 3)
        if colours is None or len(colours) != len(points):
            # always an array: pyqtgraph's scatter, left with an array colour marked for
            # upload, fails on a tuple given before its next paint (and draws nothing)
            rgba = np.tile(np.float32((0.9, 0.9, 0.9, 1.0)), (len(points), 1))
        else:
            c = np.asarray(colours, dtype=np.float32)
            rgba = np.c_[c[:, :3], np.ones(len(c), np.float32)] if c.shape[1] == 3 else c
        self.scatter.setData(pos=points, color=rgba, size=POINT_SIZE, pxMode=True)
        self._set_lines(lines)
        self.caption.setText(caption)
        if len(points):
            # frame the points and the sketches near them (not a wrist far above)
            everything = np.concatenate([points, *(np.reshape(s, (-1, 3)) for s, _ in lines)])
            lo, hi = everything.min(axis=0), everything.max(axis=0)
            hi[2] = min(hi[2], points[:, 2].max() + 0.06)
            centre = (lo + hi) / 2
            self.grid.resetTransform()
            self.grid.translate(float(centre[0]), float(centre[1]), float(points[:, 2].min()))
            self.framing = (centre, float((hi - lo).max()))
            self._frame()

    def _frame(self) -> None:
        """Put the camera where the framed box fits the view (pyqtgraph's fov is horizontal)."""
        if self.framing is None:
            return
        centre, span = self.framing
        fov = math.radians(self.view.opts["fov"])
        aspect = max(1, self.view.height()) / max(1, self.view.width())
        distance = 1.3 * span / (2 * math.tan(fov / 2) * min(1.0, aspect))
        self.view.setCameraPosition(
            pos=pg.Vector(*centre.tolist()), distance=max(0.1, distance), elevation=30, azimuth=-60
        )

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._frame()

    def clear(self, caption: str = "No grasp at this step.") -> None:
        self.set_cloud(np.zeros((0, 3)), caption=caption)

    def _set_lines(self, lines) -> None:
        for item in self.lines:
            self.view.removeItem(item)
        self.lines = []
        for segments, colour in lines:
            item = gl.GLLinePlotItem(
                pos=np.asarray(segments, np.float32),
                color=colour,
                width=2.0,
                mode="lines",
                antialias=True,
            )
            item.setGLOptions("translucent")
            self.view.addItem(item)
            self.lines.append(item)
