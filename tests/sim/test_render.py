"""Rendering, visibility and counterfactual visibility against the naive reference."""

from __future__ import annotations

import numpy as np
import pytest

from sim.camera import (
    crop_projection,
    intrinsics,
    pixel_ray,
    project_points,
    projection_matrix,
    view_matrix,
)
from sim.render import (
    alone_pixel_counts,
    counterfactual_visibility,
    render,
    render_window,
    visibility,
)
from sim.tabletop.scenes import generate_scene
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

CAM = TOP_DOWN.with_size(320, 320)
X, Y = WORKSPACE_CENTRE


@pytest.fixture(scope="module")
def cover_world():
    """A ball under a wide box, and a lone cube elsewhere."""
    world = TabletopWorld(with_robot=False)
    world.add_primitive("ball", "sphere", (0.025,), (X, Y, TABLE_TOP_Z + 0.025), rgba=(1, 0, 0, 1))
    world.add_primitive(
        "lid", "box", (0.07, 0.07, 0.005), (X, Y, TABLE_TOP_Z + 0.08), rgba=(0, 0, 1, 1)
    )
    world.add_primitive(
        "cube",
        "box",
        (0.02, 0.02, 0.02),
        (X + 0.15, Y + 0.1, TABLE_TOP_Z + 0.02),
        rgba=(0, 1, 0, 1),
    )
    yield world
    world.close()


def test_hidden_object_has_visibility_zero_and_a_lone_one_one(cover_world):
    vis = visibility(cover_world, CAM, ["ball", "cube", "lid"])
    assert vis["ball"].visible_px == 0 and vis["ball"].alone_px > 50
    assert vis["ball"].fraction == 0.0
    assert vis["cube"].fraction == pytest.approx(1.0)
    assert vis["lid"].fraction == pytest.approx(1.0)


def test_counterfactual_removing_the_lid_reveals_the_ball(cover_world):
    gains = counterfactual_visibility(cover_world, CAM, "lid", ["ball", "cube"])
    assert gains["ball"] == pytest.approx(1.0)
    assert gains["cube"] == pytest.approx(0.0)


def test_window_render_matches_the_full_image_pixel_for_pixel(cover_world):
    full = render(cover_world, CAM).segmentation
    window = (100, 120, 180, 190)
    part = render_window(cover_world, CAM, window)
    x0, y0, x1, y1 = window
    assert (part == full[y0:y1, x0:x1]).mean() > 0.995


def test_fast_visibility_equals_the_naive_full_resolution_method():
    scene = generate_scene(21, objects=(8, 10))
    try:
        world, cam = scene.world, TOP_DOWN.with_size(384, 384)
        keys = [b.key for b in world.objects()]
        fast = alone_pixel_counts(world, cam, keys, fast=True)
        naive = alone_pixel_counts(world, cam, keys, fast=False)
        for key in keys:
            assert abs(fast[key] - naive[key]) <= max(2, 0.02 * naive[key])
        cover = keys[-1]
        g_fast = counterfactual_visibility(world, cam, cover, fast=True)
        g_naive = counterfactual_visibility(world, cam, cover, fast=False)
        assert max(abs(g_fast[k] - g_naive[k]) for k in g_fast) <= 0.02
    finally:
        scene.world.close()


def test_depth_and_intrinsics_agree_with_the_table_height(cover_world):
    view = render(cover_world, CAM)
    # a table pixel far from the objects: depth = camera height above the table
    assert view.depth_m[5, 5] == pytest.approx(TOP_DOWN.eye[2] - TABLE_TOP_Z, abs=0.01)
    k = intrinsics(CAM)
    assert k[0, 2] == CAM.width / 2 and k[0, 0] > 0


def test_camera_maths_round_trip():
    point = np.array([[X + 0.1, Y - 0.05, TABLE_TOP_Z]])
    uv, depth = project_points(CAM, point)
    origin, direction = pixel_ray(CAM, *uv[0])
    t = (TABLE_TOP_Z - origin[2]) / direction[2]
    assert np.allclose(origin + t * direction, point[0], atol=1e-9)
    assert depth[0] == pytest.approx(TOP_DOWN.eye[2] - TABLE_TOP_Z)
    # the crop of the whole image is the full projection
    assert np.allclose(crop_projection(CAM, 0, 0, CAM.width, CAM.height), projection_matrix(CAM))
    assert view_matrix(CAM).shape == (4, 4)
