"""The model's top-down image, with a segmentation overlay, the selection outlined and
a point marked (a Find answer's point: a crosshair of a fixed size on screen)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QImage,
    QKeySequence,
    QPainter,
    QPen,
    QPixmap,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QGraphicsItem,
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)


def to_qimage(rgb: np.ndarray) -> QImage:
    """An (H, W, 3) or (H, W, 4) uint8 array as a QImage that owns its pixels."""
    rgb = np.ascontiguousarray(rgb)
    h, w = rgb.shape[:2]
    fmt = QImage.Format.Format_RGB888 if rgb.shape[2] == 3 else QImage.Format.Format_RGBA8888
    return QImage(rgb.data, w, h, rgb.strides[0], fmt).copy()


def segmentation_colours(seg: np.ndarray, *, alpha: int = 120, only=None) -> np.ndarray:
    """A stable, distinct colour per body id (background transparent), as RGBA.

    `only`: the body ids to colour (e.g. the objects, not the table); default all.
    """
    ids = np.unique(seg) if only is None else [i for i in np.unique(seg) if int(i) in set(only)]
    lut = {}
    for uid in ids:
        if uid < 0:
            continue
        # golden-ratio hue steps give neighbouring ids very different colours
        hue = (int(uid) * 0.618033988749895) % 1.0
        r, g, b = _hsv(hue, 0.75, 1.0)
        lut[int(uid)] = (r, g, b, alpha)
    out = np.zeros((*seg.shape, 4), dtype=np.uint8)
    for uid, colour in lut.items():
        out[seg == uid] = colour
    return out


def _hsv(h: float, s: float, v: float) -> tuple[int, int, int]:
    i = int(h * 6) % 6
    f = h * 6 - int(h * 6)
    p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
    r, g, b = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]
    return int(r * 255), int(g * 255), int(b * 255)


def selection_outline(seg: np.ndarray, uid: int, *, width: int = 2) -> np.ndarray:
    """RGBA image with the boundary of body `uid`'s pixels drawn in a bright colour."""
    mask = seg == uid
    edge = np.zeros_like(mask)
    for _ in range(width):
        grown = mask.copy()
        grown[1:, :] |= mask[:-1, :]
        grown[:-1, :] |= mask[1:, :]
        grown[:, 1:] |= mask[:, :-1]
        grown[:, :-1] |= mask[:, 1:]
        edge |= grown & ~mask
        mask = grown
    out = np.zeros((*seg.shape, 4), dtype=np.uint8)
    out[edge] = (255, 214, 0, 255)
    return out


MARKER_COLOUR = QColor(255, 26, 217)  # magenta, as the 3D view's marker


