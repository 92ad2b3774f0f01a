"""Verify questions on JRDB-Reasoning questions, as two verifiers use it: the answer frame's
panorama instead of the 3D viewport, the steps to click through, the criteria in JRDB's
words, the JRDB scene graph, and the same blind two-verifier protocol."""

from __future__ import annotations

import pytest
from gestures import approve_question, open_as_ada, press_shortcut
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import Qt
from question_fixtures import jrdb_question

from annotation.models import Difficulty, Question
from annotation.query.model import Preferences
from app.demo.jrdb_synth import SynthConfig
from app.jobs.reasoning import generate_for_sequence
from app.jobs.scene_graphs import graph_for_window
from sim.tabletop.scenes import generate_scene, scene_record
from store import open_project
from widgets.verify.jrdb_evidence_rows import evidence_rows, focus_rect, is_jrdb
from widgets.verify.panel import (
    TABLETOP_WORDING,
    criteria_wording,
    decision_needs,
    describe_answer,
    describe_difficulty,
)
from widgets.verify.state import VerifyState

CONFIG = SynthConfig(frames=3, people=4, objects=3, points_per_sweep=3_000)
JRDB_LABELS = (
    "Wording and answer are unambiguous",
    "The labels it rests on match the image",
    "Every step's entity set is right",
)
KINDS = {  # which question each generated record is, in the order they are stored
    "vg": Preferences("vg", "image", "human", "pair"),
    "count": Preferences("vqa-count", "image", "human", "pair"),
    "video": Preferences("vg", "video", "human", "pair", "pair"),
}


# -- pure parts ------------------------------------------------------------------------------
def test_answers_difficulty_and_wording_in_words():
    vg = {"entity_ids": ["pedestrian:3"], "image_id": "000012.jpg", "boxes": [[412, 188.5, 36, 97]]}
    assert describe_answer(vg) == "pedestrian 3 (box 412, 188.5, 36, 97 in 000012.jpg)"
    assert describe_answer(4) == "4" and describe_answer("female") == "female"
    assert describe_answer({"answer": "red mug", "point": None}) == "red mug"  # tabletop Find
    q = jrdb_question(difficulty=Difficulty(2, 1, 1))
    assert describe_difficulty(q) == "S 2 · R 1 · T 1 · D 4"
    assert criteria_wording("jrdb").labels == JRDB_LABELS
    assert criteria_wording("mgvqa") is TABLETOP_WORDING and criteria_wording(None).short[1] == (
        "2 Withheld"
    )
    assert "labels" in decision_needs("jrdb", "correct")
    assert decision_needs("mgvqa", "correct").startswith("Correct needs a valid scene")
    assert decision_needs("jrdb", "approve").startswith("Approve needs all three criteria")


def test_evidence_rows_put_the_answer_first_then_the_steps():
    steps = [
        {
            "description": "all people",
            "entity_ids": ["pedestrian:1", "pedestrian:2"],
            "slot": 0,
            "question": "Find all people.",
            "boxes": {"pedestrian:1": [1, 2, 3, 4]},
        },
        {
            "description": "female",
            "entity_ids": ["pedestrian:2"],
            "slot": 2,
            "question": "Find the women.",
            "boxes": {"pedestrian:2": [5, 6, 7, 8]},
        },
    ]
    answer = {"entity_ids": ["pedestrian:2"], "image_id": "c.jpg", "boxes": [[5, 6, 7, 8]]}
    criteria = {"frame_ids": [7, 8, 9], "image_ids": ["a.jpg", "b.jpg", "c.jpg"], "answer_slot": 2}
    rows = evidence_rows(jrdb_question(answer=answer, steps=steps, criteria=criteria))
    assert [r.answer for r in rows] == [True, False, False]
    assert rows[0].keys == ("pedestrian:2",) and rows[0].slot == 2
    assert rows[0].boxes == {"pedestrian:2": [5.0, 6.0, 7.0, 8.0]}
    assert rows[1].text == "1. all people — 2 entities · a.jpg" and rows[1].slot == 0
    assert rows[2].tooltip == "Find the women." and rows[2].text.endswith("1 entity · c.jpg")
    count = evidence_rows(jrdb_question(task="vqa-count", answer=1, steps=steps[:1]))
    assert count[0].text == "Answer: 1" and count[0].keys == ("pedestrian:1", "pedestrian:2")
    assert is_jrdb(jrdb_question()) and not is_jrdb(jrdb_question(scene_id=3, sequence_id=None))


