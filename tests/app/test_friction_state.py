"""State bugs a day's work ran into (issue 17), each driven as the person hit it."""

from __future__ import annotations

import pytest
from gestures import shown_window
from PySide6.QtWidgets import QApplication

from app.main_window import MainWindow
from widgets.signin import SignInDialog


@pytest.fixture
def make_window(qtbot):
    made = []

    def make() -> MainWindow:
        made.append(shown_window(qtbot))
        return made[-1]

    yield make
    for w in made:
        w.close()


def _open_dialogs() -> list[SignInDialog]:
    return [
        w for w in QApplication.topLevelWidgets() if isinstance(w, SignInDialog) and w.isVisible()
    ]


def test_one_who_is_working_dialog_after_a_cancelled_first_sign_in(qtbot, make_window, tmp_path):
    project = tmp_path / "fresh.reasonscope"
    first = make_window()
    first.open_path(project, create=True)
    qtbot.waitUntil(lambda: len(_open_dialogs()) == 1)
    _open_dialogs()[0].reject()  # cancel: nobody signed in
    first.close()
    # start again: the project opens, then opens again when the demo-style completion ends
    second = make_window()
    second.open_path(project)
    second.open_path(project)
    qtbot.wait(50)
    second.request_sign_in()  # and the person clicks "Sign in" meanwhile
    qtbot.wait(50)
    dialogs = _open_dialogs()
    assert len(dialogs) == 1
    dialogs[0].combo.lineEdit().setText("Ivy")
    dialogs[0].accept()
    assert second.session.annotator.name == "Ivy" and _open_dialogs() == []


# -- Annotate HOI: the selected label follows the frames -------------------------------------
@pytest.fixture(scope="module")
def hoi_db(tmp_path_factory):
    from hoi_fixtures import build_hoi_project

    from app.demo.jrdb_synth import SynthConfig

    config = SynthConfig(frames=3, people=3, objects=2, points_per_sweep=2_000)
    return build_hoi_project(tmp_path_factory.mktemp("friction"), config).db


def test_a_new_label_stays_selected_across_frames_and_copies(qtbot, hoi_db, tmp_path):
    from gestures import open_as_ada, press_shortcut
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


# -- work done outside the app appears ---------------------------------------------------------
def test_questions_added_by_another_process_appear_in_the_open_queue(qtbot, make_window, tmp_path):
    import subprocess
    import sys

    from PySide6.QtCore import Qt

    from app import settings as app_settings

    project = tmp_path / "outside.reasonscope"
    app_settings.remember_annotator("Ada")
    window = make_window()
    assert window.open_path(project, create=True)
    window.set_mode("verify")
    verify = window.mode("verify")
    assert verify.state.current is None
    # another process (as `reasonscope ... --db` would) adds a question to the open project
    code = (
        "from store import open_project\n"
        f"with open_project({str(project)!r}) as p:\n"
        "    p.questions.add({'benchmark': 'mgvqa', 'task': 'count', 'text': 'How many?',"
        " 'answer': 2})\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    qtbot.waitUntil(lambda: verify.state.current is not None, timeout=10_000)  # by itself
    assert verify.state.current.text == "How many?"
    assert "changed elsewhere (another program" in window.statusBar().currentMessage()
    # and View > Reload (F5) reads the project again on request
    assert window.reload_action.shortcut().toString() == "F5"
    assert window.reload_action in window.actions()
    seen = []
    window.session.data_changed.connect(lambda: seen.append(1))
    from gestures import press_shortcut

    press_shortcut(qtbot, window, Qt.Key.Key_F5)
    assert seen


# -- feedback while waiting ----------------------------------------------------------------------
def test_launch_shows_a_splash_then_the_window_before_the_project_opens(qtbot, tmp_path):
    from app.gui import start_window
    from store import open_project
    from widgets.splash import StartSplash

    path = tmp_path / "launch.reasonscope"
    open_project(path, create=True).close()
    splashes: list[StartSplash] = []
    original = StartSplash.say

    def record(self, text):
        splashes.append(self)
        assert self.isVisible()  # on screen while the heavy imports run
        original(self, text)

    StartSplash.say = record
    try:
        window = start_window(path)
    finally:
        StartSplash.say = original
    qtbot.addWidget(window)
    assert splashes and "Loading" in splashes[0].text
    assert window.isVisible() and not splashes[0].isVisible()  # the window replaced it
    assert window.session.project is None  # not yet: the window paints first ...
    assert "Opening launch.reasonscope" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: window.session.project is not None, timeout=10_000)  # ... then opens
    window.close()


