"""Top, side and front views of the lidar points around one 3D box, to edit the box with the
mouse.

Each view looks at the points near the box in the box's own frame (length along x, width
along y, height along z), so the box is an upright rectangle whatever its yaw. **Top**
looks down (length to the right, the box's left up), **Side** looks at its right flank
(length to the right, up up), **Front** looks at its front face (the box's left to the
right, as seen from in front, up up). Dragging an edge resizes the box with the opposite
edge fixed, dragging inside moves it in the view's two axes, and dragging the round handle
in front of the box in Top turns it. No side gets thinner than `MIN_SIZE`, so a drag past
the opposite edge stops there instead of inverting the box.

While a drag lasts, the views keep the frame and the scale they had when it began, so the
rectangle follows the pointer and the points stay still; `box_changing` reports the box as
it goes, `box_edited` once, on release, and then the views centre on the new box. They save
nothing: the mode does, as for the Box dock.

A frame has 60,000 to 120,000 points and the views follow every selection and frame, so
they never draw them all: the cloud is cropped with numpy to the box and a margin around
it (`crop_points`), at most `MAX_POINTS` of those are kept per view, evenly spread over
the cloud's order (`thin`), and they are painted as pixels of one image, not as items.
The geometry (`BoxFrame`, `find_target`, `dragged`) is pure and tested without painting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from annotation.jrdb.box_fit import MIN_SIDE
from annotation.jrdb.tracks import is_interpolated
from annotation.models import Box3D
from widgets.jrdb.cloud_points import HIGHLIGHT

Values = tuple[float, float, float, float, float, float, float]  # cx, cy, cz, l, w, h, rot_z

#: The box-local axes each view shows: (to the right, up); 0 length, 1 width, 2 height.
PLANES = {"top": (0, 1), "side": (0, 2), "front": (1, 2)}
TITLES = {"top": "Top", "side": "Side", "front": "Front"}
SIZE_NAMES = ("l", "w", "h")
MIN_SIZE = MIN_SIDE  # metres: what Fit to points allows, and never zero or inverted
MAX_POINTS = 4_000  # per view
MARGIN = 0.5  # metres of surroundings around the box, at least
EDGE_PX = 6.0  # how near an edge a press must be to resize
HANDLE_PX = 7.0  # the turning handle's radius
HANDLE_GAP_PX = 22.0  # how far the turning handle sits in front of the box
HEADER_PX = 18  # the view's title strip
BACKGROUND = QColor(30, 32, 38)
OUTSIDE = (150, 156, 168)  # points around the box; those inside it are HIGHLIGHT


@dataclass(frozen=True)
class BoxFrame:
    """Where the views look from: a box's centre and yaw. Coordinates in the frame are
    metres along the box's length (x), across it to its left (y) and up (z)."""

    cx: float
    cy: float
    cz: float
    yaw: float

    @classmethod
    def of(cls, values: Values) -> BoxFrame:
        return cls(values[0], values[1], values[2], values[6])

    def to_local(self, values: Values) -> Values:
        """A world box (cx, cy, cz, l, w, h, rot_z) in this frame (its yaw relative)."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        dx, dy = values[0] - self.cx, values[1] - self.cy
        turn = math.remainder(values[6] - self.yaw, 2 * math.pi)
        return (dx * c + dy * s, -dx * s + dy * c, values[2] - self.cz, *values[3:6], turn)

    def to_world(self, local: Values) -> Values:
        """The world box of a box in this frame; an unturned box keeps the frame's yaw as
        it was given (not brought into [-pi, pi])."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        x, y = local[0], local[1]
        yaw = self.yaw if local[6] == 0 else math.remainder(self.yaw + local[6], 2 * math.pi)
        centre = (self.cx + x * c - y * s, self.cy + x * s + y * c, self.cz + local[2])
        return (*centre, *local[3:6], yaw)

    def local_points(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) world points in this frame, float32."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        d = np.asarray(points, np.float32).reshape(-1, 3) - np.float32((self.cx, self.cy, self.cz))
        out = np.empty_like(d)
        out[:, 0] = d[:, 0] * c + d[:, 1] * s
        out[:, 1] = -d[:, 0] * s + d[:, 1] * c
        out[:, 2] = d[:, 2]
        return out


def view_margin(values: Values) -> float:
    """How much of the surroundings the views show around a box: half its largest side,
    at least MARGIN (a bag needs its carrier in view, a table the chairs at it)."""
    return max(MARGIN, 0.5 * max(values[3:6]))


