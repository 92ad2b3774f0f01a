"""The 3D viewport against the simulator itself: real PyBullet, real GL under Xvfb, no mocks."""

from __future__ import annotations

import math
import threading

import numpy as np
import pyqtgraph as pg
import pyqtgraph.opengl as gl
import pytest
from gestures import shown_viewport
from PySide6.QtCore import QPoint, Qt

from sim.camera import CameraSpec, project_points
from sim.render import render
from sim.tabletop.world import OBLIQUE, TABLE_TOP_Z, TOP_DOWN, TabletopWorld
from sim.visuals import link_frames, shape_world_matrix, visual_shapes
from widgets.viewport import mesh_cache
from widgets.viewport.camera import (
    ViewParams,
    click_ray,
    eye_position,
    horizontal_fov,
    projection_matrix,
    spec_from_view_params,
    vertical_fov,
    view_matrix,
    view_params_from_spec,
)
from widgets.viewport.items import BACKGROUND
from widgets.viewport.view import SceneViewport, preload_meshes

W, H = 400, 300
RED = (0.9, 0.05, 0.05, 1.0)
BOX_HALF = 0.035


@pytest.fixture
def world():
    w = TabletopWorld(with_robot=True)
    w.add_primitive(
        "red_box", "box", (BOX_HALF,) * 3, (0.0, 0.05, TABLE_TOP_Z + BOX_HALF), rgba=RED
    )
    w.add_primitive(
        "green_box",
        "box",
        (0.03, 0.03, 0.03),
        (0.12, 0.15, TABLE_TOP_Z + 0.03),
        rgba=(0.1, 0.7, 0.2, 1),
    )
    w.add_primitive(
        "blue_box",
        "box",
        (0.03, 0.03, 0.03),
        (-0.14, -0.05, TABLE_TOP_Z + 0.03),
        rgba=(0.1, 0.2, 0.9, 1),
    )
    yield w
    w.close()


@pytest.fixture
def viewport(qtbot, world):
    view = shown_viewport(qtbot, world, (W, H))
    yield view
    view.set_live(False)


# -- gestures ------------------------------------------------------------------------------


def click_pixel(qtbot, viewport: SceneViewport, u: float, v: float) -> list[str]:
    """Click the view at image pixel (u, v) as a person would; return what was selected."""
    with qtbot.waitSignal(viewport.body_selected, timeout=2000) as blocker:
        qtbot.mouseClick(viewport.gl_view, Qt.MouseButton.LeftButton, pos=QPoint(int(u), int(v)))
    return blocker.args


def pixel_of(viewport: SceneViewport, point) -> tuple[float, float]:
    uv, depth = project_points(viewport.camera_spec(), np.asarray([point], dtype=float))
    assert depth[0] > 0
    return float(uv[0, 0]), float(uv[0, 1])


def red_mask(rgb: np.ndarray) -> np.ndarray:
    r, g, b = (rgb[:, :, i].astype(int) for i in range(3))
    return (r > 90) & (r > 2 * g + 20) & (r > 2 * b + 20)


def iou(a: np.ndarray, b: np.ndarray) -> float:
    return float((a & b).sum()) / max(1, int((a | b).sum()))


# -- items and transforms -------------------------------------------------------------------


def test_one_item_per_visual_shape_and_transforms_follow_the_world(viewport, world):
    shapes = visual_shapes(world)
    items = viewport.items()
    assert len(items) == len(shapes)
    assert [i.body_key for i in items] == [s.body_key for s in shapes]
    assert {"robot_arm", "robot_gripper", "table", "red_box"} <= {i.body_key for i in items}

    frames = link_frames(world)
    box_shape = next(s for s in shapes if s.body_key == "red_box")
    (box_item,) = viewport.items_for("red_box")
    expected = shape_world_matrix(box_shape, frames) @ np.diag([2 * BOX_HALF] * 3 + [1])
    np.testing.assert_allclose(box_item.transform().matrix(), expected, atol=1e-6)

    # Move the box in the simulator; after sync only transforms change.
    position, orientation = (
        (0.1, -0.02, TABLE_TOP_Z + 0.2),
        (0.0, 0.0, math.sin(0.4), math.cos(0.4)),
    )
    world.client.resetBasePositionAndOrientation(world.bodies["red_box"].uid, position, orientation)
    viewport.sync()
    assert viewport.items_for("red_box")[0] is box_item
    m = box_item.transform().matrix()
    np.testing.assert_allclose(m[:3, 3], position, atol=1e-6)
    rotation = m[:3, :3] / (2 * BOX_HALF)
    np.testing.assert_allclose(
        rotation[:2, :2],
        [[math.cos(0.8), -math.sin(0.8)], [math.sin(0.8), math.cos(0.8)]],
        atol=1e-6,
    )

    # Robot links sit where the simulator has them (URDF frames of links, not COMs).
    frames = link_frames(world)
    for shape, item in zip(shapes, items, strict=True):
        if shape.body_key == "robot_arm":
            got = item.transform().matrix()
            want = shape_world_matrix(shape, frames)
            np.testing.assert_allclose(got[:3, 3], want[:3, 3], atol=1e-6)


