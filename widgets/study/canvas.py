"""The Human study's image: a question's panorama (or top-down image), no boxes, no hints.

It is a `PanoramaView` without entity boxes (they would give the answer away)
and, for the human baseline's visual grounding, `AnswerBoxGesture`: a plain
left drag draws the answer box, a new drag replaces it, Shift+drag adds another
(a question about several people). Wheel zooms, Shift+wheel pans. A panorama
wraps round: past each edge a strip of its other end shows (the seam dashed), so
a box can be drawn across the seam; it is stored starting in [0, width) with
x + w past the width, as JRDB's boxes are. Nothing here saves: the boxes go to the
mode's `StudyState`.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QImage, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QLabel, QVBoxLayout, QWidget

from widgets.jrdb.panorama import HIGHLIGHT, PanoramaView
from widgets.study.boxes import drag_box

WRAP_MARGIN = 480.0  # image px of the other end shown past each edge of a panorama


class AnswerBoxGesture(QObject):
    """Drag on the image to draw a box; `drawn` carries it as [x, y, w, h] image pixels and
    whether it joins the boxes drawn before (Shift held) or replaces them."""

    drawn = Signal(object, bool)

    def __init__(self, panorama: PanoramaView) -> None:
        super().__init__(panorama)
        self.panorama = panorama
        self.enabled = False
        self.start: QPointF | None = None
        self.adding = False
        self.previews = [self._item(Qt.PenStyle.DashLine, 11) for _ in range(3)]
        self.box_items: list[QGraphicsRectItem] = []
        panorama.view.editor = self

    def _item(self, style: Qt.PenStyle, z: int) -> QGraphicsRectItem:
        item = QGraphicsRectItem()
        pen = QPen(HIGHLIGHT, 2.0, style)
        pen.setCosmetic(True)  # the same width at any zoom
        item.setPen(pen)
        item.setZValue(z)
        if style == Qt.PenStyle.SolidLine:
            item.setBrush(QBrush(QColor(255, 232, 90, 50)))
        else:
            item.hide()
        self.panorama.scene.addItem(item)
        return item

    # -- what the panorama's view calls --------------------------------------------------------
    def press(self, scene: QPointF, modifiers: Qt.KeyboardModifier) -> bool:
        p = self.panorama
        m = p.wrap_margin
        if not self.enabled or not (
            -m <= scene.x() < p.width_px + m and 0 <= scene.y() < p.height_px
        ):
            return False
        self.start = QPointF(scene)
        self.adding = bool(modifiers & Qt.KeyboardModifier.ShiftModifier)
        return True

    def move(self, scene: QPointF) -> None:
        if self.start is None:
            return
        box = self._box(self.start, scene)
        rects = self._copies(box) if box is not None else []
        for item, rect in zip(self.previews, rects, strict=False):
            item.setRect(rect)
        for i, item in enumerate(self.previews):
            item.setVisible(i < len(rects))

    def release(self, scene: QPointF, dragged: bool) -> None:
        start, self.start = self.start, None
        for item in self.previews:
            item.hide()
        if start is None or not dragged:
            return
        box = self._box(start, scene)
        if box is not None:
            self.drawn.emit(box, self.adding)

    def _box(self, start: QPointF, end: QPointF) -> list[float] | None:
        p = self.panorama
        return drag_box(
            (start.x(), start.y()),
            (end.x(), end.y()),
            width=p.width_px,
            height=p.height_px,
            wrap=p.wrap_margin > 0,
        )

    def _copies(self, box: Sequence[float]) -> list[QRectF]:
        """Where a box shows: once on a flat image; on a panorama also one panorama width
        to either side (in the wrapped strips, or at the other edge across the seam)."""
        rect = QRectF(*box)
        if self.panorama.wrap_margin <= 0:
            return [rect]
        w = self.panorama.width_px
        return [rect, rect.translated(-w, 0), rect.translated(w, 0)]

    def show_boxes(self, boxes: Sequence[Sequence[float]]) -> None:
        """Show the drawn answer boxes."""
        for item in self.box_items:
            self.panorama.scene.removeItem(item)
        rects = [rect for box in boxes for rect in self._copies(box)]
        self.box_items = [self._item(Qt.PenStyle.SolidLine, 10) for _ in rects]
        for item, rect in zip(self.box_items, rects, strict=True):
            item.setRect(rect)


class StudyImage(QWidget):
    """A caption over the question's image; draws the answer box when asked to."""

    box_drawn = Signal(object, bool)  # [x, y, w, h] in image pixels, added (Shift) or not

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("study_image")
        self.caption = QLabel()
        self.caption.setObjectName("study_image_caption")
        self.caption.setContentsMargins(8, 3, 8, 3)
        self.panorama = PanoramaView()
        self.gesture = AnswerBoxGesture(self.panorama)
        self.gesture.drawn.connect(self.box_drawn)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.caption)
        layout.addWidget(self.panorama, 1)

    def set_image(self, image: QImage | None, caption: str, *, panorama: bool = False) -> None:
        """Show an image (None: a blank one) with a line saying what it is; a `panorama`
        wraps round at its seam (a strip of the other end shows past each edge)."""
        self.caption.setText(caption)
        self.panorama.set_wrap(WRAP_MARGIN if panorama and image is not None else 0)
        self.panorama.set_image(image)
        self.panorama.fit()

    def set_drawing(self, on: bool) -> None:
        """Whether a drag draws the answer box (else it pans the zoomed image)."""
        self.gesture.enabled = on
        self.panorama.view.viewport().setCursor(
            Qt.CursorShape.CrossCursor if on else Qt.CursorShape.OpenHandCursor
        )

    def show_boxes(self, boxes: Sequence[Sequence[float]]) -> None:
        self.gesture.show_boxes(boxes)
