"""The evidence view of a JRDB-Reasoning question on a real imported sequence (its
panoramas, its boxes): the answer frame with the answer outlined, the steps to click
through, the plain rendering (V), clicks on boxes and on the overview strip."""

from __future__ import annotations

from pathlib import Path

import pytest
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QListView

from app.demo.jrdb_synth import SynthConfig
from store import open_project
from widgets.jrdb.state import entity_label
from widgets.verify.jrdb_evidence import JrdbEvidenceView
from widgets.verify.jrdb_evidence_rows import EvidenceFrame, JrdbEvidence

CONFIG = SynthConfig(frames=2, people=3, objects=2, points_per_sweep=200)
LEFT = Qt.MouseButton.LeftButton


@pytest.fixture(scope="module")
def sequence(tmp_path_factory):
    """The evidence of a VG question about person 2 (as the app reads it), and the images."""
    hp = build_hoi_project(tmp_path_factory.mktemp("jrdb_evidence"), CONFIG)
    with open_project(hp.db) as project:
        repo = project.sequences
        seq = repo.get(hp.sequence_id)
        frame = repo.frames(seq.id)[0]
        boxes = tuple(repo.boxes_2d(frame.id))
        entities = repo.entities(seq.id)
        target = next(b for b in boxes if b.entity_id == hp.persons["pedestrian:2"])
        name = Path(frame.image_path).name
        question = project.questions.add(
            {
                "benchmark": "jrdb",
                "task": "vg",
                "text": "Find the second person.",
                "answer": {
                    "entity_ids": ["pedestrian:2"],
                    "image_id": name,
                    "boxes": [[target.x, target.y, target.w, target.h]],
                },
                "steps": [
                    {
                        "description": "all people",
                        "entity_ids": sorted(hp.persons),
                        "question": "Who is in the frame?",
                    },
                    {"description": "the second one", "entity_ids": ["pedestrian:2"]},
                ],
                "criteria": {"frame_ids": [frame.id], "image_ids": [name], "answer_slot": 0},
                "sequence_id": seq.id,
            }
        )
    path = Path(seq.root) / frame.image_path
    evidence = JrdbEvidence(
        question,
        seq.name,
        (EvidenceFrame(frame.id, frame.index, name, path, boxes),),
        {e.key: e.id for e in entities},
        {e.id: entity_label(e) for e in entities},
    )
    return evidence, hp, QImage(str(path))


@pytest.fixture
def view(qtbot):
    v = JrdbEvidenceView()
    qtbot.addWidget(v)
    v.resize(900, 600)
    v.show()
    qtbot.waitExposed(v)
    return v


def click_step(qtbot, view: JrdbEvidenceView, row: int) -> None:
    rect = view.steps.visualRect(view.steps.model().index(row, 0))
    qtbot.mouseClick(view.steps.viewport(), LEFT, pos=rect.center())


def bold(index) -> bool:
    font = index.data(Qt.ItemDataRole.FontRole)
    return font is not None and font.bold()


def test_the_answer_frame_opens_with_the_answer_outlined(qtbot, view, sequence):
    evidence, hp, image = sequence
    frame = evidence.frames[0]
    with qtbot.waitSignal(view.row_changed, timeout=1000) as row:
        view.show_evidence(evidence)
    assert row.args == [0] and view.current.answer
    steps = view.steps.model()
    texts = [steps.index(i, 0).data() for i in range(steps.rowCount())]
    assert texts == [
        "Answer: pedestrian 2",
        "1. all people — 3 entities",
        "2. the second one — 1 entity",
    ]
    assert bold(steps.index(0, 0)) and not bold(steps.index(1, 0))
    assert "loading the panorama" in view.caption.text() and "answer frame" in view.caption.text()
    view.set_images({frame.frame_id: image})
    assert view.detail.has_image and view.overview.has_image
    assert "loading" not in view.caption.text() and frame.image_name in view.caption.text()
    person = hp.persons["pedestrian:2"]
    assert view.detail.highlighted == {person} == view.overview.highlighted
    stored = evidence.question.answer["boxes"][0]
    assert [r.getRect() for r in view.answer_rects()] == [pytest.approx(tuple(stored))]
    # the detail is zoomed round the answer at the full height, framed in the overview
    shown = view.detail.visible_rect()
    x, _y, w, _h = stored
    assert shown.left() <= x and x + w <= shown.right() and shown.width() < 3760 / 2
    assert view.window_item.isVisible()


