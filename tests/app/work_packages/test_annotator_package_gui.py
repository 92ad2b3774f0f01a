"""An annotator package worked in the app (Annotate HOI, mouse and keys), copied while the
app still has it open, merged from the copy, exported, read by the JRDB toolkit."""

from __future__ import annotations

import shutil

import pytest
from gestures import drag_on_panorama, open_as_ada, press_shortcut
from jrdb_activity_fixture import DATA, FIXTURE, NAME, implied_gt, imported_fixture, toolkit
from PySide6.QtCore import Qt

from app.io.hoi_labels import export_labels
from app.work_packages.create import PackageRequest, create_package
from app.work_packages.merge import merge_package
from store import open_project

CTRL = Qt.KeyboardModifier.ControlModifier
LEFT = Qt.MouseButton.LeftButton


def click(qtbot, panorama, x, y):
    point = panorama.scene_to_widget(x, y).toPoint()
    qtbot.mouseClick(panorama.view.viewport(), LEFT, pos=point)


def test_a_package_worked_in_the_app_and_copied_while_open_merges(qtbot, tmp_path):
    db, _root = imported_fixture(tmp_path)
    create_package(
        db,
        PackageRequest("Ada", "annotator", sequence=NAME, frames=(15, 30)),
        tmp_path / "a.rspack",
    )
    laptop = tmp_path / "laptop"
    laptop.mkdir()
    pack = (tmp_path / "a.rspack").rename(laptop / "a.rspack")
    window = open_as_ada(qtbot, pack, "annotate")
    a = window.mode("annotate")
    qtbot.waitUntil(lambda: a.shown == a.state.frame.id, timeout=30000)
    assert a.state.frame.index == 15 and window.session.annotator.name == "Ada"
    keys = {e.key: i for i, e in a.state.entities.items()}
    # frame 15: pedestrian:7 picked and dragged 60 px left; a person drawn with Ctrl+drag
    click(qtbot, a.panorama, 3420, 300)
    assert a.state.selected == keys["pedestrian:7"]
    drag_on_panorama(qtbot, a.panorama, (3420, 300), (3360, 300))
    moved = a.state.box_2d(keys["pedestrian:7"])
    assert moved.x == pytest.approx(3299, abs=8)
    a.boxes.ask_category = lambda: "person"
    drag_on_panorama(qtbot, a.panorama, (800, 120), (870, 330), CTRL)
    drawn = a.state.entities[a.state.selected]
    assert drawn.key == "pedestrian:13"
    # frame 30: pedestrian:9 picked and taken out of the frame
    press_shortcut(qtbot, window, Qt.Key.Key_End)
    qtbot.waitUntil(lambda: a.shown == a.state.frame.id, timeout=30000)
    assert a.state.frame.index == 30
    click(qtbot, a.panorama, 1530, 240)
    assert a.state.selected == keys["pedestrian:9"]
    press_shortcut(qtbot, window, Qt.Key.Key_Delete, CTRL)
    assert keys["pedestrian:9"] not in {b.entity_id for b in a.state.boxes_2d}

    # The package is sent while the app still has it open: the copy holds all saved work.
    sent = tmp_path / "sent.rspack"
    shutil.copy(pack, sent)
    assert not (laptop / "a.rspack-wal").exists()
    report = merge_package(db, sent)
    window.close()
    assert report.conflicts == []
    assert (report.merged["entities"], report.merged["boxes"], report.merged["removals"]) == (
        1,
        2,
        1,
    )
    out_dir, orig_dir = tmp_path / "export", tmp_path / "original"
    out_dir.mkdir(), orig_dir.mkdir()
    export_labels(db, NAME, out_dir / f"{NAME}.json")
    shutil.copy(FIXTURE, orig_dir / f"{NAME}.json")
    labelmap = str(DATA / "task_1.pbtxt")
    ours = toolkit().construct_GT(str(out_dir), labelmap)
    theirs = toolkit().construct_GT(str(orig_dir), labelmap)
    with open_project(db) as p:
        frame = next(f for f in p.sequences.frames(1) if f.index == 15)
        seven = next(
            b for b in p.sequences.boxes_2d(frame.id) if b.entity_id == keys["pedestrian:7"]
        )
    box = tuple(
        int(v) if float(v).is_integer() else v for v in (seven.x, seven.y, seven.w, seven.h)
    )
    assert box == (moved.x, moved.y, moved.w, moved.h)
    assert ours == implied_gt(theirs, box) and ours != theirs
