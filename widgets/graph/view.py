"""The live scene-graph view: a `SceneGraph` as nodes and labelled, directed edges.

`set_graph` applies ``old.diff(new)``: nodes of entities still there keep their
exact position (the layout is stable while the graph changes), new ones are
placed and relaxed around them (`widgets.graph.placement`), removed ones vanish
and come back to the same spot if they return. Node kinds have their own shape
and colour (a simulator object its own colour), edges are coloured by relation
kind, labelled with their predicates and merged per pair ("left of" stands for
"right of" the other way). A toolbar filters relation kinds, draws every edge
of a dense kind (by default only those of the focus and of the robot and
surfaces), hides what the camera cannot see, and fits the drawing; the wheel
zooms, dragging pans. Labels keep their size on screen at any zoom.

`highlight(ids)` emphasises a set of entities (the rest fades), `select(id)`
rings one; a click on a node emits `entity_clicked(id)`, hovering shows its
attributes. The widget keeps no model of its own beyond the last graph.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QAction, QPainter
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QLabel, QToolBar, QVBoxLayout, QWidget

from annotation.scene_graph import RELATION_KINDS, SceneGraph
from widgets.graph.items import (
    DIMMED_OPACITY,
    NODE_R,
    PARALLEL_PX,
    EdgeItem,
    NodeItem,
    edges_to_label,
)
from widgets.graph.labels import LabelRequest, place_labels
from widgets.graph.placement import (
    DrawnEdge,
    anchors_of,
    dense_kinds,
    edge_drawn,
    entity_changes,
    is_hidden_from_camera,
    layout_springs,
    merge_edges,
    update_layout,
)

MAX_FIT_SCALE = 1.4  # a small graph is not blown up past this
FIT_MARGIN_PX = 40  # room around the outermost nodes for their labels
MIN_NODE_SIZE = 0.6  # nodes shrink with the zoom below 1, to this at most


class _Canvas(QGraphicsView):
    """Wheel zooms under the mouse, dragging pans; either stops following the graph's extent."""

    def __init__(self, scene: QGraphicsScene, owner: SceneGraphView) -> None:
        super().__init__(scene, owner)
        self.owner = owner
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # drag to pan
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def wheelEvent(self, event) -> None:  # noqa: N802
        factor = 1.0015 ** event.angleDelta().y()
        scale = self.transform().m11()
        factor = min(max(factor, 0.05 / scale), 6.0 / scale)
        self.scale(factor, factor)
        self.owner.following = False
        self.owner._zoomed()

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if self.itemAt(event.position().toPoint()) is None:
            self.owner.following = False  # panning
        super().mousePressEvent(event)

    def drawForeground(self, painter: QPainter, _rect) -> None:  # noqa: N802
        if not self.owner.graph.entities:  # say why there is nothing to see
            painter.save()
            painter.resetTransform()
            painter.setPen(self.palette().placeholderText().color())
            area = self.viewport().rect().adjusted(20, 20, -20, -20)
            flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
            painter.drawText(area, flags, self.owner.placeholder)
            painter.restore()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.owner.following:
            self.owner.fit()


