"""A sequence's frames on a slider, with buttons for one frame back and forward.

The keys that move between frames belong to the mode's toolbar (so F1 lists
them); this widget only shows where the sequence is and asks for a frame
when the person drags or clicks.

While the handle is dragged it scrubs: each move emits `frame_scrubbed` (for a
cheap preview: the frame number, the panorama, the 2D boxes), and
`frame_requested` (the whole frame: cloud, relations, scene graph) follows only
when the handle rests for `REST_MS` without a move, and on release.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QToolButton, QWidget

REST_MS = 150  # a dragged handle still for this long asks for the whole frame


class FrameSlider(QWidget):
    """Frame position 0..count-1; emits `frame_requested(position)` when moved by hand,
    and `frame_scrubbed(position)` for each move while the handle is dragged."""

    frame_requested = Signal(int)
    frame_scrubbed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("frame_slider")
        self.back = QToolButton(text="◀")
        self.back.setToolTip("Previous frame (PgUp, Alt+Left)")
        self.forward = QToolButton(text="▶")
        self.forward.setToolTip("Next frame (PgDown, Alt+Right)")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("frame_slider_bar")
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setPageStep(10)
        self.label = QLabel("No frames")
        self.label.setObjectName("frame_label")
        self.label.setMinimumWidth(260)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.addWidget(self.back)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.forward)
        layout.addWidget(self.label)
        self.indices: list[int] = []
        self.times: list[float | None] = []
        self.rest = QTimer(self)
        self.rest.setSingleShot(True)
        self.rest.setInterval(REST_MS)
        self.rest.timeout.connect(self._rested)
        self.slider.valueChanged.connect(self._moved)
        self.slider.sliderReleased.connect(self._released)
        self.back.clicked.connect(lambda: self.frame_requested.emit(self.slider.value() - 1))
        self.forward.clicked.connect(lambda: self.frame_requested.emit(self.slider.value() + 1))
        self.set_frames([])

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(900, 34)

    def set_frames(
        self, indices: Sequence[int], times: Sequence[float | None] | None = None
    ) -> None:
        """The sequence's frame numbers (as stored) and their times in seconds."""
        self.indices = list(indices)
        self.times = list(times) if times is not None else [None] * len(self.indices)
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, len(self.indices) - 1))
        self.slider.setTickInterval(max(1, len(self.indices) // 20))
        self.slider.setValue(0)
        self.slider.blockSignals(False)
        for widget in (self.slider, self.back, self.forward):
            widget.setEnabled(bool(self.indices))
        self._show(0)

    def set_current(self, position: int) -> None:
        """Show `position` without asking for it again."""
        self.slider.blockSignals(True)
        self.slider.setValue(position)
        self.slider.blockSignals(False)
        self._show(position)

    @property
    def position(self) -> int:
        return self.slider.value()

    def _moved(self, position: int) -> None:
        self._show(position)
        if self.slider.isSliderDown():
            self.frame_scrubbed.emit(position)
            self.rest.start()
        else:
            self.frame_requested.emit(position)

    def _rested(self) -> None:
        if self.slider.isSliderDown():
            self.frame_requested.emit(self.slider.value())

    def _released(self) -> None:
        self.rest.stop()
        self.frame_requested.emit(self.slider.value())

    def _show(self, position: int) -> None:
        if not self.indices:
            self.label.setText("No frames")
            return
        index = self.indices[position]
        seconds = self.times[position] if position < len(self.times) else None
        when = f" · {seconds:.2f} s" if seconds is not None else ""
        self.label.setText(f"Frame {position + 1} of {len(self.indices)} · #{index:06d}{when}")
