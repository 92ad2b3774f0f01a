"""Step states stored once by content: the migration from schema 8 and sharing between episodes."""

from __future__ import annotations

import json

from sqlite_utils import Database

from store import open_project, schema
from store.states import table_bytes

V9 = "0009_shared_states_and_usage"


def _state(t: float, nonce: str = "") -> dict:
    bodies = {
        f"obj_{i:02d}": {
            "com_position": [0.1 * i + t, -0.05 * i, 0.62 + 0.001 * i],
            "com_orientation": [0.0, 0.0, 0.0, 1.0],
            "joints": {},
        }
        for i in range(12)
    }
    state = {"format": "reasonscope-state/1", "time": t, "table_texture": None, "bodies": bodies}
    if nonce:
        state["nonce"] = nonce
    return state


def _steps(nonce: str = "") -> list[dict]:
    return [
        {"kind": "observation", "name": "observe", "state": _state(0.0, nonce)},
        {"kind": "tool", "name": "perceive_scene", "ok": True, "state": _state(0.0, nonce)},
        {"kind": "tool", "name": "push", "ok": True, "state": _state(1.5, nonce)},
        {"kind": "answer", "name": "answer_question", "ok": True, "state": _state(1.5, nonce)},
        {"kind": "format_error", "raw_output": "{oops", "state": None},
    ]


def _count(db, table: str, where: str = "") -> int:
    return db.execute(f"SELECT count(*) FROM {table} {where}").fetchone()[0]


def test_schema_8_project_moves_states_into_the_shared_table(tmp_path):
    path = tmp_path / "old.reasonscope"
    db = Database(path)
    schema.migrations.apply(db, stop_before=V9)
    assert len(list(schema.migrations.applied(db))) == 8
    texts = {
        # an older build wrote states with spaces; the same state, compact, shares its row
        "a": [json.dumps(s["state"]) if s["state"] else None for s in _steps()],
        "b": [
            json.dumps(s["state"], separators=(",", ":")) if s["state"] else None for s in _steps()
        ],
        "c": [json.dumps(s["state"]) if s["state"] else None for s in _steps("c")],
    }
    for uid, states in texts.items():
        cur = db.execute(
            "INSERT INTO episodes(uid, benchmark, created_at) VALUES (?, 'mgvqa', '2026-01-01')",
            [uid],
        )
        for index, (step, text) in enumerate(zip(_steps(uid), states, strict=True)):
            db.execute(
                "INSERT INTO steps(episode_id, step_index, kind, name, state) "
                "VALUES (?, ?, ?, ?, ?)",
                [cur.lastrowid, index, step["kind"], step.get("name", ""), text],
            )
    db.conn.commit()
    db.close()

    with open_project(path) as project:
        assert project.schema_version == schema.SCHEMA_VERSION
        # a and b hold the same two distinct states; c two of its own
        assert project.states.count() == 4
        assert _count(project.db, "steps", "WHERE state IS NOT NULL") == 0
        assert _count(project.db, "steps", "WHERE state_sha256 IS NOT NULL") == 12
        by_uid = {project.episodes.get(i).uid: i for i in project.episodes.ids()}
        for uid in ("a", "b", "c"):
            got = [s.state for s in project.episodes.steps(by_uid[uid])]
            nonce = "c" if uid == "c" else ""
            assert got == [s["state"] for s in _steps(nonce)]
        assert project.integrity_ok()
        # a state stored now finds the migrated row
        new = project.episodes.add({"benchmark": "mgvqa", "uid": "d"}, _steps())
        assert project.states.count() == 4
        assert project.episodes.steps(new.id)[2].state == _state(1.5)


def _project_bytes(path, episodes: int, shared: bool) -> tuple[dict[str, int], int]:
    """Bytes by table that the episodes added to an empty project, and its states."""
    with open_project(path, create=True) as project:
        empty = table_bytes(project)
        for i in range(episodes):
            project.episodes.add(
                {"benchmark": "mgvqa", "uid": f"ep-{i}"}, _steps("" if shared else f"n{i}")
            )
        grown = {t: n - empty.get(t, 0) for t, n in table_bytes(project).items()}
        return grown, project.states.count()


def test_identical_states_of_two_episodes_are_one_row(project):
    first = project.episodes.add({"benchmark": "mgvqa", "uid": "one"}, _steps())
    second = project.episodes.add({"benchmark": "mgvqa", "uid": "two"}, _steps())
    assert project.states.count() == 2  # t = 0 and t = 1.5, whoever stored them
    a, b = project.episodes.steps(first.id), project.episodes.steps(second.id)
    assert [s.state for s in a] == [s.state for s in b] == [s["state"] for s in _steps()]
    third = project.episodes.add({"benchmark": "mgvqa", "uid": "three"}, _steps("x"))
    assert project.states.count() == 4
    assert project.episodes.steps(third.id)[0].state["nonce"] == "x"


def test_shared_states_make_each_episode_smaller(tmp_path):
    episodes = 40
    shared, shared_states = _project_bytes(tmp_path / "shared.reasonscope", episodes, True)
    unique, unique_states = _project_bytes(tmp_path / "unique.reasonscope", episodes, False)
    assert (shared_states, unique_states) == (2, 2 * episodes)
    per_episode_shared = sum(shared.values()) / episodes
    per_episode_unique = sum(unique.values()) / episodes
    if "states" in unique:  # dbstat is there: the saving is the states table's
        assert unique["states"] >= 5 * shared["states"]
        saved = unique["states"] - shared["states"]
        assert sum(unique.values()) - sum(shared.values()) >= 0.8 * saved
    assert per_episode_shared < 0.6 * per_episode_unique


def test_long_step_text_is_stored_compressed_and_reads_back(tmp_path):
    long_plan = {"plan": [{"action": "move", "pose": [0.1 * k] * 7} for k in range(40)]}
    steps = [
        {
            "kind": "action",
            "name": "plan",
            "arguments": long_plan,
            "result": {"ok": True},
            "raw_output": json.dumps(long_plan),
            "model_text": {"reasoning": "why " * 100},
        },
        {
            "kind": "answer",
            "name": "answer_question",
            "arguments": {"answer": "3"},
            "result": {"replay": {"correct": True}},
        },
    ]
    with open_project(tmp_path / "p.reasonscope", create=True) as project:
        episode = project.episodes.add({"benchmark": "bimanual"}, steps)
        kinds = project.db.execute(
            "SELECT typeof(arguments), typeof(raw_output), typeof(model_text), typeof(result) "
            "FROM steps ORDER BY step_index"
        ).fetchall()
        back = project.episodes.steps(episode.id)
    assert kinds == [("blob", "blob", "blob", "text"), ("text", "text", "text", "text")]
    assert back[0].arguments == long_plan and back[0].raw_output == json.dumps(long_plan)
    assert back[0].model_text == {"reasoning": "why " * 100}
    assert back[1].arguments == {"answer": "3"}