class SceneGraphView(QWidget):
    """Nodes and edges of a `SceneGraph`, laid out stably as the graph changes."""

    entity_clicked = Signal(str)  # a node was clicked: its graph entity id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scene_graph_view")
        self.scene = QGraphicsScene(self)
        self.canvas = _Canvas(self.scene, self)
        self.canvas.setObjectName("scene_graph_canvas")
        self.canvas.setBackgroundBrush(self.palette().base())
        self.toolbar = QToolBar("Scene graph")
        self.toolbar.setObjectName("scene_graph_toolbar")
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.kind_actions: dict[str, QAction] = {}
        for kind in RELATION_KINDS:
            action = self._toggle(kind, f"Show {kind} relations", True, self._kind_toggled)
            self.kind_actions[kind] = action
        self.toolbar.addSeparator()
        self.all_action = self._toggle(
            "All edges",
            "Draw every edge of a dense kind, not only those of the selected and highlighted "
            "entities and of the robot and surfaces",
            False,
            lambda _on: self._refresh(),
        )
        self.visible_action = self._toggle(
            "Visible only", "Hide objects the camera does not see", False, lambda _: self._refresh()
        )
        self.fit_action = QAction("Fit", self)
        self.fit_action.setToolTip("Fit the whole graph in view (then follow it as it changes)")
        self.fit_action.triggered.connect(lambda: self.fit())
        self.toolbar.addAction(self.fit_action)
        self.status = QLabel("No scene graph.")
        self.status.setObjectName("scene_graph_status")
        self.status.setWordWrap(True)
        self.status.setStyleSheet("padding: 2px 6px; color: palette(mid);")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.status)
        self.graph = SceneGraph({})
        self.following = True  # fit the drawing whenever it changes, until the user zooms
        self.edges: list[DrawnEdge] = []
        self.dense: frozenset[str] = frozenset()
        self.anchors: frozenset[str] = frozenset()
        self.nodes: dict[str, NodeItem] = {}
        self.edge_items: dict[tuple[str, str, str], EdgeItem] = {}
        self.positions: dict[str, tuple[float, float]] = {}
        self.memory: dict[str, tuple[float, float]] = {}  # where removed nodes were
        self.selected = ""
        self.highlighted: frozenset[str] = frozenset()
        self.placeholder = "No scene graph."
        self._sync_toolbar()

    def _toggle(self, text: str, tip: str, checked: bool, slot) -> QAction:
        action = QAction(text, self, checkable=True, checked=checked)
        action.setToolTip(tip)
        action.toggled.connect(slot)
        self.toolbar.addAction(action)
        return action

    # -- the graph -------------------------------------------------------------------------
    def set_graph(self, graph: SceneGraph | None) -> None:
        """Show `graph`, changing only what differs from the graph shown (None: empty)."""
        graph = graph if graph is not None else SceneGraph({})
        if graph == self.graph:
            self.graph = graph
            return
        added, removed = entity_changes(self.graph, graph)
        self.graph = graph
        for entity_id in removed:
            self.memory[entity_id] = self.positions.pop(entity_id)
            self.scene.removeItem(self.nodes.pop(entity_id))
        self.edges = merge_edges(graph.relations)
        self.anchors = anchors_of(graph)
        self.dense = dense_kinds(self.edges, len(graph.entities))
        springs = layout_springs(self.edges, self.dense, self.anchors)
        self.positions = update_layout(self.positions, graph, springs, self.memory)
        for entity_id, entity in added.items():
            node = self.nodes.get(entity_id)
            if node is None:
                node = self.nodes[entity_id] = NodeItem(
                    entity,
                    on_click=self.node_clicked,
                    text_colour=lambda: self.palette().text().color(),
                )
                self.scene.addItem(node)
                node.setPos(*self.positions[entity_id])
            else:
                node.set_entity(entity)
        self._refresh()

    def clear(self, message: str = "No scene graph.") -> None:
        self.placeholder = message
        self.set_graph(None)
        self._sync_toolbar()

    def highlight(self, entity_ids: Iterable[str]) -> None:
        """Emphasise these entities and the edges among them; the rest fades (empty: none)."""
        self.highlighted = frozenset(entity_ids)
        self._refresh()

    def select(self, entity_id: str | None) -> None:
        """Ring this entity (kept if it is not in the graph yet); dense edges follow it."""
        if (entity_id or "") != self.selected:
            self.selected = entity_id or ""
            self._refresh()

    def node_clicked(self, entity_id: str) -> None:
        self.select(entity_id)
        self.entity_clicked.emit(entity_id)

    def set_kind_visible(self, kind: str, visible: bool) -> None:
        self.kind_actions[kind].setChecked(visible)

    @property
    def hidden_kinds(self) -> frozenset[str]:
        return frozenset(k for k, a in self.kind_actions.items() if not a.isChecked())

    def drawn_edges(self) -> list[DrawnEdge]:
        """The edges drawn now, in the graph's edge order."""
        return [e for e in self.edges if e.key in self.edge_items]

    def shown_entities(self) -> list[str]:
        return [i for i, node in self.nodes.items() if node.isVisible()]

    def _kind_toggled(self, _on: bool) -> None:
        self._refresh()

    # -- drawing -----------------------------------------------------------------------------
    def _refresh(self) -> None:
        graph, highlighted = self.graph, self.highlighted
        visible_only = self.visible_action.isChecked()
        shown = {
            i for i, e in graph.entities.items() if not (visible_only and is_hidden_from_camera(e))
        }
        for entity_id, node in self.nodes.items():
            node.setVisible(entity_id in shown)
            node.set_state(
                selected=entity_id == self.selected,
                highlighted=entity_id in highlighted,
                dimmed=bool(highlighted) and entity_id not in highlighted,
            )
        focus = highlighted | ({self.selected} if self.selected else set())
        parallels: dict[tuple[str, str], list[str]] = defaultdict(list)
        for e in self.edges:
            parallels[tuple(sorted((e.a, e.b)))].append(e.kind)
        wanted: dict[tuple[str, str, str], tuple[DrawnEdge, float]] = {}
        hidden_kinds = self.hidden_kinds
        for e in self.edges:
            if edge_drawn(
                e,
                hidden_kinds=hidden_kinds,
                dense=self.dense,
                focus=focus,
                anchors=self.anchors,
                shown=shown,
                all_dense=self.all_action.isChecked(),
            ):
                kinds = parallels[tuple(sorted((e.a, e.b)))]
                wanted[e.key] = (e, (kinds.index(e.kind) - (len(kinds) - 1) / 2) * PARALLEL_PX)
        labelled = edges_to_label([e for e, _offset in wanted.values()], self.dense, focus)
        signatures = {
            key: (e.forward, e.backward, offset, key in labelled)
            for key, (e, offset) in wanted.items()
        }
        for key in list(self.edge_items):
            if signatures.get(key) != self.edge_items[key].signature:
                self.scene.removeItem(self.edge_items.pop(key))
        kinds = {i: e.kind for i, e in graph.entities.items()}
        labels = {i: e.label for i, e in graph.entities.items()}
        for key, (edge, offset) in wanted.items():
            item = self.edge_items.get(key)
            if item is None:
                ends = (self.positions[edge.a], self.positions[edge.b])
                labelled = signatures[key][3]
                item = EdgeItem(edge, ends, offset, kinds, labels, labelled)
                self.edge_items[key] = item
                self.scene.addItem(item)
            elif item.edge != edge:
                item.describe(edge, labels)
            faded = bool(highlighted) and not (edge.a in highlighted and edge.b in highlighted)
            item.setOpacity(DIMMED_OPACITY if faded else 1.0)
        self._sync_toolbar()
        if self.following:
            self.fit()
        else:
            self._zoomed()

    def _sync_toolbar(self) -> None:
        counts: dict[str, int] = defaultdict(int)
        for r in self.graph.relations:
            counts[r.kind] += 1
        for kind, action in self.kind_actions.items():
            action.setVisible(counts[kind] > 0)
            dense = " (dense: the focus's edges unless All edges)" if kind in self.dense else ""
            action.setToolTip(f"Show {kind} relations: {counts[kind]}{dense}")
        self.all_action.setVisible(bool(self.dense))
        self.visible_action.setVisible(
            any("visible_fraction" in e.attributes for e in self.graph.entities.values())
        )
        if not self.graph.entities:
            self.status.setText(self.placeholder)
            return
        text = (
            f"{len(self.graph.entities)} entities · {len(self.graph.relations)} relations · "
            f"{len(self.edge_items)} of {len(self.edges)} edges drawn"
        )
        if self.dense and not self.all_action.isChecked():
            text += f" · {', '.join(sorted(self.dense))}: the selection's edges (click a node)"
        self.status.setText(text)

    def fit(self) -> None:
        """Every node in view with room for its label (never enlarged past `MAX_FIT_SCALE`);
        follow the drawing again as it changes."""
        self.following = True
        viewport = self.canvas.viewport()
        if not self.positions or viewport.width() < 10 or viewport.height() < 10:
            self._zoomed()
            return
        xs = [p[0] for p in self.positions.values()]
        ys = [p[1] for p in self.positions.values()]
        rect = QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
        w, h = viewport.width(), viewport.height()
        mx, my = min(FIT_MARGIN_PX, 0.12 * w), min(FIT_MARGIN_PX, 0.12 * h)  # labels hang below
        room_w, room_h = w - 2 * mx, h - 2.6 * my
        scale = min(
            MAX_FIT_SCALE,
            room_w / max(rect.width(), 1.0),
            room_h / max(rect.height(), 1.0),
        )
        scale = max(scale, 0.05)
        reach = max(viewport.width(), viewport.height()) / scale
        self.scene.setSceneRect(rect.adjusted(-reach, -reach, reach, reach))
        self.canvas.resetTransform()
        self.canvas.scale(scale, scale)
        self.canvas.centerOn(rect.center() + QPointF(0, 0.3 * my / scale))
        self._zoomed()

    def _zoomed(self) -> None:
        """After a zoom: far out, nodes shrink a little (their labels less); an edge's label
        shows only where the edge is long enough on screen to hold it."""
        scale = self.canvas.transform().m11()
        size = min(1.0, max(MIN_NODE_SIZE, scale))
        for node in self.nodes.values():
            node.set_size(size)
        for item in self.edge_items.values():
            item.set_node_size(size)
        self._place_labels(scale, size)

    def _place_labels(self, scale: float, size: float) -> None:
        """Each edge label along its edge where it overlaps no other label, node or caption
        (`widgets.graph.labels`); left out where its edge is too short on screen or no
        spot is free. The focus's edges choose first, then the shorter edges."""
        to_screen = self.canvas.viewportTransform()
        obstacles = []
        for node in self.nodes.values():
            if node.isVisible():
                for part, rect in ((node, node.outline().boundingRect()), (node.label, None)):
                    box = part.deviceTransform(to_screen).mapRect(rect or part.boundingRect())
                    obstacles.append((box.left(), box.top(), box.right(), box.bottom()))
        focus = self.highlighted | ({self.selected} if self.selected else set())
        requests = []
        for key, item in self.edge_items.items():
            if item.label is None:
                continue
            item.label.setVisible(False)
            if item.length * scale - 2.4 * NODE_R * size < item.label.rect.width():
                continue  # too short on screen to hold its label
            ends = (item.ends[0], item.control, item.ends[1])
            start, control, end = (to_screen.map(QPointF(*p)) for p in ends)
            r = item.label.rect
            priority = (not item.edge.touches(focus), item.length)
            requests.append(
                (
                    priority,
                    LabelRequest(
                        key,
                        (start.x(), start.y()),
                        (control.x(), control.y()),
                        (end.x(), end.y()),
                        (r.left(), r.top(), r.right(), r.bottom()),
                    ),
                )
            )
        requests.sort(key=lambda pair: pair[0])
        spots = place_labels([request for _p, request in requests], obstacles)
        for key, t in spots.items():
            if t is not None:
                label = self.edge_items[key].label
                label.setPos(*self.edge_items[key].point_at(t))
                label.setVisible(True)
