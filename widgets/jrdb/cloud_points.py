"""The point layer of the lidar view: clouds with a drawing order, per-point colours, and a
GL item that uploads every point once and draws only as many as the level of detail allows.

Level of detail works on the order in which points are drawn, not on their
positions: `prepare_cloud` gives a cloud a drawing order (`stride_order`, a
golden-ratio stride through the points) whose every prefix is an even sample
of the whole cloud. `LodScatterItem` keeps all points, their colours and that
order in GPU buffers and draws a prefix of the order, so changing the detail
costs nothing: no copy, no upload. `widgets.jrdb.cloud_view` decides the length.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
from OpenGL import GL
from pyqtgraph.opengl.items.GLScatterPlotItem import GLScatterPlotItem
from PySide6 import QtGui

from annotation.jrdb.geometry import BoxLike, points_in_box
from annotation.jrdb.tracks import is_interpolated

QtOpenGL = importlib.import_module("PySide6.QtOpenGL")

#: Colour of points inside no entity's box, in the entity colouring.
UNLABELLED = (120, 124, 132)
#: The two lidars, in the sensor colouring (upper, lower).
SENSOR_COLOURS = ((240, 160, 60), (70, 190, 220))
#: The selection's points and wireframe.
HIGHLIGHT = (255, 232, 90)
GOLDEN = (1 + 5**0.5) / 2
#: Height colour ramp: (fraction, RGB) stops from low to high.
HEIGHT_STOPS = (
    (0.0, (48, 62, 160)),
    (0.3, (40, 150, 200)),
    (0.55, (90, 200, 120)),
    (0.8, (235, 200, 60)),
    (1.0, (230, 80, 60)),
)


@dataclass(frozen=True)
class PreparedCloud:
    """A frame's points with their drawing order and the entity each point belongs to.

    `order` is a permutation of the points whose every prefix is spread evenly
    over the whole cloud (see `stride_order`); `entities[i]` is the entity id
    of the box point `i` lies in, or -1, for the boxes summed up in `box_key`.
    """

    points: np.ndarray  # (N, 3) float32, the file's order
    sensor: np.ndarray | None  # (N,) uint8 (0 upper, 1 lower) or None
    order: np.ndarray  # (N,) uint32 drawing order
    entities: np.ndarray  # (N,) int32
    box_key: tuple = ()

    def __len__(self) -> int:
        return len(self.points)


def stride_order(count: int) -> np.ndarray:
    """A permutation of range(count) whose prefixes sample the whole range evenly.

    Index `i` of the drawing order is `(i * step) mod count`, with `step` the
    integer nearest to count / golden ratio that is coprime with `count`: the
    golden-ratio sequence, whose first n members are never more than about
    count / n apart. A lidar file lists points ring by ring, so evenly spread
    indices are evenly spread rings and angles; any other order works too.
    """
    if count <= 2:
        return np.arange(count, dtype=np.uint32)
    step = max(1, round(count * (GOLDEN - 1)))
    while math.gcd(step, count) != 1:
        step += 1
    return ((np.arange(count, dtype=np.int64) * step) % count).astype(np.uint32)


def box_key(boxes: Iterable[BoxLike]) -> tuple:
    """What `point_entities` depends on, to tell when a cloud's entities are out of date."""
    return tuple(
        (b.entity_id, b.cx, b.cy, b.cz, b.l, b.w, b.h, b.rot_z)  # type: ignore[attr-defined]
        for b in boxes
    )


def prepare_cloud(
    points: np.ndarray, sensor: np.ndarray | None = None, boxes: Iterable[BoxLike] = ()
) -> PreparedCloud:
    """Everything a cloud needs before it is drawn (plain numpy: safe on a worker thread)."""
    pts = np.ascontiguousarray(np.asarray(points, dtype=np.float32).reshape(-1, 3))
    keep = np.isfinite(pts).all(axis=1)
    if not keep.all():
        pts = np.ascontiguousarray(pts[keep])
        sensor = None if sensor is None else np.asarray(sensor)[keep]
    tags = None if sensor is None else np.ascontiguousarray(np.asarray(sensor, np.uint8))
    boxes = list(boxes)
    return PreparedCloud(
        pts, tags, stride_order(len(pts)), point_entities(pts, boxes), box_key(boxes)
    )