def test_focus_rect_keeps_the_full_height_around_the_boxes():
    # a narrow person: as wide as the view's aspect needs at the image's full height
    x, y, w, h = focus_rect([(1000, 100, 50, 200)], width=3760, height=480, aspect=1.5)
    assert (y, h) == (0, 480) and w == pytest.approx(720) and x < 1000 and x + w > 1050
    # boxes far apart: wide enough for both, with context either side
    x, _, w, _ = focus_rect([(100, 0, 50, 50), (1500, 0, 50, 50)], width=3760, height=480, aspect=1)
    assert x == pytest.approx(60) and w == pytest.approx(1530)
    # at the edge: shifted inside the image; spanning it: the whole image
    assert focus_rect([(3700, 0, 40, 40)], width=3760, height=480, aspect=1)[0] == 3280
    assert focus_rect([(0, 0, 10, 9), (3700, 0, 10, 9)], width=3760, height=480, aspect=1) == (
        0.0,
        0.0,
        3760,
        480,
    )
    # a box across the seam counts with its larger part (here at the left edge)
    x, _, w, _ = focus_rect([(3740, 0, 100, 50)], width=3760, height=480, aspect=1)
    assert x == 0 and w == 480
    assert focus_rect([], width=100, height=50, aspect=2) == (0.0, 0.0, 100, 50)


def test_the_state_refuses_a_correction_in_jrdb_words(project, alice):
    project.questions.add(
        {
            "benchmark": "jrdb",
            "task": "vqa-count",
            "text": "How many people are there?",
            "answer": 3,
            "evidence_ids": [],
            "sequence_id": None,
        }
    )
    state = VerifyState(project.verifications, alice, needs=decision_needs)
    refused = []
    state.refused.connect(refused.append)
    state.toggle(1)
    state.set_correction(text="How many people?", options_text="", answer_text="3")
    assert not state.submit("correct")
    assert refused[-1] == criteria_wording("jrdb").correct_needs


# -- the mode ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def jrdb_project(tmp_path_factory):
    """The synthetic JRDB sequence with a VG, a Count and a video VG question, then a tabletop
    question on a generated scene."""
    base = build_hoi_project(tmp_path_factory.mktemp("verify_jrdb"), CONFIG)
    with open_project(base.db) as project:
        for seed, prefs in enumerate(KINDS.values()):
            records, _ = generate_for_sequence(project, base.sequence_id, prefs, 1, seed=seed)
            assert len(records) == 1, prefs
            project.questions.add_many(records)
        scene = generate_scene(31, objects=(3, 4))
        with project.write():
            sid = project.scenes.add(scene_record(scene))
        objects = [b.key for b in scene.world.objects()]
        scene.world.close()
        project.questions.add(
            {
                "benchmark": "mgvqa",
                "task": "count",
                "text": "How many objects are there?",
                "answer": len(objects),
                "evidence_ids": objects[:2],
                "scene_id": sid,
            }
        )
    return base.db


@pytest.fixture
def window(qtbot, jrdb_project, tmp_path):
    def small_renders(w):
        w.mode("verify").image_size = 256

    w = open_as_ada(qtbot, jrdb_project, "verify", copy_to=tmp_path, prepare=small_renders)
    yield w
    w.close()


def kind_of(question: Question) -> str:
    if question.scene_id is not None:
        return "tabletop"
    if question.task == "vqa-count":
        return "count"
    return "video" if len(question.criteria.get("frame_ids", [])) > 1 else "vg"


