"""MG-VQA transcript import: tool calls become steps, unreadable arguments become
format errors, and a structurally bad file names itself and its key and imports nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from annotation.formats.mgvqa_transcript import TranscriptError, transcript_record
from annotation.tabletop.episode_metrics import classify_recovery
from app.cli import main
from app.io.episodes import import_episodes
from store import ProjectError, open_project

ROOT = Path(__file__).resolve().parents[3]


def call(call_id: str, name: str, arguments) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def reply(call_id: str, content) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def transcript(question_id: str = "count-0001", **changes) -> dict:
    data = {
        "question_id": question_id,
        "task": "count",
        "question": "How many mugs are on the table?",
        "options": None,
        "gt_answer": 4,
        "model": "vlm-x",
        "mode": "manipulation",
        "messages": [
            {"role": "system", "content": "You are a robot. Use the tools."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "How many mugs are on the table?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                ],
            },
            {
                "role": "assistant",
                "content": "Let me look at the scene first.",
                "tool_calls": [call("c1", "perceive_scene", "{}")],
            },
            reply("c1", json.dumps({"objects": [{"name": "box", "point": [10, 20]}]})),
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [call("c2", "find_object", '{"point": [10, 20]}')],
            },
            reply("c2", json.dumps({"mask_id": "mask_1", "feedback": "Found an object: mask_1."})),
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [call("c3", "grasp", '{"mask_id": "mask_1"}')],
            },
            reply(
                "c3", json.dumps({"success": False, "feedback": "The gripper closed on nothing."})
            ),
            {
                "role": "assistant",
                "content": "I will push it.",
                "tool_calls": [call("c4", "push", '{"mask_id": "mask_1", "direction": "left"')],
            },
            reply("c4", "Error: could not parse the arguments."),
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [call("c5", "find_object", {"point": [10, 20]})],
            },
            reply("c5", {"mask_id": "mask_2"}),
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [call("c6", "push", '{"mask_id": "mask_2", "direction": "left",}')],
            },
            reply("c6", json.dumps({"success": True, "feedback": "Pushed."})),
            {"role": "assistant", "content": "I count three mugs."},
            {"role": "user", "content": "Please call a tool."},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [call("c7", "answer_question", '{"answer": "3"}')],
            },
            reply("c7", json.dumps({"recorded": True})),
        ],
        "final_answer": "3",
        "success": False,
    }
    data.update(changes)
    return data


@pytest.fixture
def project_path(tmp_path):
    path = tmp_path / "t.reasonscope"
    open_project(path, create=True).close()
    return path


def test_transcript_becomes_an_episode_with_steps(project_path, tmp_path):
    src = tmp_path / "count-0001.json"
    src.write_text(json.dumps(transcript()))
    assert import_episodes(project_path, src, "mgvqa") == (1, 2)
    with open_project(project_path) as project:
        (eid,) = project.episodes.ids()
        episode, steps = project.episodes.get(eid), project.episodes.steps(eid)
    assert (episode.benchmark, episode.model, episode.mode, episode.task) == (
        "mgvqa",
        "vlm-x",
        "manipulation",
        "count",
    )
    assert episode.success is False and episode.outcome == "answered"
    assert episode.uid == "mgvqa:vlm-x:manipulation:plain:count-0001"
    assert episode.header["question"]["answer"] == 4
    assert [(s.kind, s.name) for s in steps] == [
        ("tool", "perceive_scene"),
        ("tool", "find_object"),
        ("tool", "grasp"),
        ("format_error", "push"),
        ("tool", "find_object"),
        ("tool", "push"),
        ("format_error", ""),
        ("answer", "answer_question"),
    ]
    perceive, find, grasp, broken, find2, push, prose, answer = steps
    assert perceive.model_text == {"content": "Let me look at the scene first."}
    assert perceive.ok is True and perceive.result["objects"][0]["name"] == "box"
    assert find.arguments == {"point": [10, 20]} and find.feedback == "Found an object: mask_1."
    assert grasp.ok is False and grasp.feedback == "The gripper closed on nothing."
    assert broken.ok is False and broken.raw_output.startswith('{"mask_id": "mask_1"')
    assert broken.feedback.startswith("Format error: not valid JSON")
    assert broken.result == {"text": "Error: could not parse the arguments."}
    assert find2.arguments == {"point": [10, 20]}
    assert push.arguments == {"mask_id": "mask_2", "direction": "left"}  # trailing comma forgiven
    assert push.ok is True
    assert prose.raw_output == "I count three mugs."
    assert answer.arguments == {"answer": "3"} and answer.result["replay"]["correct"] is False
    # the failed grasp is followed by a push whose mask came from a find_object, no new scene
    recovery = classify_recovery(steps)
    assert recovery is not None and recovery.regrounding == "seg_only"


def test_final_answer_without_an_answer_call_becomes_the_answer_step():
    data = transcript(
        messages=[
            {"role": "user", "content": "Is there a red cube?"},
            {"role": "assistant", "content": "No."},
        ],
        task="find",
        gt_answer={"answer": "no", "point": None},
        final_answer="no",
        success=True,
    )
    record = transcript_record(data)
    assert [s["kind"] for s in record["steps"]] == ["format_error", "answer"]
    assert record["steps"][1]["arguments"] == {"answer": "no"}
    assert record["steps"][1]["result"]["replay"]["correct"] is True


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"model": None}, "'model'"),
        ({"mode": "telepathy"}, "'mode'"),
        ({"messages": "hello"}, "'messages'"),
        ({"messages": [{"content": "hi"}]}, "'messages[0].role'"),
        (
            {"messages": [{"role": "assistant", "tool_calls": [{"function": {"name": "grasp"}}]}]},
            "'messages[0].tool_calls[0].id'",
        ),
        ({"messages": [reply("nope", "ok")]}, "'messages[0].tool_call_id'"),
    ],
)
def test_structural_errors_name_the_key(change, key):
    data = transcript(**change)
    if change.get("model", "") is None:
        del data["model"]
    with pytest.raises(TranscriptError, match=key.replace("[", r"\[").replace("]", r"\]")):
        transcript_record(data)


def test_a_folder_imports_in_one_transaction_or_not_at_all(project_path, tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(transcript("count-0001")))
    (folder / "b.json").write_text(
        json.dumps([transcript("count-0002"), transcript("count-0003", mode="perception")])
    )
    bad = transcript("count-0004")
    del bad["messages"][2]["tool_calls"][0]["function"]["name"]
    (folder / "c.json").write_text(json.dumps(bad))
    with pytest.raises(ProjectError) as info:
        import_episodes(project_path, folder, "mgvqa")
    message = str(info.value)
    assert "\n" not in message
    assert "c.json" in message and "'messages[2].tool_calls[0].function.name'" in message
    with open_project(project_path) as project:
        assert project.episodes.ids() == []
    (folder / "c.json").unlink()
    assert import_episodes(project_path, folder, "mgvqa") == (3, 6)
    with open_project(project_path) as project:
        modes = sorted(project.episodes.get(i).mode for i in project.episodes.ids())
    assert modes == ["manipulation", "manipulation", "perception"]


def test_cli_imports_transcripts_and_reports_bad_files(project_path, tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(transcript()))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(transcript("q2", task=7)))
    assert (
        main(["import", "episodes", str(bad), "--format", "mgvqa", "--db", str(project_path)]) == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "bad.json" in err and "'task'" in err
    with open_project(project_path) as project:
        assert project.episodes.ids() == []
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "import",
            "episodes",
            str(good),
            "--format",
            "mgvqa",
            "--db",
            str(project_path),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Imported 1 episodes" in result.stdout and "2 format-error steps" in result.stdout
    with open_project(project_path) as project:
        assert len(project.episodes.ids()) == 1


def test_malformed_json_names_the_file(project_path, tmp_path):
    src = tmp_path / "broken.json"
    src.write_text('{"question_id": "q1",\n "task": ')
    with pytest.raises(ProjectError, match=r"broken\.json:2: not JSON"):
        import_episodes(project_path, src, "mgvqa")
