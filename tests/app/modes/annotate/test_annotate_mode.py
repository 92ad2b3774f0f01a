"""Annotate HOI as a person uses it: frames by key, one selection everywhere, relations in words."""

from __future__ import annotations

import re

import pytest
from gestures import annotate_window, open_as_ada, press_shortcut
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import Qt

from app.demo.jrdb_synth import SynthConfig
from app.modes import MODES
from store import open_project
from widgets.jrdb.state import JrdbViewState

CONFIG = SynthConfig(frames=3, people=4, objects=3, points_per_sweep=3_000)
WORDS = re.compile(
    r"^[a-z]+ \d+: (very close|close|moderate|far|very far), "
    r"(in front of|behind|left of|right of|(front|back)-(left|right) of) the robot$"
)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("annotate"), CONFIG).db


@pytest.fixture
def window(qtbot, imported, tmp_path):
    with annotate_window(qtbot, imported, tmp_path) as w:
        yield w


def test_the_sequence_opens_on_its_first_frame_in_every_view(window):
    a = window.mode("annotate")
    assert a.pages.currentWidget() is a.page and a.frame_dock.isVisible()
    assert a.sequence_box.count() == 1 and a.state.frame_index == 0
    assert a.panorama.has_image and a.panorama.boxes == a.state.boxes_2d
    assert a.cloud.total_count > 1000
    assert {b.entity_id for b in a.cloud.boxes} == {b.entity_id for b in a.state.boxes_3d}
    people = a.state.people_in_frame()
    assert len(people) == CONFIG.people
    assert a.entity_list.entity_ids() == people + a.state.objects_in_frame()
    assert "Frame 1 of 3" in a.slider.label.text()


