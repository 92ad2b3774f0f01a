"""The drawn parts of the live scene-graph view: nodes, edges and their labels.

`NodeItem` draws an entity in its kind's shape and colour (a simulator object
in its own colour, dashed when the camera sees none of it) with its label
below, rings it when selected, glows when highlighted, shows its attributes
on hover and tells the view when it is clicked. `EdgeItem` draws a
`widgets.graph.placement.DrawnEdge`: a line, bowed when the pair has parallel
edges of other kinds, arrowheads, and its predicates as a label, which the view
places along the edge clear of the other labels (`widgets.graph.labels`). Labels
keep their size on screen at any zoom. The words (`describe_entity`, `describe_edge`
for hovering, `wrap_label`, `inside_caption`, which edges get a label:
`edges_to_label`) are pure functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import QGraphicsItem

from annotation.scene_graph import Entity
from widgets.graph.labels import curve_point
from widgets.graph.placement import DrawnEdge, is_hidden_from_camera

NODE_R = 13.0
PARALLEL_PX = 16.0  # how far apart parallel edges of one pair bow
NODE_COLOURS = {"human": "#4a90d9", "object": "#f0a030", "robot": "#6f7e8c", "surface": "#a1836b"}
EDGE_COLOURS = {
    "hoi": "#c2185b",
    "hhi": "#2e7d32",
    "geometry": "#7b8d99",
    "support": "#8d5a3b",
    "spatial": "#1e78d2",
    "state": "#e0302a",
}
SELECTED, HIGHLIGHT = QColor("#ff8c00"), QColor(255, 205, 0, 190)
DIMMED_OPACITY = 0.28
LABEL_LIMIT = 30  # drawn edges beyond which not every edge is labelled


# -- words on the drawing ----------------------------------------------------------------


def edges_to_label(
    drawn: Sequence[DrawnEdge], dense: Collection[str], focus: Collection[str]
) -> set[tuple[str, str, str]]:
    """Keys of the drawn edges that get a label: all of them up to `LABEL_LIMIT`; beyond it
    the edges of sparse kinds and those of the focus, each group only if it is not crowded
    itself (hovering an edge always tells its predicates)."""
    if len(drawn) <= LABEL_LIMIT:
        return {e.key for e in drawn}
    out: set[tuple[str, str, str]] = set()
    for group in (
        [e for e in drawn if e.kind not in dense],
        [e for e in drawn if e.touches(focus)],
    ):
        if len(group) <= LABEL_LIMIT:
            out.update(e.key for e in group)
    return out


def inside_caption(entity: Entity) -> str:
    """The number a person's circle shows inside ("pedestrian 7" -> "7"), else ""."""
    word, _, number = entity.label.rpartition(" ")
    if entity.kind == "human" and word in ("pedestrian", "person") and number.isdigit():
        return number
    return ""


def wrap_label(text: str, width: int = 12, lines: int = 2) -> str:
    """A node's label on at most `lines` lines of about `width` characters (cut with …)."""
    out: list[str] = []
    for word in text.split():
        if out and len(out[-1]) + 1 + len(word) <= width:
            out[-1] += " " + word
        else:
            out.append(word)
    if len(out) > lines:
        out = out[: lines - 1] + [" ".join(out[lines - 1 :])]
    return "\n".join(line if len(line) <= width + 3 else line[: width + 2] + "…" for line in out)


def short_value(value: Any, depth: int = 0) -> str:
    """A value as a person reads it in a tooltip: numbers rounded, long lists and dicts cut."""
    if isinstance(value, bool) or value is None:
        return str(value).lower() if value is None else str(value)
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, str):
        return value if len(value) <= 40 else value[:39] + "…"
    if isinstance(value, list):
        if depth:
            return f"[{len(value)}]"
        items = [short_value(v, 1) for v in value[:4]]
        more = f", … +{len(value) - 4}" if len(value) > 4 else ""
        return "[" + ", ".join(items) + more + "]"
    if isinstance(value, dict):
        if depth:
            return f"{{{len(value)}}}"
        items = [f"{k}: {short_value(v, 1)}" for k, v in list(value.items())[:4]]
        more = f", … +{len(value) - 4}" if len(value) > 4 else ""
        return "{" + ", ".join(items) + more + "}"
    return str(value)


