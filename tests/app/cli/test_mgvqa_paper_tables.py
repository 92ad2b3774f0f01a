"""MG-VQA's remaining tables as `metrics --table`: the prompt ablations (Table 2), median
turns and manipulation calls (Table 3) and what agents do after a failed grasp (Table 4),
each checked cell by cell against episodes whose figures are known by construction; and
the Hard table (Table 5) as the episodes table of questions tagged hard."""

from __future__ import annotations

import csv
import io

import pytest

from app.cli import main
from store import open_project


def tool(name: str, ok: bool = True) -> dict:
    return {"kind": "tool", "name": name, "arguments": {}, "ok": ok}


def answer(value: str = "1") -> dict:
    return {"kind": "answer", "name": "answer_question", "arguments": {"answer": value}}


def episode(task, success, variant, steps, *, question_id=None):
    header = {
        "benchmark": "mgvqa",
        "model": "vlm-a",
        "agent": "openai",
        "mode": "manipulation",
        "task": task,
        "success": success,
        "prompt_variant": variant,
        "camera": {"width": 1024, "height": 1024},
        "gripper": "2f140",
    }
    if question_id is not None:
        header["question_id"] = question_id
    return header, [{"kind": "observation", "name": "observe"}, *steps]


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "tables.reasonscope"
    rescan = [tool("perceive_scene"), tool("find_object"), tool("push")]
    with open_project(path, create=True) as project, project.write():
        hard = project.questions.add(
            {
                "benchmark": "mgvqa",
                "task": "count",
                "text": "How many mugs?",
                "answer": 1,
                "criteria": {"tags": ["hard"]},
            }
        ).id
        for header, steps in (
            # plain: no manipulation at all, one of two right
            episode("count", True, "plain", [tool("perceive_scene"), answer()]),
            episode("count", False, "plain", [answer()]),
            # search: two grasps fail; one pushes after a fresh scene graph, one answers
            episode(
                "count",
                True,
                "search",
                [tool("find_object"), tool("grasp", ok=False), *rescan, answer()],
            ),
            episode(
                "count", False, "search", [tool("find_object"), tool("grasp", False), answer()]
            ),
            episode("find", True, "search", [tool("grasp"), tool("grasp"), answer("yes")]),
        ):
            project.episodes.add(header, steps)
        header, steps = episode("count", True, "plain", [answer()])
        header["question_id"] = hard
        project.episodes.add({**header, "model": "vlm-hard"}, steps)
    return path


def table(capsys, db, name, *more) -> tuple[list[dict[str, str]], list[str]]:
    assert main(["metrics", "--db", str(db), "--table", name, *more]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    body = [ln for ln in lines if not ln.startswith("# ")]
    notes = [ln[2:] for ln in lines if ln.startswith("# ")]
    return list(csv.DictReader(io.StringIO("\n".join(body)))), notes


def test_the_ablation_table_has_a_row_per_variant(capsys, db):
    rows, notes = table(capsys, db, "mgvqa_ablations")
    by = {(r["Model"], r["Variant"]): r for r in rows}
    base, search = by[("vlm-a", "Base")], by[("vlm-a", "+Search")]
    assert (base["Count"], base["Acted episodes"], base["Manip. calls / q"]) == (
        "50.0",
        "0",
        "0.00",
    )
    assert (search["Count"], search["Find"]) == ("50.0", "100.0")
    assert search["Acted episodes"] == "3"  # every Search episode grasped or pushed
    assert search["Manip. calls / q"] == "1.67"  # (2 + 1 + 2) / 3
    assert base["Run"] == search["Run"] == "1024x1024 px, 2f140"
    assert base["Avg."].startswith("incomplete")  # no Beneath or Compare episodes
    assert any("MG-VQA Table 2" in n for n in notes)


def test_the_turns_table_gives_medians_per_task(capsys, db):
    rows, _ = table(capsys, db, "mgvqa_turns")
    by = {r["Run"]: r for r in rows if r["Model"] == "vlm-a"}
    search = by["search, 1024x1024 px, 2f140"]
    # Search Count episodes: 7 turns (find, grasp, perceive, find, push, answer: 6) and 3
    assert search["Count"] == "4.5 / 1.5 (n=2)"
    assert search["Find"] == "3 / 2 (n=1)"
    assert search["Beneath"] == "-"
    assert by["plain, 1024x1024 px, 2f140"]["Count"] == "1.5 / 0 (n=2)"


def test_the_recovery_table_follows_the_failed_grasps(capsys, db):
    rows, notes = table(capsys, db, "mgvqa_recovery")
    (row,) = rows
    assert row["Run"] == "search, 1024x1024 px, 2f140" and row["N"] == "2"
    assert (row["Push"], row["Grasp"], row["None"]) == ("50.0", "0.0", "50.0")
    assert (row["Scene + seg."], row["Seg. only"], row["No new seg."]) == ("100.0", "0.0", "0.0")
    assert any("MG-VQA Table 4" in n for n in notes)


def test_the_hard_table_is_the_episodes_table_of_hard_questions(capsys, db):
    rows, notes = table(capsys, db, "episodes", "--tag", "hard")
    assert [r["Model"] for r in rows] == ["vlm-hard"]
    assert any("MG-VQA-Hard" in n and "Table 5" in n for n in notes)


def test_a_latex_ablation_table(capsys, db, tmp_path):
    out = tmp_path / "ablations.tex"
    argv = ["--table", "mgvqa_ablations", "--format", "latex", "--out", str(out)]
    assert main(["metrics", "--db", str(db), *argv]) == 0
    tex = out.read_text()
    assert "+Search" in tex and "\\toprule" in tex and "MG-VQA Table 2" in tex
