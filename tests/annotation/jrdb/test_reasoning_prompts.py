"""Replies read as JRDB-Reasoning's own evaluation scripts read them.

tests/real_clients/jrdb_reasoning_eval.py holds the scripts' `parse_model_output` (VG) and
`VQAEvaluator._extract_prediction` (VQA); every reply here is read by both and must give
the same boxes or the same answer. The prompts are the scripts' words.
"""

from __future__ import annotations

import pytest

import tests.real_clients.jrdb_reasoning_eval as real
from annotation.jrdb.reasoning_prompts import (
    VG_SYSTEM,
    read_vg_reply,
    read_vqa_reply,
    vg_messages,
    vqa_messages,
    vqa_text,
)

W, H = 3760, 480
VG_REPLIES = [
    '[{"bbox_2d": [770, 66, 813, 157]}]',
    '```json\n[{"bbox_2d": [770.4, 66.2, 813.9, 157.5]}]\n```',
    '```\n{"bbox": [10, 20, 30, 40]}\n```',
    '[{"box": [1800, 200, 1900, 260]}, {"bbox_2d": [0, 0, 5, 5]}]',
    '[{"bbox_2d": [813, 157, 770, 66]}]',  # corners swapped
    '[{"bbox_2d": [-20, -5, 30, 400]}]',  # past the edges: clamped
    '[{"bbox_2d": [1, 2, 3]}, {"label": "person"}, 7]',  # nothing usable
    "not json at all",
    '{"bbox_2d": "left"}',
    "",
]


@pytest.mark.parametrize("reply", VG_REPLIES)
def test_vg_reply_gives_the_boxes_the_real_script_gives(reply, capsys):
    theirs = real.parse_model_output(reply, W, H, 0.5)  # [x1, y1, x2, y2]
    ours = read_vg_reply(reply, W, H, 0.5)
    if not theirs:
        assert ours.answer is None and ours.problem
        return
    assert ours.problem is None
    assert [[x, y, x + w, y + h] for x, y, w, h in ours.answer] == theirs


def _evaluator(answer, options):
    entry = {
        "question": {"question": "q", "options": options},
        "labels": {"slot1": {"final_answer": answer}},
        "data": {"seq": "s.json"},
    }
    return real.VQAEvaluator(entry, None, None)


@pytest.mark.parametrize(
    ("reply", "gold", "options"),
    [
        ("3", 3, [1, 3, 5, 7, 9]),
        ("There are 3 people.", 3, [1, 3, 5, 7, 9]),
        ("3, 5", 3, [1, 3, 5, 7, 9]),
        ("three", 3, [1, 3, 5, 7, 9]),
        ("female", ["female"], ["male", "female"]),
        ("Female.", ["female"], ["male", "female"]),
        ("The person is walking", ["walking"], ["sitting", "walking", "standing"]),
        ("young adult, middle-aged adult", ["young adult"], ["young adult", "middle-aged adult"]),
        ("blue", ["chair"], ["chair", "table"]),
        ("", ["chair"], ["chair", "table"]),
    ],
)
def test_vqa_reply_is_right_exactly_when_the_real_script_says_so(reply, gold, options):
    from annotation.jrdb.reasoning_eval import score_answer

    evaluator = _evaluator(gold, options)
    theirs = evaluator.evaluate(evaluator._extract_prediction(reply))["exact_match"]
    task = "vqa-count" if isinstance(gold, int) else "vqa-wh"
    ours = read_vqa_reply(reply, task, options)
    truth = gold if isinstance(gold, int) else gold[0]
    correct = ours.answer is not None and score_answer(task, truth, ours.answer).correct
    assert correct == bool(theirs), (reply, ours)


def test_the_prompts_are_the_scripts_words():
    assert VG_SYSTEM == (
        "You are a precise visual grounding system. Return ONLY valid JSON. No markdown, "
        'no explanation. Format: [{"bbox_2d": [x1, y1, x2, y2]}].'
    )
    vg = vg_messages("Find the man.", ["data:a"])
    assert vg[1]["content"][0] == {"type": "text", "text": "Find the man."}
    evaluator = _evaluator(3, [1, 3, 5])
    evaluator.json_data["question"]["question"] = "Count the men."
    theirs = evaluator._generate_prompt(["/x/a.jpg", "/x/b.jpg"])[0]["content"]
    ours = vqa_messages("Count the men.", [1, 3, 5], ["data:a", "data:b"])[0]["content"]
    assert [p["type"] for p in ours] == ["image_url", "image_url", "text"]
    assert [p.get("type") for p in theirs] == ["image", "image", "text"]
    assert ours[-1]["text"] == theirs[-1]["text"] == vqa_text("Count the men.", [1, 3, 5])
