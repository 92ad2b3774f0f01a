"""What a JRDB-Reasoning question's evidence is for its verifiers, without Qt: the words for
entities and answers, which slot and entities the answer is about, the rows of the step
list, and the part of the panorama the detail shows."""

from __future__ import annotations

import dataclasses

import pytest
from question_fixtures import jrdb_question

from annotation.models import Question
from widgets.verify.jrdb_evidence_rows import (
    answer_boxes,
    answer_entities,
    answer_slot,
    answer_words,
    entity_words,
    evidence_rows,
    focus_rect,
    is_jrdb,
)

BASE = jrdb_question(uid="u1", text="Find the woman sitting at the table.")
STEPS = [
    {
        "description": "all people",
        "entity_ids": ["pedestrian:1", "pedestrian:2", "pedestrian:3"],
        "slot": 0,
        "question": "Who is in the frame?",
    },
    {
        "description": "sitting",
        "entity_ids": ["pedestrian:2"],
        "slot": 1,
        "boxes": {"pedestrian:2": [1500.0, 130.0, 90.0, 180.0]},
    },
]


def question(**changes) -> Question:
    return dataclasses.replace(BASE, **changes)


def test_entities_and_answers_in_words():
    assert entity_words("pedestrian:12") == "pedestrian 12"
    assert entity_words("robot") == "robot"
    vg = {"entity_ids": ["pedestrian:2", "chair:1"], "boxes": [[1, 2, 3, 4], [5, 6, 7, 8]]}
    assert answer_words(question(answer=vg)) == "pedestrian 2, chair 1"
    assert answer_words(question(answer={"entity_ids": []})) == "nobody"
    assert answer_words(question(task="vqa-count", answer=3)) == "3"
    assert answer_words(question(task="vqa-wh", answer="female")) == "female"


def test_the_answers_slot_entities_and_boxes():
    assert answer_slot(question(criteria={"answer_slot": 1, "frame_ids": [4, 5, 6]})) == 1
    assert answer_slot(question(criteria={"frame_ids": [4, 5, 6]})) == 2  # the last frame's
    assert answer_slot(question(criteria={"image_ids": ["a.jpg", "b.jpg"]})) == 1
    assert answer_slot(question(criteria={})) == 0
    vg = {"entity_ids": ["pedestrian:2"], "boxes": [[1500, 130, 90, 180], [1, 2, 3]]}
    assert answer_entities(question(answer=vg, steps=STEPS)) == ("pedestrian:2",)
    assert answer_entities(question(answer=2, steps=STEPS)) == ("pedestrian:2",)  # last step's
    assert answer_entities(question(answer=2)) == ()
    assert answer_boxes(question(answer=vg)) == [[1500.0, 130.0, 90.0, 180.0]]  # 4 numbers only
    assert answer_boxes(question(answer=2)) == []


def test_a_one_frame_question_lists_the_answer_then_its_steps_without_frame_names():
    steps = [{**s, "slot": 0} for s in STEPS]
    rows = evidence_rows(question(task="vqa-count", answer=1, steps=steps))
    assert [r.text for r in rows] == [
        "Answer: 1",
        "1. all people — 3 entities",
        "2. sitting — 1 entity",
    ]
    answer = rows[0]
    assert answer.answer and answer.slot == 0 and answer.keys == ("pedestrian:2",)
    assert answer.boxes == {"pedestrian:2": [1500.0, 130.0, 90.0, 180.0]}  # the last step's
    assert rows[1].tooltip == "Who is in the frame?" and rows[2].tooltip == "sitting"
    assert not rows[1].answer and rows[1].boxes == {}


def test_a_video_question_names_each_rows_frame_or_slot():
    criteria = {"frame_ids": [7, 8, 9], "image_ids": ["a.jpg", "b.jpg"], "answer_slot": 2}
    rows = evidence_rows(
        question(answer={"entity_ids": ["pedestrian:2"]}, steps=STEPS, criteria=criteria)
    )
    assert [r.text for r in rows] == [
        "Answer: pedestrian 2 · slot 3",  # no image name stored for the third frame
        "1. all people — 3 entities · a.jpg",
        "2. sitting — 1 entity · b.jpg",
    ]
    assert [r.slot for r in rows] == [2, 0, 1]
    assert is_jrdb(question()) and not is_jrdb(None)
    assert not is_jrdb(question(scene_id=4)) and not is_jrdb(question(sequence_id=None))


@pytest.mark.parametrize(
    ("boxes", "expected"),
    [
        ([(-100, 0, 140, 50)], (3280.0, 0.0, 480.0, 480.0)),  # mostly past the left seam
        ([(-10, 0, 140, 50)], (0.0, 0.0, 480.0, 480.0)),  # mostly inside: its inside part
        ([(1000, 0, 600, 50)], (960.0, 0.0, 680.0, 480.0)),  # wider than the view's aspect
        ([(1000, 0, 0, 50)], (0.0, 0.0, 3760.0, 480.0)),  # an empty box: the whole image
    ],
)
def test_the_detail_shows_the_boxes_at_full_height(boxes, expected):
    assert focus_rect(boxes, width=3760, height=480, aspect=1.0) == pytest.approx(expected)
