"""The 3D scene viewport: a pyqtgraph GL view of a simulated world.

One GL item per PyBullet visual shape; each frame only the items' transforms
change, computed from the simulator's link frames (`sim.visuals.link_frames`:
URDF frames, the base's centre of mass composed with its inverse inertial
frame) times the shape's local frame times its scale. Camera presets reproduce
the world's `CameraSpec`s; a click casts a ray through the simulator to pick a
body. The widget never imports PyBullet: everything goes through `sim` objects.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable, Iterable

import numpy as np
import pyqtgraph as pg
import pyqtgraph.opengl as gl
from PySide6.QtCore import QCoreApplication, QPointF, Qt, Signal, Slot
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QVBoxLayout, QWidget

from sim.camera import CameraSpec
from sim.tabletop.world import OBLIQUE, TOP_DOWN, TabletopWorld
from sim.visuals import VisualShape, link_frames, pick, shape_world_matrix, visual_shapes
from widgets.viewport.camera import ViewParams, click_ray, spec_from_view_params
from widgets.viewport.camera import view_params_from_spec as params_from_spec
from widgets.viewport.items import SceneGLView, ShapeItem
from widgets.viewport.live import LiveSimulation
from widgets.viewport.mesh_cache import is_white, load_mesh, load_texture_image, shape_geometry
from widgets.viewport.overlay import (
    EVIDENCE,
    OUTLINE_DEPTH,
    SELECTION,
    MarkerItem,
    OutlineItem,
)

log = logging.getLogger(__name__)

# pyqtgraph keeps shader programs per process: every GL widget must share one
# context group, which Qt allows only if asked before the application exists.
if QCoreApplication.instance() is None:
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)

PRESETS = {"top_down": TOP_DOWN, "oblique": OBLIQUE}
# "free": an overview of table and robot from the front right; the user orbits from there.
FREE_VIEW = ViewParams(
    center=(0.05, 0.0, 0.66), distance=1.45, elevation=38.0, azimuth=35.0, fov=50.0
)


class SceneViewport(QWidget):
    """Interactive 3D view of a `TabletopWorld`: orbit, presets, click-to-select, live physics."""

    body_selected = Signal(str)  # a click picked this body ("" for none)
    camera_preset_changed = Signal(str)
    live_changed = Signal(bool)

    def __init__(
        self,
        world: TabletopWorld | None = None,
        parent: QWidget | None = None,
        *,
        background_keys: Iterable[str] = ("floor",),
        texture_loader: Callable[[str], np.ndarray | None] = load_texture_image,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("scene_viewport")
        self._view = SceneGLView(self)
        self._view.setObjectName("scene_viewport_gl")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._view)
        self._background = frozenset(background_keys)
        self._texture_loader = texture_loader
        self._world: TabletopWorld | None = None
        self._shapes: list[tuple[VisualShape, ShapeItem, np.ndarray]] = []
        self._items: dict[str, list[ShapeItem]] = {}
        self._selected = ""
        self._highlighted: frozenset[str] = frozenset()
        self._alpha: dict[str, float] = {}
        self._preset = "free"
        self._generation = 0
        self._live: LiveSimulation | None = None
        # The destroyed signal fires when `self` is already gone: its handler reaches
        # the running simulation through this list, not through `self`.
        self._holder: list[LiveSimulation | None] = [None]
        # Evidence and selection are outlines round the bodies (their colours stay);
        # the marker is a point of interest. These items outlive every world.
        self.evidence_outline = OutlineItem(EVIDENCE)
        self.selection_outline = OutlineItem(SELECTION, OUTLINE_DEPTH + 1)
        self.marker = MarkerItem()
        for item in (self.evidence_outline, self.selection_outline, self.marker):
            self._view.addItem(item)
        self._view.clicked.connect(self._on_clicked)
        self._view.camera_moved.connect(self._on_camera_moved)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self._stop_live)
        self.destroyed.connect(functools.partial(_stop_quietly, self._holder))
        self.set_camera_preset("free")
        if world is not None:
            self.set_world(world)

    # -- world and items ---------------------------------------------------------------
    @property
    def world(self) -> TabletopWorld | None:
        return self._world

    @property
    def gl_view(self) -> gl.GLViewWidget:
        return self._view

    def set_world(self, world: TabletopWorld | None) -> None:
        """Show `world` (None: an empty view); builds one item per visual shape."""
        was_live = self.is_live
        self._stop_live()
        self._clear_items()
        self._world = world
        self._generation += 1
        self._selected = ""
        self._highlighted = frozenset()
        self._alpha = {}
        self.set_marker(None)
        self._restyle()
        if world is None:
            return
        with world.lock:
            shapes = visual_shapes(world)
        for shape in shapes:
            made = self._make_item(shape)
            if made is None:
                continue
            item, scale = made
            self._shapes.append((shape, item, scale))
            self._items.setdefault(shape.body_key, []).append(item)
            self._view.addItem(item)
        self._restyle()
        self.sync()
        if was_live:
            self.set_live(True)

    def _make_item(self, shape: VisualShape) -> tuple[ShapeItem, np.ndarray] | None:
        texture_key = shape.texture
        image = self._texture_loader(texture_key) if texture_key else None
        geometry, scale = shape_geometry(shape, textured=image is not None)
        if geometry is None:
            log.info("no geometry for %s link %d (%s)", shape.body_key, shape.link, shape.geometry)
            return None
        if image is None and geometry.texture is not None:
            texture_key, image = f"mesh:{shape.mesh_path}", geometry.texture
        # Meshes keep their materials' colours unless the body was given a colour;
        # PyBullet multiplies textures by the colour, and so do we (the item's tint).
        vertex_colors = geometry.colors is not None and (is_white(shape.rgba) or geometry.textured)
        item = ShapeItem(
            geometry,
            body_key=shape.body_key,
            color=shape.rgba,
            use_vertex_colors=vertex_colors,
            texture_key=texture_key,
            texture_image=image,
        )
        if shape.rgba[3] < 1.0:
            item.set_style()
        return item, np.diag([*scale, 1.0])

    def _clear_items(self) -> None:
        for _, item, _ in self._shapes:
            self._view.removeItem(item)
        self._shapes = []
        self._items = {}

    def items(self) -> list[ShapeItem]:
        """Every GL item, one per drawn visual shape, in `visual_shapes` order."""
        return [item for _, item, _ in self._shapes]

    def items_for(self, key: str) -> list[ShapeItem]:
        return list(self._items.get(key, []))

    # -- transforms --------------------------------------------------------------------
    def sync(self) -> None:
        """Move every item to where the simulator has its link now."""
        if self._world is None:
            return
        with self._world.lock:
            frames = link_frames(self._world)
        self.apply_frames(frames)

    def apply_frames(self, frames) -> None:
        """Set item transforms from {(uid, link): (position, orientation)} (link URDF frames)."""
        for shape, item, scale in self._shapes:
            if (shape.body_uid, shape.link) not in frames:
                continue
            item.setTransform(pg.Transform3D(shape_world_matrix(shape, frames) @ scale))

    # -- camera -----------------------------------------------------------------------
    @property
    def camera_preset(self) -> str:
        """The active preset: "top_down", "oblique" or "free" (also once the user moved it)."""
        return self._preset

    def set_camera_preset(self, name: str) -> None:
        if name not in (*PRESETS, "free"):
            raise ValueError(f"unknown camera preset {name!r}; known: top_down, oblique, free")
        self._preset = name
        self._apply_preset()
        self.camera_preset_changed.emit(name)

    def _apply_preset(self) -> None:
        if self._preset == "free":
            params = FREE_VIEW
        else:
            w, h = self._size()
            params = params_from_spec(PRESETS[self._preset], width=w, height=h)
        self._set_params(params)

    def set_view_params(self, params: ViewParams) -> None:
        """Put the camera exactly there; the preset becomes "free"."""
        self._set_params(params)
        self._on_camera_moved()

    def _set_params(self, params: ViewParams) -> None:
        self._view.setCameraParams(
            center=pg.Vector(*params.center),
            distance=params.distance,
            elevation=params.elevation,
            azimuth=params.azimuth,
            fov=params.fov,
        )

    def view_params(self) -> ViewParams:
        p = self._view.cameraParams()
        c = p["center"]
        return ViewParams(
            (c.x(), c.y(), c.z()), p["distance"], p["elevation"], p["azimuth"], p["fov"]
        )

    def camera_spec(self) -> CameraSpec:
        """The camera the view shows now, as a sim `CameraSpec` at the widget's size."""
        w, h = self._size()
        return spec_from_view_params(self.view_params(), width=w, height=h)

    def _size(self) -> tuple[int, int]:
        return max(1, self._view.width()), max(1, self._view.height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._preset != "free":
            self._apply_preset()  # keep the preset's vertical field of view at any aspect

    @Slot()
    def _on_camera_moved(self) -> None:
        if self._preset != "free":
            self._preset = "free"
            self.camera_preset_changed.emit("free")

    # -- picking and selection -----------------------------------------------------------
    def body_at(self, x: float, y: float) -> str:
        """The body under widget point (x, y) ("" for none or the floor), by a simulator ray."""
        if self._world is None:
            return ""
        w, h = self._size()
        origin, direction = click_ray(self.view_params(), width=w, height=h, x=x, y=y)
        with self._world.lock:
            key = pick(self._world, origin, direction, length=100.0)
        return "" if key is None or key in self._background else key

    @Slot(QPointF)
    def _on_clicked(self, pos: QPointF) -> None:
        # Qt reports the pixel's corner; the ray goes through its centre.
        key = self.body_at(math.floor(pos.x()) + 0.5, math.floor(pos.y()) + 0.5)
        self.select(key)
        self.body_selected.emit(key)

    @property
    def selected_key(self) -> str:
        return self._selected

    def select(self, key: str | None) -> None:
        """Select (outline in orange) a body without emitting `body_selected`; "" clears."""
        key = key or ""
        if key and key not in self._items:
            raise KeyError(f"no body {key!r} in the viewport")
        self._selected = key
        self._restyle()

    def set_highlight(self, keys: Iterable[str]) -> None:
        """Outline these bodies in cyan (evidence, hints); replaces the previous highlight."""
        self._highlighted = frozenset(keys)
        self._restyle()

    @property
    def highlighted_keys(self) -> frozenset[str]:
        return self._highlighted

    def set_transparent(self, keys: Iterable[str], alpha: float = 0.25) -> None:
        """Draw these bodies see-through with `alpha` (others keep theirs)."""
        for key in keys:
            self._alpha[key] = float(alpha)
        self._restyle()

    def clear_transparency(self) -> None:
        self._alpha = {}
        self._restyle()

    def alpha_of(self, key: str) -> float:
        return self._alpha.get(key, 1.0)

    def _restyle(self) -> None:
        for key, items in self._items.items():
            for item in items:
                item.set_style(alpha=self._alpha.get(key, 1.0))
        evidence = self._highlighted - {self._selected}
        self.evidence_outline.set_targets([i for k in sorted(evidence) for i in self.items_for(k)])
        self.selection_outline.set_targets(self.items_for(self._selected))

    def set_marker(self, point, pin=None) -> None:
        """Mark a world point with a magenta dot drawn over everything (None clears);
        `pin` (start, end): a segment with it, e.g. the line of sight through it."""
        self.marker.set_point(point, pin)

    @property
    def marked_point(self) -> np.ndarray | None:
        return self.marker.point

    # -- live physics -------------------------------------------------------------------
    @property
    def is_live(self) -> bool:
        return self._live is not None and self._live.running

    @property
    def live_thread(self):
        """The QThread stepping the world while live, else None (diagnostics, tests)."""
        return self._live.thread if self._live is not None else None

    def set_live(self, live: bool) -> None:
        """Step the world continuously in a worker thread (True) or stop (False)."""
        if live and self._world is not None and not self.is_live:
            self._live = LiveSimulation(self._world, self._generation, self._on_live_frames)
            self._holder[0] = self._live
            self.live_changed.emit(True)
        elif not live and self._live is not None:
            self._stop_live()

    @Slot()
    def _stop_live(self) -> None:
        live, self._live = self._live, None
        self._holder[0] = None
        if live is not None:
            live.stop()
            self.live_changed.emit(False)

    @Slot(object)
    def _on_live_frames(self, payload) -> None:
        generation, frames = payload
        if generation == self._generation and self._live is not None:
            self.apply_frames(frames)
            self._live.frame_consumed()

    def closeEvent(self, event) -> None:
        self._stop_live()
        super().closeEvent(event)

    # -- pixels ---------------------------------------------------------------------------
    def snapshot(self) -> np.ndarray:
        """The view as RGB pixels (H, W, 3) uint8, rendered now."""
        image = self._view.grabFramebuffer().convertToFormat(QImage.Format.Format_RGBA8888)
        w, h = image.width(), image.height()
        data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
        rows = data.reshape(h, image.bytesPerLine())[:, : 4 * w]
        return rows.reshape(h, w, 4)[:, :, :3].copy()


def preload_meshes(world: TabletopWorld) -> int:
    """Read every mesh `world` uses into the process-wide cache; returns how many.

    Thread-safe and Qt-free: run it off the GUI thread (a TaskRunner) before the
    first `set_world`, which otherwise reads (and simplifies) them itself.
    """
    with world.lock:
        paths = {s.mesh_path for s in visual_shapes(world) if s.geometry == "mesh" and s.mesh_path}
    return sum(load_mesh(path) is not None for path in sorted(paths))


def _stop_quietly(holder: list, *_args) -> None:
    live = holder[0]
    holder[0] = None
    if live is not None:
        live.stop()
