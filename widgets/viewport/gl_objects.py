"""The 3D viewport's GL objects and its one draw call.

The program, vertex buffers and textures live in a `SharedGL`, process-wide
when the contexts share (every box uses the unit cube's buffers, a mesh is
uploaded once); vertex array objects, which contexts cannot share, live in a
`GLResources` per view and context, rebuilt if Qt ever gives the view a new
context. `draw_geometry` draws one geometry with the viewport's shader
(`widgets.viewport.shaders`): the shape items, and the outlines and markers of
`widgets.viewport.overlay`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from OpenGL import GL
from OpenGL.GL import shaders
from PySide6.QtGui import QMatrix4x4, QOpenGLContext
from PySide6.QtOpenGL import QOpenGLBuffer, QOpenGLVertexArrayObject

from widgets.viewport.mesh_cache import Geometry
from widgets.viewport.shaders import ATTRIBUTES, FRAGMENT, UNIFORMS, VERTEX

WHITE = (1.0, 1.0, 1.0, 1.0)
NO_FLAT = (0.0, 0.0, 0.0, 0.0)  # lit, in the item's own colours


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


def draw_geometry(
    resources: GLResources,
    geometry: Geometry,
    mvp: QMatrix4x4,
    modelview: QMatrix4x4,
    *,
    color=WHITE,
    vertex_colors: bool = False,
    tint=WHITE,
    flat=NO_FLAT,
    alpha: float = 1.0,
    shifts: Sequence[tuple[float, float]] = ((0.0, 0.0),),
    texture: tuple[str, np.ndarray] | None = None,
    cull: bool = False,
) -> None:
    """Draw `geometry` with the viewport's program in the GL state set by the caller.

    `color`: the constant colour without `vertex_colors`; `tint` multiplies either;
    `flat` (r, g, b, amount): amount 1 draws exactly that colour, unlit; it is
    drawn once per offset of `shifts` (on screen, normalised device units: the
    outlines draw a shape at eight offsets with one setup)."""
    program = resources.get_program()
    array = resources.get_array(geometry, vertex_colors, texture is not None)
    u = program.uniforms
    style = np.array([*tint, *flat, alpha, 0.0, 0.0, 0.0], dtype=np.float32)
    GL.glUseProgram(program.id)
    try:
        GL.glUniformMatrix4fv(u["u_mvp"], 1, False, np.array(mvp.data(), dtype=np.float32))
        GL.glUniformMatrix4fv(
            u["u_modelview"], 1, False, np.array(modelview.data(), dtype=np.float32)
        )
        normal = np.array(modelview.normalMatrix().data(), dtype=np.float32)
        GL.glUniformMatrix3fv(u["u_normal"], 1, False, normal)
        GL.glUniform4fv(u["u_style"], 3, style)
        GL.glUniform1f(u["u_textured"], float(texture is not None))
        if not vertex_colors:
            GL.glVertexAttrib4f(2, *color)
        if texture is not None:
            name = resources.get_texture(*texture)
            GL.glActiveTexture(GL.GL_TEXTURE0)
            GL.glBindTexture(GL.GL_TEXTURE_2D, name)
            GL.glUniform1i(u["u_texture"], 0)
        array.bind()
        if cull:
            GL.glEnable(GL.GL_CULL_FACE)
            GL.glCullFace(GL.GL_BACK)
        count = int(geometry.faces.size)
        for dx, dy in shifts:
            GL.glUniform2f(u["u_shift"], float(dx), float(dy))
            GL.glDrawElements(GL.GL_TRIANGLES, count, GL.GL_UNSIGNED_INT, None)
        if cull:
            GL.glDisable(GL.GL_CULL_FACE)
        array.release()
        if texture is not None:
            GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
    finally:
        GL.glUseProgram(0)


def _attribute(location: int, buffer: QOpenGLBuffer, size: int) -> None:
    buffer.bind()
    GL.glVertexAttribPointer(location, size, GL.GL_FLOAT, False, 0, None)
    buffer.release()
    GL.glEnableVertexAttribArray(location)
