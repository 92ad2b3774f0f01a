"""`reasonscope metrics --table NAME --format csv|latex`: results tables for a paper, with
the choices behind the numbers, incomplete rows and undefined kappas written as such."""

from __future__ import annotations

import csv
import io

import pytest

from annotation.bimanual.spatial_grounding import generate_items
from annotation.verification import Verdict
from app.cli import main
from app.jobs.tables import latex_escape
from store import open_project

TASKS = ("count", "find", "beneath", "compare")


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "tables.reasonscope"
    with open_project(path, create=True) as p:

        def run(model, task, success):
            p.episodes.add(
                {
                    "benchmark": "mgvqa",
                    "model": model,
                    "agent": "openai",
                    "task": task,
                    "mode": "manipulation",
                    "success": success,
                },
                [
                    {
                        "kind": "answer",
                        "name": "answer_question",
                        "arguments": {"answer": "x"},
                        "ok": True,
                    }
                ],
            )

        for task in TASKS:  # 3 of 4 right on every task: Avg. 75
            for i in range(4):
                run("full_model", task, i < 3)
        for _ in range(2):  # Find alone, always right: no Avg.
            run("find_only", "find", True)
        alice, bob = p.annotators.sign_in("Alice"), p.annotators.sign_in("Bob")
        yes = Verdict(True, True, True, "approve")
        for i in range(2):
            q = p.questions.add(
                {"benchmark": "mgvqa", "task": "count", "text": f"Q{i}", "answer": i}
            )
            p.verifications.submit(q.id, alice, yes, seconds_on_task=10)
            p.verifications.submit(q.id, bob, yes, seconds_on_task=12)
        (item,) = generate_items("sparse", 1, seed=4)
        p.spatial.add_items([item])
        right = [{"object": n, "use_arm": item.answer(n)} for n in item.asked]
        p.spatial.import_predictions("one_item", [{"id": item.id, "results": right}])
    return path


def _csv(text: str) -> tuple[list[list[str]], list[str]]:
    lines = text.splitlines()
    notes = [line for line in lines if line.startswith("#")]
    rows = list(csv.reader(io.StringIO("\n".join(x for x in lines if not x.startswith("#")))))
    return rows, notes


def test_the_episodes_table_as_csv(db, capsys):
    assert main(["metrics", "--db", str(db), "--table", "episodes"]) == 0
    rows, notes = _csv(capsys.readouterr().out)
    header, *body = rows
    assert header == [
        "Model",
        "Agent",
        "Mode",
        "Run",
        "Count",
        "Count n",
        "Find",
        "Find n",
        "Beneath",
        "Beneath n",
        "Compare",
        "Compare n",
        "Avg.",
    ]
    by = {r[0]: dict(zip(header, r, strict=True)) for r in body}
    assert by["full_model"]["Avg."] == "75.0" and by["full_model"]["Count n"] == "4"
    assert by["find_only"]["Find"] == "100.0" and by["find_only"]["Count n"] == "0"
    assert by["find_only"]["Avg."] == "incomplete (no count, beneath, compare)"
    assert any("Avg. per row: mean over every column" in n for n in notes)


def test_undefined_kappa_and_an_incomplete_spatial_row(db, capsys):
    assert main(["metrics", "--db", str(db), "--table", "verification"]) == 0
    rows, notes = _csv(capsys.readouterr().out)
    assert rows[0][2] == "Cohen's kappa"
    assert {r[0]: r[2] for r in rows[1:]} == {
        **dict.fromkeys(
            ("decision", "unambiguous", "evidence_withheld", "evidence_recoverable"),
            "undefined (one category)",
        ),
        "volumes_distinct": "n/a (no pairs)",  # asked of Compare questions only: none here
    }
    assert {r[0]: r[1] for r in rows[1:]}["volumes_distinct"] == "0"  # its own pairs
    assert any("not Fleiss' kappa" in n for n in notes)
    assert main(["metrics", "--db", str(db), "--table", "spatial"]) == 0
    rows, notes = _csv(capsys.readouterr().out)
    (row,) = rows[1:]
    assert row[:3] == ["one_item", "100.0", "1"]
    assert row[-1] == "incomplete (no dense, cluttered)"  # one item is not an Avg. of 100
    assert any("sigma: 0.1 m" in n for n in notes)


def test_a_latex_table_with_its_notes(db, tmp_path, capsys):
    out = tmp_path / "episodes.tex"
    argv = ["metrics", "--db", str(db), "--table", "episodes", "--format", "latex"]
    assert main([*argv, "--out", str(out)]) == 0
    assert "Wrote the episodes table (2 rows, latex)" in capsys.readouterr().out
    tex = out.read_text()
    assert tex.startswith("\\begin{table}") and tex.rstrip().endswith("\\end{table}")
    assert "\\begin{tabular}{lrrrrrrrrrrrr}" in tex and "\\toprule" in tex
    body = [line for line in tex.splitlines() if line.endswith("\\\\")]
    assert len(body) == 3 and all(line.count(" & ") == 12 for line in body)
    assert "full\\_model" in tex and "find\\_only" in tex  # escaped
    assert "{\\footnotesize Cells: success (\\%)" in tex
    assert tex.count("{") == tex.count("}")
    assert latex_escape("50% of a_b & σ ≥ 1") == "50\\% of a\\_b \\& $\\sigma$ $\\geq$ 1"


def test_bad_table_options_are_one_line(db, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["metrics", "--db", str(db), "--table", "nope"])
    assert stop.value.code == 2 and "invalid choice: 'nope'" in capsys.readouterr().err
    missing = tmp_path / "no" / "such" / "dir" / "t.csv"
    assert main(["metrics", "--db", str(db), "--table", "hoi", "--out", str(missing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(missing) in err[-1] and "cannot write the table" in err[-1]