def test_frame_keys_move_the_frame(qtbot, window):
    a = window.mode("annotate")
    press_shortcut(qtbot, window, Qt.Key.Key_PageDown)
    assert a.state.frame_index == 1 and a.slider.position == 1
    assert "Frame 2 of 3" in a.slider.label.text()
    qtbot.waitUntil(lambda: a.shown == a.state.frame.id, timeout=30000)
    press_shortcut(qtbot, window, Qt.Key.Key_End)
    assert a.state.frame_index == 2
    press_shortcut(qtbot, window, Qt.Key.Key_PageDown)  # stays on the last frame
    assert a.state.frame_index == 2
    press_shortcut(qtbot, window, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert a.state.frame_index == 1
    press_shortcut(qtbot, window, Qt.Key.Key_Home)
    assert a.state.frame_index == 0
    steps = (
        (a.entity_list.tree, Qt.Key.Key_PageDown, 1),
        (a.slider.slider, Qt.Key.Key_PageDown, 2),
    )
    for focused, key, expected in (*steps, (a.sequence_box, Qt.Key.Key_PageUp, 1)):
        focused.setFocus()  # the frame keys work wherever the focus is
        press_shortcut(qtbot, focused, key)
        assert a.state.frame_index == expected
    shortcuts = {a.actions[k].shortcut().toString() for k in ("previous", "next", "first", "last")}
    assert shortcuts == {"PgUp", "PgDown", "Home", "End"}
    qtbot.waitUntil(lambda: a.shown == a.state.frame.id and a.task is None, timeout=30000)


def test_clicking_a_person_in_the_image_selects_them_everywhere(qtbot, window):
    a = window.mode("annotate")
    box = next(b for b in a.state.boxes_2d if b.entity_id == a.state.people_in_frame()[1])
    x, y = box.x + min(box.w, 3760 - box.x) / 2, box.y + box.h / 2
    if a.panorama.entity_at(x, y) != box.entity_id:
        pytest.skip("the person is hidden behind someone smaller in this frame")
    point = a.panorama.scene_to_widget(x, y).toPoint()
    qtbot.mouseClick(a.panorama.view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    chosen = box.entity_id
    assert a.state.selected == chosen
    assert a.panorama.selected == chosen and a.cloud.selected == chosen
    current = a.entity_list.tree.currentIndex()
    assert current.isValid() and current.siblingAtColumn(0).data(Qt.ItemDataRole.UserRole) == chosen
    assert a.relations.selected == chosen
    assert any(
        title.startswith(f"Seen from {a.state.label(chosen)}") for title, _ in a.relations.groups()
    )
    # a labelling panel asks for a target: the next click answers it and selects nothing
    picked: list[int] = []
    a.state.target_picked.connect(picked.append)
    a.state.picking = True
    other = next(b for b in a.state.boxes_2d if b.entity_id != chosen and b.x + b.w < 3760)
    ox, oy = other.x + other.w / 2, other.y + other.h / 2
    target = a.panorama.entity_at(ox, oy)
    qtbot.mouseClick(
        a.panorama.view.viewport(),
        Qt.MouseButton.LeftButton,
        pos=a.panorama.scene_to_widget(ox, oy).toPoint(),
    )
    assert picked == [target] and a.state.selected == chosen
    a.state.picking = False
    qtbot.mouseClick(a.panorama.view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert picked == [target]


def test_clicking_in_the_cloud_and_the_list_selects_too(qtbot, window):
    a = window.mode("annotate")
    person = a.state.people_in_frame()[0]
    a.cloud.view.grabFramebuffer()
    pos = a.cloud.screen_position(person)
    assert pos is not None
    qtbot.mouseClick(a.cloud.view, Qt.MouseButton.LeftButton, pos=pos.toPoint())
    assert a.state.selected == a.cloud.entity_at(pos.x(), pos.y())
    row = a.entity_list.model.index_of(a.state.objects_in_frame()[0])
    rect = a.entity_list.tree.visualRect(row)
    qtbot.mouseClick(a.entity_list.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert a.state.selected == a.state.objects_in_frame()[0]
    assert a.panorama.selected == a.state.selected == a.cloud.selected


def test_relations_are_stored_and_shown_in_words(window):
    a = window.mode("annotate")
    project = window.session.project
    stored = project.sequences.relations(a.state.frame.id)
    assert stored, "the first showing of a frame computes and stores its relations"
    robot_lines = [a.relations.sentence(r) for r in stored if r.to_robot]
    # every person, and every object the lidar sees, placed relative to the robot
    people = {e.id for e in project.sequences.entities(a.state.sequence.id) if e.kind == "human"}
    assert len([r for r in stored if r.to_robot and r.subject_entity_id in people]) == CONFIG.people
    assert len(robot_lines) > CONFIG.people
    assert all(WORDS.match(line) for line in robot_lines), robot_lines
    assert robot_lines[0] in a.relations.texts()
    assert a.relations.status.text() == f"{len(stored)} relations in this frame."
    a.state.select(a.state.people_in_frame()[0])
    name = a.state.label(a.state.selected)
    around = [t for t in a.relations.texts() if t.endswith(f"of {name}") or t.endswith(name)]
    assert around  # others, seen from the selected person


def test_a_project_without_sequences_shows_how_to_import_one(qtbot, window, tmp_path):
    empty = tmp_path / "empty.reasonscope"
    open_project(empty, create=True).close()
    assert window.open_path(empty)
    a = window.mode("annotate")
    assert a.pages.currentIndex() == 0 and a.state.sequence is None
    assert not a.frame_dock.isVisible()
    spec = next(s for s in MODES if s.key == "annotate")
    assert "reasonscope import jrdb" in spec.how_to
    assert "not part of this build" not in spec.how_to


def test_view_state_contract(qtbot, imported):
    with open_project(imported) as project:
        state = JrdbViewState()
        seen: list = []
        state.sequence_changed.connect(lambda: seen.append("sequence"))
        state.frame_changed.connect(lambda i: seen.append(("frame", i)))
        state.selection_changed.connect(lambda e: seen.append(("selected", e)))
        sequence_id = project.sequences.find(CONFIG.name).id
        state.load(project, sequence_id)
        assert seen == ["sequence", ("frame", 0)]
        assert len(state.frames) == CONFIG.frames and state.frame is state.frames[0]
        people = state.people_in_frame()
        keys = [state.entities[i].key for i in people]
        assert keys == sorted(keys, key=lambda k: int(k.split(":")[1]))
        state.set_frame(99)
        assert state.frame_index == CONFIG.frames - 1
        state.step(-5)
        assert state.frame_index == 0
        state.pick(people[0])
        assert state.selected == people[0]
        targets: list[int] = []
        state.target_picked.connect(targets.append)
        state.picking = True
        state.pick(people[1])
        assert targets == [people[1]] and state.selected == people[0]
        state.load(project, None)
        assert state.sequence is None and state.frame is None and state.selected is None
        assert seen[-1] == ("selected", None) and state.people_in_frame() == []


def test_ctrl_r_recomputes_a_frame_after_its_boxes_changed(qtbot, window):
    a = window.mode("annotate")
    project, frame = window.session.project, a.state.frame
    person = a.state.people_in_frame()[0]
    box = a.state.box_3d(person)
    moved = (0.3, 0.0, box.cz, box.l, box.w, box.h, 0.0)  # right in front of the robot
    project.sequences.set_box_3d(person, frame.id, moved, window.session.annotator)
    a.state.refresh()
    press_shortcut(qtbot, window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: a.task is None and a.shown == frame.id, timeout=30000)
    (to_robot,) = [
        r
        for r in project.sequences.relations(frame.id)
        if r.to_robot and r.subject_entity_id == person
    ]
    assert to_robot.distance_bin == "very-close" and to_robot.direction == "front"
    name = a.state.label(person)
    assert f"{name}: very close, in front of the robot" in a.relations.texts()


# -- Annotate HOI: the selected label follows the frames -------------------------------------
@pytest.fixture(scope="module")
def hoi_db(tmp_path_factory):
    from hoi_fixtures import build_hoi_project

    from app.demo.jrdb_synth import SynthConfig

    config = SynthConfig(frames=3, people=3, objects=2, points_per_sweep=2_000)
    return build_hoi_project(tmp_path_factory.mktemp("friction"), config).db


def test_a_new_label_stays_selected_across_frames_and_copies(qtbot, hoi_db, tmp_path):
    from gestures import press_shortcut
    from PySide6.QtCore import Qt

    window = open_as_ada(qtbot, hoi_db, "annotate", copy_to=tmp_path)
    a = window.mode("annotate")
    qtbot.waitUntil(lambda: a.shown == a.state.frame.id, timeout=30000)
    hoi = a.hoi.state
    refused: list[str] = []
    hoi.refused.connect(refused.append)
    press_shortcut(qtbot, window, Qt.Key.Key_Tab)  # the first person
    press_shortcut(qtbot, window, Qt.Key.Key_W)  # walking: a new label, selected
    (label,) = hoi.labels
    assert hoi.selected_id == label.id
    press_shortcut(qtbot, window, Qt.Key.Key_PageDown)  # a frame without it
    assert hoi.selected is None
    press_shortcut(qtbot, window, Qt.Key.Key_PageUp)  # back: it is selected again
    assert hoi.selected_id == label.id
    selected = a.hoi.panel.list.selectionModel().selectedIndexes()
    shown = [index.data(Qt.ItemDataRole.UserRole) for index in selected]
    assert shown == [label.id]  # and the list shows it selected
    press_shortcut(qtbot, window, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier)
    assert not [r for r in refused if r.startswith("Nothing to copy")], refused
    project = window.session.project
    assert project.hoi.progress(a.state.sequence.id).labels == 3  # copied to frames 2 and 3
    qtbot.waitUntil(lambda: a.task is None, timeout=30000)
    window.close()


# -- Annotate HOI: the target by keys or from a list ------------------------------------------
def test_an_interaction_target_is_chosen_with_tab_and_enter_or_from_the_list(
    qtbot, hoi_db, tmp_path
):
    import math

    from gestures import press_shortcut
    from PySide6.QtCore import Qt

    window = open_as_ada(qtbot, hoi_db, "annotate", copy_to=tmp_path)
    a = window.mode("annotate")
    qtbot.waitUntil(lambda: a.shown == a.state.frame.id, timeout=30000)
    hoi, panel = a.hoi.state, a.hoi.panel
    press_shortcut(qtbot, window, Qt.Key.Key_Tab)  # the first person
    person = hoi.person
    press_shortcut(qtbot, window, Qt.Key.Key_H)  # holding: waits for its target
    assert a.state.picking and panel.targets.isVisible()
    # the frame's objects, nearest the person first (3D box centres)
    p = a.state.box_3d(person)
    objects = a.state.objects_in_frame()
    by_distance = sorted(
        objects,
        key=lambda o: math.dist(
            (p.cx, p.cy, p.cz), (a.state.box_3d(o).cx, a.state.box_3d(o).cy, a.state.box_3d(o).cz)
        ),
    )
    assert [c for c, _d in panel.chooser.candidates] == by_distance
    targets = panel.targets.model()
    assert targets.rowCount() == len(objects) and " m" in targets.index(0, 0).data()
    assert panel.chooser.current == by_distance[0]
    assert a.panorama.highlighted == frozenset({person, by_distance[0]})  # shown in the views
    press_shortcut(qtbot, window, Qt.Key.Key_Tab)  # Tab now moves through the objects ...
    assert hoi.person == person and panel.chooser.current == by_distance[1]
    assert panel.targets.selectionModel().isSelected(targets.index(1, 0))
    press_shortcut(qtbot, window, Qt.Key.Key_Return)  # ... and Enter takes one
    (label,) = hoi.labels
    assert (label.label.predicate, label.label.object_entity_id) == ("holding", by_distance[1])
    assert not a.state.picking and not panel.targets.isVisible()
    assert a.panorama.highlighted is None
    # a click in the list takes a target too (here: another label, looking at)
    hoi.retarget()
    assert a.state.picking
    row = panel.targets.model().index(0, 0)
    qtbot.mouseClick(
        panel.targets.viewport(),
        Qt.MouseButton.LeftButton,
        pos=panel.targets.visualRect(row).center(),
    )
    (label,) = hoi.labels
    assert label.label.object_entity_id == by_distance[0]
    qtbot.waitUntil(lambda: a.task is None, timeout=30000)
    window.close()
