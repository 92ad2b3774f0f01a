"""The category-only baseline answers from the first step alone."""

from __future__ import annotations

from question_fixtures import jrdb_question

from annotation.jrdb.reasoning_baselines import category_only
from annotation.models import Difficulty


def _q(qid, task, answer, steps, asked=None):
    return jrdb_question(
        id=qid,
        uid=f"u{qid}",
        task=task,
        text="t",
        answer=answer,
        steps=steps,
        difficulty=Difficulty(1, 0, 1),
        criteria={"asked": asked} if asked else {},
    )


PEOPLE = {
    "description": "all people",
    "entity_ids": ["p:1", "p:2", "p:3"],
    "boxes": {"p:1": [0, 0, 10, 10], "p:2": [50, 0, 30, 40], "p:3": [90, 0, 20, 20]},
}
WOMEN = {"description": "female", "entity_ids": ["p:3"], "boxes": {"p:3": [90, 0, 20, 20]}}


def test_vg_takes_the_largest_candidate_and_repeats_the_first_step():
    rows = category_only([_q(1, "vg", {"boxes": [[90, 0, 20, 20]]}, [PEOPLE, WOMEN])])
    assert rows[0]["box"] == [50, 0, 30, 40]
    assert rows[0]["steps"] == [[[0, 0, 10, 10], [50, 0, 30, 40], [90, 0, 20, 20]]] * 2


def test_count_is_the_size_of_the_first_step():
    rows = category_only([_q(2, "vqa-count", 1, [PEOPLE, WOMEN])])
    assert rows[0]["answer"] == 3 and rows[0]["steps"] == [3, 3]


def test_wh_prior_leaves_the_question_itself_out():
    qs = [
        _q(3, "vqa-wh", "female", [PEOPLE], "gender"),
        _q(4, "vqa-wh", "male", [PEOPLE], "gender"),
        _q(5, "vqa-wh", "male", [PEOPLE], "gender"),
        _q(6, "vqa-wh", "sitting", [PEOPLE], "action"),
    ]
    answers = {r["question_id"]: r["answer"] for r in category_only(qs)}
    assert answers["u3"] == "male"
    assert answers["u4"] in ("male", "female")  # one male and one female left: a tie
    assert answers["u6"] is None  # no other action question to learn a prior from
