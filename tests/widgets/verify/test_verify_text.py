"""What the Verify form says, as pure text: task names, answers, difficulty, steps and
verdicts (the verdicts read back from a real project's store)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from annotation.verification import Verdict
from widgets.verify.text import (
    answer_option,
    describe_answer,
    describe_difficulty,
    describe_verdict,
    heading,
    rich_label,
    steps_html,
    task_words,
)


def test_task_names_and_answers_in_words():
    assert [task_words(t) for t in ("vg", "vqa-count", "vqa-wh", "beneath", "count")] == [
        "VG",
        "VQA-Count",
        "VQA-Wh",
        "Beneath",
        "Count",
    ]
    find = {"answer": "yes", "point": [120.0, 64.5]}
    assert answer_option(find) == "yes" and answer_option(3) == 3
    assert describe_answer(find) == "yes, at (120, 64.5) px in the model's image"
    assert describe_answer({"answer": "no", "point": None}) == "no"
    assert describe_answer(4) == "4" and describe_answer("middle_adulthood") == "middle_adulthood"
    vg = {
        "entity_ids": ["pedestrian:3", "pedestrian:7"],
        "image_id": "000012.jpg",
        "boxes": [[412, 188, 36.5, 97]],
    }
    assert describe_answer(vg) == (
        "pedestrian 3 (box 412, 188, 36.5, 97 in 000012.jpg); pedestrian 7"
    )
    assert describe_answer({"entity_ids": []}) == "nobody"


def test_difficulty_and_steps(project):
    base = {"benchmark": "jrdb", "task": "vqa-count", "text": "How many people sit?"}
    steps = [
        {"description": "all persons", "entity_ids": ["pedestrian:1", "pedestrian:2"]},
        {"description": "who <sit>", "entity_ids": ["pedestrian:2"], "question": "sitting?"},
    ]
    rated = project.questions.add(
        {**base, "answer": 1, "steps": steps, "difficulty": {"S": 2, "R": 1, "T": 1}}
    )
    unrated = project.questions.add({**base, "answer": 1})
    assert describe_difficulty(rated) == "S 2 · R 1 · T 1 · D 4"
    assert describe_difficulty(unrated) == ""
    assert steps_html(rated.steps) == (
        "<ol style='margin: 0; -qt-list-indent: 1'>"
        "<li title=''>all persons — 2 entities</li>"
        "<li title='sitting?'>who &lt;sit&gt; — 1 entity</li></ol>"
    )


def test_verdicts_as_stored_read_as_lines(project, alice, bob):
    qid = project.questions.add(
        {"benchmark": "mgvqa", "task": "count", "text": "How many mugs?", "answer": 2}
    ).id
    approve = project.verifications.submit(qid, alice, Verdict(True, True, True, "approve"), 3.0)
    reject = Verdict(True, False, True, "reject", reason="the mugs are <plain> to see")
    rejected = project.verifications.submit(qid, bob, reject, 4.0)
    assert describe_verdict(approve, own=True) == (
        "<b>You</b> (first round): <b>approve</b> &nbsp;[1✓ 2✓ 3✓]"
    )
    assert describe_verdict(rejected, own=False) == (
        "<b>Bob</b> (first round): <b>reject</b> &nbsp;[1✓ 2✗ 3✓]"
        " — “the mugs are &lt;plain&gt; to see”"
    )
    other = project.questions.add(
        {"benchmark": "mgvqa", "task": "count", "text": "How many cubes?", "answer": 2}
    ).id
    fix = Verdict(False, True, True, "correct", corrections={"answer": 3})
    corrected = project.verifications.submit(other, alice, fix, 5.0)
    assert describe_verdict(corrected, own=False).endswith(
        "[1✗ 2✓ 3✓]<br>&nbsp;&nbsp;proposes answer → 3"
    )


def test_a_compare_verdict_reads_with_criterion_4(project, alice):
    qid = project.questions.add(
        {"benchmark": "mgvqa", "task": "compare", "text": "Which is largest?", "answer": "A"}
    ).id
    no = Verdict(True, True, True, "reject", reason="same size", volumes_distinct=False)
    record = project.verifications.submit(qid, alice, no, 3.0)
    assert describe_verdict(record, own=True) == (
        "<b>You</b> (first round): <b>reject</b> &nbsp;[1✓ 2✓ 3✓ 4✗] — “same size”"
    )


def test_the_two_label_factories(qtbot):
    label = rich_label()
    qtbot.addWidget(label)
    assert label.wordWrap() and label.textFormat() == Qt.TextFormat.RichText
    assert label.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    title = heading("Verdicts & notes")
    qtbot.addWidget(title)
    assert title.text() == "<b>Verdicts &amp; notes</b>"
    assert title.contentsMargins().top() == 8
