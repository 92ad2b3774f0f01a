"""The tolerant reader of bimanual planner replies: every corpus reply is repaired as documented
or is a Format Error; the action table follows the paper; arbitrary text never raises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.bimanual.actions import ACTIONS, BY_ID, check_action
from annotation.bimanual.logs import split_vlmout
from annotation.bimanual.reply import ALL_REPAIRS, TEXT_FIELDS, parse_reply

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "bimanual"
EPISODES = next(DATA.glob("bimanibench/**/obsimg/round0"))
EMBODIED = DATA / "embodiedbench" / "gpt-5_base" / "stack_blocks_two"

# (episode, vlmout step) -> (ok, tier, plan items, repairs, problems, error)
VLMOUT = {
    ("episode0", 0): (True, "primitive", 3, [], 0, ""),
    ("episode0", 1): (True, "primitive", 4, ["code_fence", "trailing_commas"], 0, ""),
    ("episode0", 2): (True, "primitive", 1, ["single_quotes", "python_literals"], 0, ""),
    ("episode1", 0): (True, "primitive", 2, ["extracted_object"], 0, ""),
    ("episode1", 1): (True, "primitive", 1, ["closed_brackets"], 0, ""),
    ("episode1", 2): (False, "", 0, [], 0, "no JSON object in the reply"),
    ("episode1", 3): (True, "primitive", 3, ["missing_commas"], 3, ""),
    # the paper's Listing 1 as extracted from the PDF: every "}," between actions is lost
    ("episode1", 4): (True, "primitive", 8, ["closed_brackets", "missing_commas"], 0, ""),
}


def _vlmout_replies():
    for folder in sorted(EPISODES.iterdir()):
        for n, raw in split_vlmout((folder / "vlmout.txt").read_text()):
            yield (folder.name, n), raw


def test_the_corpus_covers_every_expectation():
    assert {key for key, _ in _vlmout_replies()} == set(VLMOUT)


@pytest.mark.parametrize(("key", "raw"), list(_vlmout_replies()), ids=lambda v: str(v)[:20])
def test_each_corpus_reply_is_repaired_as_documented_or_a_format_error(key, raw):
    ok, tier, items, repairs, problems, error = VLMOUT[key]
    reply = parse_reply(raw)
    assert (reply.ok, reply.tier, len(reply.executable_plan)) == (ok, tier, items)
    assert sorted(reply.repairs) == sorted(repairs)
    assert len(reply.problems) == problems, reply.problems
    assert reply.error == error
    assert set(reply.repairs) <= set(ALL_REPAIRS)
    if ok:
        assert all(getattr(reply, f) for f in TEXT_FIELDS)
        assert all(a["action_name"] for a in reply.executable_plan)


def test_repaired_replies_keep_what_the_model_said():
    replies = dict(_vlmout_replies())
    place = parse_reply(replies[("episode0", 2)]).executable_plan[0]
    assert place == {
        "action_id": "2.3",
        "action_name": "place_actor",
        "parameters": {
            "actor": "block",
            "arm_tag": "right",
            "target_pose": [0.238135, 0.160577, 0.730889, 0, 1, 0, 0],
            "functional_point_id": 0,
            "pre_dis": 0.05,
            "dis": 0,
            "is_open": True,
            "kwargs": {"constrain": "align", "pre_dis_axis": "fp"},
        },
    }
    cut = parse_reply(replies[("episode1", 1)]).executable_plan[0]
    assert cut["parameters"] == {
        "actor": "block",
        "arm_tag": "right",
        "pre_grasp_dis": 0.09,
        "grasp_dis": 0.03,
    }
    bad = parse_reply(replies[("episode1", 3)])
    assert bad.problems == [
        "executable_plan[0]: pre_grasp_dis must be a number, not 'far'",
        "executable_plan[1]: unknown action 'lift_actor'",
        "executable_plan[2]: arm_tag must be 'left' or 'right', not 'both'",
    ]
    assert bad.report["problems"] == bad.problems and bad.report["ok"] is True


def test_sixteen_dim_replies_from_the_paper_and_their_broken_forms():
    steps = json.loads((EMBODIED / "episode_1_step_2.json").read_text())
    first, second = (parse_reply(s["reasoning"]) for s in steps)
    assert (first.ok, first.tier, len(first.executable_plan)) == (True, "row16", 14)
    assert first.executable_plan[0][:3] == [-0.2, -0.07, 0.98]
    assert first.repairs == ["bad_escapes"]  # the PDF text's stray "\approx"
    assert (second.ok, second.tier, len(second.executable_plan)) == (True, "row16", 2)
    assert sorted(second.repairs) == ["closed_brackets", "rows_space_separated", "trailing_commas"]
    assert all(len(r) == 16 for r in second.executable_plan)


@pytest.mark.parametrize(
    ("raw", "ok", "repairs", "error"),
    [
        ('{"executable_plan": []}', True, [], ""),
        (
            "```\n{'executable_plan': [],}\n```",
            True,
            ["code_fence", "single_quotes", "trailing_commas"],
            "",
        ),
        (
            '{"executable_plan": "[\\"[0,0,0,1,0,0,0,1,0,0,0,1,0,0,0,1]\\"]"}',
            True,
            ["plan_as_text"],
            "",
        ),
        (
            '{"language_plan": "use the "left" arm", "executable_plan": []}',
            True,
            ["inner_quotes"],
            "",
        ),
        (
            "{executable_plan: [], Language_Plan: None}",
            True,
            ["bare_words", "field_case", "python_literals"],
            "",
        ),
        (
            '{"executable_plan": [{"action_name": "back_to_origin", "parameters": '
            '{"arm_tag": "left"}}',
            True,
            ["closed_brackets"],
            "",
        ),
        (
            '{"visual_state_description": "cut',
            False,
            ["closed_string", "closed_brackets"],
            "no executable_plan in the reply",
        ),
        ("", False, [], "empty reply"),
        ("I would grasp the block.", False, [], "no JSON object in the reply"),
        ('{"executable_plan": 3}', False, [], "executable_plan is int, not a list"),
        ('{"executable_plan": [null, "x"]}', False, [], "no item of executable_plan could be read"),
        (
            '[{"action_name": "get_arm_pose", "parameters": {"arm_tag": "left"}}]',
            True,
            ["bare_plan"],
            "",
        ),
        ('"just a string"', False, [], "the reply is a JSON str"),
        ("{(LEFT OR RIGHT)}", False, [], "unexpected '(' at line 1 column 2"),
    ],
)
def test_small_broken_replies(raw, ok, repairs, error):
    reply = parse_reply(raw)
    assert (reply.ok, sorted(reply.repairs), reply.error) == (ok, sorted(repairs), error)


def test_the_action_table_is_the_papers():
    assert [(a.id, a.name) for a in ACTIONS] == [
        ("2.2", "grasp_actor"),
        ("2.3", "place_actor"),
        ("2.4", "move_by_displacement"),
        ("2.5", "move_to_pose"),
        ("2.6", "close_gripper"),
        ("2.7", "open_gripper"),
        ("2.8", "back_to_origin"),
        ("2.9", "get_arm_pose"),
    ]
    assert BY_ID["2.2"].defaults() == {
        "pre_grasp_dis": 0.1,
        "grasp_dis": 0.0,
        "gripper_pos": 0.0,
        "contact_point_id": None,
    }
    place = BY_ID["2.3"].defaults()
    assert (place["pre_dis"], place["dis"], place["is_open"]) == (0.1, 0.02, True)
    assert place["kwargs"]["constrain"] == "auto"
    assert BY_ID["2.4"].defaults()["move_axis"] == "world"
    assert (BY_ID["2.6"].defaults(), BY_ID["2.7"].defaults()) == ({"pos": 0.0}, {"pos": 1.0})
    assert all(a.param("arm_tag").required for a in ACTIONS)


def test_check_action_records_problems_and_never_raises():
    action, problems = check_action(
        {"action_id": "2.3", "action_name": "grasp_actor", "parameters": {"arm_tag": "LEFT"}}
    )
    assert action["action_name"] == "grasp_actor" and action["parameters"]["arm_tag"] == "left"
    assert problems == [
        "action_id 2.3 is not 'grasp_actor'; read as grasp_actor",
        "missing parameter 'actor'",
    ]
    action, problems = check_action(
        {
            "action_id": "2.5",
            "parameters": {"arm_tag": "right", "target_pose": [0, 0, 1, 1, 0], "speed": 3},
        }
    )
    assert action["action_name"] == "move_to_pose"
    assert problems == [
        "no action_name; read 2.5 as move_to_pose",
        "target_pose must be 3 or 7 numbers (xyz + quaternion)",
        "unknown parameter 'speed'",
    ]
    assert check_action("grasp") == (None, ["an action must be an object, not str"])
    action, _ = check_action(
        {"action_name": "move_by_displacement", "parameters": {"arm_tag": "left", "z": "0.1"}}
    )
    assert action["parameters"]["z"] == 0.1


JSONISH = st.text(alphabet=st.sampled_from(list("{}[]:,\"' \n\\abtrueTNone0123.-+e`json")))


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(), JSONISH, st.binary().map(lambda b: b.decode("latin-1"))))
def test_arbitrary_text_never_raises(text):
    reply = parse_reply(text)
    assert isinstance(reply.ok, bool)
    assert reply.ok or reply.error
    json.dumps(reply.report)


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(st.sampled_from(TEXT_FIELDS), st.text(max_size=40)),
    st.lists(st.lists(st.floats(-2, 2), min_size=16, max_size=16), max_size=3),
)
def test_valid_replies_need_no_repair(fields, rows):
    reply = parse_reply(json.dumps({**fields, "executable_plan": rows}))
    assert reply.ok and reply.repairs == []
    assert reply.executable_plan == rows
    assert all(getattr(reply, k) == v for k, v in fields.items())


def test_every_repair_is_documented():
    doc = (ROOT / "docs" / "bimanual-logs.md").read_text()
    for code in ALL_REPAIRS:
        assert f"`{code}`" in doc
