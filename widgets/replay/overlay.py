"""What replay draws over the scene: line sketches in the 3D viewport, a mask on the image.

`ViewportLines` adds plain GL line items to a `SceneViewport` (motion trails,
the planned and the actual gripper), drawn on top of the scene so a sketch
inside an object still shows. `MaskImagePanel` is the model's top-down image
with one mask tinted over it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QGraphicsPixmapItem, QWidget

from widgets.image_view import TopDownImagePanel, to_qimage
from widgets.viewport.view import SceneViewport

ON_TOP = {
    GL.GL_DEPTH_TEST: False,
    GL.GL_BLEND: True,
    "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA),
}
MASK_FILL = (255, 0, 230, 110)  # a magenta tint over the mask ...
MASK_EDGE = (140, 255, 0, 255)  # ... a lime outline around it ...
MASK_HALO = (0, 0, 0, 255)  # ... and a dark ring outside that, on any colour

Segments = tuple[np.ndarray, tuple[float, float, float, float], float]


class ViewportLines:
    """A set of line-segment items over a viewport's scene; `set` replaces them all."""

    def __init__(self, viewport: SceneViewport) -> None:
        self.viewport = viewport
        self.items: list[gl.GLLinePlotItem] = []
        self.names: list[str] = []

    def set(self, sketches: Sequence[tuple[str, np.ndarray, tuple, float]]) -> None:
        """(name, segments (2N, 3), rgba 0..1, width px) for each sketch; () clears."""
        view = self.viewport.gl_view
        for item in self.items:
            view.removeItem(item)
        self.items, self.names = [], []
        for name, segments, colour, width in sketches:
            item = gl.GLLinePlotItem(
                pos=np.asarray(segments, np.float32),
                color=colour,
                width=width,
                mode="lines",
                antialias=True,
                glOptions=ON_TOP,
            )
            item.setDepthValue(100)  # after the scene's own items
            view.addItem(item)
            self.items.append(item)
            self.names.append(name)


class MaskImagePanel(TopDownImagePanel):
    """The top-down image with an optional mask tinted over it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mask_item = QGraphicsPixmapItem()
        self.mask_item.setZValue(3)
        self.scene.addItem(self.mask_item)
        self.mask: np.ndarray | None = None
        self.caption.setWordWrap(True)
        self.view.setMinimumHeight(250)  # the agent's image is what replay is about
        self.view.installEventFilter(self)
        self.view.viewport().installEventFilter(self)  # it shrinks when a scroll bar shows

    def set_mask(self, mask: np.ndarray | None) -> None:
        self.mask = mask
        if mask is None:
            self.mask_item.setPixmap(QPixmap())
            return
        self.mask_item.setPixmap(QPixmap.fromImage(to_qimage(mask_overlay(mask))))

    def set_caption(self, text: str) -> None:
        self.caption.setText(text)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        # the view shrinks when the caption wraps: keep the whole image in sight
        resized = event.type() == QEvent.Type.Resize
        if resized and watched in (self.view, self.view.viewport()):
            if not self.image_item.pixmap().isNull():
                self.view.fitInView(self.image_item, Qt.AspectRatioMode.KeepAspectRatio)
        return False


def _grow(mask: np.ndarray, px: int) -> np.ndarray:
    grown = mask.copy()
    for _ in range(px):
        step = grown.copy()
        step[1:, :] |= grown[:-1, :]
        step[:-1, :] |= grown[1:, :]
        step[:, 1:] |= grown[:, :-1]
        step[:, :-1] |= grown[:, 1:]
        grown = step
    return grown


def mask_overlay(mask: np.ndarray, edge_px: int | None = None) -> np.ndarray:
    """RGBA: the mask tinted, outlined just outside it, with a dark ring around the outline
    so it shows on any object's colour. The outline is thicker on bigger images (default
    1/128 of the width), so it stays visible when the image is shown small."""
    edge_px = edge_px or max(2, mask.shape[1] // 128)
    edge = _grow(mask, edge_px)
    halo = _grow(edge, max(1, edge_px // 2))
    rgba = np.zeros((*mask.shape, 4), np.uint8)
    rgba[mask] = MASK_FILL
    rgba[halo & ~edge] = MASK_HALO
    rgba[edge & ~mask] = MASK_EDGE
    return rgba
