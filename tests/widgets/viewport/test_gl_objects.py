"""The viewport's GL objects in a real Mesa context under Xvfb: its shaders compile and link,
one program and one upload of each mesh serve every view of the share group, a texture is
replaced when its pixels change, and each view keeps its own vertex arrays."""

from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl
import pytest
from OpenGL import GL
from PySide6.QtGui import QOpenGLContext

import widgets.viewport.view  # noqa: F401  (asks Qt to share GL contexts before any view exists)
from widgets.viewport.gl_objects import GLResources, SharedGL, shared_gl
from widgets.viewport.mesh_cache import unit_box
from widgets.viewport.shaders import UNIFORMS


@pytest.fixture
def views(qtbot):
    made = []
    for _ in range(2):
        view = gl.GLViewWidget()
        qtbot.addWidget(view)
        view.resize(64, 64)
        view.show()
        qtbot.waitExposed(view)
        made.append(view)
    return made


def test_the_shaders_link_and_every_uniform_is_found(views):
    views[0].makeCurrent()
    context = QOpenGLContext.currentContext()
    program = SharedGL().get_program(context)
    assert GL.glGetProgramiv(program.id, GL.GL_LINK_STATUS) == GL.GL_TRUE
    assert set(program.uniforms) == set(UNIFORMS)
    assert all(location >= 0 for location in program.uniforms.values())  # all used
    views[0].doneCurrent()


def test_views_of_one_share_group_share_program_and_buffers(views):
    contexts = []
    for view in views:
        view.makeCurrent()
        contexts.append(QOpenGLContext.currentContext())
        view.doneCurrent()
    assert contexts[0] is not contexts[1]
    assert shared_gl(contexts[0]) is shared_gl(contexts[1])  # process-wide
    views[0].makeCurrent()
    shared = shared_gl(contexts[0])
    box = unit_box()
    first = shared.get_buffers(box)
    assert shared.get_buffers(box) is first  # uploaded once
    assert first.count == box.faces.size
    views[0].doneCurrent()
    arrays = []
    for view, context in zip(views, contexts, strict=True):
        view.makeCurrent()
        resources = GLResources(context, shared)
        array = resources.get_array(box, colors=False, uv=False)
        assert resources.get_array(box, colors=False, uv=False) is array
        arrays.append(array)
        view.doneCurrent()
    assert arrays[0] is not arrays[1]  # vertex arrays are per context


def test_a_texture_is_uploaded_once_and_replaced_when_its_pixels_change(views):
    views[0].makeCurrent()
    shared = SharedGL()
    checker = np.zeros((4, 4, 4), np.uint8)
    checker[::2, ::2] = (255, 0, 0, 255)
    name = shared.get_texture("resources:textures/checker.png", checker)
    assert GL.glIsTexture(name)
    assert shared.get_texture("resources:textures/checker.png", checker) == name
    other = np.full((4, 4, 4), 200, np.uint8)
    replaced = shared.get_texture("resources:textures/checker.png", other)
    assert shared.textures["resources:textures/checker.png"][1] is other
    GL.glBindTexture(GL.GL_TEXTURE_2D, replaced)
    width = GL.glGetTexLevelParameteriv(GL.GL_TEXTURE_2D, 0, GL.GL_TEXTURE_WIDTH)
    GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
    assert width == 4
    views[0].doneCurrent()