def crop_points(points: np.ndarray, values: Values, *, margin: float) -> np.ndarray:
    """The points within `margin` of the box, in the box's frame (M, 3), in the cloud's order.

    A test on the world axes first (a square around the box, a slab in z) leaves only the
    few points near the box to rotate: a few milliseconds for a 120,000-point frame.
    """
    pts = np.asarray(points, np.float32).reshape(-1, 3)
    cx, cy, cz, length, width, height = values[:6]
    reach = math.hypot(length / 2 + margin, width / 2 + margin)  # the margin's corners
    near = (
        (np.abs(pts[:, 0] - cx) <= reach)
        & (np.abs(pts[:, 1] - cy) <= reach)
        & (np.abs(pts[:, 2] - cz) <= height / 2 + margin)
    )
    local = BoxFrame.of(values).local_points(pts[near])
    keep = (np.abs(local[:, 0]) <= length / 2 + margin) & (
        np.abs(local[:, 1]) <= width / 2 + margin
    )
    return local[keep]


def thin(points: np.ndarray, limit: int) -> np.ndarray:
    """At most `limit` rows, evenly spaced: the same rows every time (a lidar file lists its
    points ring by ring, so evenly spaced rows are an even sample of rings and angles)."""
    if len(points) <= limit:
        return points
    return points[np.linspace(0, len(points) - 1, limit).astype(np.int64)]


def inside_box(points: np.ndarray, box: Values) -> np.ndarray:
    """A boolean mask of frame points (M, 3) inside a box given in the same frame."""
    c, s = math.cos(box[6]), math.sin(box[6])
    dx, dy, dz = points[:, 0] - box[0], points[:, 1] - box[1], points[:, 2] - box[2]
    along, across = dx * c + dy * s, -dx * s + dy * c
    return (
        (np.abs(along) <= box[3] / 2) & (np.abs(across) <= box[4] / 2) & (np.abs(dz) <= box[5] / 2)
    )


