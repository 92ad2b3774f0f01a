"""The episode timeline: a tick per step, failed steps as bookmarks, the current step marked.

Click or drag to seek; the mode's toolbar gives the keys (Left/Right,
Home/End, Space). Tick colours say the step's kind: perception grey-blue,
manipulation (grasp, push, a dual-arm plan) taller and dark blue, the answer
green, format errors orange; a red flag above a tick is a failed step.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

MARGIN = 14
KIND_COLOURS = {
    "observation": QColor(150, 156, 166),
    "perception": QColor(110, 140, 190),
    "manipulation": QColor(38, 74, 150),
    "answer": QColor(40, 150, 80),
    "format_error": QColor(230, 140, 30),
}
MANIPULATION_NAMES = ("grasp", "push", "executable_plan")
FAILED = QColor(200, 50, 40)
CURRENT = QColor(255, 170, 0)


@dataclass(frozen=True)
class Tick:
    """One step as the timeline draws it."""

    kind: str  # a KIND_COLOURS key
    failed: bool
    tip: str  # the tooltip: what the step was

    @classmethod
    def of(cls, index: int, step: dict) -> Tick:
        kind, name = step.get("kind", "tool"), step.get("name", "")
        if kind in ("observation", "answer", "format_error"):
            group = kind
        else:
            group = "manipulation" if name in MANIPULATION_NAMES else "perception"
        failed = kind == "format_error" or (kind != "observation" and step.get("ok") is False)
        what = "plan" if name == "executable_plan" else name or kind.replace("_", " ")
        tip = f"Step {index}: {what}"
        if failed:
            tip += f" — failed: {step.get('feedback', '')}"
        return cls(group, failed, tip)


class Timeline(QWidget):
    """Emits `seek_requested(index)` when clicked or dragged."""

    seek_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("replay_timeline")
        self.ticks: list[Tick] = []
        self.current = 0
        self.setMouseTracking(True)
        self.setMinimumHeight(58)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setToolTip("Click or drag to seek; Left/Right step, Home/End, Space plays")

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(600, 58)

    def set_ticks(self, ticks: list[Tick]) -> None:
        self.ticks = list(ticks)
        self.current = min(self.current, max(0, len(self.ticks) - 1))
        self.update()

    def set_current(self, index: int) -> None:
        self.current = index
        self.update()

    @property
    def bookmarks(self) -> list[int]:
        return [i for i, t in enumerate(self.ticks) if t.failed]

    # -- geometry -----------------------------------------------------------------------
    def _pitch(self) -> float:
        return (self.width() - 2 * MARGIN) / max(1, len(self.ticks))

    def x_of(self, index: int) -> float:
        return MARGIN + (index + 0.5) * self._pitch()

    def index_at(self, x: float) -> int:
        if not self.ticks:
            return 0
        return max(0, min(len(self.ticks) - 1, int((x - MARGIN) // self._pitch())))

    # -- drawing ----------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        p.fillRect(self.rect(), pal.base())
        base_y = self.height() - 16
        p.setPen(QPen(pal.mid().color(), 1))
        p.drawLine(MARGIN, base_y, self.width() - MARGIN, base_y)
        if not self.ticks:
            p.setPen(pal.placeholderText().color())
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No episode open")
            return
        pitch = self._pitch()
        bar = max(1.0, min(6.0, pitch * 0.5))
        x = self.x_of(self.current)
        p.fillRect(QRectF(x - pitch / 2, 4, pitch, base_y - 2), QColor(255, 214, 120, 90))
        for i, tick in enumerate(self.ticks):
            x = self.x_of(i)
            tall = 22 if tick.kind in ("manipulation", "answer") else 14
            p.fillRect(QRectF(x - bar / 2, base_y - tall, bar, tall), KIND_COLOURS[tick.kind])
            if tick.failed:
                self._flag(p, x, base_y - tall - 4, max(4.0, min(7.0, pitch * 0.45)))
        x = self.x_of(self.current)
        p.setPen(QPen(CURRENT, 2))
        p.drawLine(QPointF(x, 4), QPointF(x, base_y + 3))
        p.setPen(pal.text().color())
        label = f"Step {self.current} of {len(self.ticks) - 1}"
        width = self.fontMetrics().horizontalAdvance(label) + 8
        left = min(max(MARGIN, x - width / 2), self.width() - MARGIN - width)
        p.drawText(QRectF(left, base_y + 1, width, 15), Qt.AlignmentFlag.AlignCenter, label)

    @staticmethod
    def _flag(p: QPainter, x: float, y: float, size: float) -> None:
        """A red down-pointing marker: a bookmark on a failed step."""
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(FAILED)
        p.drawPolygon(
            QPolygonF([QPointF(x - size, y - size), QPointF(x + size, y - size), QPointF(x, y)])
        )

    # -- seeking ------------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton and self.ticks:
            self.seek_requested.emit(self.index_at(event.position().x()))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if not self.ticks:
            return
        index = self.index_at(event.position().x())
        if event.buttons() & Qt.MouseButton.LeftButton:
            self.seek_requested.emit(index)
        QToolTip.showText(event.globalPosition().toPoint(), self.ticks[index].tip, self)
