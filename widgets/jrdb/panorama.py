"""The stitched 360-degree panorama of a JRDB frame with its 2D boxes: zoom, pan, click to pick.

The panorama is a cylinder cut open at one column, so a person standing at
the cut has a box whose `x + w` runs past the image's width. Such a box is
drawn twice, at `x` (its left part, at the right edge) and at `x - width`
(its right part, at the left edge); both copies pick the same entity.
Boxes are clipped to the image, and their outlines and name tags keep their
on-screen size at any zoom. With `set_wrap` the view also shows a strip of the
other end past each edge (the seam dashed), so it can be panned, and a box drawn,
across the seam.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QVBoxLayout,
    QWidget,
)

from annotation.jrdb.dataset import PANORAMA_HEIGHT, PANORAMA_WIDTH
from annotation.jrdb.tracks import is_interpolated
from annotation.models import Box2D

MAX_SCALE = 8.0  # image pixels are at most 8 screen pixels wide
HIGHLIGHT = QColor(255, 232, 90)
DRAG_SLOP = 4  # a press and release closer than this (px) is a click, not a pan
DIMMED = 0.3  # opacity of the other boxes while some are highlighted
SHADE = QColor(0, 0, 0, 110)  # over the image outside the highlighted boxes


class NameTag(QGraphicsItem):
    """A name tag of constant screen size, anchored at a box's top-left corner."""

    def __init__(self, text: str, colour: QColor, parent: QGraphicsItem) -> None:
        super().__init__(parent)
        self.text, self.colour = text, colour
        self.font = QFont()
        self.font.setPointSizeF(8.5)
        self.font.setBold(True)
        metrics = QFontMetricsF(self.font)
        self.rect = QRectF(0, 0, metrics.horizontalAdvance(text) + 8, metrics.height() + 2)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)

    def boundingRect(self) -> QRectF:  # noqa: N802
        return self.rect

    def paint(self, painter: QPainter, _option, _widget=None) -> None:
        painter.fillRect(self.rect, self.colour)
        dark = self.colour.lightnessF() > 0.55
        painter.setPen(QColor(20, 20, 20) if dark else QColor(250, 250, 250))
        painter.setFont(self.font)
        painter.drawText(self.rect, Qt.AlignmentFlag.AlignCenter, self.text)


class _PanView(QGraphicsView):
    """Drag to pan, wheel to zoom about the pointer (Shift+wheel pans), click to pick."""

    clicked = Signal(QPointF)
    zoomed = Signal()
    resized = Signal()

    def __init__(self, scene: QGraphicsScene) -> None:
        super().__init__(scene)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setBackgroundBrush(QColor(24, 26, 30))
        self.setFrameShape(QGraphicsView.Shape.NoFrame)
        self.min_scale = 0.01
        self._press: QPointF | None = None
        self.editor = None  # takes a left-button gesture: press(), move(), release()
        self._editing = False

    @property
    def scale_factor(self) -> float:
        return self.transform().m11()

    def zoom_by(self, factor: float) -> None:
        target = min(max(self.scale_factor * factor, self.min_scale), MAX_SCALE)
        ratio = target / self.scale_factor
        if abs(ratio - 1.0) > 1e-9:
            self.scale(ratio, ratio)
            self.zoomed.emit()

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802
        delta = event.angleDelta()
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier or delta.x():
            bar = self.horizontalScrollBar()
            bar.setValue(bar.value() - (delta.y() or delta.x()))
            return
        self.zoom_by(1.25 if delta.y() > 0 else 0.8)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.resized.emit()

    def mousePressEvent(self, event) -> None:  # noqa: N802
        self._press = event.position()
        if event.button() == Qt.MouseButton.LeftButton and self.editor is not None:
            scene = self.mapToScene(event.position().toPoint())
            if self.editor.press(scene, event.modifiers()):
                self._editing = True  # a box is drawn, moved or resized: no panning
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        if self._editing:
            self.editor.move(self.mapToScene(event.position().toPoint()))
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        press, self._press = self._press, None
        click = press is not None and (event.position() - press).manhattanLength() < DRAG_SLOP
        if self._editing:
            self._editing = False
            self.editor.release(self.mapToScene(event.position().toPoint()), not click)
        else:
            super().mouseReleaseEvent(event)
        if click and event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(self.mapToScene(event.position().toPoint()))