# -- gestures: what a press grabs, and the box a drag makes ------------------------------------
def _axes(plane: str, turn: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The box's two axes shown in `plane`, as directions on the view (right, up): turned
    with the box in Top, upright in Side and Front."""
    if plane != "top":
        return (1.0, 0.0), (0.0, 1.0)
    c, s = math.cos(turn), math.sin(turn)
    return (c, s), (-s, c)


def handle_position(box: Values, *, gap: float) -> tuple[float, float]:
    """Where Top's turning handle is: `gap` metres in front of the box's front face."""
    (ex, ey), _ = _axes("top", box[6])
    reach = box[3] / 2 + gap
    return box[0] + ex * reach, box[1] + ey * reach


def find_target(
    box: Values, *, plane: str, point: tuple[float, float], tolerance: float, gap: float
) -> tuple | None:
    """What a press at `point` (metres in the view's plane) grabs: ("turn",) for Top's
    handle, ("edge", axis, side) for the nearest edge within `tolerance` (axis 0, 1, 2 for
    length, width, height; side +1 or -1), ("move",) inside the box, or None."""
    a, b = PLANES[plane]
    if plane == "top":
        hx, hy = handle_position(box, gap=gap)
        if math.hypot(point[0] - hx, point[1] - hy) <= 1.5 * tolerance:
            return ("turn",)
    e1, e2 = _axes(plane, box[6])
    du, dv = point[0] - box[a], point[1] - box[b]
    p1, p2 = du * e1[0] + dv * e1[1], du * e2[0] + dv * e2[1]  # in the box's own axes
    half1, half2 = box[3 + a] / 2, box[3 + b] / 2
    edges = []
    if abs(p2) <= half2 + tolerance:
        edges += [(abs(p1 - side * half1), a, side) for side in (1, -1)]
    if abs(p1) <= half1 + tolerance:
        edges += [(abs(p2 - side * half2), b, side) for side in (1, -1)]
    near = [e for e in edges if e[0] <= tolerance]
    if near:
        _distance, axis, side = min(near)
        return ("edge", axis, side)
    if abs(p1) <= half1 and abs(p2) <= half2:
        return ("move",)
    return None


def dragged(
    box: Values,
    *,
    plane: str,
    target: tuple,
    start: tuple[float, float],
    now: tuple[float, float],
    min_size: float = MIN_SIZE,
) -> Values:
    """The box (in the views' frame) after dragging `target` from `start` to `now` (metres
    in the view's plane): moved, resized with the opposite edge fixed (never thinner than
    `min_size`), or turned about its centre."""
    a, b = PLANES[plane]
    out = list(box)
    du, dv = now[0] - start[0], now[1] - start[1]
    if target[0] == "move":
        out[a] += du
        out[b] += dv
    elif target[0] == "turn":
        before = math.atan2(start[1] - box[1], start[0] - box[0])
        after = math.atan2(now[1] - box[1], now[0] - box[0])
        out[6] = math.remainder(box[6] + after - before, 2 * math.pi)
    else:
        _edge, axis, side = target
        e1, e2 = _axes(plane, box[6])
        e = e1 if axis == a else e2
        size = box[3 + axis]
        grown = max(min_size, size + side * (du * e[0] + dv * e[1]))
        shift = side * (grown - size) / 2  # the opposite edge stays where it was
        out[a] += shift * e[0]
        out[b] += shift * e[1]
        out[3 + axis] = grown
    return tuple(out)  # type: ignore[return-value]


def box_corners(box: Values, plane: str) -> list[tuple[float, float]]:
    """The box's outline in a view, in the view's plane (metres), corner by corner."""
    a, b = PLANES[plane]
    e1, e2 = _axes(plane, box[6])
    h1, h2 = box[3 + a] / 2, box[3 + b] / 2
    return [
        (box[a] + s1 * h1 * e1[0] + s2 * h2 * e2[0], box[b] + s1 * h1 * e1[1] + s2 * h2 * e2[1])
        for s1, s2 in ((-1, -1), (1, -1), (1, 1), (-1, 1))
    ]


# -- the widgets ---------------------------------------------------------------------------------
class CuboidView(QWidget):
    """One of the three views: its points as pixels, the box, its edges and handle to drag."""

    changing = Signal(object)  # the box in the views' frame, as dragged so far
    released = Signal(object)  # the box in the views' frame, when the drag ends
    cancelled = Signal()

    def __init__(self, plane: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plane = plane
        self.setObjectName(f"cuboid_{plane}")
        self.setMinimumSize(120, 90)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setToolTip(
            "Drag an edge to resize, inside to move"
            + (", the round handle to turn" if plane == "top" else "")
            + "; Esc while dragging puts it back"
        )
        self.points = np.zeros((0, 3), np.float32)  # box-local, at most MAX_POINTS
        self.shown: Values | None = None  # the box the frame and the scale were made for
        self.box: Values | None = None  # the box drawn (as dragged, during a drag)
        self.interpolated = False
        self.empty_text = "Select an entity with a 3D box."
        self.scale = 100.0  # pixels per metre
        self.target: tuple | None = None  # what the drag holds
        self.start = (0.0, 0.0)
        self.start_box: Values | None = None

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(260, 200)

    # -- data ----------------------------------------------------------------------------------
    def show_box(self, box: Values | None, points: np.ndarray, *, interpolated: bool) -> None:
        """A box in the views' frame (None: nothing to edit) and the points around it."""
        self.target = None
        self.shown = self.box = box
        self.points, self.interpolated = points, interpolated
        self.reframe()

    def reframe(self) -> None:
        """Fit the shown box and its margin into the view (not during a drag)."""
        if self.shown is None or self.target is not None:
            self.update()
            return
        a, b = PLANES[self.plane]
        margin = view_margin(self.shown)
        across = self.shown[3 + a] + 2 * margin
        up = self.shown[3 + b] + 2 * margin
        self.scale = max(1e-3, min(self.width() / across, (self.height() - HEADER_PX) / up))
        self.update()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.reframe()

    # -- where things are on screen ------------------------------------------------------------
    def to_screen(self, u: float, v: float) -> QPointF:
        """The widget position of a point of the view's plane (metres in the views' frame)."""
        middle = HEADER_PX + (self.height() - HEADER_PX) / 2
        return QPointF(self.width() / 2 + u * self.scale, middle - v * self.scale)

    def to_plane(self, pos: QPointF) -> tuple[float, float]:
        middle = HEADER_PX + (self.height() - HEADER_PX) / 2
        return ((pos.x() - self.width() / 2) / self.scale, (middle - pos.y()) / self.scale)

    def target_at(self, pos: QPointF) -> tuple | None:
        if self.box is None:
            return None
        return find_target(
            self.box,
            plane=self.plane,
            point=self.to_plane(pos),
            tolerance=EDGE_PX / self.scale,
            gap=HANDLE_GAP_PX / self.scale,
        )

    # -- the mouse -----------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        target = self.target_at(event.position())
        if event.button() != Qt.MouseButton.LeftButton or target is None:
            super().mousePressEvent(event)
            return
        self.target, self.start_box = target, self.box
        self.start = self.to_plane(event.position())
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if self.target is None:
            self.setCursor(_cursor(self.target_at(event.position()), self.plane))
            return
        self.box = self._dragged(event.position())
        self.update()
        self.changing.emit(self.box)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if self.target is None or event.button() != Qt.MouseButton.LeftButton:
            super().mouseReleaseEvent(event)
            return
        box = self._dragged(event.position())
        moved = box != self.start_box
        self.target = None  # before the signal: whoever saves may show another box
        self.box = box
        if moved:
            self.released.emit(box)

    def event(self, event) -> bool:
        """Esc during a drag is this view's (it puts the box back), not a shortcut's: the
        mode binds Esc to other things."""
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and event.key() == Qt.Key.Key_Escape
            and self.target is not None
        ):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape and self.target is not None:
            self.target, self.box = None, self.start_box
            self.update()
            self.cancelled.emit()
            return
        super().keyPressEvent(event)

    def _dragged(self, pos: QPointF) -> Values:
        return dragged(
            self.start_box,
            plane=self.plane,
            target=self.target,
            start=self.start,
            now=self.to_plane(pos),
        )

    # -- painting ------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.fillRect(self.rect(), BACKGROUND)
        if self.box is not None:
            painter.drawImage(0, 0, self._points_image())
            self._paint_box(painter)
        elif self.empty_text:
            painter.setPen(QColor(170, 176, 188))
            painter.drawText(
                self.rect(),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self.empty_text,
            )
        painter.setPen(QColor(230, 232, 238))
        painter.drawText(
            QRectF(6, 1, self.width() - 12, HEADER_PX),
            Qt.AlignmentFlag.AlignVCenter,
            self.caption(),
        )
        painter.end()

    def caption(self) -> str:
        """The view's name and the sizes it shows ("Top · l 0.62 × w 0.40 m · 30°")."""
        title = TITLES[self.plane]
        if self.box is None:
            return title
        a, b = PLANES[self.plane]
        sizes = f"{SIZE_NAMES[a]} {self.box[3 + a]:.2f} × {SIZE_NAMES[b]} {self.box[3 + b]:.2f} m"
        turned = self.plane == "top" and self.box[6]
        turn = f" · turned {math.degrees(self.box[6]):+.0f}°" if turned else ""
        return f"{title} · {sizes}{turn}"

    def _points_image(self) -> QImage:
        """The points as 2 x 2 pixel dots on a transparent image the size of the view; those
        inside the box (as dragged) in the highlight colour."""
        w, h = max(self.width(), 1), max(self.height(), 1)
        pixels = np.zeros((h, w), np.uint32)
        if len(self.points):
            a, b = PLANES[self.plane]
            middle = HEADER_PX + (h - HEADER_PX) / 2
            x = np.floor(w / 2 + self.points[:, a] * self.scale).astype(np.int64)
            y = np.floor(middle - self.points[:, b] * self.scale).astype(np.int64)
            colours = np.where(inside_box(self.points, self.box), _argb(HIGHLIGHT), _argb(OUTSIDE))
            for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1)):
                ok = (x + dx >= 0) & (x + dx < w) & (y + dy >= HEADER_PX) & (y + dy < h)
                pixels[y[ok] + dy, x[ok] + dx] = colours[ok]
        image = QImage(pixels.data, w, h, 4 * w, QImage.Format.Format_ARGB32)
        return image.copy()  # owns its pixels once `pixels` is gone

    def _paint_box(self, painter: QPainter) -> None:
        box = self.box
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        style = Qt.PenStyle.DashLine if self.interpolated else Qt.PenStyle.SolidLine
        yellow = QColor(*HIGHLIGHT)
        painter.setPen(QPen(yellow, 1.6, style))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        corners = [self.to_screen(*c) for c in box_corners(box, self.plane)]
        painter.drawPolygon(QPolygonF(corners))
        painter.setPen(QPen(QColor(30, 30, 30), 1))
        painter.setBrush(yellow)
        for i in range(4):  # a handle in the middle of each edge
            middle = (corners[i] + corners[(i + 1) % 4]) / 2
            painter.drawRect(QRectF(middle.x() - 3, middle.y() - 3, 6, 6))
        if self.plane == "top":  # the turning handle, in front: it also shows the heading
            front = (corners[1] + corners[2]) / 2
            knob = self.to_screen(*handle_position(box, gap=HANDLE_GAP_PX / self.scale))
            painter.setPen(QPen(yellow, 1.4))
            painter.drawLine(front, knob)
            painter.setPen(QPen(QColor(30, 30, 30), 1))
            painter.drawEllipse(knob, HANDLE_PX - 2, HANDLE_PX - 2)


