"""The GL side of the 3D viewport: one lit, optionally textured item per visual shape.

pyqtgraph's `GLMeshItem` recomputes vertex normals in a Python loop and its
built-in "shaded" light sits behind the camera (faces towards the viewer come
out dark), so the viewport draws its shapes with `ShapeItem`, a small
`GLGraphicsItem` with its own shader: two lights fixed to the camera, two-sided
lighting, a per-item alpha (see-through clutter) and an emissive colour
(selection and highlight).

GL objects: the program, vertex buffers and textures live in a `SharedGL`,
process-wide when the contexts share (every box uses the unit cube's buffers,
a mesh is uploaded once); vertex array objects, which contexts cannot share,
live in a `GLResources` per view and context, rebuilt if Qt ever gives the
view a new context.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from OpenGL.GL import shaders
from pyqtgraph.opengl.GLGraphicsItem import GLGraphicsItem
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QOpenGLContext
from PySide6.QtOpenGL import QOpenGLBuffer, QOpenGLVertexArrayObject

from widgets.viewport.mesh_cache import Geometry
from widgets.viewport.shaders import ATTRIBUTES, FRAGMENT, UNIFORMS, VERTEX

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

NO_EMISSION = (0.0, 0.0, 0.0, 0.0)
HIGHLIGHT_EMISSION = (0.15, 0.85, 1.0, 0.45)  # cyan glow: evidence, hints
SELECTION_EMISSION = (1.0, 0.55, 0.0, 0.62)  # orange glow: the selected body


@dataclass
class _Program:
    id: int
    uniforms: dict[str, int]


@dataclass
class _Buffers:
    geometry: Geometry  # held so that its id() is not reused while the buffers live
    position: QOpenGLBuffer
    normal: QOpenGLBuffer
    color: QOpenGLBuffer | None
    uv: QOpenGLBuffer | None
    index: QOpenGLBuffer
    count: int


def _upload(data: np.ndarray, kind=QOpenGLBuffer.Type.VertexBuffer) -> QOpenGLBuffer:
    buffer = QOpenGLBuffer(kind)
    buffer.create()
    buffer.bind()
    data = np.ascontiguousarray(data)
    buffer.allocate(data, data.nbytes)
    buffer.release()
    return buffer


@dataclass
class SharedGL:
    """GL objects that every context of one share group can use: program, buffers, textures.

    With Qt's AA_ShareOpenGLContexts (set by `widgets.viewport.view` before the
    application exists) all viewports share one group: a mesh is uploaded once
    per process and lives as long as the process. Textures are plain GL names
    (QOpenGLTexture warns when collected without a current context).
    """

    program: _Program | None = None
    buffers: dict[int, _Buffers] = field(default_factory=dict)
    textures: dict[str, tuple[int, np.ndarray]] = field(default_factory=dict)

    def get_program(self, context: QOpenGLContext) -> _Program:
        if self.program is None:
            es2 = context.hasExtension(b"GL_ARB_ES2_compatibility")
            prefix = ["#version 100\n"] if es2 else []
            vertex = shaders.compileShader([*prefix, VERTEX], GL.GL_VERTEX_SHADER)
            fragment = shaders.compileShader([*prefix, FRAGMENT], GL.GL_FRAGMENT_SHADER)
            program = GL.glCreateProgram()
            GL.glAttachShader(program, vertex)
            GL.glAttachShader(program, fragment)
            for name, location in ATTRIBUTES.items():
                GL.glBindAttribLocation(program, location, name)
            GL.glLinkProgram(program)
            if GL.glGetProgramiv(program, GL.GL_LINK_STATUS) != GL.GL_TRUE:
                log = GL.glGetProgramInfoLog(program)
                raise RuntimeError(f"viewport shader failed to link: {log}")
            GL.glDeleteShader(vertex)
            GL.glDeleteShader(fragment)
            uniforms = {name: GL.glGetUniformLocation(program, name) for name in UNIFORMS}
            self.program = _Program(program, uniforms)
        return self.program

    def get_buffers(self, geometry: Geometry) -> _Buffers:
        found = self.buffers.get(id(geometry))
        if found is None:
            found = _Buffers(
                geometry,
                _upload(geometry.vertices),
                _upload(geometry.normals),
                None if geometry.colors is None else _upload(geometry.colors),
                None if geometry.uv is None else _upload(geometry.uv),
                _upload(geometry.faces, QOpenGLBuffer.Type.IndexBuffer),
                int(geometry.faces.size),
            )
            self.buffers[id(geometry)] = found
        return found

    def get_texture(self, key: str, image: np.ndarray) -> int:
        """The texture of `image` (uploaded once; `key` names it, e.g. its asset reference)."""
        found = self.textures.get(key)
        if found is not None and found[1] is image:
            return found[0]
        if found is not None:  # same name, other pixels: replace
            GL.glDeleteTextures([found[0]])
        h, w = image.shape[:2]
        texture = int(GL.glGenTextures(1))
        GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        # Rows go in file order, so texture v = 0 is the image's top row.
        pixels = np.ascontiguousarray(image, dtype=np.uint8)
        GL.glTexImage2D(
            GL.GL_TEXTURE_2D, 0, GL.GL_RGBA, w, h, 0, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, pixels
        )
        GL.glGenerateMipmap(GL.GL_TEXTURE_2D)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR_MIPMAP_LINEAR)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, GL.GL_REPEAT)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, GL.GL_REPEAT)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        self.textures[key] = (texture, image)
        return texture


_global_shared: SharedGL | None = None


def shared_gl(context: QOpenGLContext) -> SharedGL:
    """The shareable GL objects for `context`: process-wide if it shares with Qt's global context."""
    global _global_shared
    share = QOpenGLContext.globalShareContext()
    if share is None or not QOpenGLContext.areSharing(context, share):
        return SharedGL()  # not shared: everything goes when this context goes
    if _global_shared is None:
        _global_shared = SharedGL()
    return _global_shared