def describe_entity(entity: Entity) -> str:
    """The hover text of a node: label, kind and id, then one attribute a line."""
    head = entity.label if entity.label == entity.id else f"{entity.label} ({entity.id})"
    lines = [f"{head} — {entity.kind}"]
    lines += [f"{k}: {short_value(v)}" for k, v in sorted(entity.attributes.items())]
    return "\n".join(lines)


def describe_edge(edge: DrawnEdge, labels: Mapping[str, str], limit: int = 10) -> str:
    """The hover text of an edge: its relations in words, with their slots."""
    slots = {r.slot for r in edge.relations}
    lines = [f"{edge.kind} relations"]
    for r in edge.relations[:limit]:
        when = f"  (slot {r.slot})" if len(slots) > 1 else ""
        subject, obj = labels.get(r.subject, r.subject), labels.get(r.object, r.object)
        extra = r.attributes.get("distance_m")
        metres = f", {extra:.2f} m" if isinstance(extra, int | float) else ""
        lines.append(f"{subject} {r.predicate} {obj}{metres}{when}")
    if len(edge.relations) > limit:
        lines.append(f"… {len(edge.relations) - limit} more")
    return "\n".join(lines)


class _Label(QGraphicsItem):
    """Text centred on its position, on a soft background, the same size at any zoom."""

    def __init__(
        self,
        text: str,
        colour: QColor,
        parent: QGraphicsItem,
        point_size: float,
        *,
        below: bool = False,  # hang below the position instead of centring on it
        backdrop: bool = True,
    ):
        super().__init__(parent)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.font = QFont()
        self.font.setPointSizeF(point_size)
        self.font.setBold(not backdrop)
        self.colour, self.text, self.backdrop = colour, text, backdrop
        r = QFontMetricsF(self.font).boundingRect(QRectF(0, 0, 400, 200), 0, text)
        top = 0.0 if below else -r.height() / 2 - 1
        self.rect = QRectF(-r.width() / 2 - 3, top, r.width() + 6, r.height() + 2)

    def boundingRect(self) -> QRectF:  # noqa: N802
        return self.rect

    def paint(self, painter: QPainter, _option, _widget=None) -> None:
        if self.backdrop:
            base = self.scene().palette().base().color() if self.scene() else QColor("white")
            base.setAlpha(200)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(base)
            painter.drawRoundedRect(self.rect, 3, 3)
        painter.setFont(self.font)
        painter.setPen(self.colour)
        painter.drawText(self.rect, Qt.AlignmentFlag.AlignCenter, self.text)