def test_meshes_are_read_once_per_file(qtbot, world, viewport):
    assert preload_meshes(world) >= 7  # UR5e links and gripper parts, already read
    before = mesh_cache.mesh_cache_size()
    arm = [s for s in visual_shapes(world) if s.body_key == "robot_arm"]
    geometry = mesh_cache.load_mesh(arm[0].mesh_path)
    assert geometry is not None and geometry.colors is not None  # UR5e material colours
    second = SceneViewport(world)
    qtbot.addWidget(second)
    assert mesh_cache.mesh_cache_size() == before
    for ours, theirs in zip(viewport.items(), second.items(), strict=True):
        assert ours.geometry is theirs.geometry


# -- pixels against PyBullet's own renderer ----------------------------------------------------


def test_top_down_image_matches_pybullet_silhouette(viewport, world):
    viewport.set_camera_preset("top_down")
    image = viewport.snapshot()
    assert image.shape == (H, W, 3) and image.dtype == np.uint8
    reference = render(world, TOP_DOWN.with_size(W, H))
    expected = reference.segmentation == world.bodies["red_box"].uid
    got = red_mask(image)
    assert expected.sum() > 500  # the box is well inside the view
    assert iou(got, expected) >= 0.8
    # The same holds for the oblique camera, with its different aspect and tilt.
    viewport.set_camera_preset("oblique")
    image = viewport.snapshot()
    reference = render(world, OBLIQUE.with_size(W, H))
    assert iou(red_mask(image), reference.segmentation == world.bodies["red_box"].uid) >= 0.8


def test_robot_and_mesh_silhouettes_match_pybullet(qtbot, world):
    """Each body drawn alone covers the pixels PyBullet renders for it alone: link frames,
    visual origins, mesh scales (URDF global scaling included) and mesh simplification."""
    world.add_urdf(
        "mug",
        "pybullet_data:objects/mug.urdf",
        (0.05, 0.0, TABLE_TOP_Z + 0.01),
        (0, 0, 0.38, 0.925),
        scale=1.3,
    )
    world.add_urdf(
        "duck",
        "pybullet_data:duck_vhacd.urdf",
        (-0.12, 0.1, TABLE_TOP_Z + 0.02),
        (0, 0, 0.7, 0.714),
        scale=1.5,
    )
    view = shown_viewport(qtbot, world, (W, H), "oblique")
    spec = view.camera_spec()
    for key in ("robot_arm", "robot_gripper", "mug", "duck"):
        for item in view.items():
            item.setVisible(item.body_key == key)
        drawn = np.abs(view.snapshot().astype(int) - BACKGROUND).sum(axis=2) > 6
        others = [k for k in world.bodies if k != key]
        alone = render(world, spec, hide=others).segmentation == world.bodies[key].uid
        assert alone.sum() > 300, key
        assert iou(drawn, alone) >= 0.8, key


def test_table_texture_uses_pybullet_box_mapping(qtbot, world, tmp_path):
    """Only the texture's last quarter (u, v in 0.75..1) lies on a PyBullet box's top face."""
    from PIL import Image

    pixels = np.zeros((64, 64, 4), np.uint8)
    pixels[:, :] = (200, 30, 200, 255)  # magenta ...
    pixels[48:, 48:] = (30, 200, 40, 255)  # ... except the bottom-right quarter: green
    Image.fromarray(pixels).save(tmp_path / "quarter.png")
    texture = world.client.loadTexture(str(tmp_path / "quarter.png"))
    world.client.changeVisualShape(world.bodies["table"].uid, -1, textureUniqueId=texture)
    world.bodies["table"].texture = "resources:textures/table/test-quarter.png"
    view = SceneViewport(world, texture_loader=lambda ref: pixels)
    qtbot.addWidget(view)
    view.resize(W, H)
    view.show()
    qtbot.waitExposed(view)
    view.set_camera_preset("top_down")
    (table,) = view.items_for("table")
    assert table.texture_key == "resources:textures/table/test-quarter.png"
    ours = view.snapshot()[10:60, 10:60].reshape(-1, 3).mean(axis=0)
    theirs = render(world, TOP_DOWN.with_size(W, H)).rgb[10:60, 10:60].reshape(-1, 3).mean(axis=0)
    for rgb in (ours, theirs):
        assert rgb[1] > rgb[0] + 60 and rgb[1] > rgb[2] + 60  # green: the mapped quarter