def test_one_overall_bar_across_parts_with_time_left(qtbot):
    from annotation.progress import PART_SCALE, Progress
    from widgets.tasks import TaskRunner, time_left_text

    seen: list[tuple[int, int, str]] = []
    overall = Progress(lambda d, t, m: seen.append((d, t, m)))
    for i, name in enumerate(("Scenes", "Questions", "Episodes")):
        part = overall.part(i, 3, name)
        for k in range(5):
            part.report(k, 4, f"step {k}")
    values = [d for d, _t, _m in seen]
    assert values == sorted(values) and values[-1] == PART_SCALE  # never back to 0
    assert seen[0][2] == "Scenes (part 1 of 3): step 0"
    assert time_left_text(30, 0.25) == "about 1 min 30 s left"
    assert time_left_text(1, 0.5) == "" and time_left_text(20, 0.01) == ""
    # the runner's dialog label wraps instead of cutting, and says the time left
    lines: list[str] = []

    def work(progress):
        import time

        for k in range(4):
            progress.report(k, 4, f"A long part name that used to be cut off, step {k}")
            time.sleep(0.05)
        return "done"

    runner = TaskRunner("Preparing", work)
    runner.progressed.connect(lines.append)
    with qtbot.waitSignal(runner.finished, timeout=20_000):
        runner.start()
        runner.started_at -= 30  # as if it had run for half a minute (reports are queued)
    assert runner.dialog.labelText() and runner.dialog.minimumWidth() >= 520
    assert any("left" in line for line in lines), lines
    assert all("\n" not in line for line in lines)


# -- Verify: the model view after a tabletop question -----------------------------------------
@pytest.fixture(scope="module")
def mixed_db(tmp_path_factory):
    """A JRDB question (panorama) and a tabletop question (a restored scene) in one queue."""
    from pathlib import Path

    from hoi_fixtures import build_hoi_project

    from app.demo.jrdb_synth import SynthConfig
    from app.jobs.questions import generate_questions
    from store import open_project

    hp = build_hoi_project(
        tmp_path_factory.mktemp("mixed"),
        SynthConfig(frames=1, people=2, objects=1, points_per_sweep=1_000),
    )
    with open_project(hp.db) as project:
        frame = project.sequences.frames(hp.sequence_id)[0]
        box = project.sequences.boxes_2d(frame.id)[0]
        key = {e.id: e.key for e in project.sequences.entities(hp.sequence_id)}[box.entity_id]
        image = Path(frame.image_path).name
        xywh = [box.x, box.y, box.w, box.h]
        project.questions.add(
            {
                "benchmark": "jrdb",
                "task": "vg",
                "text": "Find the person.",
                "seed": 0,
                "sequence_id": hp.sequence_id,
                "evidence_ids": [key],
                "answer": {"entity_ids": [key], "image_id": image, "boxes": [xywh]},
                "steps": [
                    {
                        "description": "all persons",
                        "entity_ids": [key],
                        "slot": 0,
                        "boxes": {key: xywh},
                    }
                ],
                "difficulty": {"S": 1, "R": 0, "T": 1},
                "criteria": {
                    "generator": "jrdb-query-engine/1",
                    "frame_ids": [frame.id],
                    "image_ids": [image],
                    "preferences": {"task": "vg"},
                },
            }
        )
    generate_questions(hp.db, tasks=["count"], n=1, seed=1, image_size=256)  # and a scene's
    return hp.db


def test_the_model_view_shows_the_panorama_again_after_a_tabletop_question(
    qtbot, mixed_db, tmp_path
):
    from gestures import open_as_ada, press_shortcut
    from PySide6.QtCore import Qt

    def small(w):
        w.mode("verify").image_size = 256

    window = open_as_ada(qtbot, mixed_db, "verify", copy_to=tmp_path, prepare=small)
    verify = window.mode("verify")
    image = verify.image.image_item
    assert verify.state.current.benchmark == "jrdb"
    qtbot.waitUntil(lambda: not image.pixmap().isNull(), timeout=20_000)  # the panorama
    press_shortcut(qtbot, window, Qt.Key.Key_J)  # the tabletop question
    assert verify.state.current.benchmark == "mgvqa"
    # while its scene is restored: no stale panorama, and the view says what is coming
    assert image.pixmap().isNull()
    assert verify.central.currentWidget() is verify.busy
    assert "Restoring scene" in verify.busy.text()
    qtbot.waitUntil(lambda: verify.loaded is not None, timeout=30_000)
    assert verify.central.currentWidget() is verify.viewport and not image.pixmap().isNull()
    press_shortcut(qtbot, window, Qt.Key.Key_K)  # back to the JRDB question (cached image)
    assert verify.state.current.benchmark == "jrdb"
    qtbot.waitUntil(lambda: not image.pixmap().isNull(), timeout=5_000)
    assert "The model's image" in verify.image.caption.text()
    qtbot.waitUntil(lambda: verify.task is None and verify.jrdb.task is None, timeout=30_000)
    window.close()