class PointMarker(QGraphicsItem):
    """A crosshair ring around an image point, the same size on screen at any zoom; its
    centre is left open so the pixel itself shows."""

    RADIUS, ARM = 9.0, 17.0

    def __init__(self) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setZValue(10)

    def boundingRect(self) -> QRectF:  # noqa: N802
        r = self.ARM + 3
        return QRectF(-r, -r, 2 * r, 2 * r)

    def paint(self, painter: QPainter, _option, _widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        r, arm, gap = self.RADIUS, self.ARM, 4.0
        for colour, width in ((QColor(20, 20, 26), 4.5), (MARKER_COLOUR, 2.2)):
            painter.setPen(QPen(colour, width))
            painter.drawEllipse(QPointF(0, 0), r, r)
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                painter.drawLine(QPointF(dx * gap, dy * gap), QPointF(dx * arm, dy * arm))


class _ZoomView(QGraphicsView):
    clicked = Signal(QPointF)

    def __init__(self, scene: QGraphicsScene) -> None:
        super().__init__(scene)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self._press = None

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802
        factor = 1.25 if event.angleDelta().y() > 0 else 0.8
        self.scale(factor, factor)

    def mousePressEvent(self, event) -> None:  # noqa: N802
        self._press = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        if self._press is not None and (event.position() - self._press).manhattanLength() < 4:
            self.clicked.emit(self.mapToScene(event.position().toPoint()))
        self._press = None


class TopDownImagePanel(QWidget):
    """Shows what the model sees. Click a pixel to select the body there."""

    pixel_clicked = Signal(int, int)  # image x, y

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scene = QGraphicsScene(self)
        self.image_item = QGraphicsPixmapItem()
        self.overlay_item = QGraphicsPixmapItem()
        self.outline_item = QGraphicsPixmapItem()
        for z, item in enumerate((self.image_item, self.overlay_item, self.outline_item)):
            item.setZValue(z)
            self.scene.addItem(item)
        self.marker = PointMarker()
        self.marker.setVisible(False)
        self.scene.addItem(self.marker)
        self.marker_point: tuple[float, float] | None = None
        self.view = _ZoomView(self.scene)
        self.view.clicked.connect(self._on_click)
        self.overlay_box = QCheckBox("Segmentation")
        self.overlay_box.setToolTip("Colour every body's pixels (S)")
        self.overlay_box.setShortcut("S")
        self.overlay_box.toggled.connect(self._update_overlay)
        self.caption = QLabel()
        bar = QHBoxLayout()
        bar.addWidget(self.overlay_box)
        bar.addStretch(1)
        bar.addWidget(self.caption)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
        layout.addWidget(self.view, 1)
        self.segmentation: np.ndarray | None = None
        self.coloured_ids: frozenset[int] | None = None
        self.selected_uid: int | None = None

    def overlay_action(self, parent, tooltip: str) -> QAction:
        """A checkable toolbar action (key S) that drives the overlay checkbox, and follows it."""
        action = QAction("Segmentation overlay", parent, checkable=True)
        action.setShortcut(QKeySequence("S"))
        action.setToolTip(tooltip)
        action.toggled.connect(self.overlay_box.setChecked)
        self.overlay_box.toggled.connect(action.setChecked)
        self.overlay_box.setShortcut(QKeySequence())  # the action owns the key now
        return action

    def sizeHint(self):  # noqa: N802 - the model's view deserves room
        from PySide6.QtCore import QSize

        return QSize(360, 420)

    def set_image(
        self, rgb: np.ndarray | None, segmentation: np.ndarray | None, coloured_ids=None
    ) -> None:
        """Show an image; the overlay colours `coloured_ids` (default: every body)."""
        self.segmentation = segmentation
        self.coloured_ids = (
            None if coloured_ids is None else frozenset(int(i) for i in coloured_ids)
        )
        self.selected_uid = None
        if rgb is None:
            self.image_item.setPixmap(QPixmap())
            self.caption.setText("")
        else:
            self.image_item.setPixmap(QPixmap.fromImage(to_qimage(rgb)))
            self.caption.setText(f"{rgb.shape[1]} x {rgb.shape[0]} px")
            self.scene.setSceneRect(0, 0, rgb.shape[1], rgb.shape[0])
            self.view.fitInView(self.image_item, Qt.AspectRatioMode.KeepAspectRatio)
        self._update_overlay()
        self.outline_item.setPixmap(QPixmap())
        self.set_marker(None)

    def set_marker(self, point: tuple[float, float] | None) -> None:
        """Mark image point (x, y) in pixels with a crosshair (None removes it)."""
        self.marker_point = None if point is None else (float(point[0]), float(point[1]))
        self.marker.setVisible(point is not None)
        if self.marker_point is not None:
            self.marker.setPos(*self.marker_point)

    def set_selected_uid(self, uid: int | None) -> None:
        self.selected_uid = uid
        if self.segmentation is None or uid is None:
            self.outline_item.setPixmap(QPixmap())
            return
        self.outline_item.setPixmap(
            QPixmap.fromImage(to_qimage(selection_outline(self.segmentation, uid)))
        )

    def _update_overlay(self) -> None:
        if self.segmentation is None or not self.overlay_box.isChecked():
            self.overlay_item.setPixmap(QPixmap())
        else:
            colours = segmentation_colours(self.segmentation, only=self.coloured_ids)
            self.overlay_item.setPixmap(QPixmap.fromImage(to_qimage(colours)))

    def _on_click(self, point: QPointF) -> None:
        x, y = int(point.x()), int(point.y())
        if (
            self.segmentation is not None
            and 0 <= y < self.segmentation.shape[0]
            and 0 <= x < self.segmentation.shape[1]
        ):
            self.pixel_clicked.emit(x, y)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if not self.image_item.pixmap().isNull():
            self.view.fitInView(self.image_item, Qt.AspectRatioMode.KeepAspectRatio)