def open_kind(qtbot, verify, kind: str) -> Question:
    """Click the queue row of the question of `kind` and wait for its panorama."""
    row = next(i for i, q in enumerate(verify.state.questions) if kind_of(q) == kind)
    table = verify.queue.view
    rect = table.visualRect(verify.queue.model.index(row, 2))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    question = verify.state.current
    assert question.id == verify.state.questions[row].id
    if is_jrdb(question):
        view = verify.jrdb.view
        qtbot.waitUntil(lambda: view.detail.has_image, timeout=10000)
    return question


def click_step(qtbot, view, row: int) -> None:
    rect = view.steps.visualRect(view.steps.model().index(row, 0))
    qtbot.mouseClick(view.steps.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def entity_rows(verify, keys) -> set[int]:
    rows = verify.jrdb.view.evidence.entity_rows
    return {rows[k] for k in keys if k in rows}


def test_two_blind_verifiers_approve_a_jrdb_question(qtbot, window):
    verify, session = window.mode("verify"), window.session
    repo = session.project.verifications
    question = open_kind(qtbot, verify, "vg")
    approve_question(qtbot, window)
    assert repo.last_verdict(session.annotator).question_id == question.id
    assert repo.outcome(question.id).status == "pending"

    session.sign_in("Ben")
    assert question.id in [q.id for q in verify.state.questions]
    open_kind(qtbot, verify, "vg")
    assert verify.state.current.id == question.id
    assert "Ada" not in verify.panel.verdicts.text()  # blind
    approve_question(qtbot, window)
    assert repo.outcome(question.id).status == "approved"
    assert session.project.questions.get(question.id).status == "approved"
    assert "Ada" in verify.panel.last.text()  # both are in: now Ben may see Ada's verdict


def test_the_evidence_view_shows_the_answer_frame_with_the_answer_boxes(qtbot, window):
    verify = window.mode("verify")
    question = open_kind(qtbot, verify, "vg")
    view = verify.jrdb.view
    assert verify.pages.currentWidget() is verify.page
    assert verify.central.currentWidget() is view and not verify.viewport.isVisible()
    assert verify.banner.text().startswith("Verification view: the answer's boxes are outlined")
    answer = question.answer
    evidence = view.evidence
    frame = evidence.frames[question.criteria["answer_slot"]]
    assert frame.image_name == answer["image_id"] and view.shown_frame == frame.frame_id
    assert view.detail.has_image and view.overview.has_image
    targets = entity_rows(verify, answer["entity_ids"])
    assert view.detail.highlighted == targets == view.overview.highlighted
    drawn = [r.getRect() for row in targets for r in view.detail.box_rects(row)]
    assert drawn == [pytest.approx(tuple(b), abs=0.01) for b in answer["boxes"]]
    assert [r.getRect() for r in view.answer_rects()] == [tuple(b) for b in answer["boxes"]]
    # the detail is zoomed to the answer at the image's full height
    shown = view.detail.visible_rect()
    x, y, w, h = answer["boxes"][0]
    assert shown.left() <= x and x + w <= shown.right() and not view.detail.fitted
    # the Model view dock: the image the model is given, without boxes
    assert not verify.image.image_item.pixmap().isNull()
    # V: plain rendering (no shading, no answer boxes), and back
    press_shortcut(qtbot, window, Qt.Key.Key_V)
    assert view.detail.highlighted is None and view.answer_rects() == []
    press_shortcut(qtbot, window, Qt.Key.Key_V)
    assert view.detail.highlighted == targets and len(view.answer_rects()) == 1


def test_clicking_a_step_highlights_exactly_its_entities(qtbot, window):
    verify = window.mode("verify")
    question = open_kind(qtbot, verify, "vg")
    view, graph = verify.jrdb.view, verify.graph
    for row, step in enumerate(question.steps, 1):
        click_step(qtbot, view, row)
        assert view.current_row == row
        people = {k for k in step["entity_ids"] if k != "robot"}
        assert view.detail.highlighted == entity_rows(verify, people)
        assert view.highlighted_keys == tuple(step["entity_ids"])
        assert verify.jrdb.highlight_keys() == list(step["entity_ids"])
    assert view.answer_rects() == []  # the answer boxes are drawn on the answer row only
    press_shortcut(qtbot, window, Qt.Key.Key_BracketLeft)  # [ : the step before
    assert view.current_row == len(question.steps) - 1
    press_shortcut(qtbot, window, Qt.Key.Key_BracketRight)  # ] : the next one
    assert view.current_row == len(question.steps)
    assert "Step" in verify.mode.statusBar().currentMessage()
    assert graph is not None


def test_a_box_edited_elsewhere_shows_on_the_same_step(qtbot, window):
    verify, session = window.mode("verify"), window.session
    question = open_kind(qtbot, verify, "vg")
    view = verify.jrdb.view
    click_step(qtbot, view, 2)
    key = question.answer["entity_ids"][0]
    row = view.evidence.entity_rows[key]
    x, y, w, h = question.answer["boxes"][0]
    session.project.sequences.set_box_2d(row, view.shown_frame, [x + 5, y, w, h], session.annotator)
    session.data_changed.emit()  # as Annotate HOI does after an edit
    assert view.current_row == 2 and view.evidence.question.id == question.id
    assert view.detail.box_rects(row)[0].x() == pytest.approx(x + 5)
    assert view.detail.has_image  # from the cache: no wait


def test_the_overview_strip_moves_the_detail_and_the_wheel_keeps_it(qtbot, window):
    verify = window.mode("verify")
    open_kind(qtbot, verify, "vg")
    view = verify.jrdb.view
    strip, detail = view.overview, view.detail
    assert view.window_item.isVisible()  # the detail's part of the image, framed
    assert view.window_item.rect() == detail.visible_rect().intersected(strip.scene.sceneRect())
    far = 100.0 if detail.visible_rect().center().x() > strip.width_px / 2 else 3600.0
    qtbot.mouseClick(
        strip.view.viewport(),
        Qt.MouseButton.LeftButton,
        pos=strip.scene_to_widget(far, strip.height_px / 2).toPoint(),
    )
    assert detail.visible_rect().left() <= far <= detail.visible_rect().right()
    assert not view.auto_zoom  # the person moved it: a resize keeps it there
    detail.zoom_by(0.8)
    click_step(qtbot, view, 1)  # a new row zooms to its boxes again
    assert view.auto_zoom


def test_a_video_step_switches_to_its_frame(qtbot, window):
    verify = window.mode("verify")
    question = open_kind(qtbot, verify, "video")
    view = verify.jrdb.view
    frames = question.criteria["frame_ids"]
    assert view.shown_frame == frames[question.criteria["answer_slot"]]
    assert "time slot" in view.caption.text()
    row = next(i for i, s in enumerate(question.steps, 1) if s["slot"] != view.current.slot)
    step = question.steps[row - 1]
    for _ in range(row):
        press_shortcut(qtbot, window, Qt.Key.Key_BracketRight)
    assert view.current_row == row
    assert view.shown_frame == frames[step["slot"]]
    qtbot.waitUntil(lambda: view.detail.has_image, timeout=10000)
    assert view.detail.highlighted == entity_rows(verify, step["entity_ids"])
    assert f"time slot {step['slot'] + 1} of {len(frames)}" in view.caption.text()


def test_criteria_read_jrdb_words_and_a_tabletop_question_gets_the_viewport_back(qtbot, window):
    verify = window.mode("verify")
    open_kind(qtbot, verify, "count")
    panel = verify.panel
    shown = [b for b in panel.criteria.values() if b.isVisibleTo(panel)]  # 4: Compare only
    assert [b.text()[3:] for b in shown] == list(JRDB_LABELS)
    assert verify.actions["c2"].text() == "2 Labels match" and verify.actions["c3"].isVisible()
    assert verify.actions["step_next"].isVisible() and not verify.overlay_action.isVisible()
    assert panel.difficulty.text().startswith("S ") and panel.steps.text().startswith("<ol")
    assert panel.steps.isVisible() and panel.header.text().startswith("<b>VQA-Count</b>")
    press_shortcut(qtbot, window, Qt.Key.Key_1)
    assert "cannot fix wrong labels" in panel.editor_note.text()
    press_shortcut(qtbot, window, Qt.Key.Key_E)  # the editor opens; saving is refused
    assert panel.editor.isVisible()
    press_shortcut(qtbot, panel.edit_answer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert verify.mode.statusBar().currentMessage() == criteria_wording("jrdb").correct_needs

    open_kind(qtbot, verify, "tabletop")
    qtbot.waitUntil(lambda: verify.loaded is not None, timeout=30000)
    assert verify.central.currentWidget() is verify.viewport and verify.viewport.isVisible()
    shown = [b for b in panel.criteria.values() if b.isVisibleTo(panel)]
    assert [b.text()[3:] for b in shown] == list(TABLETOP_WORDING.labels)
    assert verify.actions["c2"].text() == "2 Withheld"
    assert not verify.actions["step_next"].isVisible() and verify.overlay_action.isVisible()
    assert verify.banner.text().startswith("Verification view: clutter")
    assert verify.jrdb.view.evidence is None  # nothing of the JRDB question stays behind


def test_a_count_is_corrected_through_the_json_editor(qtbot, window):
    verify, session = window.mode("verify"), window.session
    project, repo = session.project, session.project.verifications
    question = open_kind(qtbot, verify, "count")
    assert verify.panel.answer.text() == f"<b>{question.answer}</b>"
    for key in (Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_E):  # ambiguous; labels and steps right
        press_shortcut(qtbot, window, key)
    panel = verify.panel
    assert panel.editor.isVisible() and panel.edit_answer.text() == str(question.answer)
    panel.edit_answer.selectAll()
    qtbot.keyClicks(panel.edit_answer, str(question.answer + 1))
    press_shortcut(qtbot, panel.edit_answer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    record = repo.last_verdict(session.annotator)
    assert record.decision == "correct"
    assert record.verdict.corrections == {"answer": question.answer + 1}  # a number, not text
    proposed = project.questions.get(record.proposed_question_id)
    assert proposed.answer == question.answer + 1 and not proposed.is_current
    assert proposed.sequence_id == question.sequence_id and proposed.steps == question.steps


def test_the_graph_dock_shows_the_jrdb_graph_with_the_evidence(qtbot, window):
    verify = window.mode("verify")
    question = open_kind(qtbot, verify, "vg")
    dock = verify.mode.docks["graph"]
    dock.raise_()
    graph = dock.widget()
    qtbot.waitUntil(lambda: bool(graph.graph.entities), timeout=15000)
    project = window.session.project
    expected = graph_for_window(project, question.sequence_id, question.criteria["frame_ids"])
    assert set(graph.graph.entities) == set(expected.entities)
    assert graph.highlighted == set(question.evidence_ids)
    click_step(qtbot, verify.jrdb.view, 1)  # a step: the graph follows it
    assert graph.highlighted == set(question.steps[0]["entity_ids"])
    key = question.answer["entity_ids"][0]  # a node click rings the entity's box
    qtbot.mouseClick(
        graph.canvas.viewport(),
        Qt.MouseButton.LeftButton,
        pos=graph.canvas.mapFromScene(graph.nodes[key].pos()),
    )
    assert verify.jrdb.view.detail.selected == verify.jrdb.view.evidence.entity_rows[key]
    other = next(k for k in question.evidence_ids if k != key)  # a box click rings its node
    detail = verify.jrdb.view.detail
    box = detail.box_rects(verify.jrdb.view.evidence.entity_rows[other])[0]
    qtbot.mouseClick(
        detail.view.viewport(),
        Qt.MouseButton.LeftButton,
        pos=detail.scene_to_widget(box.center().x(), box.center().y()).toPoint(),
    )
    assert graph.selected == other
    open_kind(qtbot, verify, "tabletop")  # a scene again: its simulator graph
    qtbot.waitUntil(lambda: "pedestrian:1" not in graph.graph.entities, timeout=30000)
    assert graph.highlighted == set(verify.state.current.evidence_ids)