def point_entities(points: np.ndarray, boxes: Iterable[BoxLike]) -> np.ndarray:
    """The entity id of the box each point lies in (-1 for none), shape (N,) int32.

    Boxes are tested from the largest to the smallest, so a laptop's points on a
    table belong to the laptop. Each box first narrows the points to its
    bounding square with single-column tests, so millions of points stay cheap.
    """
    out = np.full(len(points), -1, dtype=np.int32)
    if not len(points):
        return out
    x = points[:, 0]
    for box in sorted(boxes, key=lambda b: -(b.l * b.w * b.h)):
        reach = math.hypot(box.l, box.w) / 2
        near = np.flatnonzero(np.abs(x - np.float32(box.cx)) <= reach)
        near = near[np.abs(points[near, 1] - np.float32(box.cy)) <= reach]
        near = near[np.abs(points[near, 2] - np.float32(box.cz)) <= box.h / 2 + 1e-6]
        if len(near):
            out[near[points_in_box(points[near], box)]] = getattr(box, "entity_id", -1)
    return out


def _rgba(rgb: np.ndarray) -> np.ndarray:
    out = np.empty((len(rgb), 4), dtype=np.uint8)
    out[:, :3] = rgb
    out[:, 3] = 255
    return out


def _height_lut() -> np.ndarray:
    t = np.linspace(0.0, 1.0, 256)
    fractions = [s[0] for s in HEIGHT_STOPS]
    rgb = [np.interp(t, fractions, [s[1][c] for s in HEIGHT_STOPS]) for c in range(3)]
    return np.column_stack(rgb).round().astype(np.uint8)


_HEIGHT_LUT = _height_lut()


