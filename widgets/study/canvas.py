"""The Human study's image: a question's panorama (or top-down image), no boxes, no hints.

It is a `PanoramaView` without entity boxes (they would give the answer away)
and, for the human baseline's visual grounding, `AnswerBoxGesture`: a plain
left drag draws the answer box, a new drag replaces it, Shift+drag adds another
(a question about several people). Wheel zooms, Shift+wheel pans. Nothing here
saves: the boxes go to the mode's `StudyState`.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QImage, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QLabel, QVBoxLayout, QWidget

from widgets.jrdb.panorama import HIGHLIGHT, PanoramaView
from widgets.study.state import drag_box


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
        self.preview = self._item(Qt.PenStyle.DashLine, 11)
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
        if not self.enabled or not (0 <= scene.x() < p.width_px and 0 <= scene.y() < p.height_px):
            return False
        self.start = QPointF(scene)
        self.adding = bool(modifiers & Qt.KeyboardModifier.ShiftModifier)
        return True

    def move(self, scene: QPointF) -> None:
        if self.start is not None:
            self.preview.setRect(QRectF(self.start, scene).normalized())
            self.preview.show()

    def release(self, scene: QPointF, dragged: bool) -> None:
        start, self.start = self.start, None
        self.preview.hide()
        if start is None or not dragged:
            return
        p = self.panorama
        box = drag_box(
            (start.x(), start.y()), (scene.x(), scene.y()), width=p.width_px, height=p.height_px
        )
        if box is not None:
            self.drawn.emit(box, self.adding)

    def show_boxes(self, boxes: Sequence[Sequence[float]]) -> None:
        """Show the drawn answer boxes."""
        for item in self.box_items:
            self.panorama.scene.removeItem(item)
        self.box_items = [self._item(Qt.PenStyle.SolidLine, 10) for _ in boxes]
        for item, box in zip(self.box_items, boxes, strict=True):
            item.setRect(QRectF(*box))


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

    def set_image(self, image: QImage | None, caption: str) -> None:
        """Show an image (None: a blank one) with a line saying what it is."""
        self.caption.setText(caption)
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
