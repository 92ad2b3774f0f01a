"""Triangle geometry for the 3D viewport, without Qt or OpenGL: unit primitives with their
faces wound outwards, the scale a PyBullet visual shape gives them, and mesh files read
once (welded, coloured from their materials, None when they cannot be read)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.tabletop.world import TABLE_TOP_Z, TabletopWorld
from sim.visuals import visual_shapes
from widgets.viewport import mesh_cache
from widgets.viewport.mesh_cache import (
    Geometry,
    capsule,
    is_white,
    load_mesh,
    plane_quad,
    shape_geometry,
    unit_box,
    unit_cylinder,
    unit_sphere,
)


def outward(geometry: Geometry) -> np.ndarray:
    """For each triangle with an area (a UV sphere's pole rows have none): does its
    counter-clockwise normal point away from the centre?"""
    v = geometry.vertices[geometry.faces].astype(float)
    normal = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    real = np.linalg.norm(normal, axis=1) > 1e-9
    return np.einsum("ij,ij->i", normal, v.mean(axis=1))[real] > 0


EXTENTS = {unit_box: (1.0, 1.0, 1.0), unit_cylinder: (2.0, 2.0, 1.0), unit_sphere: (2.0, 2.0, 2.0)}


@pytest.mark.parametrize("make", list(EXTENTS))
def test_unit_primitives_are_wound_outwards_with_unit_normals(make):
    geometry = make()
    assert make() is geometry  # one geometry shared by every body of the shape
    faces = outward(geometry)
    assert faces.all() and len(faces) >= 0.9 * geometry.triangle_count
    assert np.linalg.norm(geometry.normals, axis=1) == pytest.approx(1.0, abs=1e-5)
    assert geometry.vertices.dtype == np.float32 and geometry.faces.dtype == np.uint32
    lo, hi = geometry.bounds()
    assert hi - lo == pytest.approx(EXTENTS[make], abs=1e-5)
    assert (lo + hi) / 2 == pytest.approx((0, 0, 0), abs=1e-6)  # centred on the origin


def test_the_box_has_a_flat_normal_per_face_and_is_welded():
    box = unit_box()
    assert box.triangle_count == 12 and len(box.vertices) == 24  # 4 corners a face
    assert sorted(map(tuple, np.unique(box.normals, axis=0).astype(int))) == [
        (-1, 0, 0),
        (0, -1, 0),
        (0, 0, -1),
        (0, 0, 1),
        (0, 1, 0),
        (1, 0, 0),
    ]
    assert unit_cylinder(12).triangle_count == 12 * 4  # side quads and two caps


def test_plane_capsule_and_white():
    plane = plane_quad()
    assert plane.two_sided and plane.triangle_count == 2
    assert plane.bounds()[1] == pytest.approx([10.0, 10.0, 0.0])
    lo, hi = capsule(0.1, 0.02).bounds()
    assert (lo[2], hi[2]) == pytest.approx((-0.07, 0.07), abs=1e-6)  # length/2 + radius
    assert hi[0] == pytest.approx(0.02, abs=1e-6)
    assert is_white((1.0, 1.0, 1.0, 0.5)) and not is_white((1.0, 0.98, 1.0, 1.0))


def test_a_visual_shape_gets_its_unit_geometry_and_scale():
    with TabletopWorld(with_robot=False) as world:
        world.add_primitive("crate", "box", (0.02, 0.03, 0.04), (0, 0, TABLE_TOP_Z + 0.04))
        world.add_primitive("can", "cylinder", (0.03, 0.1), (0.1, 0, TABLE_TOP_Z + 0.05))
        world.add_primitive("ball", "sphere", (0.025,), (0.2, 0, TABLE_TOP_Z + 0.025))
        shapes = {s.body_key: s for s in visual_shapes(world)}
    geometry, scale = shape_geometry(shapes["crate"])
    assert geometry is unit_box() and scale == pytest.approx((0.04, 0.06, 0.08))
    geometry, scale = shape_geometry(shapes["can"])
    assert geometry is unit_cylinder() and scale == pytest.approx((0.03, 0.03, 0.1))
    geometry, scale = shape_geometry(shapes["ball"])
    assert geometry is unit_sphere() and scale == pytest.approx((0.025,) * 3)
    floor, scale = shape_geometry(shapes["floor"])  # PyBullet's plane100.obj, read from disk
    assert floor is load_mesh(shapes["floor"].mesh_path) and floor.triangle_count > 0
    assert scale == (1.0, 1.0, 1.0)


OBJ = """\
v 0 0 0
v 1 0 0
v 0 1 0
v 0 0 1
f 1 3 2
f 1 2 4
f 1 4 3
f 2 3 4
"""


def test_a_mesh_file_is_read_once_and_a_bad_one_is_nothing(tmp_path):
    path = tmp_path / "tetra.obj"
    path.write_text(OBJ)
    before = mesh_cache.mesh_cache_size()
    tetra = load_mesh(path)
    assert tetra is not None and tetra.triangle_count == 4
    lo, hi = tetra.bounds()
    assert lo == pytest.approx([0, 0, 0]) and hi == pytest.approx([1, 1, 1])
    assert tetra.colors is not None and tetra.colors[0] == pytest.approx([0.6, 0.6, 0.6, 1.0])
    assert load_mesh(str(path)) is tetra and mesh_cache.mesh_cache_size() == before + 1
    # a COLLADA file is read from the OBJ beside it
    (tmp_path / "tetra.dae").write_text("<COLLADA/>")
    assert load_mesh(tmp_path / "tetra.dae").triangle_count == 4
    assert load_mesh(tmp_path / "missing.obj") is None
    (tmp_path / "empty.obj").write_text("# no triangles\n")
    assert load_mesh(tmp_path / "empty.obj") is None
