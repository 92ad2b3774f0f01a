"""The GL side of the 3D viewport: one lit, optionally textured item per visual shape.

pyqtgraph's `GLMeshItem` recomputes vertex normals in a Python loop and its
built-in "shaded" light sits behind the camera (faces towards the viewer come
out dark), so the viewport draws its shapes with `ShapeItem`, a small
`GLGraphicsItem` with its own shader: two lights fixed to the camera, two-sided
lighting and a per-item alpha (see-through clutter); `widgets.viewport.gl_objects`
holds the GL objects and the draw call. `SceneGLView` is the GL widget: it tells
clicks from drags and orbits at `ORBIT_DEG_PER_PX`.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from pyqtgraph.opengl.GLGraphicsItem import GLGraphicsItem
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QOpenGLContext

from widgets.viewport.gl_objects import WHITE, GLResources, draw_geometry, shared_gl
from widgets.viewport.mesh_cache import Geometry

OPAQUE = {
    GL.GL_DEPTH_TEST: True,
    GL.GL_BLEND: False,
    GL.GL_CULL_FACE: False,
    "glDepthMask": (GL.GL_TRUE,),
}
# See-through items are drawn after the opaque ones and do not write depth, so
# whatever is behind them (the evidence) still shows.
TRANSLUCENT = {
    GL.GL_DEPTH_TEST: True,
    GL.GL_BLEND: True,
    GL.GL_CULL_FACE: False,
    "glBlendFuncSeparate": (
        GL.GL_SRC_ALPHA,
        GL.GL_ONE_MINUS_SRC_ALPHA,
        GL.GL_ONE,
        GL.GL_ONE_MINUS_SRC_ALPHA,
    ),
    "glDepthMask": (GL.GL_FALSE,),
}
TRANSLUCENT_DEPTH = 10  # pyqtgraph draws items in increasing depth value

BACKGROUND = (205, 212, 222)
CLICK_SLOP_PX = 4  # a press and release closer than this is a click, not a drag
# pyqtgraph turns the camera one degree per pixel dragged: a short flick of the mouse
# spun the table round. A 100 px drag turns 35 degrees.
ORBIT_DEG_PER_PX = 0.35


class ShapeItem(GLGraphicsItem):
    """One visual shape of one body, drawn lit; its transform comes from the simulator."""

    def __init__(
        self,
        geometry: Geometry,
        *,
        body_key: str,
        color: tuple[float, float, float, float],
        use_vertex_colors: bool = False,
        texture_key: str | None = None,
        texture_image: np.ndarray | None = None,
    ) -> None:
        super().__init__()
        self.geometry = geometry
        self.body_key = body_key
        self.base_color = tuple(float(c) for c in color)
        self.use_vertex_colors = bool(use_vertex_colors and geometry.colors is not None)
        textured = texture_key is not None and texture_image is not None
        self.texture_key = texture_key if textured and geometry.uv is not None else None
        self.texture_image = texture_image if self.texture_key else None
        self.alpha = 1.0
        self.setGLOptions(OPAQUE)

    # -- appearance ---------------------------------------------------------------
    @property
    def translucent(self) -> bool:
        return self.alpha < 1.0 or self.base_color[3] < 1.0

    def set_style(self, *, alpha: float = 1.0) -> None:
        """See-through factor (1 opaque). Selection and evidence are outlines around the
        item (`widgets.viewport.overlay`): its own colours never change."""
        self.alpha = float(min(1.0, max(0.0, alpha)))
        self.setGLOptions(TRANSLUCENT if self.translucent else OPAQUE)
        self.setDepthValue(TRANSLUCENT_DEPTH if self.translucent else 0)
        self.update()

    def effective_color(self) -> tuple[float, float, float, float]:
        """The unlit colour drawn (uniform colour, or the tint over the mesh's own colours)."""
        r, g, b, a = self.base_color
        return (r, g, b, a * self.alpha)

    # -- painting -----------------------------------------------------------------
    def paint(self) -> None:
        view = self.view()
        if view is None or not hasattr(view, "gl_resources"):
            return
        self.setupGLState()
        textured = self.texture_key is not None
        try:
            draw_geometry(
                view.gl_resources(),
                self.geometry,
                self.mvpMatrix(),
                self.modelViewMatrix(),
                color=self.base_color,
                vertex_colors=self.use_vertex_colors,
                tint=self.base_color if self.use_vertex_colors else WHITE,
                alpha=self.alpha,
                texture=(self.texture_key, self.texture_image) if textured else None,
                # Closed meshes never show their back faces: skipping them halves the
                # rasteriser's work (Mesa's is software here). Transparent items keep
                # both sides, so the far side shows through.
                cull=self.alpha >= 1.0 and not self.geometry.two_sided,
            )
        finally:
            if self.translucent:
                GL.glDepthMask(GL.GL_TRUE)  # the next frame's clear must reach the depth buffer


class SceneGLView(gl.GLViewWidget):
    """GLViewWidget that tells clicks from drags and keeps its GL objects per context."""

    clicked = Signal(QPointF)
    camera_moved = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setBackgroundColor(BACKGROUND)
        self._press: QPointF | None = None
        self._resources: GLResources | None = None

    def gl_resources(self) -> GLResources:
        context = QOpenGLContext.currentContext()
        if self._resources is None or self._resources.context is not context:
            # A new context (first paint, or Qt recreated it): its own vertex arrays,
            # which clean themselves up with it; shared objects stay with the group.
            self._resources = GLResources(context, shared_gl(context))
        return self._resources

    def paint(self, **kwargs) -> None:
        GL.glDepthMask(GL.GL_TRUE)  # in case a translucent item left depth writes off
        super().paint(**kwargs)

    def mousePressEvent(self, ev) -> None:
        self._press = ev.position() if ev.button() == Qt.MouseButton.LeftButton else None
        super().mousePressEvent(ev)

    def mouseMoveEvent(self, ev) -> None:
        if self._press is not None:
            d = ev.position() - self._press
            if abs(d.x()) + abs(d.y()) < CLICK_SLOP_PX:
                return  # not a drag yet: keep the camera still
            self._press = None
        orbiting = ev.buttons() == Qt.MouseButton.LeftButton and not (
            ev.modifiers() & Qt.KeyboardModifier.ControlModifier
        )
        if not orbiting:
            super().mouseMoveEvent(ev)  # panning (middle or Ctrl+left drag) as pyqtgraph does
            return
        pos = ev.position()
        last = getattr(self, "mousePos", pos)
        self.mousePos = pos
        d = pos - last
        self.orbit(-d.x() * ORBIT_DEG_PER_PX, d.y() * ORBIT_DEG_PER_PX)

    def mouseReleaseEvent(self, ev) -> None:
        press, self._press = self._press, None
        if press is not None and ev.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(ev.position())
        super().mouseReleaseEvent(ev)

    # Every user gesture (drag, arrow keys, wheel) ends in one of these.
    def orbit(self, azim, elev) -> None:
        super().orbit(azim, elev)
        self.camera_moved.emit()

    def pan(self, dx, dy, dz, relative="global") -> None:
        super().pan(dx, dy, dz, relative)
        self.camera_moved.emit()

    def wheelEvent(self, ev) -> None:
        super().wheelEvent(ev)
        self.camera_moved.emit()