def height_colours(z: np.ndarray) -> np.ndarray:
    """A colour ramp over height, stretched between the 2nd and 98th percentiles; (N, 4) uint8."""
    if not len(z):
        return np.zeros((0, 4), np.uint8)
    sample = z[:: max(1, len(z) // 100_000)]
    lo, hi = (float(v) for v in np.percentile(sample, [2, 98]))
    scale = np.float32(255.0 / max(hi - lo, 1e-6))
    level = np.clip((z - np.float32(lo)) * scale, 0, 255).astype(np.uint8)
    return _rgba(_HEIGHT_LUT[level])


def entity_colours(entities: np.ndarray, colours: Mapping[int, tuple[int, int, int]]) -> np.ndarray:
    """Each point in its entity's colour, the rest grey; (N, 4) uint8."""
    top = max([int(entities.max(initial=-1)), *colours], default=-1)
    lut = np.tile(np.array(UNLABELLED, np.uint8), (top + 2, 1))
    for entity_id, rgb in colours.items():
        if entity_id >= 0:
            lut[entity_id + 1] = rgb
    return _rgba(lut[entities + 1])


def sensor_colours(sensor: np.ndarray | None, count: int) -> np.ndarray:
    if sensor is None:
        return _rgba(np.tile(np.array(SENSOR_COLOURS[0], np.uint8), (count, 1)))
    lut = np.array(SENSOR_COLOURS, dtype=np.uint8)
    return _rgba(lut[np.clip(sensor, 0, 1)])


def colour_points(
    mode: str,
    cloud: PreparedCloud | None,
    entities: np.ndarray,
    colours: Mapping[int, tuple[int, int, int]],
    selected: int | None,
    highlighted: frozenset[int] | None = None,
) -> np.ndarray:
    """The points' colours in one of the view's modes, the selection's points highlighted.

    While some entities are `highlighted`, their points take their entity colours
    and the points of other entities' boxes are darkened.
    """
    if cloud is None or not len(cloud):
        return np.zeros((0, 4), np.uint8)
    if mode == "entity":
        out = entity_colours(entities, colours)
    elif mode == "sensor":
        out = sensor_colours(cloud.sensor, len(cloud))
    else:
        out = height_colours(cloud.points[:, 2])
    if highlighted is not None:
        lit = np.isin(entities, np.fromiter(highlighted, np.int32, len(highlighted)))
        out[(entities >= 0) & ~lit, :3] //= 3
        out[lit] = entity_colours(entities[lit], colours)
    if selected is not None:
        out[entities == selected, :3] = HIGHLIGHT
    return out


def project_points(view, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where 3D points land on a `GLViewWidget` (widget pixels, (N, 2)), and which are in front.

    Uses the view's own projection and view matrices, so it agrees with what is drawn.
    """
    w, h = max(1, view.width()), max(1, view.height())
    matrix = view.projectionMatrix((0, 0, w, h), (0, 0, w, h)) * view.viewMatrix()
    m = np.array(matrix.data(), dtype=float).reshape(4, 4).T
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    clip = np.c_[pts, np.ones(len(pts))] @ m.T
    front = clip[:, 3] > 1e-9
    ndc = clip[:, :2] / np.where(front, clip[:, 3], 1.0)[:, None]
    return np.column_stack([(ndc[:, 0] + 1) / 2 * w, (1 - ndc[:, 1]) / 2 * h]), front


def _compatibility_profile(context: QtGui.QOpenGLContext) -> bool:
    fmt = context.format()
    if fmt.profile() == QtGui.QSurfaceFormat.OpenGLContextProfile.CompatibilityProfile:
        return True
    return fmt.profile() != QtGui.QSurfaceFormat.OpenGLContextProfile.CoreProfile and (
        fmt.version() <= (2, 1)
    )


class LodScatterItem(GLScatterPlotItem):
    """Round points of one pixel size, colours as bytes; draws `draw_count` points in `order`.

    Positions, colours and the drawing order are uploaded when they change,
    never when only `draw_count` does. Colours are 4 bytes a point (not 16),
    so 5 million points need 100 MB of buffers instead of 160 MB.
    """

    def __init__(self) -> None:
        super().__init__(pos=np.zeros((0, 3), np.float32), size=3.0, pxMode=True)
        self.setGLOptions("opaque")
        self.colours = np.zeros((0, 4), np.uint8)
        self.order = np.zeros(0, np.uint32)
        self.draw_count = 0
        self.m_ibo_order = QtOpenGL.QOpenGLBuffer(QtOpenGL.QOpenGLBuffer.Type.IndexBuffer)
        self._dirty: set[str] = set()

    def set_cloud(self, points: np.ndarray, colours: np.ndarray, order: np.ndarray) -> None:
        self.pos = np.ascontiguousarray(points, dtype=np.float32)
        self.colours = np.ascontiguousarray(colours, dtype=np.uint8)
        self.order = np.ascontiguousarray(order, dtype=np.uint32)
        self.draw_count = len(self.pos)
        self._dirty |= {"pos", "colour", "order"}
        self.update()

    def set_colours(self, colours: np.ndarray) -> None:
        self.colours = np.ascontiguousarray(colours, dtype=np.uint8)
        self._dirty.add("colour")
        self.update()

    def set_point_size(self, size: float) -> None:
        self.size = float(size)
        self.update()

    @property
    def total(self) -> int:
        return 0 if self.pos is None else len(self.pos)

    def _upload(self) -> None:
        for name, buffer, array in (
            ("pos", self.m_vbo_position, self.pos),
            ("colour", self.m_vbo_color, self.colours),
            ("order", self.m_ibo_order, self.order),
        ):
            if name in self._dirty and len(array) == self.total:
                self.upload_vbo(buffer, array)
                self._dirty.discard(name)

    def paint(self) -> None:
        count = min(int(self.draw_count), self.total)
        if count <= 0:
            return
        self._upload()
        if self._dirty:  # arrays of different lengths: wait for the rest of the update
            return
        self.setupGLState()
        mvp = np.array(self.mvpMatrix().data(), dtype=np.float32)
        modelview = np.array(self.modelViewMatrix().data(), dtype=np.float32)
        context = QtGui.QOpenGLContext.currentContext()
        if not context.isOpenGLES():
            if _compatibility_profile(context):
                GL.glEnable(GL.GL_POINT_SPRITE)
            GL.glEnable(GL.GL_PROGRAM_POINT_SIZE)
        program = self.getShaderProgram()
        self.m_vbo_position.bind()
        GL.glVertexAttribPointer(0, 3, GL.GL_FLOAT, False, 0, None)
        self.m_vbo_position.release()
        self.m_vbo_color.bind()
        GL.glVertexAttribPointer(1, 4, GL.GL_UNSIGNED_BYTE, True, 0, None)
        self.m_vbo_color.release()
        GL.glVertexAttrib1f(2, float(self.size))
        GL.glEnableVertexAttribArray(0)
        GL.glEnableVertexAttribArray(1)
        with program:
            GL.glUniformMatrix4fv(GL.glGetUniformLocation(program, "u_mvp"), 1, False, mvp)
            GL.glUniformMatrix4fv(
                GL.glGetUniformLocation(program, "u_modelview"), 1, False, modelview
            )
            GL.glUniform1f(GL.glGetUniformLocation(program, "u_scale"), 0.0)
            self.m_ibo_order.bind()
            GL.glDrawElements(GL.GL_POINTS, count, GL.GL_UNSIGNED_INT, None)
            self.m_ibo_order.release()
        GL.glDisableVertexAttribArray(0)
        GL.glDisableVertexAttribArray(1)


def box_wires(
    boxes: Iterable[BoxLike],
    colours: Mapping[int, tuple[int, int, int]],
    selected: int | None,
    highlighted: frozenset[int] | None = None,
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The boxes' wireframes as two line sets, thin and bold: ((segments, RGBA), (segments, RGBA)).

    The selection is bold and yellow. While some entities are `highlighted`
    (e.g. a question's reasoning step; None: no highlighting) they are bold in
    their own colours and the other boxes fade.
    """
    thin: tuple[list, list] = ([], [])
    bold: tuple[list, list] = ([], [])
    for box in boxes:
        eid = box.entity_id  # type: ignore[attr-defined]
        rgb = np.array(HIGHLIGHT if eid == selected else colours.get(eid, (200, 200, 200))) / 255
        if eid == selected or (highlighted is not None and eid in highlighted):
            segments = np.vstack([box_wireframe(box), box_wireframe(box, 1.04)])
            alpha, out = 1.0, bold
        else:
            segments = box_wireframe(box)
            alpha, out = 0.95 if highlighted is None else 0.22, thin
        if is_interpolated(box):  # derived between keyframes: dashed edges
            segments = dashed(segments)
        out[0].append(segments)
        out[1].append(np.tile([*rgb, alpha], (len(segments), 1)))

    def stacked(parts: tuple[list, list]) -> tuple[np.ndarray, np.ndarray]:
        if not parts[0]:
            return np.zeros((0, 3), np.float32), np.zeros((0, 4), np.float32)
        return np.vstack(parts[0]).astype(np.float32), np.vstack(parts[1]).astype(np.float32)

    return stacked(thin), stacked(bold)


def dashed(segments: np.ndarray, pieces: int = 5) -> np.ndarray:
    """Line segments (pairs of points) cut into `pieces` parts each, every other one kept:
    a dashed wireframe out of plain GL lines."""
    if len(segments) == 0:
        return segments
    a, b = segments[0::2], segments[1::2]
    starts = np.arange(0, pieces, 2) / pieces
    ends = np.minimum(starts + 1 / pieces, 1.0)
    out = np.empty((len(a) * len(starts) * 2, 3), dtype=float)
    out[0::2] = (a[:, None, :] + (b - a)[:, None, :] * starts[None, :, None]).reshape(-1, 3)
    out[1::2] = (a[:, None, :] + (b - a)[:, None, :] * ends[None, :, None]).reshape(-1, 3)
    return out


def box_wireframe(box: BoxLike, scale: float = 1.0) -> np.ndarray:
    """Line segments (pairs of points) of a box's 12 edges and a heading arrow on its top.

    The arrow starts at the top face's centre and points along `rot_z` (the
    box's length axis), reaching past the box so that it shows from any side.
    """
    c, s = math.cos(box.rot_z), math.sin(box.rot_z)
    u = np.array([c, s, 0.0]) * box.l / 2 * scale
    v = np.array([-s, c, 0.0]) * box.w / 2 * scale
    h = np.array([0.0, 0.0, box.h / 2 * scale])
    centre = np.array([box.cx, box.cy, box.cz], dtype=float)
    corners = [centre + a * u + b * v + z * h for z in (-1, 1) for a, b in _RING]
    segments = []
    for ring in (0, 4):
        for i in range(4):
            segments += [corners[ring + i], corners[ring + (i + 1) % 4]]
    for i in range(4):
        segments += [corners[i], corners[i + 4]]
    top = centre + h
    forward = np.array([c, s, 0.0])
    side = np.array([-s, c, 0.0])
    reach = max(box.l / 2 + 0.25, 0.4) * scale
    tip = top + forward * reach
    head = 0.12 + 0.1 * min(box.l, 1.0)
    segments += [top, tip, tip, tip - forward * head + side * head * 0.6]
    segments += [tip, tip - forward * head - side * head * 0.6]
    return np.asarray(segments, dtype=np.float32)


_RING = ((1, 1), (-1, 1), (-1, -1), (1, -1))
