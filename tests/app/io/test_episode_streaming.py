"""Episode files are read, checked and stored a line at a time, in one transaction."""

from __future__ import annotations

import json

import pytest

import app.io.episodes as episodes_io
from app.io.episodes import export_episodes, import_episodes
from app.io.jsonl import json_lines, write_lines
from store import ProjectError, open_project
from store.episodes import EpisodeRepository


def _line(uid: str, nonce: int = 0, **usage) -> dict:
    state = {"format": "reasonscope-state/1", "time": 0.0, "bodies": {"mug": [0.1, 0.2, nonce]}}
    return {
        "format": "reasonscope-episode/1",
        "id": uid,
        "benchmark": "mgvqa",
        "model": "vlm",
        "mode": "perception",
        "task": "count",
        "outcome": "correct",
        "success": True,
        "steps": [
            {"kind": "observation", "name": "observe", "state": state},
            {
                "kind": "tool",
                "name": "perceive_scene",
                "arguments": {},
                "ok": True,
                "state": state,
                **usage,
            },
            {
                "kind": "answer",
                "name": "answer_question",
                "arguments": {"answer": 2},
                "ok": True,
                "state": state,
                **usage,
            },
        ],
    }


def _write(path, lines) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _counts(project) -> dict[str, int]:
    s = project.summary.summary()
    return {
        "episodes": s.episodes,
        "steps": s.steps,
        "images": s.images,
        "states": project.states.count(),
        "audit": project.audit.count(),
    }


@pytest.fixture
def project_path(tmp_path):
    path = tmp_path / "s.reasonscope"
    with open_project(path, create=True) as project:  # something there before the import
        project.episodes.add({"benchmark": "mgvqa", "uid": "already"}, [{"kind": "tool"}])
    return path


def test_usage_round_trips_through_export_and_import(project_path, tmp_path):
    src = tmp_path / "usage.jsonl"
    _write(src, [_line("a", latency_s=1.5, tokens_in=1200, tokens_out=35), _line("b")])
    assert import_episodes(project_path, src) == (2, 0)
    out = tmp_path / "out.jsonl"
    assert export_episodes(project_path, out) == 3
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    a = next(line for line in lines if line["id"] == "a")
    b = next(line for line in lines if line["id"] == "b")
    assert [s.get("latency_s") for s in a["steps"]] == [None, 1.5, 1.5]
    assert [s.get("tokens_in") for s in a["steps"]] == [None, 1200, 1200]
    assert [s.get("tokens_out") for s in a["steps"]] == [None, 35, 35]
    assert not any("latency_s" in s for s in b["steps"])  # unknown: not written
    copy = tmp_path / "copy.reasonscope"
    open_project(copy, create=True).close()
    import_episodes(copy, out)
    with open_project(copy) as project:
        steps = project.episodes.steps(project.episodes.find("a").id)
        assert [(s.latency_s, s.tokens_in, s.tokens_out) for s in steps] == [
            (None, None, None),
            (1.5, 1200, 35),
            (1.5, 1200, 35),
        ]
    again = tmp_path / "again.jsonl"
    export_episodes(copy, again)
    assert again.read_text() == out.read_text()


def test_bad_usage_names_file_line_and_step(project_path, tmp_path):
    src = tmp_path / "bad.jsonl"
    _write(src, [_line("a"), _line("b", tokens_in="many")])
    with pytest.raises(ProjectError, match=r"bad\.jsonl:2: steps\[1\]\.tokens_in must be a whole"):
        import_episodes(project_path, src)


def test_a_bad_late_line_rolls_back_every_line_before_it(project_path, tmp_path):
    with open_project(project_path) as project:
        before = _counts(project)
    src = tmp_path / "late.jsonl"
    lines = [_line(f"ep-{i}", nonce=i) for i in range(30)]
    lines[27]["steps"][1]["kind"] = "teleport"
    _write(src, lines)
    with pytest.raises(ProjectError, match=r"late\.jsonl:28: steps\[1\]\.kind 'teleport'"):
        import_episodes(project_path, src)
    with open_project(project_path) as project:
        assert _counts(project) == before
        assert project.integrity_ok()
    # a line that is not JSON, and an episode already in the project, likewise
    src.write_text(json.dumps(_line("x")) + "\n\n{not json\n")
    with pytest.raises(ProjectError, match=r"late\.jsonl:3: not JSON"):
        import_episodes(project_path, src)
    _write(src, [_line("y"), _line("already")])
    with pytest.raises(ProjectError, match=r"late\.jsonl:2: episode already is already in"):
        import_episodes(project_path, src)
    with open_project(project_path) as project:
        assert _counts(project) == before


def test_each_line_is_stored_before_the_next_is_read(project_path, tmp_path, monkeypatch):
    events: list[str] = []
    validate, add = episodes_io.validate_episode, EpisodeRepository.add

    def logged_validate(record):
        events.append(f"read {record['id']}")
        return validate(record)

    def logged_add(self, header, steps, source=""):
        events.append(f"store {header['uid']}")
        return add(self, header, steps, source)

    monkeypatch.setattr(episodes_io, "validate_episode", logged_validate)
    monkeypatch.setattr(EpisodeRepository, "add", logged_add)
    src = tmp_path / "three.jsonl"
    _write(src, [_line("a"), _line("b"), _line("c")])
    assert import_episodes(project_path, src) == (3, 0)
    assert events == ["read a", "store a", "read b", "store b", "read c", "store c"]
    with open_project(project_path) as project:  # one scene's state, stored once
        assert project.states.count() == 1


def test_json_lines_reads_crlf_and_names_the_line_that_is_not_utf8(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b'{"a": 1}\r\n\r\n{"b": "\xe2\x80\xa8 in a string"}\r\n\xff\xfe\n')
    lines = json_lines(path, "a test file")
    assert next(lines) == (1, {"a": 1})
    assert next(lines) == (3, {"b": "\u2028 in a string"})
    with pytest.raises(ProjectError, match=r"mixed\.jsonl:4: not UTF-8 text"):
        next(lines)


def test_write_lines_streams_and_leaves_nothing_when_the_lines_fail(tmp_path):
    out = tmp_path / "out.jsonl"
    written: list[bool] = []

    def lines():
        for i in range(3):
            if i == 2:
                partial = tmp_path / "out.jsonl.partial"
                written.append(partial.exists())  # the file is under way, line by line
                raise RuntimeError("the project went away")
            yield json.dumps({"i": i})

    with pytest.raises(RuntimeError):
        write_lines(out, lines())
    assert written == [True]
    assert list(tmp_path.iterdir()) == []
    write_lines(out, (json.dumps({"i": i}) for i in range(3)))
    assert out.read_text() == '{"i": 0}\n{"i": 1}\n{"i": 2}\n'
