"""Editing boxes by hand: gestures on the panorama's 2D boxes, and a panel for one 3D box.

`PanoramaBoxGestures` installs itself on a `PanoramaView`: Ctrl+drag on the
image draws a new rectangle (`panorama.box_drawn`); dragging the selected
entity's box moves it, dragging one of its corner handles resizes it
(`panorama.box_edited`, on release). A press and release without moving
stays a click. `Box3DPanel` shows the selected entity's 3D box in the frame
(centre, size, yaw in degrees) and emits `box_edited` for every change.
Neither saves anything: the mode does, with the signed-in annotator.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QGraphicsItem,
    QGraphicsRectItem,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from annotation.models import Box3D
from widgets.jrdb.panorama import HIGHLIGHT, PanoramaView

HANDLE_PX = 7.0  # a corner handle's half size on screen (and how near a press must be)
MIN_BOX_PX = 3.0  # drawn rectangles smaller than this (image px) are dropped


class PanoramaBoxGestures(QObject):
    """Draw, move and resize 2D boxes on a panorama with the mouse."""

    def __init__(self, panorama: PanoramaView) -> None:
        super().__init__(panorama)
        self.panorama = panorama
        self.enabled = True
        self.gesture: str | None = None  # "draw", "move" or "resize"
        self.entity: int | None = None
        self.start = QPointF()
        self.anchor = QPointF()  # the corner that stays put while resizing
        self.original = QRectF()
        self.offset = 0.0  # x of the dragged copy minus the box's x (boxes on the seam)
        self.preview = QGraphicsRectItem()
        pen = QPen(HIGHLIGHT, 1.5, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.preview.setPen(pen)
        self.preview.setZValue(10)
        self.preview.hide()
        panorama.scene.addItem(self.preview)
        panorama.view.editor = self
        panorama.boxes_drawn.connect(self._decorate)

    # -- what _PanView calls -------------------------------------------------------------------
    def press(self, scene: QPointF, modifiers: Qt.KeyboardModifier) -> bool:
        """Take the gesture starting at `scene`? (Ctrl: draw; on the selected box: edit)."""
        p = self.panorama
        if not self.enabled:
            return False
        if modifiers & Qt.KeyboardModifier.ControlModifier:
            if not (0 <= scene.x() < p.width_px and 0 <= scene.y() < p.height_px):
                return False
            return self._begin("draw", scene, QRectF(scene, scene), None, 0.0)
        box = next((b for b in p.boxes if b.entity_id == p.selected), None)
        if box is None:
            return False
        tolerance = HANDLE_PX / max(p.zoom, 1e-6)
        for rect in p.copies(box):
            offset = rect.x() - box.x
            corners = [rect.topLeft(), rect.topRight(), rect.bottomLeft(), rect.bottomRight()]
            for i, corner in enumerate(corners):
                near = (corner - scene).manhattanLength() <= 2 * tolerance
                if near and abs(corner.x() - scene.x()) <= tolerance:
                    self.anchor = corners[3 - i]
                    return self._begin("resize", scene, rect, box.entity_id, offset)
            if rect.contains(scene):
                return self._begin("move", scene, rect, box.entity_id, offset)
        return False

    def move(self, scene: QPointF) -> None:
        if self.gesture is not None:
            self.preview.setRect(self.current(scene))
            self.preview.show()

    def release(self, scene: QPointF, dragged: bool) -> None:
        gesture, rect = self.gesture, self.current(scene)
        self.gesture = None
        self.preview.hide()
        if gesture is None or not dragged:
            return
        if gesture == "draw":
            if rect.width() >= MIN_BOX_PX and rect.height() >= MIN_BOX_PX:
                self.panorama.box_drawn.emit(rect)
            return
        rect.translate(-self.offset, 0)
        width = self.panorama.width_px
        rect.moveLeft(rect.x() % width)  # boxes start in [0, width); x + w may pass it
        if rect.width() >= 1 and rect.height() >= 1 and self.entity is not None:
            self.panorama.box_edited.emit(self.entity, rect)

    # -- geometry ------------------------------------------------------------------------------
    def current(self, scene: QPointF) -> QRectF:
        """The rectangle the gesture makes with the pointer at `scene`."""
        p = self.panorama
        point = QPointF(scene.x(), min(max(scene.y(), 0.0), p.height_px))
        if self.gesture == "draw":
            point.setX(min(max(point.x(), 0.0), p.width_px))
            return QRectF(self.start, point).normalized()
        if self.gesture == "resize":
            return QRectF(self.anchor, point).normalized()
        moved = self.original.translated(scene - self.start)
        moved.moveTop(min(max(moved.top(), 0.0), max(p.height_px - moved.height(), 0.0)))
        return moved

    def _begin(
        self, gesture: str, scene: QPointF, rect: QRectF, entity: int | None, offset: float
    ) -> bool:
        self.gesture, self.entity, self.offset = gesture, entity, offset
        self.start, self.original = QPointF(scene), QRectF(rect)
        return True

    def _decorate(self) -> None:
        """Corner handles on the selected box (they keep their size at any zoom)."""
        if not self.enabled:
            return
        for item in self.panorama.items.get(self.panorama.selected, []):
            rect = item.rect()
            for corner in (rect.topLeft(), rect.topRight(), rect.bottomLeft(), rect.bottomRight()):
                handle = QGraphicsRectItem(-3.5, -3.5, 7, 7, item)
                handle.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
                handle.setBrush(QBrush(HIGHLIGHT))
                handle.setPen(QPen(QColor(30, 30, 30)))
                handle.setPos(corner)


# (field, label, minimum, maximum, step, decimals, tooltip)
FIELDS = (
    ("cx", "Centre x", -200.0, 200.0, 0.05, 2, "Forward of the robot, metres"),
    ("cy", "Centre y", -200.0, 200.0, 0.05, 2, "To the robot's left, metres"),
    ("cz", "Centre z", -20.0, 20.0, 0.05, 2, "Up, metres"),
    ("l", "Length", 0.0, 50.0, 0.05, 2, "Along the yaw, metres"),
    ("w", "Width", 0.0, 50.0, 0.05, 2, "Across the yaw, metres"),
    ("h", "Height", 0.0, 50.0, 0.05, 2, "Metres"),
    ("rot_z", "Yaw", -180.0, 180.0, 1.0, 1, "Rotation about z, degrees"),
)


class Box3DPanel(QWidget):
    """The selected entity's 3D box in this frame, as numbers to edit."""

    box_edited = Signal(int, object)  # entity id, (cx, cy, cz, l, w, h, rot_z in radians)
    create_requested = Signal(int)  # entity id: it has no 3D box in this frame yet

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("box_panel")
        self.entity_id: int | None = None
        self.has_box = False
        self.title = QLabel("Select a person or an object.")
        self.title.setWordWrap(True)
        self.spins: dict[str, QDoubleSpinBox] = {}
        form = QFormLayout()
        for field, text, low, high, step, decimals, tip in FIELDS:
            spin = QDoubleSpinBox()
            spin.setObjectName(f"box_{field}")
            spin.setRange(low, high)
            spin.setSingleStep(step)
            spin.setDecimals(decimals)
            spin.setKeyboardTracking(False)  # typing saves on Enter or on leaving the field
            spin.setWrapping(field == "rot_z")
            spin.setToolTip(tip)
            spin.valueChanged.connect(self._edited)
            form.addRow(text, spin)
            self.spins[field] = spin
        self.create = QPushButton("Add a 3D box here")
        self.create.setToolTip("A 3D box for the selection in this frame, placed from its 2D box")
        self.create.clicked.connect(self._create)
        column = QVBoxLayout(self)
        column.addWidget(self.title)
        column.addLayout(form)
        column.addWidget(self.create)
        column.addStretch(1)
        self.show_box(None, "", None)

    def show_box(self, entity_id: int | None, label: str, box: Box3D | None) -> None:
        """Show one entity's box (None: nothing selected, or no 3D box in this frame)."""
        self.entity_id, self.has_box = entity_id, box is not None
        if entity_id is None:
            self.title.setText("Select a person or an object.")
        elif box is None:
            self.title.setText(f"{label}: no 3D box in this frame.")
        else:
            self.title.setText(f"{label}: 3D box in this frame (saved as you edit)")
        values = self.to_display(box) if box is not None else (0.0,) * 7
        for spin, value in zip(self.spins.values(), values, strict=True):
            spin.blockSignals(True)
            spin.setValue(value)
            spin.blockSignals(False)
            spin.setEnabled(box is not None)
        self.create.setVisible(entity_id is not None and box is None)

    @staticmethod
    def to_display(box: Box3D) -> tuple[float, ...]:
        yaw = math.degrees(math.remainder(box.rot_z, 2 * math.pi))
        return (box.cx, box.cy, box.cz, box.l, box.w, box.h, yaw)

    def values(self) -> tuple[float, ...]:
        """(cx, cy, cz, l, w, h, rot_z) with the yaw in radians."""
        shown = [spin.value() for spin in self.spins.values()]
        return (*shown[:6], math.radians(shown[6]))

    def _edited(self) -> None:
        if self.entity_id is not None and self.has_box:
            self.box_edited.emit(self.entity_id, self.values())

    def _create(self) -> None:
        if self.entity_id is not None:
            self.create_requested.emit(self.entity_id)