class PanoramaView(QWidget):
    """The panorama with entity boxes; `entity_clicked` when a box is clicked.

    With an editor installed (`widgets.jrdb.box_editor.PanoramaBoxGestures`) it emits
    `box_drawn` (a new image rectangle) and `box_edited` (an entity's moved box).
    """

    entity_clicked = Signal(int)
    background_clicked = Signal()
    box_drawn = Signal(QRectF)  # Ctrl+drag on the image: a new box (scene coordinates)
    box_edited = Signal(int, QRectF)  # an entity's box after a move or resize (x may pass 0)
    boxes_drawn = Signal()  # the box items were made again (editors decorate them)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("panorama_view")
        self.scene = QGraphicsScene(self)
        self.image_item = QGraphicsPixmapItem()
        self.image_item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self.scene.addItem(self.image_item)
        self.clip = QGraphicsRectItem()  # boxes live inside the image, cut at its edges
        self.clip.setPen(QPen(Qt.PenStyle.NoPen))
        self.clip.setFlag(QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape)
        self.clip.setZValue(1)
        self.scene.addItem(self.clip)
        self.wrap_margin = 0.0  # how much of the other end is shown past each edge
        self.wrap_items = [QGraphicsPixmapItem() for _ in range(2)]
        self.seam_items = [QGraphicsLineItem() for _ in range(2)]
        seam_pen = QPen(QColor(255, 255, 255, 150), 1.0, Qt.PenStyle.DashLine)
        seam_pen.setCosmetic(True)
        for item in self.wrap_items:
            item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
            item.setOpacity(0.8)  # the wrapped copy reads as "the other end"
            item.hide()
            self.scene.addItem(item)
        for item in self.seam_items:
            item.setPen(seam_pen)
            item.setZValue(4)
            item.hide()
            self.scene.addItem(item)
        self.view = _PanView(self.scene)
        self.view.clicked.connect(self._clicked)
        self.view.zoomed.connect(self._user_zoomed)
        self.view.resized.connect(self._view_resized)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.setMinimumHeight(160)
        self.width_px, self.height_px = float(PANORAMA_WIDTH), float(PANORAMA_HEIGHT)
        self.boxes: list[Box2D] = []
        self.colours: dict[int, tuple[int, int, int]] = {}
        self.labels: dict[int, str] = {}
        self.selected: int | None = None
        self.highlighted: frozenset[int] | None = None  # None: no highlighting
        self.items: dict[int, list[QGraphicsRectItem]] = {}
        self.fitted = True  # keep the whole width in view until the person zooms
        self._set_size(self.width_px, self.height_px)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(1200, 180)

    # -- content --------------------------------------------------------------------------------
    def set_image(self, image: QImage | None) -> None:
        """Show a panorama (None: a blank one of the standard size); boxes stay."""
        if image is None or image.isNull():
            self.image_item.setPixmap(QPixmap())
            self._set_size(PANORAMA_WIDTH, PANORAMA_HEIGHT)
        else:
            self.image_item.setPixmap(QPixmap.fromImage(image))
            self._set_size(image.width(), image.height())
        self._place_wraps()
        self._draw_boxes()

    def set_wrap(self, margin: float) -> None:
        """Show `margin` image pixels of the panorama's other end past each edge, with the
        seam marked, so panning and drawing go on round the cylinder; 0: a flat image."""
        margin = max(float(margin), 0.0)
        if margin == self.wrap_margin:
            return  # `set_image` places the strips for a new image itself
        self.wrap_margin = margin
        self._set_size(self.width_px, self.height_px)
        self._place_wraps()

    def _place_wraps(self) -> None:
        on = self.wrap_margin > 0 and self.has_image
        pixmap = self.image_item.pixmap()
        for item, x in zip(self.wrap_items, (-self.width_px, self.width_px), strict=True):
            item.setPixmap(pixmap if on else QPixmap())
            item.setPos(x, 0)
            item.setVisible(on)
        for item, x in zip(self.seam_items, (0.0, self.width_px), strict=True):
            item.setLine(x, 0, x, self.height_px)
            item.setVisible(on)

    @property
    def has_image(self) -> bool:
        return not self.image_item.pixmap().isNull()

    def _set_size(self, width: float, height: float) -> None:
        changed = (width, height) != (self.width_px, self.height_px)
        self.width_px, self.height_px = float(width), float(height)
        rect = QRectF(0, 0, self.width_px, self.height_px)
        self.clip.setRect(rect)
        m = min(self.wrap_margin, self.width_px)
        self.scene.setSceneRect(rect.adjusted(-m, 0, m, 0))
        if changed or self.fitted:
            self.fit()

    def set_boxes(
        self,
        boxes: Iterable[Box2D],
        colours: Mapping[int, tuple[int, int, int]] | None = None,
        labels: Mapping[int, str] | None = None,
    ) -> None:
        self.boxes = list(boxes)
        self.colours = dict(colours or {})
        self.labels = dict(labels or {})
        self._draw_boxes()

    def set_selected(self, entity_id: int | None) -> None:
        if entity_id == self.selected:
            return
        self.selected = entity_id
        self._draw_boxes()
        if entity_id is not None and not self.fitted:
            self.centre_on(entity_id)

    def highlight_entities(self, entity_ids: Iterable[int] | None) -> None:
        """Emphasise these entities' boxes, dim the others and shade the image around them
        (e.g. a question's reasoning step); None ends the highlighting."""
        wanted = None if entity_ids is None else frozenset(int(i) for i in entity_ids)
        if wanted != self.highlighted:
            self.highlighted = wanted
            self._draw_boxes()

    def copies(self, box: Box2D) -> list[QRectF]:
        """Where a box is drawn: once, or at both ends of the image when it crosses the seam."""
        rect = QRectF(box.x, box.y, box.w, box.h)
        out = [rect]
        if box.x + box.w > self.width_px:
            out.append(rect.translated(-self.width_px, 0))
        if box.x < 0:
            out.append(rect.translated(self.width_px, 0))
        return out

    def box_rects(self, entity_id: int) -> list[QRectF]:
        """The drawn rectangles of one entity (scene coordinates, before clipping)."""
        return [item.rect() for item in self.items.get(entity_id, [])]

    def _draw_boxes(self) -> None:
        for item in self.clip.childItems():
            item.setParentItem(None)
            self.scene.removeItem(item)
        self.items = {}
        lit = self.highlighted
        if lit is not None:  # shade the image except where the highlighted boxes are
            shade = QPainterPath()
            shade.addRect(self.clip.rect())
            holes = QPainterPath()
            for box in self.boxes:
                for rect in self.copies(box) if box.entity_id in lit else ():
                    holes.addRect(rect)
            item = QGraphicsPathItem(shade.subtracted(holes), self.clip)
            item.setPen(QPen(Qt.PenStyle.NoPen))
            item.setBrush(SHADE)
        for box in self.boxes:
            chosen = box.entity_id == self.selected
            emphasised = lit is not None and box.entity_id in lit
            colour = HIGHLIGHT if chosen else QColor(*self.colours.get(box.entity_id, (230,) * 3))
            pen = QPen(colour, 3.5 if emphasised else 3.0 if chosen else 1.6)
            if is_interpolated(box):  # derived, not set by hand: dashed (a drag keys it)
                pen.setStyle(Qt.PenStyle.DashLine)
            pen.setCosmetic(True)
            for rect in self.copies(box):
                item = QGraphicsRectItem(rect, self.clip)
                item.setPen(pen)
                if chosen:
                    item.setBrush(QBrush(QColor(255, 232, 90, 45)))
                item.setZValue(3 if emphasised else 2 if chosen else 1)
                if lit is not None and not emphasised:
                    item.setOpacity(DIMMED)
                item.setData(0, box.entity_id)
                self.items.setdefault(box.entity_id, []).append(item)
                label = self.labels.get(box.entity_id)
                if label:
                    tag = NameTag(label, colour, item)
                    tag.setPos(max(rect.left(), 0.0), max(rect.top(), 0.0))
        self.boxes_drawn.emit()

    # -- zoom and pan ---------------------------------------------------------------------------
    def fit(self) -> None:
        """The whole width of the panorama in view."""
        self.fitted = True
        viewport = self.view.viewport()
        scale = min(
            viewport.width() / max(self.width_px, 1), viewport.height() / max(self.height_px, 1)
        )
        scale = max(scale, 1e-3)
        self.view.min_scale = scale
        self.view.resetTransform()
        self.view.scale(scale, scale)
        self.view.centerOn(self.width_px / 2, self.height_px / 2)

    @property
    def zoom(self) -> float:
        """Screen pixels per image pixel."""
        return self.view.scale_factor

    def zoom_by(self, factor: float) -> None:
        """Zoom about the centre of the view (the wheel zooms about the pointer)."""
        anchor = self.view.transformationAnchor()
        self.view.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.view.zoom_by(factor)
        self.view.setTransformationAnchor(anchor)

    def _user_zoomed(self) -> None:
        self.fitted = self.zoom <= self.view.min_scale * 1.0001

    def visible_rect(self) -> QRectF:
        """The part of the image on screen (scene coordinates)."""
        return self.view.mapToScene(self.view.viewport().rect()).boundingRect()

    def centre_on(self, entity_id: int) -> None:
        """Scroll so that the entity's box (its first copy in view) is on screen."""
        rects = self.box_rects(entity_id)
        if rects:
            self.view.ensureVisible(rects[0].intersected(self.clip.rect()), 40, 20)

    def _view_resized(self) -> None:
        if self.fitted:
            self.fit()
        else:
            viewport = self.view.viewport()
            self.view.min_scale = min(
                viewport.width() / max(self.width_px, 1), viewport.height() / self.height_px
            )

    # -- picking --------------------------------------------------------------------------------
    def entity_at(self, x: float, y: float) -> int | None:
        """The entity whose box holds image point (x, y); the smallest box wins (nearer people)."""
        best: tuple[float, int] | None = None
        for box in self.boxes:
            for rect in self.copies(box):
                if rect.contains(QPointF(x, y)) and (best is None or box.w * box.h < best[0]):
                    best = (box.w * box.h, box.entity_id)
        return None if best is None else best[1]

    def scene_to_widget(self, x: float, y: float) -> QPointF:
        """Where image point (x, y) is on the view's viewport (for tests and gestures)."""
        return QPointF(self.view.mapFromScene(QPointF(x, y)))

    def _clicked(self, point: QPointF) -> None:
        if not (0 <= point.x() < self.width_px and 0 <= point.y() < self.height_px):
            return
        entity = self.entity_at(point.x(), point.y())
        if entity is None:
            self.background_clicked.emit()
        else:
            self.entity_clicked.emit(entity)
