"""The question generator dock in Annotate HOI, driven as a person would: choose, generate,
step through the reasoning (highlighted in the panorama, the cloud and the graph), save."""

from __future__ import annotations

import pytest
from gestures import annotate_window, open_as_ada, press_shortcut
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import Qt

from annotation.query.model import Preferences
from app.demo.jrdb_synth import SynthConfig
from app.modes.annotate.generator import preview_question, window_frames
from sim.tabletop.scenes import generate_scene, scene_record
from store import open_project
from widgets.graph.view import SceneGraphView
from widgets.jrdb.panorama import DIMMED

CONFIG = SynthConfig(frames=3, people=4, objects=3, points_per_sweep=3_000)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("generator"), CONFIG)


@pytest.fixture
def window(qtbot, imported, tmp_path):
    with annotate_window(qtbot, imported.db, tmp_path) as w:
        annotate = w.mode("annotate")
        annotate.generator.raise_dock()
        qtbot.waitUntil(lambda: annotate.generator.in_view)
        yield w
        annotate.generator.shutdown()


def generate(qtbot, window, prefs: Preferences, seed: int = 0):
    """Choose the preferences and seed in the panel, click Generate, wait for the answer."""
    gen = window.mode("annotate").generator
    gen.panel.set_preferences(prefs, seed)
    qtbot.mouseClick(gen.panel.generate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: gen.task is None, timeout=30000)
    return gen