def test_clicking_a_step_highlights_its_entities_and_brackets_move(qtbot, view, sequence):
    evidence, hp, image = sequence
    view.show_evidence(evidence)
    view.set_images({evidence.frames[0].frame_id: image})
    with qtbot.waitSignal(view.row_changed, timeout=1000) as row:
        click_step(qtbot, view, 1)
    assert row.args == [1]
    assert view.detail.highlighted == set(hp.persons.values())
    assert view.highlighted_keys == tuple(sorted(hp.persons))
    assert view.answer_rects() == []  # the answer boxes belong to the answer row
    view.move(+1)
    assert view.current_row == 2 and view.detail.highlighted == {hp.persons["pedestrian:2"]}
    view.move(+1)
    assert view.current_row == 2  # the last row stays
    view.move(-5)
    assert view.current_row == 0 and len(view.answer_rects()) == 1


def test_the_plain_rendering_drops_highlight_and_answer_boxes(view, sequence):
    evidence, _hp, image = sequence
    view.show_evidence(evidence)
    view.set_images({evidence.frames[0].frame_id: image})
    view.set_emphasis(False)
    assert view.detail.highlighted is None and view.answer_rects() == []
    assert view.highlighted_keys == ()
    assert len(view.detail.boxes) == len(evidence.frames[0].boxes)  # the boxes stay
    view.set_emphasis(True)
    assert view.detail.highlighted is not None and len(view.answer_rects()) == 1


def test_boxes_and_the_overview_strip_take_clicks(qtbot, view, sequence):
    evidence, hp, image = sequence
    view.show_evidence(evidence)
    view.set_images({evidence.frames[0].frame_id: image})
    person = hp.persons["pedestrian:2"]
    centre = view.detail.box_rects(person)[0].center()
    with qtbot.waitSignal(view.entity_clicked, timeout=1000) as clicked:
        point = view.detail.scene_to_widget(centre.x(), centre.y()).toPoint()
        qtbot.mouseClick(view.detail.view.viewport(), LEFT, pos=point)
    assert clicked.args == ["pedestrian:2"] and view.detail.selected == person
    strip = view.overview
    far = 100.0 if view.detail.visible_rect().center().x() > 1880 else 3600.0
    point = strip.scene_to_widget(far, strip.height_px / 2).toPoint()
    qtbot.mouseClick(strip.view.viewport(), LEFT, pos=point)
    shown = view.detail.visible_rect()
    assert shown.left() <= far <= shown.right() and not view.auto_zoom
    view.select_entity("pedestrian:1")  # a click in the scene graph
    assert view.detail.selected == hp.persons["pedestrian:1"] == view.overview.selected


def test_no_question_or_no_image_says_so(view, sequence):
    evidence, _hp, _image = sequence
    view.show_evidence(evidence)
    view.set_images({evidence.frames[0].frame_id: None})  # the file is missing
    assert "no image file" in view.caption.text() and not view.detail.has_image
    assert view.detail.highlighted is not None  # the boxes are still there to check
    view.show_evidence(None, "Open a question <from the queue>")
    assert view.steps.model().rowCount() == 0 and view.current is None and view.frame is None
    assert view.caption.text() == "Open a question &lt;from the queue&gt;"
    assert view.detail.boxes == [] and view.answer_rects() == []


def test_the_step_list_is_a_model_of_the_rows(qtbot, qtmodeltester, view, sequence):
    """One row an `EvidenceRow` (text, tooltip, the answer bold), the current row selected;
    showing a question picks its row without a second `row_changed`; Qt's model checker
    accepts the model."""
    evidence, _hp, _image = sequence
    steps = view.steps.model()
    assert steps is view.row_model and isinstance(view.steps, QListView)
    qtmodeltester.check(steps)
    changes: list[int] = []
    view.row_changed.connect(changes.append)
    view.show_evidence(evidence, row=1)
    assert changes == [1] and view.current_row == 1
    qtmodeltester.check(steps)
    assert steps.rows is view.rows and len(view.rows) == 3
    assert [steps.index(r, 0).data(Qt.ItemDataRole.ToolTipRole) for r in range(3)] == [
        r.tooltip for r in view.rows
    ]
    selected = view.steps.selectionModel().selectedIndexes()
    assert [i.row() for i in selected] == [1]
    view.select_row(2)
    selected = view.steps.selectionModel().selectedIndexes()
    assert changes == [1, 2] and [i.row() for i in selected] == [2]
    view.select_row(2)  # already there: nothing new
    assert changes == [1, 2]
    view.show_evidence(None)
    assert changes == [1, 2] and view.current_row == -1 and view.rows == []
