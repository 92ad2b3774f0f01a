"""What the 3D viewport draws over the bodies: outlines (evidence, selection) and a marker.

An outline marks bodies without touching their colours (a "yellow cube" stays
yellow): a band of a few pixels around their silhouette, in a bright colour
with a thin dark rim, so it shows on the white table and on any object. It is
drawn after everything else, with the stencil buffer:

1. a body's whole silhouette goes into the stencil only (depth test off, so a
   body hidden under another is outlined where it is, over what hides it);
2. the same silhouette, unlit in the rim colour and shifted on screen by the
   band's width in eight directions, then in the outline colour a little less
   far, is drawn where the stencil is empty: outside the body.

Body by body (the stencil is cleared in between), so two evidence objects, one
partly under the other, each get their own outline.

The union of the shifted copies is the silhouette grown by the band's width,
so the band follows any shape, concave or thin. The band's width is in
pixels at any zoom. A marker (a point of interest: a Find answer's point) is a
dot with a dark rim at a 3D point and a pin, drawn over everything at a fixed
size on screen.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from OpenGL import GL
from pyqtgraph.opengl.GLGraphicsItem import GLGraphicsItem

from widgets.viewport.gl_objects import draw_geometry
from widgets.viewport.items import ShapeItem
from widgets.viewport.mesh_cache import unit_cylinder, unit_sphere

DARK = (0.08, 0.08, 0.1)
OUTLINE_DEPTH = 20  # after the opaque (0) and see-through (10) items
MARKER_DEPTH = 30
DIRECTIONS = tuple((math.cos(k * math.pi / 4), math.sin(k * math.pi / 4)) for k in range(8))


@dataclass(frozen=True)
class OutlineStyle:
    colour: tuple[float, float, float]
    width_px: float  # the bright band
    rim_px: float = 1.5  # the dark rim outside it


EVIDENCE = OutlineStyle((0.0, 0.85, 1.0), 3.0)  # cyan: evidence, hints
SELECTION = OutlineStyle((1.0, 0.5, 0.0), 4.5)  # orange, wider: the selected body
MARKER_COLOUR = (1.0, 0.1, 0.85)  # magenta: a point of interest (a Find answer's point)


class OutlineItem(GLGraphicsItem):
    """A band of `style` around the silhouettes of some `ShapeItem`s (none: nothing)."""

    def __init__(self, style: OutlineStyle, depth: float = OUTLINE_DEPTH) -> None:
        super().__init__()
        self.style = style
        self.targets: list[ShapeItem] = []
        self.setDepthValue(depth)

    def set_targets(self, items: Sequence[ShapeItem]) -> None:
        self.targets = list(items)
        self.update()

    def paint(self) -> None:
        view = self.view()
        if view is None or not self.targets or not hasattr(view, "gl_resources"):
            return
        resources = view.gl_resources()
        projection, base = view.currentProjection(), view.currentModelView()
        bodies: dict[str, list] = {}
        for target in self.targets:
            modelview = base * target.transform()
            bodies.setdefault(target.body_key, []).append(
                (target.geometry, projection * modelview, modelview)
            )
        _, _, width, height = view.getViewport()
        style = self.style
        passes = (
            (DARK, (style.width_px + style.rim_px,)),
            (style.colour, (style.width_px, style.width_px / 2)),
        )
        GL.glDisable(GL.GL_BLEND)
        GL.glDisable(GL.GL_DEPTH_TEST)
        GL.glDisable(GL.GL_CULL_FACE)
        GL.glDepthMask(GL.GL_FALSE)
        GL.glEnable(GL.GL_STENCIL_TEST)
        GL.glStencilMask(0xFF)
        GL.glClearStencil(0)
        try:
            # One body at a time: a body under another gets its own outline over it.
            for shapes in bodies.values():
                GL.glClear(GL.GL_STENCIL_BUFFER_BIT)
                GL.glColorMask(GL.GL_FALSE, GL.GL_FALSE, GL.GL_FALSE, GL.GL_FALSE)
                GL.glStencilFunc(GL.GL_ALWAYS, 1, 0xFF)
                GL.glStencilOp(GL.GL_KEEP, GL.GL_KEEP, GL.GL_REPLACE)
                for geometry, mvp, modelview in shapes:
                    draw_geometry(resources, geometry, mvp, modelview)
                GL.glColorMask(GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE)
                GL.glStencilFunc(GL.GL_NOTEQUAL, 1, 0xFF)
                GL.glStencilOp(GL.GL_KEEP, GL.GL_KEEP, GL.GL_KEEP)
                for colour, radii in passes:
                    for radius in radii:
                        for dx, dy in DIRECTIONS:
                            shift = (2 * radius * dx / width, 2 * radius * dy / height)
                            for geometry, mvp, modelview in shapes:
                                draw_geometry(
                                    resources, geometry, mvp, modelview,
                                    flat=(*colour, 1.0), shift=shift,
                                )  # fmt: skip
        finally:
            GL.glColorMask(GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE)
            GL.glDisable(GL.GL_STENCIL_TEST)
            GL.glEnable(GL.GL_DEPTH_TEST)
            GL.glDepthMask(GL.GL_TRUE)


def _segment_matrix(start: np.ndarray, end: np.ndarray, radius: float) -> np.ndarray:
    """The transform of the unit cylinder (radius 1, length 1 along z, centred) onto a segment."""
    axis = end - start
    length = float(np.linalg.norm(axis))
    z = axis / length if length > 1e-9 else np.array([0.0, 0.0, 1.0])
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    m = np.eye(4)
    m[:3, :3] = np.c_[x * radius, y * radius, z * max(length, 1e-9)]
    m[:3, 3] = (start + end) / 2
    return m


class MarkerItem(GLGraphicsItem):
    """A dot at a 3D point and a pin (a segment), over everything, the same size on screen."""

    DOT_PX, PIN_PX, RIM_PX = 6.0, 1.6, 1.6

    def __init__(self, depth: float = MARKER_DEPTH) -> None:
        super().__init__()
        self.point: np.ndarray | None = None
        self.pin: tuple[np.ndarray, np.ndarray] | None = None
        self.setDepthValue(depth)

    def set_point(self, point, pin=None) -> None:
        """Mark `point` (None clears); `pin` (start, end) draws a segment too."""
        self.point = None if point is None else np.asarray(point, dtype=float)
        self.pin = None if pin is None else tuple(np.asarray(p, dtype=float) for p in pin)
        self.update()

    def _parts(self, view, grow_px: float) -> list[tuple[object, np.ndarray]]:
        px = float(view.pixelSize(pg.Vector(*self.point)))  # world units per pixel there
        parts = []
        if self.pin is not None:
            radius = (self.PIN_PX + grow_px) * px
            parts.append((unit_cylinder(), _segment_matrix(*self.pin, radius)))
        dot = np.diag([(self.DOT_PX + grow_px) * px] * 3 + [1.0])
        dot[:3, 3] = self.point
        parts.append((unit_sphere(), dot))
        return parts

    def paint(self) -> None:
        view = self.view()
        if view is None or self.point is None or not hasattr(view, "gl_resources"):
            return
        resources = view.gl_resources()
        projection, base = view.currentProjection(), view.currentModelView()
        GL.glDisable(GL.GL_BLEND)
        GL.glDisable(GL.GL_DEPTH_TEST)  # a point under a pile still shows
        GL.glDepthMask(GL.GL_FALSE)
        try:
            for colour, grow in ((DARK, self.RIM_PX), (MARKER_COLOUR, 0.0)):
                for geometry, matrix in self._parts(view, grow):
                    modelview = base * pg.Transform3D(matrix)
                    draw_geometry(
                        resources, geometry, projection * modelview, modelview,
                        flat=(*colour, 1.0),
                    )  # fmt: skip
        finally:
            GL.glEnable(GL.GL_DEPTH_TEST)
            GL.glDepthMask(GL.GL_TRUE)
