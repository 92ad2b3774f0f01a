"""Model replies: JSON found where models put it, and broken replies reported, never raised."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from annotation.model_output import parse_model_output


def test_plain_fenced_embedded_and_trailing_commas():
    assert parse_model_output('{"tool": "grasp", "arguments": {"x": 1}}') == (
        {"tool": "grasp", "arguments": {"x": 1}},
        None,
    )
    fenced = 'Plan:\n```json\n{"action": "push", "args": ["left",],}\n```\nDone.'
    assert parse_model_output(fenced) == ({"action": "push", "args": ["left"]}, None)
    assert parse_model_output('I will call {"tool": "answer_question", "answer": "3"} now.')[0] == {
        "tool": "answer_question",
        "answer": "3",
    }
    assert parse_model_output('say "{not json}" then {"a": "}"}')[0] == {"a": "}"}


def test_unreadable_replies_say_why():
    assert parse_model_output("") == (None, "empty reply")
    assert parse_model_output("I cannot see any object.") == (None, "no JSON object in the reply")
    value, why = parse_model_output('{"tool": "grasp", "arguments": {"x": ')
    assert value is None and why.startswith("not valid JSON")


@given(st.text())
def test_never_raises(text):
    value, why = parse_model_output(text)
    assert (value is None) != (why is None)
