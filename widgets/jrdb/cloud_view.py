"""The lidar view of a JRDB frame: merged sweeps, 3D boxes with heading arrows, picking, and a
level of detail that keeps millions of points interactive.

Level of detail (docs/annotate-mode.md has the design and the measurements):
a cloud gets a drawing order once (`widgets.jrdb.cloud_points.prepare_cloud`), is
uploaded once, and each frame draws a prefix of that order.

- While the camera moves, or right after anything changed, a frame draws the
  *moving budget*: `point_budget` points, fewer when the camera is farther
  than the distance that frames the whole cloud (the cloud then covers fewer
  pixels: the budget falls with the square of the distance, never below
  `min_budget`).
- When nothing has changed for `still_delay_ms`, one more frame is drawn in
  full detail: every point, unless `full_budget` caps it or the frame would
  take longer than `still_frame_ms` at the cost per point measured on the
  frames drawn so far (software OpenGL draws 5 million points in seconds).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping

import numpy as np
import pyqtgraph as pg
import pyqtgraph.opengl as gl
from OpenGL import GL
from PySide6.QtCore import QCoreApplication, QPointF, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from annotation.jrdb.geometry import BoxLike
from widgets.jrdb.cloud_points import (
    HIGHLIGHT,
    LodScatterItem,
    PreparedCloud,
    box_key,
    box_wireframe,
    box_wires,
    colour_points,
    point_entities,
    prepare_cloud,
    project_points,
)

if QCoreApplication.instance() is None:  # every GL widget shares one context group
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)

BACKGROUND = (30, 32, 38)
COLOUR_MODES = ("height", "entity", "sensor")
POINT_SIZES = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0)


class _CloudGL(gl.GLViewWidget):
    """The GL widget: tells its owner before each frame, and reports clicks (not drags)."""

    def __init__(self, owner: CloudView) -> None:
        super().__init__()
        self.owner = owner
        self._press: QPointF | None = None

    def paintGL(self) -> None:  # noqa: N802
        self.owner._before_paint()
        start = time.perf_counter()
        super().paintGL()
        if self.owner.still_frame_ms is not None:
            GL.glFinish()  # so that the time below is the frame's, not just its commands'
            self.owner._painted(time.perf_counter() - start)
        self.owner.painted.emit()

    def mousePressEvent(self, ev) -> None:  # noqa: N802
        self._press = ev.position()
        super().mousePressEvent(ev)

    def mouseReleaseEvent(self, ev) -> None:  # noqa: N802
        super().mouseReleaseEvent(ev)
        press, self._press = self._press, None
        if press is not None and (ev.position() - press).manhattanLength() < 4:
            if ev.button() == Qt.MouseButton.LeftButton:
                self.owner._clicked(ev.position())


class CloudView(QWidget):
    """Points coloured by height, entity or sensor; entity boxes as wireframes; click to pick."""

    entity_clicked = Signal(int)
    background_clicked = Signal()
    cloud_changed = Signal()  # another frame's points (or none) are shown
    painted = Signal()  # a frame of the GL view was drawn

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        point_budget: int = 100_000,
        min_budget: int = 25_000,
        full_budget: int | None = None,
        still_frame_ms: float | None = 600.0,
        still_delay_ms: int = 250,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("cloud_view")
        self.point_budget, self.min_budget, self.full_budget = point_budget, min_budget, full_budget
        self.still_frame_ms = still_frame_ms
        self.ms_per_point: float | None = None  # measured drawing cost, a running estimate
        self.view = _CloudGL(self)
        self.view.setBackgroundColor(BACKGROUND)
        self.view.setMinimumSize(200, 150)
        self.grid = gl.GLGridItem()
        self.grid.setSize(30, 30)
        self.grid.setSpacing(1, 1)
        self.grid.setColor((255, 255, 255, 28))
        self.view.addItem(self.grid)
        self.scatter = LodScatterItem()
        self.view.addItem(self.scatter)
        self.wires = gl.GLLinePlotItem(mode="lines", width=1.5, antialias=True)
        self.selected_wires = gl.GLLinePlotItem(mode="lines", width=2.5, antialias=True)
        robot = np.array([[0, 0, 0], [0.6, 0, 0], [0.6, 0, 0], [0.42, 0.12, 0]], np.float32)
        robot = np.vstack([robot, [[0.6, 0, 0], [0.42, -0.12, 0]]]).astype(np.float32)
        self.robot = gl.GLLinePlotItem(pos=robot, mode="lines", color=(1, 1, 1, 0.9), width=2)
        for item in (self.wires, self.selected_wires, self.robot):
            item.setGLOptions("translucent")
            self.view.addItem(item)
        self.texts: list[QLabel] = []  # the name tags shown over the GL view
        self.tag_pool: list[QLabel] = []  # every tag made; those past `texts` are hidden
        self.caption = QLabel("No point cloud.")
        self.caption.setObjectName("cloud_caption")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.caption)

        self.cloud: PreparedCloud | None = None
        self.entities = np.zeros(0, np.int32)  # per point: the entity whose box holds it, or -1
        self.boxes: list[BoxLike] = []
        self.colours: dict[int, tuple[int, int, int]] = {}
        self.labels: dict[int, str] = {}
        self.selected: int | None = None
        self.highlighted: frozenset[int] | None = None  # bold boxes, the rest faded
        self.colour_mode = "height"
        self.point_size = 3.0
        self.ref_distance = 20.0  # the camera distance that frames the whole cloud
        self.moving = False
        self.drawn_count = 0
        self._camera: tuple | None = None
        self._still = QTimer(self)
        self._still.setSingleShot(True)
        self._still.setInterval(still_delay_ms)
        self._still.timeout.connect(self._settle)
        self.reset_camera()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(640, 420)

    # -- data ----------------------------------------------------------------------------------
    @property
    def total_count(self) -> int:
        return 0 if self.cloud is None else len(self.cloud)

    def set_cloud(
        self, cloud: PreparedCloud | np.ndarray | None, sensor: np.ndarray | None = None
    ) -> None:
        """Show a frame's points (prepared on a worker thread, or raw: shuffled here)."""
        if cloud is not None and not isinstance(cloud, PreparedCloud):
            cloud = prepare_cloud(cloud, sensor, self.boxes)
        first = self.cloud is None or not len(self.cloud)
        self.cloud = cloud
        pts = cloud.points if cloud is not None else np.zeros((0, 3), np.float32)
        self._update_entities()
        order = cloud.order if cloud is not None else np.zeros(0, np.uint32)
        self.scatter.set_cloud(pts, self._point_colours(), order)
        if len(pts):
            floor = float(np.percentile(pts[: min(len(pts), 100_000), 2], 1))
            self.grid.resetTransform()
            self.grid.translate(0, 0, floor)
            if first:
                self.reset_camera()
        self._redraw()
        self.cloud_changed.emit()

    def clear(self, caption: str = "No point cloud.") -> None:
        self.set_cloud(None)
        self.caption.setText(caption)

    def set_boxes(
        self,
        boxes: Iterable[BoxLike],
        colours: Mapping[int, tuple[int, int, int]] | None = None,
        labels: Mapping[int, str] | None = None,
    ) -> None:
        """The frame's 3D boxes (each with `entity_id`), their colours and their names."""
        self.boxes = list(boxes)
        self.colours = dict(colours or {})
        self.labels = dict(labels or {})
        if self.cloud is not None:
            self._update_entities()
            self.scatter.set_colours(self._point_colours())
        self._draw_boxes()
        self._redraw()

    def preview_box(self, box: BoxLike) -> None:
        """A box being dragged elsewhere (the cuboid views): its wireframe and name follow at
        once; the points' colours wait for `set_boxes` when the box is saved."""
        eid = box.entity_id  # type: ignore[attr-defined]
        self.boxes = [box if b.entity_id == eid else b for b in self.boxes]  # type: ignore[attr-defined]
        self._draw_boxes()
        self._redraw()

    def _update_entities(self) -> None:
        """Which entity each point belongs to; the worker's answer if it used these boxes."""
        if self.cloud is None:
            self.entities = np.zeros(0, np.int32)
        elif self.cloud.box_key == box_key(self.boxes):
            self.entities = self.cloud.entities
        else:
            self.entities = point_entities(self.cloud.points, self.boxes)

    def set_selected(self, entity_id: int | None) -> None:
        if entity_id == self.selected:
            return
        self.selected = entity_id
        self.scatter.set_colours(self._point_colours())
        self._draw_boxes()
        self._redraw()

    def set_colour_mode(self, mode: str) -> None:
        if mode not in COLOUR_MODES:
            raise ValueError(f"colour mode must be one of {COLOUR_MODES}, not {mode!r}")
        self.colour_mode = mode
        self.scatter.set_colours(self._point_colours())
        self._redraw()

    def cycle_colour_mode(self) -> str:
        self.set_colour_mode(COLOUR_MODES[(COLOUR_MODES.index(self.colour_mode) + 1) % 3])
        return self.colour_mode

    def set_point_size(self, size: float) -> None:
        self.point_size = float(min(max(size, POINT_SIZES[0]), POINT_SIZES[-1]))
        self.scatter.set_point_size(self.point_size)
        self._redraw()

    def change_point_size(self, steps: int) -> float:
        """One size up (+1) or down (-1) the ladder of `POINT_SIZES`."""
        now = min(range(len(POINT_SIZES)), key=lambda i: abs(POINT_SIZES[i] - self.point_size))
        self.set_point_size(POINT_SIZES[max(0, min(len(POINT_SIZES) - 1, now + steps))])
        return self.point_size

    def point_colours(self) -> np.ndarray:
        """The colours of the points as drawn (N, 4) uint8, in the cloud's (shuffled) order."""
        return self.scatter.colours

    def _point_colours(self) -> np.ndarray:
        return colour_points(
            self.colour_mode,
            self.cloud,
            self.entities,
            self.colours,
            self.selected,
            self.highlighted,
        )

    def highlight_entities(self, entity_ids: Iterable[int] | None) -> None:
        """Bold wireframes and points in their colours for these entities, the other boxes and
        their points faded (None: no highlighting)."""
        wanted = None if entity_ids is None else frozenset(int(i) for i in entity_ids)
        if wanted == self.highlighted:
            return
        self.highlighted = wanted
        if self.cloud is not None:
            self.scatter.set_colours(self._point_colours())
        self._draw_boxes()
        self._kick()

    def _draw_boxes(self) -> None:
        used = 0
        lit, chosen = self.highlighted, self.selected
        for box in self.boxes:
            eid = box.entity_id  # type: ignore[attr-defined]
            label = self.labels.get(eid)
            if label and (lit is None or eid in lit or eid == chosen):
                rgb = HIGHLIGHT if eid == chosen else self.colours.get(eid, (220, 220, 220))
                tag = self._tag(used, label, rgb, (box.cx, box.cy, box.cz + box.h / 2))
                used += 1
                if eid == chosen:
                    tag.raise_()  # the selection's name stays readable
        for tag in self.tag_pool[used:]:
            tag.hide()
        self.texts = self.tag_pool[:used]
        (thin, thin_rgba), (bold, bold_rgba) = box_wires(self.boxes, self.colours, chosen, lit)
        self.wires.setData(pos=thin, color=thin_rgba)
        self.selected_wires.setData(pos=bold, color=bold_rgba)

    def _tag(
        self, index: int, text: str, rgb: tuple[int, int, int], anchor: tuple[float, float, float]
    ) -> QLabel:
        """Name tag `index`: a small label widget over the GL view, kept above `anchor` on
        screen. Tags are reused from frame to frame (a frame of 40 boxes would otherwise make
        and drop 40 styled widgets at every step), restyled only when their colour changes."""
        while len(self.tag_pool) <= index:
            # A sibling over the GL view, not its child: moving a child repaints the GL
            # view, so placing the tags in `paintGL` would paint every frame twice.
            tag = QLabel(self)
            tag.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            tag.setProperty("rgb", None)
            self.tag_pool.append(tag)
        tag = self.tag_pool[index]
        if tag.property("rgb") != list(rgb):
            fg = "#141414" if sum(rgb) > 400 else "#fafafa"
            tag.setStyleSheet(
                f"background: rgba({rgb[0]}, {rgb[1]}, {rgb[2]}, 225); color: {fg}; "
                "font-weight: bold; padding: 0 3px; border-radius: 2px;"
            )
            tag.setProperty("rgb", list(rgb))
        if tag.text() != text:
            tag.setText(text)
            tag.adjustSize()
        tag.setProperty("anchor", anchor)
        tag.show()
        return tag

    def _place_tags(self) -> None:
        if not self.texts:
            return
        anchors = np.array([t.property("anchor") for t in self.texts], dtype=float)
        screen, front = self.project(anchors)
        w, h = self.view.width(), self.view.height()
        origin = self.view.pos()
        for tag, (x, y), ok in zip(self.texts, screen, front, strict=True):
            visible = bool(ok and 0 <= x <= w and tag.height() + 2 <= y <= h)  # not clipped
            tag.setVisible(visible)  # by the GL view: shown only above a point in it
            if visible:
                left = min(max(int(x - tag.width() / 2), 0), max(w - tag.width(), 0))
                tag.move(origin.x() + left, origin.y() + int(y - tag.height() - 2))

    # -- camera and level of detail ----------------------------------------------------------------
    def reset_camera(self) -> None:
        """Look from behind and above the robot, so its left is on the screen's left."""
        radius = 12.0
        if self.cloud is not None and len(self.cloud):
            sample = self.cloud.points[: min(len(self.cloud), 100_000)]
            radius = float(np.clip(np.percentile(np.hypot(sample[:, 0], sample[:, 1]), 95), 3, 40))
        fov = math.radians(self.view.opts["fov"])
        self.ref_distance = 1.15 * radius / math.tan(fov / 2)
        self.view.setCameraPosition(
            pos=pg.Vector(radius * 0.15, 0, 0),
            distance=self.ref_distance * 0.8,
            elevation=38,
            azimuth=180,
        )
        self._kick()

    def budget(self) -> int:
        """How many points the next frame draws."""
        total = self.total_count
        if not self.moving:
            return min(total, self.still_budget())
        distance = max(float(self.view.opts["distance"]), 1e-6)
        shrink = min(1.0, (self.ref_distance / distance) ** 2)
        return min(total, max(self.min_budget, int(self.point_budget * shrink)))

    def still_budget(self) -> int:
        """Full detail: every point, within `full_budget` and the `still_frame_ms` allowance."""
        budget = self.total_count if self.full_budget is None else self.full_budget
        if self.still_frame_ms is not None and self.ms_per_point:
            affordable = int(self.still_frame_ms / self.ms_per_point)
            budget = min(budget, max(affordable, self.point_budget))
        return budget

    def _painted(self, seconds: float) -> None:
        """Learn what a point costs from frames big enough to measure."""
        if self.drawn_count >= 20_000:
            cost = seconds * 1000 / self.drawn_count
            old = self.ms_per_point
            self.ms_per_point = cost if old is None else 0.7 * old + 0.3 * cost

    def _camera_key(self) -> tuple:
        o = self.view.opts
        c = o["center"]
        return (
            c.x(),
            c.y(),
            c.z(),
            o["distance"],
            o["elevation"],
            o["azimuth"],
            o["fov"],
            self.view.width(),
            self.view.height(),
        )

    def _kick(self) -> None:
        """Something changed: draw coarse now, in full once things are still."""
        self.moving = True
        self._still.start()
        self.view.update()

    def _settle(self) -> None:
        self.moving = False
        self.view.update()

    def _redraw(self) -> None:
        """What is drawn changed, not the camera: one frame at the detail of the moment
        (full when still). A coarse frame then a full one would paint a still view twice."""
        self.view.update()

    def _before_paint(self) -> None:
        key = self._camera_key()
        if self._camera is not None and key != self._camera:
            self.moving = True
            self._still.start()
        self._camera = key
        self._place_tags()
        self.drawn_count = self.budget()
        self.scatter.draw_count = self.drawn_count
        self._update_caption()

    def _update_caption(self) -> None:
        total = self.total_count
        if self.cloud is None:
            return
        text = f"{total:,} points · colour by {self.colour_mode} · {self.point_size:g} px"
        if self.drawn_count < total:
            text += f" · showing {self.drawn_count:,}" + (" while moving" if self.moving else "")
        if self.caption.text() != text:
            self.caption.setText(text)

    # -- picking ----------------------------------------------------------------------------------
    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Widget pixel positions (N, 2) of 3D points, and whether each is in front of the eye."""
        return project_points(self.view, points)

    def entity_at(self, x: float, y: float) -> int | None:
        """The entity whose box covers widget pixel (x, y); the smallest on screen wins."""
        best: tuple[float, int] | None = None
        for box in self.boxes:
            screen, front = self.project(box_wireframe(box)[:24])
            if not front.all():
                continue
            lo, hi = screen.min(axis=0), screen.max(axis=0)
            if lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1]:
                area = float((hi - lo).prod())
                if best is None or area < best[0]:
                    best = (area, box.entity_id)  # type: ignore[attr-defined]
        return None if best is None else best[1]

    def screen_position(self, entity_id: int) -> QPointF | None:
        """Where an entity's box centre is drawn (for tests and tooltips)."""
        box = next((b for b in self.boxes if getattr(b, "entity_id", None) == entity_id), None)
        if box is None:
            return None
        screen, front = self.project(np.array([[box.cx, box.cy, box.cz]]))
        return QPointF(*screen[0]) if front[0] else None

    def _clicked(self, pos: QPointF) -> None:
        entity = self.entity_at(pos.x(), pos.y())
        if entity is None:
            self.background_clicked.emit()
        else:
            self.entity_clicked.emit(entity)