# -- picking -------------------------------------------------------------------------------------


def test_click_selects_the_body_under_the_pointer(qtbot, viewport, world):
    for preset in ("top_down", "free"):
        viewport.set_camera_preset(preset)
        u, v = pixel_of(viewport, (0.0, 0.05, TABLE_TOP_Z + 2 * BOX_HALF))
        assert click_pixel(qtbot, viewport, u, v) == ["red_box"]
        assert viewport.selected_key == "red_box"
        assert viewport.selection_outline.targets == viewport.items_for("red_box")
        u, v = pixel_of(viewport, (0.12, 0.15, TABLE_TOP_Z + 0.06))
        assert click_pixel(qtbot, viewport, u, v) == ["green_box"]
    # The floor is background: a click on it clears the selection.
    seen = render(world, viewport.camera_spec()).segmentation
    rows, cols = np.nonzero(seen == world.bodies["floor"].uid)
    assert len(rows) > 100
    assert click_pixel(qtbot, viewport, cols[len(cols) // 2], rows[len(rows) // 2]) == [""]
    assert viewport.selected_key == ""
    # So is the sky.
    viewport.set_view_params(ViewParams((0.0, 0.0, 1.0), 3.0, 2.0, 90.0, 60.0))
    assert viewport.camera_preset == "free"
    assert click_pixel(qtbot, viewport, W / 2, 5) == [""]


def test_drag_orbits_instead_of_selecting(qtbot, viewport):
    viewport.set_camera_preset("oblique")
    before = viewport.view_params()
    with qtbot.assertNotEmitted(viewport.body_selected):
        view = viewport.gl_view
        qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=QPoint(200, 150))
        qtbot.mouseMove(view, QPoint(240, 160))
        qtbot.mouseMove(view, QPoint(280, 170))
        qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=QPoint(280, 170))
    assert viewport.view_params().azimuth != before.azimuth
    assert viewport.camera_preset == "free"


def test_select_programmatically_does_not_emit(qtbot, viewport):
    with qtbot.assertNotEmitted(viewport.body_selected):
        viewport.select("blue_box")
    assert viewport.selected_key == "blue_box"
    assert viewport.selection_outline.targets == viewport.items_for("blue_box")
    viewport.select("")
    assert viewport.selection_outline.targets == []
    with pytest.raises(KeyError):
        viewport.select("no_such_body")


# -- highlight and transparency --------------------------------------------------------------------


def test_highlight_and_transparency_change_items_and_pixels(viewport, world):
    viewport.set_camera_preset("top_down")
    u, v = (int(c) for c in pixel_of(viewport, (0.0, 0.05, TABLE_TOP_Z + 2 * BOX_HALF)))
    plain = viewport.snapshot()[v, u].astype(int)
    (box,) = viewport.items_for("red_box")

    viewport.set_highlight(["red_box", "green_box"])
    assert viewport.highlighted_keys == {"red_box", "green_box"}
    outlined = {i.body_key for i in viewport.evidence_outline.targets}
    assert outlined == {"red_box", "green_box"}
    assert box.effective_color() == pytest.approx(RED)  # outlined, not tinted
    np.testing.assert_array_equal(viewport.snapshot()[v, u].astype(int), plain)
    viewport.set_highlight([])
    assert viewport.evidence_outline.targets == []

    viewport.set_transparent(["red_box"], 0.15)
    assert viewport.alpha_of("red_box") == 0.15 and box.alpha == 0.15
    assert box.effective_color()[3] == pytest.approx(0.15)
    assert box.translucent and box.depthValue() > 0
    assert all(i.alpha == 1.0 for i in viewport.items_for("green_box"))
    seen_through = viewport.snapshot()[v, u].astype(int)
    assert seen_through[1] > plain[1] + 80  # the white table shows through the red box
    viewport.clear_transparency()
    assert box.alpha == 1.0 and not box.translucent
    np.testing.assert_array_equal(viewport.snapshot()[v, u].astype(int), plain)


# -- live physics ----------------------------------------------------------------------------------


def test_live_physics_moves_items_and_stops_its_thread(qtbot, viewport, world):
    world.add_primitive(
        "dropped",
        "box",
        (0.03,) * 3,
        (0.0, -0.1, TABLE_TOP_Z + 0.25),
        rgba=(0.9, 0.6, 0.1, 1),
        mass=0.2,
    )
    viewport.set_world(world)
    (item,) = viewport.items_for("dropped")
    z0 = item.transform().matrix()[2, 3]
    applied_in: set[int] = set()
    apply_frames = viewport.apply_frames

    def recording(frames):
        applied_in.add(threading.get_ident())
        apply_frames(frames)

    viewport.apply_frames = recording
    with qtbot.waitSignal(viewport.live_changed, timeout=1000):
        viewport.set_live(True)
    thread = viewport.live_thread
    assert viewport.is_live and thread.isRunning()
    qtbot.waitUntil(lambda: item.transform().matrix()[2, 3] < z0 - 0.1, timeout=8000)
    viewport.set_live(False)
    assert not viewport.is_live and viewport.live_thread is None
    assert thread.isFinished()
    assert applied_in == {threading.get_ident()}  # frames reach the items in the GUI thread
    # The box came to rest on the table, and the view agrees with the simulator.
    viewport.sync()
    assert item.transform().matrix()[2, 3] == pytest.approx(
        world.link_frame_pose("dropped")[0][2], abs=1e-6
    )