@dataclass
class GLResources:
    """One view's GL objects in its current context: vertex arrays (which contexts do not
    share) over the shared program, buffers and textures."""

    context: QOpenGLContext
    shared: SharedGL
    arrays: dict[tuple[int, bool, bool], QOpenGLVertexArrayObject] = field(default_factory=dict)

    def get_program(self) -> _Program:
        return self.shared.get_program(self.context)

    def get_texture(self, key: str, image: np.ndarray) -> int:
        return self.shared.get_texture(key, image)

    def get_array(self, geometry: Geometry, colors: bool, uv: bool) -> QOpenGLVertexArrayObject:
        """A vertex array object with the geometry's attributes (and indices) bound."""
        key = (id(geometry), colors, uv)
        array = self.arrays.get(key)
        if array is None:
            buffers = self.shared.get_buffers(geometry)
            array = QOpenGLVertexArrayObject()
            array.create()
            array.bind()
            _attribute(0, buffers.position, 3)
            _attribute(1, buffers.normal, 3)
            if colors:
                _attribute(2, buffers.color, 4)
            if uv:
                _attribute(3, buffers.uv, 2)
            buffers.index.bind()  # the element buffer binding is part of the array's state
            array.release()
            buffers.index.release()
            self.arrays[key] = array
        return array


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
        self.emission = NO_EMISSION
        self.setGLOptions(OPAQUE)

    # -- appearance ---------------------------------------------------------------
    @property
    def translucent(self) -> bool:
        return self.alpha < 1.0 or self.base_color[3] < 1.0

    def set_style(self, *, alpha: float = 1.0, emission=NO_EMISSION) -> None:
        """See-through factor (1 opaque) and emissive colour (r, g, b, amount)."""
        self.alpha = float(min(1.0, max(0.0, alpha)))
        self.emission = tuple(float(c) for c in emission)
        self.setGLOptions(TRANSLUCENT if self.translucent else OPAQUE)
        self.setDepthValue(TRANSLUCENT_DEPTH if self.translucent else 0)
        self.update()

    def effective_color(self) -> tuple[float, float, float, float]:
        """The unlit colour drawn (uniform colour, or the tint over the mesh's own colours)."""
        r, g, b, a = self.base_color
        if self.emission[3] > 0:
            er, eg, eb, amount = self.emission
            r, g, b = (c + (e - c) * amount for c, e in ((r, er), (g, eg), (b, eb)))
        return (r, g, b, a * self.alpha)

    # -- painting -----------------------------------------------------------------
    def paint(self) -> None:
        view = self.view()
        if view is None or not hasattr(view, "gl_resources"):
            return
        resources: GLResources = view.gl_resources()
        self.setupGLState()
        program = resources.get_program()
        textured = self.texture_key is not None
        array = resources.get_array(self.geometry, self.use_vertex_colors, textured)
        count = int(self.geometry.faces.size)
        u = program.uniforms
        modelview = self.modelViewMatrix()
        tint = self.base_color if self.use_vertex_colors else (1.0, 1.0, 1.0, 1.0)
        style = np.array([*tint, *self.emission, self.alpha, 0.0, 0.0, 0.0], dtype=np.float32)
        GL.glUseProgram(program.id)
        try:
            GL.glUniformMatrix4fv(
                u["u_mvp"], 1, False, np.array(self.mvpMatrix().data(), dtype=np.float32)
            )
            GL.glUniformMatrix4fv(
                u["u_modelview"], 1, False, np.array(modelview.data(), dtype=np.float32)
            )
            normal = np.array(modelview.normalMatrix().data(), dtype=np.float32)
            GL.glUniformMatrix3fv(u["u_normal"], 1, False, normal)
            GL.glUniform4fv(u["u_style"], 3, style)
            GL.glUniform1f(u["u_textured"], float(textured))
            if not self.use_vertex_colors:
                GL.glVertexAttrib4f(2, *self.base_color)
            if textured:
                texture = resources.get_texture(self.texture_key, self.texture_image)
                GL.glActiveTexture(GL.GL_TEXTURE0)
                GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
                GL.glUniform1i(u["u_texture"], 0)
            array.bind()
            # Closed meshes never show their back faces: skipping them halves the
            # rasteriser's work (Mesa's is software here). Transparent items keep
            # both sides, so the far side shows through.
            cull = self.alpha >= 1.0 and not self.geometry.two_sided
            if cull:
                GL.glEnable(GL.GL_CULL_FACE)
                GL.glCullFace(GL.GL_BACK)
            GL.glDrawElements(GL.GL_TRIANGLES, count, GL.GL_UNSIGNED_INT, None)
            if cull:
                GL.glDisable(GL.GL_CULL_FACE)
            array.release()
            if textured:
                GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        finally:
            GL.glUseProgram(0)
            if self.translucent:
                GL.glDepthMask(GL.GL_TRUE)  # the next frame's clear must reach the depth buffer


def _attribute(location: int, buffer: QOpenGLBuffer, size: int) -> None:
    buffer.bind()
    GL.glVertexAttribPointer(location, size, GL.GL_FLOAT, False, 0, None)
    buffer.release()
    GL.glEnableVertexAttribArray(location)


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
        super().mouseMoveEvent(ev)

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