class NodeItem(QGraphicsItem):
    """One entity: its kind's shape, its label below; click to select, hover for attributes.

    Drawn in pixels at its scene position: zooming spreads nodes apart, never shrinks them."""

    def __init__(
        self,
        entity: Entity,
        *,
        on_click: Callable[[str], None],
        text_colour: Callable[[], QColor],
    ) -> None:
        super().__init__()
        self.on_click = on_click  # the entity id of a left click goes here
        self.text_colour = text_colour  # the caption's colour, read when the entity changes
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)  # pixels
        self.setZValue(2)
        self.selected = self.highlighted = self.hovered = False
        self.label: _Label | None = None
        self.set_entity(entity)

    def set_entity(self, entity: Entity) -> None:
        self.entity = entity
        rgba = entity.attributes.get("rgba") if entity.kind == "object" else None
        if isinstance(rgba, list) and len(rgba) >= 3:
            self.fill = QColor.fromRgbF(*(min(1.0, max(0.0, float(c))) for c in rgba[:3]))
        else:
            self.fill = QColor(NODE_COLOURS[entity.kind])
        self.unseen = is_hidden_from_camera(entity)
        if self.label is not None and self.scene() is not None:
            self.scene().removeItem(self.label)
        number = inside_caption(entity)
        if number:  # "pedestrian 7": the number inside the circle, the rest in the tooltip
            self.label = _Label(number, QColor("white"), self, 8.0, backdrop=False)
        else:
            self.label = _Label(wrap_label(entity.label), self.text_colour(), self, 8.5, below=True)
            self.label.setPos(0, NODE_R + 2)
        self.label.setScale(max(0.85, self.scale()) / self.scale())
        self.setToolTip(describe_entity(entity))
        self.update()

    def set_size(self, size: float) -> None:
        """Draw the node at `size` x its pixels; its label never below 0.85 x."""
        if size != self.scale():
            self.setScale(size)
            self.label.setScale(max(0.85, size) / size)

    def set_state(self, *, selected: bool, highlighted: bool, dimmed: bool) -> None:
        if (selected, highlighted) != (self.selected, self.highlighted):
            self.selected, self.highlighted = selected, highlighted
            self.update()
        self.setOpacity(DIMMED_OPACITY if dimmed else 1.0)

    def outline(self) -> QPainterPath:
        path, r, kind = QPainterPath(), NODE_R, self.entity.kind
        if kind == "human":
            path.addEllipse(QPointF(0, 0), r, r)
        elif kind == "object":
            path.addRoundedRect(QRectF(-r, -r, 2 * r, 2 * r), 4, 4)
        elif kind == "surface":
            path.addRoundedRect(QRectF(-1.5 * r, -0.7 * r, 3 * r, 1.4 * r), 3, 3)
        else:  # robot: a hexagon
            corners = [
                QPointF((r + 2) * math.cos(math.pi / 3 * i), (r + 2) * math.sin(math.pi / 3 * i))
                for i in range(6)
            ]
            path.addPolygon(QPolygonF([*corners, corners[0]]))
        return path

    def boundingRect(self) -> QRectF:  # noqa: N802
        return QRectF(-2 * NODE_R, -2 * NODE_R, 4 * NODE_R, 4 * NODE_R)

    def shape(self) -> QPainterPath:
        return self.outline()

    def paint(self, painter: QPainter, _option, _widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        outline = self.outline()
        if self.highlighted:
            painter.setPen(QPen(HIGHLIGHT, 9))
            painter.drawPath(outline)
        if self.selected:
            painter.setPen(QPen(SELECTED, 6))
            painter.drawPath(outline)
        pen = QPen(self.fill.darker(170), 2.6 if self.hovered else 1.4)
        if self.unseen:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        fill = QColor(self.fill)
        fill.setAlpha(110 if self.unseen else 255)
        painter.setBrush(fill)
        painter.drawPath(outline)

    def hoverEnterEvent(self, event) -> None:  # noqa: N802
        self.hovered = True
        self.update()
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:  # noqa: N802
        self.hovered = False
        self.update()
        super().hoverLeaveEvent(event)

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            self.on_click(self.entity.id)
            event.accept()
        else:
            event.ignore()


def _node_radius(kind: str) -> float:
    return NODE_R * (1.55 if kind == "surface" else 1.15) + 3


class EdgeItem(QGraphicsItem):
    """One drawn edge: a (bowed, if it has parallels) line, arrowheads and its label.

    The line runs in scene units; where it stops short of a node, the arrowheads and
    the pen are in pixels (the nodes keep their size at any zoom), recomputed per zoom.
    """

    def __init__(self, edge: DrawnEdge, ends, offset: float, kinds, labels, labelled=True) -> None:
        super().__init__()
        self.edge, self.offset = edge, offset
        self.signature = (edge.forward, edge.backward, offset, labelled)
        self.colour = QColor(EDGE_COLOURS[edge.kind])
        self.setZValue(1)
        (ax, ay), (bx, by) = self.ends = ends
        self.length = length = max(math.hypot(bx - ax, by - ay), 1e-6)
        ux, uy = (bx - ax) / length, (by - ay) / length
        side = 1.0 if edge.a < edge.b else -1.0  # bow to the same side whichever way it points
        self.control = (
            (ax + bx) / 2 - uy * 2 * offset * side,
            (ay + by) / 2 + ux * 2 * offset * side,
        )
        self.radii = (_node_radius(kinds[edge.a]), _node_radius(kinds[edge.b]))
        cx, cy = self.control
        self.centre_path = QPainterPath(QPointF(ax, ay))
        self.centre_path.quadTo(QPointF(cx, cy), QPointF(bx, by))
        self.bounds = self.centre_path.boundingRect().adjusted(-4, -4, 4, 4)
        self.scale_built: float | None = None
        self.node_size = 1.0  # the nodes' size on screen (see NodeItem.set_size)
        self.path, self.heads = QPainterPath(), []
        # the view places the label along the curve (`point_at`), clear of the others
        self.label = None
        if labelled:
            self.label = _Label(edge.label, self.colour.darker(135), self, 7.5)
            self.label.setPos(*self.point_at(0.4))
        self.describe(edge, labels)

    def point_at(self, t: float) -> tuple[float, float]:
        """The edge's curve at `t` (0 the subject, 1 the object), in scene units."""
        return curve_point(self.ends[0], self.control, self.ends[1], t)

    def describe(self, edge: DrawnEdge, labels) -> None:
        """Hold `edge` (the same predicates, maybe other attributes) and its hover text."""
        self.edge = edge
        tip = describe_edge(edge, labels)
        self.setToolTip(tip)
        if self.label is not None:
            self.label.setToolTip(tip)

    def set_node_size(self, size: float) -> None:
        if size != self.node_size:
            self.node_size, self.scale_built = size, None
            self.update()

    def _build(self, scale: float) -> None:
        """The visible line and heads at a zoom of `scale` (pixels per scene unit)."""
        control = self.control
        start = self._clip(self.ends[0], control, self.radii[0] * self.node_size / scale)
        end = self._clip(self.ends[1], control, self.radii[1] * self.node_size / scale)
        self.path = QPainterPath(QPointF(*start))
        self.path.quadTo(QPointF(*control), QPointF(*end))
        self.heads = []
        if not self.edge.symmetric:
            self.heads.append(self._head(end, control, scale))
            if self.edge.backward:
                self.heads.append(self._head(start, control, scale))
        self.scale_built = scale

    @staticmethod
    def _clip(centre, toward, radius: float) -> tuple[float, float]:
        dx, dy = toward[0] - centre[0], toward[1] - centre[1]
        d = max(math.hypot(dx, dy), 1e-6)
        return centre[0] + dx / d * radius, centre[1] + dy / d * radius

    @staticmethod
    def _head(tip, control, scale: float) -> QPolygonF:
        dx, dy = tip[0] - control[0], tip[1] - control[1]
        d = max(math.hypot(dx, dy), 1e-6) * scale
        ux, uy = dx / d, dy / d  # unit vector, in scene units per pixel
        back = (tip[0] - 9 * ux, tip[1] - 9 * uy)
        return QPolygonF(
            [
                QPointF(*tip),
                QPointF(back[0] - 4 * uy, back[1] + 4 * ux),
                QPointF(back[0] + 4 * uy, back[1] - 4 * ux),
            ]
        )

    def boundingRect(self) -> QRectF:  # noqa: N802
        return self.bounds

    def shape(self) -> QPainterPath:
        stroker = QPainterPathStroker()
        stroker.setWidth(7)
        return stroker.createStroke(self.centre_path)

    def paint(self, painter: QPainter, _option, _widget=None) -> None:
        t = painter.worldTransform()
        scale = max(math.hypot(t.m11(), t.m12()), 1e-6)
        if self.scale_built is None or abs(scale - self.scale_built) > 1e-6 * scale:
            self._build(scale)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(self.colour, 1.5)
        pen.setCosmetic(True)  # the same width at any zoom
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self.path)
        painter.setBrush(QBrush(self.colour))
        for head in self.heads:
            painter.drawPolygon(head)