def test_closing_while_live_stops_the_thread(qtbot, world):
    view = SceneViewport(world)
    qtbot.addWidget(view)
    view.show()
    view.set_live(True)
    thread = view.live_thread
    qtbot.wait(80)
    view.close()
    assert thread.isFinished() and not view.is_live


# -- pure camera maths -------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", [TOP_DOWN, OBLIQUE], ids=["top_down", "oblique"])
@pytest.mark.parametrize("size", [(400, 300), (300, 500), (1024, 1024)])
def test_view_params_reproduce_the_sim_camera(spec, size):
    w, h = size
    params = view_params_from_spec(spec, width=w, height=h)
    np.testing.assert_allclose(eye_position(params), spec.eye, atol=1e-9)
    assert vertical_fov(params.fov, w, h) == pytest.approx(spec.fov_deg)
    back = spec_from_view_params(params, width=w, height=h)
    target = spec.with_size(w, h)
    rng = np.random.default_rng(0)
    points = np.asarray(spec.target) + rng.uniform(-0.3, 0.3, size=(50, 3))
    ours, _ = project_points(back, points)
    theirs, _ = project_points(target, points)
    np.testing.assert_allclose(ours, theirs, atol=1e-6)


def test_matrices_equal_the_widgets_own(qtbot):
    widget = gl.GLViewWidget()
    qtbot.addWidget(widget)
    params = ViewParams((0.1, -0.2, 0.7), 1.7, 38.0, -120.0, 52.0)
    widget.setCameraParams(
        center=pg.Vector(*params.center),
        distance=params.distance,
        elevation=params.elevation,
        azimuth=params.azimuth,
        fov=params.fov,
    )
    theirs_view = np.array(widget.viewMatrix().data()).reshape(4, 4).T
    np.testing.assert_allclose(view_matrix(params), theirs_view, atol=1e-6)
    region = (0, 0, 640, 480)
    theirs_proj = np.array(widget.projectionMatrix(region, region).data()).reshape(4, 4).T
    np.testing.assert_allclose(
        projection_matrix(params, 640, 480), theirs_proj, rtol=1e-5, atol=1e-9
    )
    cam = widget.cameraPosition()
    np.testing.assert_allclose(eye_position(params), (cam.x(), cam.y(), cam.z()), atol=1e-6)


def test_click_ray_passes_through_the_projected_point():
    params = ViewParams((0.0, 0.0, 0.62), 1.2, 40.0, 70.0, 60.0)
    spec = spec_from_view_params(params, width=640, height=480)
    for point in ([0.1, 0.05, 0.65], [-0.3, 0.2, 0.62], [0.0, 0.0, 0.62]):
        (uv,), _ = project_points(spec, np.asarray([point]))
        origin, direction = click_ray(params, width=640, height=480, x=uv[0], y=uv[1])
        np.testing.assert_allclose(origin, eye_position(params), atol=1e-9)
        to_point = np.asarray(point) - origin
        closest = origin + direction * (to_point @ direction)
        np.testing.assert_allclose(closest, point, atol=1e-9)
    # Centre of the image looks at the orbit centre.
    origin, direction = click_ray(params, width=640, height=480, x=320, y=240)
    np.testing.assert_allclose(origin + direction * params.distance, params.center, atol=1e-9)


def test_straight_down_views_keep_the_image_up_direction():
    for up in ((0, 1, 0), (1, 0, 0), (0, -1, 0), (-1, 1, 0)):
        spec = CameraSpec(300, 200, 50.0, (0.2, 0.1, 2.0), (0.2, 0.1, 0.5), up)
        params = view_params_from_spec(spec, width=300, height=200)
        assert params.elevation == pytest.approx(90.0)
        image_up = view_matrix(params)[1, :3]
        np.testing.assert_allclose(image_up, np.asarray(up) / np.linalg.norm(up), atol=1e-9)
    assert horizontal_fov(90.0, 100, 100) == pytest.approx(90.0)
    with pytest.raises(ValueError):
        view_params_from_spec(CameraSpec(10, 10, 40.0, (0, 0, 1), (0, 0, 1)), width=10, height=10)