def click_step(qtbot, panel, row: int) -> None:
    """Click a step in the list (in the active window, so the list takes the focus)."""
    if not panel.window().isActiveWindow():
        panel.window().activateWindow()
        with qtbot.waitActive(panel.window()):
            pass
    rect = panel.steps.visualRect(panel.steps.model().index(row, 0))
    qtbot.mouseClick(panel.steps.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def rows_of(gen, keys) -> set[int]:
    entities = gen.window.graph.entities
    return {
        entities[k].attributes["entity_id"] for k in keys if "entity_id" in entities[k].attributes
    }


def test_a_vg_clique_question_is_shown_and_its_steps_highlight_their_boxes(qtbot, window):
    a = window.mode("annotate")
    graph_view = getattr(getattr(a, "graph", None), "view", None)  # the Scene graph dock
    if graph_view is None:  # a mode without one: a graph view handed to it
        graph_view = SceneGraphView()
        qtbot.addWidget(graph_view)
        a.graph_view = graph_view
    gen = generate(qtbot, window, Preferences("vg", "image", "human", "clique"))
    panel, q = gen.panel, gen.question
    assert q is not None and q.preferences.spatial == "clique" and q.S == 3 and q.R == 2
    assert panel.text.text() == q.text and panel.text.isVisible() and q.text.endswith(".")
    assert panel.difficulty.text() == f"S 3 · R 2 · T 1 · D {q.D} (level D3)"
    assert panel.answer.text().startswith("Answer: person ")
    steps = panel.steps.model()
    assert steps.rowCount() == len(q.steps) >= 3
    assert steps.index(0, 0).data(Qt.ItemDataRole.ToolTipRole) == q.steps[0].question
    assert panel.save_button.isEnabled() and panel.context.text() == "frame #000000 (image)"
    assert window.size().toTuple() == (1280, 860)  # the dock fits the window as it is

    # the steps as a person goes through them: a click, then ] and Down
    narrowing = next(i for i, s in enumerate(q.steps) if 0 < len(s.entity_ids) < 4)
    click_step(qtbot, panel, narrowing)
    seen = []
    for key in (None, Qt.Key.Key_BracketRight, Qt.Key.Key_Down, Qt.Key.Key_BracketLeft):
        if key is not None:
            press_shortcut(qtbot, panel.steps, key)
        step = q.steps[panel.step_index]
        seen.append(panel.step_index)
        wanted = rows_of(gen, step.entity_ids)
        assert wanted and a.panorama.highlighted == wanted
        assert a.cloud.highlighted == wanted
        assert graph_view.highlighted == frozenset(step.entity_ids)
        for entity_id, items in a.panorama.items.items():
            for item in items:
                if entity_id in wanted:
                    assert item.pen().widthF() == 3.5 and item.opacity() == 1.0
                else:
                    assert item.opacity() == pytest.approx(DIMMED)
        assert (
            f"Step {panel.step_index + 1} of {len(q.steps)}"
            in window.mode("annotate").mode.statusBar().currentMessage()
        )
    assert seen[:2] == [narrowing, min(narrowing + 1, len(q.steps) - 1)]
    assert seen[3] == seen[2] - 1

    # out of view, the highlighting goes; back in view, it returns
    window.mode("annotate").mode.docks["relations"].raise_()
    qtbot.waitUntil(lambda: a.panorama.highlighted is None)
    assert a.cloud.highlighted is None and graph_view.highlighted == frozenset()
    gen.raise_dock()
    qtbot.waitUntil(lambda: a.panorama.highlighted is not None)


def test_saving_stores_a_pending_jrdb_candidate(qtbot, window):
    project = window.session.project
    before = project.questions.page(benchmark="jrdb", limit=1000).rows
    gen = generate(qtbot, window, Preferences("vqa-count", "image", "both", "pair"), seed=3)
    q = gen.question
    assert q is not None
    click_step(qtbot, gen.panel, 0)  # the focus in the panel: Ctrl+S is the panel's
    assert gen.panel.steps.hasFocus()
    press_shortcut(qtbot, gen.panel.steps, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    after = project.questions.page(benchmark="jrdb", limit=1000).rows
    assert len(after) == len(before) + 1
    stored = next(r for r in after if r.id not in {b.id for b in before})
    assert (stored.benchmark, stored.task, stored.text) == ("jrdb", "vqa-count", q.text)
    assert stored.status == "pending" and stored.answer == q.answer and stored.seed == 3
    assert stored.created_by == window.session.annotator.id
    assert stored.difficulty.as_dict()["D"] == q.D
    assert stored.criteria["generator"] == "jrdb-query-engine/1"
    assert stored.criteria["frame_ids"] == [window.mode("annotate").state.frame.id]
    assert stored.criteria["preferences"]["subject"] == "both"
    assert [s["description"] for s in stored.steps] == [s.description for s in q.steps]
    assert stored.sequence_id == window.mode("annotate").state.sequence.id
    assert "now in Verify questions" in window.mode("annotate").mode.statusBar().currentMessage()
    assert gen.panel.context.text() == f"Saved: question {stored.id}"
    assert not gen.panel.save_button.isEnabled()  # not twice
    press_shortcut(qtbot, gen.panel.steps, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert len(project.questions.page(benchmark="jrdb", limit=1000).rows) == len(after)


def test_no_question_is_said_in_the_panel(qtbot, window):
    # one chair, one laptop, one table: asking "what is the object" needs a relation
    gen = generate(qtbot, window, Preferences("vqa-wh", "image", "object", "single"))
    panel = gen.panel
    assert gen.question is None and panel.steps.model().rowCount() == 0
    assert panel.message.isVisible() and panel.message.text().startswith("No question: ")
    assert "vqa-wh" in panel.message.text() and not panel.save_button.isEnabled()
    assert window.mode("annotate").panorama.highlighted is None
    # a video question over two time slots at the first frame has one frame only
    generate(qtbot, window, Preferences("vg", "video", "human", "pair", "pair"))
    assert "needs 2 time slots" in panel.message.text()
    assert "(video, 1 frame)" in panel.context.text()


def test_required_keys_ask_about_interactions_and_race(qtbot, window):
    """Require hhi and race in the menu: the question uses the JRDB-Social interaction of
    pedestrians 1 and 2 and someone's race; a single entity has no relation, and the panel
    says the keys."""
    gen = window.mode("annotate").generator
    panel = gen.panel
    panel.set_preferences(Preferences("vg", "image", "human", "pair"), 0)
    panel.require_actions["hhi"].trigger()
    panel.require_actions["race"].trigger()
    assert panel.require.text() == "race, hhi"
    qtbot.mouseClick(panel.generate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: gen.task is None, timeout=30000)
    q = gen.question
    assert q is not None and q.preferences.require == ("race", "hhi")
    assert [e["family"] for e in q.pattern["edges"]] == ["hhi"]
    assert any(f[0] == "race" for n in q.pattern["nodes"] for f in n["filters"])
    assert {n["bound"] for n in q.pattern["nodes"]} == {"pedestrian:1", "pedestrian:2"}
    generate(qtbot, window, Preferences("vg", "image", "human", "single", require=("hhi",)))
    assert gen.question is None and "using hhi" in panel.message.text()


def test_the_same_seed_gives_the_same_question_and_next_another(qtbot, window):
    prefs = Preferences("vg", "image", "human", "pair")
    gen = generate(qtbot, window, prefs, seed=5)
    first = gen.question.text
    generate(qtbot, window, prefs, seed=5)
    assert gen.question.text == first and gen.panel.text.text() == first
    texts = {first}
    for _ in range(4):
        qtbot.mouseClick(gen.panel.next_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: gen.task is None, timeout=30000)
        texts.add(gen.question.text)
    assert gen.panel.seed.value() == 9 and len(texts) > 1


def test_invalid_combinations_cannot_be_chosen(qtbot, window):
    panel = window.mode("annotate").generator.panel
    assert not panel.temporal.isEnabled()  # an image has one time slot
    panel.subject.setCurrentIndex(panel.subject.findData("both"))
    assert panel.spatial.currentData() == "pair"
    single = panel.spatial.model().item(panel.spatial.findData("single"))
    assert not single.isEnabled() and "pair or clique" in panel.hint.text()
    panel.modality.setCurrentIndex(panel.modality.findData("video"))
    assert panel.temporal.isEnabled()
    panel.temporal.setCurrentIndex(panel.temporal.findData("clique"))
    panel.modality.setCurrentIndex(panel.modality.findData("image"))
    assert panel.temporal.currentData() == "single" and not panel.temporal.isEnabled()
    assert panel.preferences() == Preferences("vg", "image", "both", "pair", "single")


def test_a_video_step_in_another_slot_moves_the_frame(qtbot, window):
    a = window.mode("annotate")
    press_shortcut(qtbot, window, Qt.Key.Key_End)
    assert a.state.frame_index == 2
    gen = generate(qtbot, window, Preferences("vg", "video", "human", "pair", "pair"))
    q = gen.question
    assert q is not None and q.T == 2 and gen.window.frame_ids == [f.id for f in a.state.frames]
    assert "video, 3 frames" in gen.panel.context.text()
    early = next(i for i, s in enumerate(q.steps) if s.slot == gen.window.graph.slots[0])
    click_step(qtbot, gen.panel, early)
    assert a.state.frame_index == 0
    assert a.panorama.highlighted == rows_of(gen, q.steps[early].entity_ids)
    press_shortcut(qtbot, window, Qt.Key.Key_PageDown)  # another frame: not this step's
    assert a.panorama.highlighted is None and a.cloud.highlighted is None


def test_preview_question_runs_without_a_screen(imported):
    prefs = Preferences("vqa-count", "image", "human", "single")
    frames = window_frames(imported.frame_ids, 1, prefs)
    assert frames == [imported.frame_ids[1]]
    preview = preview_question(imported.db, imported.sequence_id, frames, prefs, seed=1)
    assert preview.question is not None and preview.problem is None
    again = preview_question(imported.db, imported.sequence_id, frames, prefs, 1, preview.window)
    assert again.question.text == preview.question.text and not again.computed
    video = Preferences("vg", "video", "human", "pair", "pair")
    assert window_frames(imported.frame_ids, 2, video) == imported.frame_ids


@pytest.fixture(scope="module")
def scene_project(tmp_path_factory):
    path = tmp_path_factory.mktemp("generator_explore") / "scenes.reasonscope"
    with open_project(path, create=True) as project:
        scene = generate_scene(31, objects=(6, 8))
        project.scenes.add(scene_record(scene))
        scene.world.close()
    return path


def test_explore_previews_questions_about_the_open_scene(qtbot, scene_project):
    w = open_as_ada(qtbot, scene_project, "explore")
    explore = w.mode("explore")
    gen = explore.generator
    try:
        explore.scene_list.select_row(0)
        qtbot.waitUntil(lambda: explore.state.loaded is not None, timeout=30000)
        gen.raise_dock()
        qtbot.waitUntil(lambda: gen.in_view)
        panel = gen.panel
        assert not panel.save_button.isVisible() and panel.modality.currentData() == "image"
        assert not panel.modality.model().item(panel.modality.findData("video")).isEnabled()
        panel.set_preferences(Preferences("vg", "image", "object", "pair"), seed=0)
        qtbot.mouseClick(panel.generate_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.question is not None, timeout=30000)
        q = panel.question
        assert panel.text.text() == q.text and q.R == 1 and len(q.target_ids) == 1
        last = len(q.steps) - 1
        click_step(qtbot, panel, last)
        bodies = {k for k in q.steps[last].entity_ids if explore.viewport.items_for(k)}
        assert bodies and explore.viewport.highlighted_keys == bodies
        assert explore.graph.view.highlighted == frozenset(q.steps[last].entity_ids)
        # humans: the scene has none, which the panel says
        panel.set_preferences(Preferences("vg", "image", "human", "single"), seed=0)
        qtbot.mouseClick(panel.generate_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.message.isVisible() and gen.wanted is None, timeout=30000)
        assert panel.message.text().startswith("No question: ")
        assert explore.viewport.highlighted_keys == frozenset()
    finally:
        gen.shutdown()
        w.close()
