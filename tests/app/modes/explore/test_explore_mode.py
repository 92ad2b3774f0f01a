"""Explore scenes as a person uses it: pick a scene, select bodies in any view."""

from __future__ import annotations

import numpy as np
import pytest
from gestures import open_as_ada
from PySide6.QtCore import QPoint, Qt

from sim.tabletop.scenes import generate_scene, scene_record
from store import open_project


@pytest.fixture(scope="module")
def scene_project(tmp_path_factory):
    path = tmp_path_factory.mktemp("explore") / "scenes.reasonscope"
    with open_project(path, create=True) as project:
        for seed in (31, 32):
            scene = generate_scene(seed, objects=(3, 4))
            project.scenes.add(scene_record(scene))
            scene.world.close()
    return path


@pytest.fixture
def window(qtbot, scene_project):
    w = open_as_ada(qtbot, scene_project, "explore")
    yield w
    w.close()


def open_first_scene(qtbot, window):
    explore = window.mode("explore")
    explore.scene_list.select_row(0)
    qtbot.waitUntil(lambda: explore.state.loaded is not None, timeout=30000)
    return explore


def test_scene_list_filters_and_opening_a_scene_fills_every_view(qtbot, window):
    explore = window.mode("explore")
    assert len(explore.state.scenes) == 2
    assert explore.pages.currentWidget() is explore.central
    assert explore.central.currentWidget() is explore.viewport
    explore.scene_list.seed.setText("32")
    explore.scene_list.seed.editingFinished.emit()
    assert [s.seed for s in explore.state.scenes] == [32]
    explore.scene_list.seed.setText("")
    explore.scene_list.seed.editingFinished.emit()
    explore.scene_list.select_row(0)
    # while it is restored the view says so, and shows no stale model view
    assert explore.central.currentWidget() is explore.busy
    assert "Restoring scene" in explore.busy.text()
    assert explore.image.image_item.pixmap().isNull()
    explore = open_first_scene(qtbot, window)
    assert explore.central.currentWidget() is explore.viewport
    loaded = explore.state.loaded
    assert loaded.scene.seed == 31
    assert explore.objects.model.rowCount() == len(loaded.world.objects())
    assert len(explore.viewport.items()) > 0
    assert explore.image.segmentation is loaded.view.segmentation


def test_selecting_a_row_selects_in_viewport_and_image(qtbot, window):
    explore = open_first_scene(qtbot, window)
    index = explore.objects.proxy.index(0, 0)
    rect = explore.objects.view.visualRect(index)
    qtbot.mouseClick(explore.objects.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    key = explore.objects.selected_key()
    assert key and explore.state.selected == key
    assert explore.viewport.selected_key == key
    assert explore.image.selected_uid == explore.state.loaded.world.bodies[key].uid


def test_clicking_a_body_in_the_model_image_selects_it_everywhere(qtbot, window):
    explore = open_first_scene(qtbot, window)
    loaded = explore.state.loaded
    visible = [b for b in loaded.world.objects() if loaded.visibility[b.key].visible_px > 50]
    target = visible[0]
    ys, xs = np.nonzero(loaded.view.segmentation == target.uid)
    x, y = int(np.median(xs)), int(np.median(ys))
    if loaded.view.segmentation[y, x] != target.uid:
        x, y = int(xs[0]), int(ys[0])
    view = explore.image.view
    pos = view.mapFromScene(x + 0.5, y + 0.5)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pos.x(), pos.y()))
    assert explore.state.selected == target.key
    assert explore.objects.selected_key() == target.key


def test_view_keys_switch_camera_and_live_physics(qtbot, window):
    from gestures import press_shortcut

    explore = open_first_scene(qtbot, window)
    press_shortcut(qtbot, window, Qt.Key.Key_T)
    assert explore.viewport.camera_preset == "top_down"
    assert explore.preset_actions["top_down"].isChecked()
    press_shortcut(qtbot, window, Qt.Key.Key_O)
    assert explore.viewport.camera_preset == "oblique"
    press_shortcut(qtbot, window, Qt.Key.Key_P)
    assert explore.viewport.is_live
    press_shortcut(qtbot, window, Qt.Key.Key_P)
    qtbot.waitUntil(lambda: not explore.viewport.is_live)
    press_shortcut(qtbot, window, Qt.Key.Key_S)
    assert explore.image.overlay_box.isChecked()
    rows = {(g, a.text()) for g, a in window.shortcut_groups() if not a.shortcut().isEmpty()}
    assert ("Explore scenes", "Live physics") in rows


def test_segmentation_overlay_colours_objects_not_the_table(qtbot, window):
    explore = open_first_scene(qtbot, window)
    explore.image.overlay_box.setChecked(True)
    loaded = explore.state.loaded
    overlay = explore.image.overlay_item.pixmap().toImage()
    seg = loaded.view.segmentation
    table = loaded.world.bodies["table"].uid
    ys, xs = np.nonzero(seg == table)
    assert overlay.pixelColor(int(xs[0]), int(ys[0])).alpha() == 0
    obj = loaded.world.objects()[0].uid
    ys, xs = np.nonzero(seg == obj)
    if len(xs):
        assert overlay.pixelColor(int(xs[0]), int(ys[0])).alpha() > 0