@pytest.fixture(scope="module")
def two_scenes_db(tmp_path_factory):
    from app.jobs.questions import generate_questions
    from store import open_project

    path = tmp_path_factory.mktemp("prefetch") / "two.reasonscope"
    open_project(path, create=True).close()
    generate_questions(path, tasks=["count"], n=2, seed=1, image_size=128)
    return path


def test_the_next_question_is_restored_ahead_and_opens_at_once(qtbot, two_scenes_db, tmp_path):
    from gestures import open_as_ada, press_shortcut
    from PySide6.QtCore import Qt

    def small(w):
        w.mode("verify").image_size = 128

    window = open_as_ada(qtbot, two_scenes_db, "verify", copy_to=tmp_path, prepare=small)
    verify = window.mode("verify")
    first, second = verify.state.questions[:2]
    assert first.scene_id != second.scene_id
    qtbot.waitUntil(lambda: verify.loaded is not None, timeout=30_000)
    # while the first is read, the next one's scene is restored in the background
    qtbot.waitUntil(lambda: second.scene_id in verify.prefetch.kept, timeout=30_000)
    press_shortcut(qtbot, window, Qt.Key.Key_J)
    # shown at once: no busy page, no restore started
    assert verify.loaded is not None and verify.loaded.scene.id == second.scene_id
    assert verify.central.currentWidget() is verify.viewport and verify.task is None
    press_shortcut(qtbot, window, Qt.Key.Key_K)  # and back again, also at once
    assert verify.loaded.scene.id == first.scene_id and verify.task is None
    assert second.scene_id in verify.prefetch.kept
    window.close()
    assert verify.prefetch.kept == {}  # the worlds are closed with the window


# -- Annotate HOI: the target by keys or from a list ------------------------------------------
def test_an_interaction_target_is_chosen_with_tab_and_enter_or_from_the_list(
    qtbot, hoi_db, tmp_path
):
    import math

    from gestures import open_as_ada, press_shortcut
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


def test_parts_weighted_by_their_usual_time_share_the_bar():
    from annotation.progress import PART_SCALE, Progress

    seen: list[int] = []
    overall = Progress(lambda d, _t, _m: seen.append(d))
    weights = [1.0, 3.0]  # the second part usually takes three times as long
    overall.part(0, 2, "quick", weights).report(1, 1)
    overall.part(1, 2, "slow", weights).report(1, 2)
    assert seen == [PART_SCALE // 4, PART_SCALE // 4 + 3 * PART_SCALE // 8]
    with pytest.raises(ValueError, match="2 parts need 2"):
        overall.part(0, 2, "bad", [1.0])


def test_the_demo_build_reports_one_bar_that_never_goes_back(tmp_path):
    from annotation.progress import PART_SCALE, Progress
    from app.demo import DEMO_PART_SECONDS, DEMO_PARTS, build_demo

    assert set(DEMO_PART_SECONDS) == {name for name, _ in DEMO_PARTS}  # a weight each
    seen: list[tuple[int, int, str]] = []
    build_demo(tmp_path / "demo.reasonscope", Progress(lambda d, t, m: seen.append((d, t, m))))
    values = [d for d, _t, _m in seen]
    assert values == sorted(values) and values[-1] == PART_SCALE  # one bar, never back to 0
    assert {t for _d, t, _m in seen} == {PART_SCALE}
    part = f"Demo: episodes (part 5 of {len(DEMO_PARTS)})"
    assert any(m.startswith(part) for _d, _t, m in seen)


def test_the_main_status_bar_has_room_for_messages(qtbot, make_window):
    window = make_window()
    window.resize(1280, 860)
    window.statusBar().showMessage("The project was changed by another program: updated.")
    qtbot.wait(50)
    # the path label no longer stretches over the message area (it took all of it)
    bar = window.statusBar()
    free = bar.width() - window.project_label.width() - window.annotator_button.width()
    assert free > bar.width() // 2


def test_a_mode_never_shown_keeps_a_usable_layout_after_a_restart(qtbot, make_window, tmp_path):
    first = make_window()
    first.resize(1280, 860)
    first.set_mode("explore")  # Verify is never on screen in this session
    qtbot.wait(100)
    first.close()  # saves the layouts
    second = make_window()
    second.resize(1280, 860)
    second.set_mode("verify")
    qtbot.wait(200)
    question = second.mode_windows["verify"].docks["question"]
    assert question.isVisible() and question.width() >= 300, question.width()
    second.set_mode("explore")
    assert second.mode_windows["explore"].was_shown and second.mode_windows["verify"].was_shown
