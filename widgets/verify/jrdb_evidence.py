"""The evidence of a JRDB-Reasoning question for its verifiers: the answer frame's panorama
with the answer outlined, and the question's steps to click through.

`JrdbEvidenceView` shows a `JrdbEvidence` (`widgets.verify.jrdb_evidence_rows`: the question,
its frames with their 2D boxes, and which project entity each graph id is; read by the
app) in two `PanoramaView`s: an overview strip of the whole panorama, with a frame around
the part the detail shows, and the detail below it, zoomed to the full image height
around the shown row's boxes.
The list under them has the answer first, then the steps; picking a row highlights its
entities (their boxes bold, the rest dimmed and the image shaded) in that row's time slot,
and on the answer row a VG question's stored answer boxes are drawn over the image.
Images arrive later (`set_images`): the app loads them off the GUI thread. The list is a
view of `EvidenceRowModel`, a model of the question's `EvidenceRow`s.

For annotators only: the boxes, the steps and the answer are never shown to a model.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPointF,
    QRectF,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QImage, QPen
from PySide6.QtWidgets import (
    QGraphicsRectItem,
    QLabel,
    QListView,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from annotation.models import Box2D
from widgets.jrdb.panorama import NameTag, PanoramaView
from widgets.jrdb.state import entity_colour
from widgets.table_model import RowListModel
from widgets.tree_model import bold_font
from widgets.verify.jrdb_evidence_rows import (
    EvidenceFrame,
    EvidenceRow,
    JrdbEvidence,
    answer_boxes,
    answer_slot,
    evidence_rows,
    focus_rect,
)

ANSWER_PEN = QColor(255, 255, 255)
WINDOW_PEN = QColor(255, 232, 90)
OVERVIEW_SHARE = 0.3  # the overview strip takes at most this share of the height


class EvidenceRowModel(RowListModel):
    """The rows of a question's step list (`evidence_rows`: the answer, then each step), one
    row each: its text, its tooltip, bold for the answer."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[EvidenceRow] = []

    def set_rows(self, rows: list[EvidenceRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def row_list(self) -> list[EvidenceRow]:
        return self.rows

    def row_data(self, r: int, row: EvidenceRow, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return row.text
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.tooltip
        if role == Qt.ItemDataRole.FontRole and row.answer:
            return bold_font()
        return None


class JrdbEvidenceView(QWidget):
    """Overview strip, zoomed detail and the step list of one JRDB question."""

    row_changed = Signal(int)  # 0: the answer; k: step k
    entity_clicked = Signal(str)  # a box was clicked: its graph entity id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("jrdb_evidence")
        self.caption = QLabel()
        self.caption.setObjectName("jrdb_evidence_caption")
        self.caption.setContentsMargins(8, 3, 8, 3)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.overview, self.detail = PanoramaView(), PanoramaView()
        self.overview.setMinimumHeight(40)
        self.overview.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.overview.view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.overview.view.clicked.connect(self._overview_clicked)
        self.window_item = QGraphicsRectItem()  # the part of the image the detail shows
        pen = QPen(WINDOW_PEN, 2.0)
        pen.setCosmetic(True)
        self.window_item.setPen(pen)
        self.window_item.setZValue(12)
        self.overview.scene.addItem(self.window_item)
        self.row_model = EvidenceRowModel(self)
        self.steps = QListView()
        self.steps.setObjectName("jrdb_evidence_steps")
        self.steps.setModel(self.row_model)
        self.steps.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # arrows stay the mode's keys
        self.steps.setWordWrap(True)
        self.steps.setToolTip("Click a step, or press [ and ], to highlight its entities")
        self.steps.selectionModel().currentRowChanged.connect(self._current_changed)
        self._filling = False  # the list is being filled: its current row is not a pick
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.detail)
        split.addWidget(self.steps)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 0)
        split.setChildrenCollapsible(False)
        split.setSizes([400, 150])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.caption)
        layout.addWidget(self.overview)
        layout.addWidget(split, 1)
        for view in (self.overview, self.detail):
            view.entity_clicked.connect(self._box_clicked)
        bars = (self.detail.view.horizontalScrollBar(), self.detail.view.verticalScrollBar())
        for bar in bars:
            bar.valueChanged.connect(self._sync_window)
        self.detail.view.zoomed.connect(self._user_zoomed)
        self.detail.view.viewport().installEventFilter(self)
        self.evidence: JrdbEvidence | None = None
        self.images: dict[int, QImage | None] = {}  # frame id -> image (None: no file)
        self.emphasis = True  # the verification rendering (V): highlight and answer boxes
        self.shown_frame: int | None = None  # the frame whose image and boxes are drawn
        self.auto_zoom = True  # until the person zooms, the detail follows the row
        self.answer_items: list[QGraphicsRectItem] = []
        self.show_evidence(None)

    # -- content --------------------------------------------------------------------------------
    def show_evidence(
        self, evidence: JrdbEvidence | None, message: str = "", *, row: int = 0
    ) -> None:
        """Show a question's evidence from its answer row, or from `row` keeping the zoom
        (the same question read again); None: nothing, with `message`."""
        old = self.evidence.question.id if self.evidence is not None else None
        again = evidence is not None and evidence.question.id == old
        self.evidence, self.shown_frame, self.images = evidence, None, {}
        rows = evidence_rows(evidence.question) if evidence is not None else []
        self._filling = True
        try:
            self.row_model.set_rows(rows)
            self._set_current(min(max(row, 0), len(self.rows) - 1) if self.rows else -1)
        finally:
            self._filling = False
        if evidence is None:
            for view in (self.overview, self.detail):
                view.set_boxes([])
                view.highlight_entities(None)
                view.set_image(None)
            self._set_answer_boxes([])
            self.caption.setText(html.escape(message))
            return
        self.auto_zoom = self.auto_zoom if again else True
        self._apply()
        self.row_changed.emit(self.current_row)

    def set_images(self, images: Mapping[int, QImage | None]) -> None:
        """Frames' images, loaded elsewhere (None: the file is missing or unreadable)."""
        self.images.update(images)
        frame = self.frame
        if frame is not None and frame.frame_id in images:
            self.shown_frame = None  # draw it again, now with its image
            self._apply()

    @property
    def rows(self) -> list[EvidenceRow]:
        """The step list's rows: the answer, then each step."""
        return self.row_model.rows

    @property
    def current_row(self) -> int:
        return self.steps.currentIndex().row()

    @property
    def current(self) -> EvidenceRow | None:
        row = self.current_row
        return self.rows[row] if 0 <= row < len(self.rows) else None

    @property
    def frame(self) -> EvidenceFrame | None:
        """The frame of the shown row's time slot."""
        row, evidence = self.current, self.evidence
        if row is None or evidence is None or not 0 <= row.slot < len(evidence.frames):
            return None
        return evidence.frames[row.slot]

    @property
    def highlighted_keys(self) -> tuple[str, ...]:
        """The graph ids of the shown row's entities (what the panorama emphasises)."""
        row = self.current
        return row.keys if row is not None and self.emphasis else ()

    def select_row(self, row: int) -> None:
        if self.rows:
            self._set_current(max(0, min(int(row), len(self.rows) - 1)))

    def _set_current(self, row: int) -> None:
        """Make `row` the current (and only selected) row of the list; -1: none."""
        index = self.row_model.index(row, 0) if row >= 0 else QModelIndex()
        flag = QItemSelectionModel.SelectionFlag.ClearAndSelect
        self.steps.selectionModel().setCurrentIndex(index, flag)

    def move(self, delta: int) -> None:
        """The previous (-1) or next (+1) row: [ and ]."""
        self.select_row(max(self.current_row, 0) + delta)

    def set_emphasis(self, on: bool) -> None:
        """The highlight and the answer boxes on, or the plain image with its boxes (V)."""
        if on != self.emphasis:
            self.emphasis = on
            self._apply()

    def select_entity(self, key: str) -> None:
        """Ring one entity's box and bring it into the detail (a click in the graph)."""
        rows = self.evidence.entity_rows if self.evidence is not None else {}
        row = rows.get(key)
        for view in (self.overview, self.detail):
            view.set_selected(row)
        if row is not None and self.detail.box_rects(row):
            self.auto_zoom = False
            self.detail.view.centerOn(self.detail.box_rects(row)[0].center())

    def answer_rects(self) -> list[QRectF]:
        """The stored answer boxes drawn in the detail (their first copies; none when off)."""
        return [i.rect() for i in self.answer_items if i.scene() is self.detail.scene]

    # -- drawing --------------------------------------------------------------------------------
    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not self._filling:
            self._row_picked(current.row())

    def _row_picked(self, row: int) -> None:
        self.auto_zoom = True
        self._apply()
        self.row_changed.emit(row)

    def _apply(self) -> None:
        evidence, row, frame = self.evidence, self.current, self.frame
        if evidence is None or row is None:
            return
        if frame is None:
            name = html.escape(evidence.sequence_name)
            self.caption.setText(f"{name}: the question's frame is not stored.")
            return
        if frame.frame_id != self.shown_frame:
            self.shown_frame = frame.frame_id
            image = self.images.get(frame.frame_id)
            colours = {b.entity_id: entity_colour(b.entity_id) for b in frame.boxes}
            tags = {i: evidence.labels.get(i, str(i)).removeprefix("person ") for i in colours}
            for view in (self.overview, self.detail):
                view.set_image(image)
                view.set_boxes(frame.boxes, colours, tags if view is self.detail else None)
                view.set_selected(None)
        rows = [evidence.entity_rows[k] for k in row.keys if k in evidence.entity_rows]
        for view in (self.overview, self.detail):
            view.highlight_entities(rows if self.emphasis else None)
        stored = answer_boxes(evidence.question) if row.answer and self.emphasis else []
        self._set_answer_boxes(stored)
        self.caption.setText(self._caption(evidence, row, frame))
        self._fit_overview()
        if self.auto_zoom:
            self._zoom_detail()

    def _caption(self, evidence: JrdbEvidence, row: EvidenceRow, frame: EvidenceFrame) -> str:
        slots = len(evidence.frames)
        where = f", time slot {row.slot + 1} of {slots}" if slots > 1 else ""
        image = self.images.get(frame.frame_id, False)
        state = (
            " — loading the panorama…"
            if image is False and frame.path is not None
            else " — no image file"
            if image is None or frame.path is None
            else ""
        )
        what = "answer frame" if row.slot == answer_slot(evidence.question) else "frame"
        return (
            f"<b>{html.escape(evidence.sequence_name)}</b>, {what} "
            f"{html.escape(frame.image_name)}{where}{state}"
            " · <span style='color: gray'>[ ] steps · wheel zooms · click the strip to go "
            "there</span>"
        )

    def _set_answer_boxes(self, boxes: list[list[float]]) -> None:
        for item in self.answer_items:
            item.scene().removeItem(item)
        self.answer_items = []
        for view in (self.detail, self.overview):  # the detail's first: `answer_rects`
            for x, y, w, h in boxes:
                for rect in view.copies(Box2D(-1, -1, x, y, w, h)):
                    item = QGraphicsRectItem(rect)
                    pen = QPen(ANSWER_PEN, 2.5, Qt.PenStyle.DashLine)
                    pen.setCosmetic(True)
                    item.setPen(pen)
                    item.setZValue(11)
                    if view is self.detail:
                        tag = NameTag("answer", ANSWER_PEN, item)
                        tag.setPos(max(rect.left(), 0.0), max(rect.bottom(), 0.0))
                    view.scene.addItem(item)
                    self.answer_items.append(item)

    def _zoom_detail(self) -> None:
        """Show the row's boxes (current labels and as the question stored them) at the
        image's full height."""
        evidence, row, frame = self.evidence, self.current, self.frame
        if evidence is None or row is None or frame is None:
            return
        ids = {evidence.entity_rows[k] for k in row.keys if k in evidence.entity_rows}
        boxes = [(b.x, b.y, b.w, b.h) for b in frame.boxes if b.entity_id in ids]
        boxes += [tuple(b) for b in row.boxes.values() if len(b) == 4]
        viewport = self.detail.view.viewport()
        aspect = viewport.width() / max(viewport.height(), 1)
        d = self.detail
        x, y, w, h = focus_rect(boxes, width=d.width_px, height=d.height_px, aspect=aspect)
        d.fit()  # also sets the zoom floor: the whole image
        if w < d.width_px:
            d.view.fitInView(QRectF(x, y, w, h), Qt.AspectRatioMode.KeepAspectRatio)
            d.fitted = False  # keep this zoom when the image or the boxes change
        self._sync_window()

    def _fit_overview(self) -> None:
        o = self.overview
        height = round(self.width() * o.height_px / max(o.width_px, 1)) + 2
        o.setFixedHeight(max(40, min(height, int(self.height() * OVERVIEW_SHARE))))
        o.fit()

    def _user_zoomed(self) -> None:
        self.auto_zoom = False
        self._sync_window()

    def _sync_window(self, *_args: Any) -> None:
        shown = self.detail.visible_rect().intersected(QRectF(0, 0, *self._size()))
        whole = shown.width() >= self.detail.width_px - 1
        self.window_item.setVisible(self.evidence is not None and not whole)
        self.window_item.setRect(shown)

    def _size(self) -> tuple[float, float]:
        return self.detail.width_px, self.detail.height_px

    def _overview_clicked(self, point: QPointF) -> None:
        self.auto_zoom = False
        self.detail.view.centerOn(point)

    def _box_clicked(self, entity_id: int) -> None:
        rows = self.evidence.entity_rows if self.evidence is not None else {}
        key = next((k for k, r in rows.items() if r == entity_id), None)
        for view in (self.overview, self.detail):
            view.set_selected(entity_id)
        if key is not None:
            self.entity_clicked.emit(key)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Resize and watched is self.detail.view.viewport():
            if self.evidence is not None:
                self._fit_overview()
                if self.auto_zoom:
                    self._zoom_detail()
                else:
                    self._sync_window()
        return False

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.evidence is not None:
            self._fit_overview()
