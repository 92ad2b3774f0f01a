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

Step 2 runs twice: with the depth test off and blended at `XRAY_ALPHA` (each
pixel once: the stencil marks it), then solid with the depth test on (the
shifted copies keep their body's depth, pulled forward by a small polygon
offset): the band is solid where nothing hides the body and faded where
something opaque is in front of it (the selection, clicked where it shows, has
only the solid pass). Heavy meshes draw their band from a decimated copy
(`outline_proxy`), front faces only. Body by body (the stencil is cleared in
between), so two evidence objects, one partly under the other, each get their
own outline.

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
from widgets.viewport.mesh_cache import Geometry, unit_cylinder, unit_sphere

DARK = (0.08, 0.08, 0.1)
OUTLINE_DEPTH = 20  # after the opaque (0) and see-through (10) items
MARKER_DEPTH = 30
XRAY_ALPHA = 0.45  # the band where something opaque hides the body
DEPTH_BIAS_UNITS = 150.0  # the band has its body's depth, pulled forward ~7 mm at 1 m
PROXY_ABOVE = 400  # shapes with more triangles draw their band from a lighter copy
PROXY_TRIANGLES = 250
DIRECTIONS = tuple((math.cos(k * math.pi / 4), math.sin(k * math.pi / 4)) for k in range(8))


@dataclass(frozen=True)
class OutlineStyle:
    colour: tuple[float, float, float]
    width_px: float  # the bright band
    rim_px: float = 1.5  # the dark rim outside it
    xray: bool = True  # also faded where something opaque hides the body


EVIDENCE = OutlineStyle((0.0, 0.85, 1.0), 3.0)  # cyan: evidence, hints
SELECTION = OutlineStyle((1.0, 0.5, 0.0), 4.5, xray=False)  # orange, wider: the selected body
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
        rim, inner = style.width_px + style.rim_px, style.width_px
        GL.glDisable(GL.GL_CULL_FACE)
        GL.glDepthMask(GL.GL_FALSE)
        GL.glEnable(GL.GL_STENCIL_TEST)
        GL.glStencilMask(0xFF)
        GL.glClearStencil(0)
        GL.glBlendFunc(GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA)
        GL.glDepthFunc(GL.GL_LEQUAL)
        GL.glPolygonOffset(0.0, -DEPTH_BIAS_UNITS)  # no slope term: edge-on faces are steep
        try:
            # One body at a time: a body under another gets its own outline over it.
            for shapes in bodies.values():
                # Where something opaque is in front of the body, the band is faded
                # (x-ray): each pixel blended once (the stencil marks it), the colour
                # band first and the rim outside it ...
                GL.glDisable(GL.GL_DEPTH_TEST)
                if style.xray:
                    _stencil_silhouette(resources, shapes)
                    GL.glEnable(GL.GL_BLEND)
                    GL.glStencilFunc(GL.GL_EQUAL, 0, 0xFF)
                    GL.glStencilOp(GL.GL_KEEP, GL.GL_KEEP, GL.GL_INCR)
                    passes = ((style.colour, (inner,)), (DARK, (rim,)))
                    _band(resources, shapes, passes, width, height, XRAY_ALPHA)
                # ... and solid where nothing is (the band has its body's depth, biased)
                GL.glDisable(GL.GL_BLEND)
                _stencil_silhouette(resources, shapes)
                GL.glStencilFunc(GL.GL_NOTEQUAL, 1, 0xFF)
                GL.glStencilOp(GL.GL_KEEP, GL.GL_KEEP, GL.GL_KEEP)
                GL.glEnable(GL.GL_DEPTH_TEST)
                GL.glEnable(GL.GL_POLYGON_OFFSET_FILL)
                passes = ((DARK, (rim,)), (style.colour, (inner, inner / 2)))
                _band(resources, shapes, passes, width, height, 1.0)
                GL.glDisable(GL.GL_POLYGON_OFFSET_FILL)
        finally:
            GL.glColorMask(GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE)
            GL.glDisable(GL.GL_STENCIL_TEST)
            GL.glDisable(GL.GL_POLYGON_OFFSET_FILL)
            GL.glDisable(GL.GL_BLEND)
            GL.glDepthFunc(GL.GL_LESS)
            GL.glEnable(GL.GL_DEPTH_TEST)
            GL.glDepthMask(GL.GL_TRUE)


def _stencil_silhouette(resources, shapes) -> None:
    """The stencil: 1 on the shapes' whole silhouette (whatever hides them), 0 elsewhere."""
    GL.glClear(GL.GL_STENCIL_BUFFER_BIT)
    GL.glColorMask(GL.GL_FALSE, GL.GL_FALSE, GL.GL_FALSE, GL.GL_FALSE)
    depth_test = GL.glIsEnabled(GL.GL_DEPTH_TEST)
    GL.glDisable(GL.GL_DEPTH_TEST)
    GL.glStencilFunc(GL.GL_ALWAYS, 1, 0xFF)
    GL.glStencilOp(GL.GL_KEEP, GL.GL_KEEP, GL.GL_REPLACE)
    for geometry, mvp, modelview in shapes:
        draw_geometry(resources, geometry, mvp, modelview, cull=not geometry.two_sided)
    if depth_test:
        GL.glEnable(GL.GL_DEPTH_TEST)
    GL.glColorMask(GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE, GL.GL_TRUE)


def _band(resources, shapes, passes, width: float, height: float, alpha: float) -> None:
    """The shapes unlit, shifted by each radius (pixels) in eight directions, per colour."""
    for colour, radii in passes:
        shifts = [(2 * r * dx / width, 2 * r * dy / height) for r in radii for dx, dy in DIRECTIONS]
        for geometry, mvp, modelview in shapes:
            proxy = outline_proxy(geometry)  # a closed mesh's front faces cover its silhouette
            draw_geometry(
                resources,
                proxy,
                mvp,
                modelview,
                flat=(*colour, 1.0),
                alpha=alpha,
                shifts=shifts,
                cull=not proxy.two_sided,
            )


_proxies: dict[int, tuple[Geometry, Geometry]] = {}


def outline_proxy(geometry: Geometry) -> Geometry:
    """`geometry`, or for a heavy mesh (a robot link) a copy decimated to about
    `PROXY_TRIANGLES` (once per geometry and process): a band is that shape drawn some
    twenty times, and its edge moves by a fraction of a pixel."""
    if geometry.triangle_count <= PROXY_ABOVE:
        return geometry
    found = _proxies.get(id(geometry))
    if found is None or found[0] is not geometry:
        import open3d as o3d

        mesh = o3d.geometry.TriangleMesh(
            o3d.utility.Vector3dVector(geometry.vertices.astype(np.float64)),
            o3d.utility.Vector3iVector(geometry.faces.astype(np.int32)),
        )
        mesh.merge_close_vertices(1e-7)
        light = mesh.simplify_quadric_decimation(PROXY_TRIANGLES)
        light.compute_vertex_normals()
        proxy = Geometry(
            np.ascontiguousarray(light.vertices, dtype=np.float32),
            np.ascontiguousarray(light.vertex_normals, dtype=np.float32),
            np.ascontiguousarray(light.triangles, dtype=np.uint32),
        )
        found = _proxies[id(geometry)] = (geometry, proxy if len(proxy.faces) else geometry)
    return found[1]


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
                        resources,
                        geometry,
                        projection * modelview,
                        modelview,
                        flat=(*colour, 1.0),
                    )
        finally:
            GL.glEnable(GL.GL_DEPTH_TEST)
            GL.glDepthMask(GL.GL_TRUE)