def _argb(rgb: tuple[int, int, int]) -> np.uint32:
    return np.uint32(0xFF000000 | rgb[0] << 16 | rgb[1] << 8 | rgb[2])


def _cursor(target: tuple | None, plane: str) -> Qt.CursorShape:
    if target is None:
        return Qt.CursorShape.ArrowCursor
    if target[0] == "move":
        return Qt.CursorShape.SizeAllCursor
    if target[0] == "turn":
        return Qt.CursorShape.PointingHandCursor
    horizontal = target[1] == PLANES[plane][0]
    return Qt.CursorShape.SizeHorCursor if horizontal else Qt.CursorShape.SizeVerCursor


class CuboidViews(QWidget):
    """Top, side and front views of one entity's 3D box and the points around it."""

    box_changing = Signal(int, object)  # entity id, (cx, cy, cz, l, w, h, rot_z): a drag goes on
    box_edited = Signal(int, object)  # entity id, (cx, cy, cz, l, w, h, rot_z): a drag ended
    drag_cancelled = Signal(int)  # entity id: Esc put the box back

    def __init__(self, parent: QWidget | None = None, *, max_points: int = MAX_POINTS) -> None:
        super().__init__(parent)
        self.setObjectName("cuboid_views")
        self.max_points = max_points
        self.cloud = np.zeros((0, 3), np.float32)  # the frame's points, world
        self.entity_id: int | None = None
        self.frame: BoxFrame | None = None
        self.values: Values | None = None  # the box shown, world
        self.interpolated = False
        self.stale = False  # hidden when the box or the points changed: cropped when shown
        self.title = QLabel("Select a person or an object with a 3D box.")
        self.title.setObjectName("cuboid_title")
        self.views = {plane: CuboidView(plane) for plane in PLANES}
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        for view in self.views.values():
            row.addWidget(view, 1)
            view.changing.connect(self._changing)
            view.released.connect(self._released)
            view.cancelled.connect(self._cancelled)
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 2, 4, 4)
        column.setSpacing(2)
        column.addWidget(self.title)
        column.addLayout(row, 1)

    def set_points(self, points: np.ndarray | None) -> None:
        """The frame's merged cloud (N, 3), world coordinates (None: no cloud)."""
        self.cloud = np.zeros((0, 3), np.float32) if points is None else points
        self._show()

    def show_box(self, entity_id: int | None, label: str, box: Box3D | None) -> None:
        """Follow one entity's box in this frame (None: nothing selected, or no 3D box)."""
        self.entity_id = entity_id
        if box is None:
            self.values, self.interpolated = None, False
            none = (
                "Select a person or an object."
                if entity_id is None
                else f"{label}: no 3D box here."
            )
            self.title.setText(none)
        else:
            self.values = (box.cx, box.cy, box.cz, box.l, box.w, box.h, box.rot_z)
            self.interpolated = is_interpolated(box)
            how = " (interpolated: a drag keys it)" if self.interpolated else ""
            self.title.setText(
                f"{label}{how}: drag an edge to resize, inside to move, the round handle to turn"
            )
        self._show()

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if self.stale:
            self._show()

    def _show(self) -> None:
        """Crop the points around the box and give every view the box in a frame of its own
        (when on screen: hidden views follow frames and selections for nothing)."""
        self.stale = not self.isVisible()
        if self.stale:
            return
        if self.values is None:
            self.frame = None
            for view in self.views.values():
                view.show_box(None, np.zeros((0, 3), np.float32), interpolated=False)
            return
        self.frame = BoxFrame.of(self.values)
        local = self.frame.to_local(self.values)
        around = crop_points(self.cloud, self.values, margin=view_margin(self.values))
        # seen from above, the floor the object stands on would hide it
        above_floor = around[around[:, 2] > -self.values[5] / 2 + 0.05]
        for plane, view in self.views.items():
            points = above_floor if plane == "top" else around
            view.show_box(local, thin(points, self.max_points), interpolated=self.interpolated)

    def _changing(self, local: Values) -> None:
        for view in self.views.values():
            if view.target is None:  # the others follow the one dragged
                view.box = local
                view.update()
        if self.entity_id is not None and self.frame is not None:
            self.box_changing.emit(self.entity_id, self.frame.to_world(local))

    def _released(self, local: Values) -> None:
        if self.entity_id is None or self.frame is None:
            return
        self.values = self.frame.to_world(local)
        entity_id, values = self.entity_id, self.values
        self._show()  # centred on the new box, until told what was saved
        self.box_edited.emit(entity_id, values)

    def _cancelled(self) -> None:
        self._show()
        if self.entity_id is not None:
            self.drag_cancelled.emit(self.entity_id)
