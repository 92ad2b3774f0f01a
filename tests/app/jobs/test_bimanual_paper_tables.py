"""Dual-arm results in the layout of papers/003 Tables 1 and 3: the paper's own rows put
through our tables give the paper's averages; episodes land in the right tier and column;
CSV and LaTeX exports carry the layout."""

from __future__ import annotations

import csv
import io
import json

import pytest

from annotation.bimanual.paper_tables import (
    FINE,
    FINE_COLUMNS,
    PAPER_TASKS,
    PLANNING,
    PLANNING_GROUPS,
    paper_ids,
    paper_tables,
    sim_task,
)
from app.cli import main
from store import open_project

# papers/003 Table 1, the Qwen3-VL-235B-A22B-Instruct row: 58.67 | 36 1 75 90 83 67 |
# 50.88 | 96 63 86 92 5 17 2 46 | 54.21; Table 3, the GPT-5 row: 66 83 50 79 56 | 66.80
QWEN_PLANNING = (36, 1, 75, 90, 83, 67, 96, 63, 86, 92, 5, 17, 2, 46)
GPT5_FINE = (66, 83, 50, 79, 56)


def test_the_papers_rows_give_the_papers_averages():
    planning_tasks = [task for _, cols in PLANNING_GROUPS for _, task in cols]
    counts = {
        PLANNING: {
            "qwen": {
                t: {"success": s, "episodes": 100}
                for t, s in zip(planning_tasks, QWEN_PLANNING, strict=True)
            }
        },
        FINE: {
            "gpt-5": {
                t: {"success": s, "episodes": 100}
                for (_, t), s in zip(FINE_COLUMNS, GPT5_FINE, strict=True)
            }
        },
    }
    tables = paper_tables(counts, ["gpt-5", "qwen"])
    (row,) = tables[PLANNING]["rows"]
    assert row["model"] == "qwen"
    assert round(row["group_avg"]["Independent Parallel"], 2) == 58.67
    assert round(row["group_avg"]["Sequential Collaborative"], 2) == 50.88
    assert round(row["total_avg"], 2) == 54.21
    assert [c["id"] for g in tables[PLANNING]["groups"] for c in g["columns"]] == [
        "Place1",
        "Place2",
        "Ranking1",
        "Ranking2",
        "Stack1",
        "Stack2",
        "Handover1",
        "Handover2",
        "Handover3",
        "Place3",
        "Place4",
        "Place5",
        "Place6",
        "Place7",
    ]
    (fine,) = tables[FINE]["rows"]
    assert fine["model"] == "gpt-5" and round(fine["avg"], 2) == 66.80
    assert [c["id"] for c in tables[FINE]["columns"]] == [
        "Place8",
        "Place9",
        "Place10",
        "Grab1",
        "Stack3",
    ]


def test_seventeen_tasks_and_their_ids():
    assert len(PAPER_TASKS) == 18  # 17 distinct tasks; Place10 is place_bread_skillet_vla
    assert paper_ids("place_burger_fries") == ["Place3", "Place9"]
    assert paper_ids("place_bread_skillet") == ["Place5"]
    assert paper_ids("place_bread_skillet_vla") == ["Place10"]
    assert sim_task("place_bread_skillet", "low_level") == "place_bread_skillet_vla"
    assert sim_task("place_bread_skillet", "row16") == "place_bread_skillet_vla"
    assert sim_task("place_bread_skillet", "high_level") == "place_bread_skillet"
    assert sim_task("place_bread_skillet", None) == "place_bread_skillet"


@pytest.fixture
def db(tmp_path):
    """Episodes of two models over both tiers, as the importers and run-agent store them."""
    path = tmp_path / "paper.reasonscope"
    with open_project(path, create=True) as p:

        def run(model, task, tier, success):
            header = {
                "benchmark": "bimanual",
                "model": model,
                "agent": "bimanibench",
                "task": task,
                "mode": "",
                "success": success,
            }
            if tier is not None:
                header["tier"] = tier
            p.episodes.add(header, [{"kind": "observation", "name": "observe"}])

        for ok in (True, True, False, True):  # 75 on Handover2, logged at high level
            run("vlm-a", "handover_block", "high_level", ok)
        run("vlm-a", "place_burger_fries", "primitive", True)  # Place3
        run("vlm-a", "place_burger_fries", "low_level", False)  # Place9
        run("vlm-a", "place_bread_skillet", "low_level", True)  # Place10 (the vla variant)
        run("vlm-a", "stack_blocks_two", None, True)  # no tier: planning, not a paper column
        run("vlm-b", "grab_roller", "row16", True)  # only fine control
    return path


def test_episodes_fall_in_their_tier_and_column(db, capsys):
    assert main(["metrics", "--json", "--db", str(db)]) == 0
    paper = json.loads(capsys.readouterr().out)["bimanual"]["paper"]
    planning = {r["model"]: r for r in paper["planning"]["rows"]}
    fine = {r["model"]: r for r in paper["fine"]["rows"]}
    assert set(planning) == {"vlm-a"} and set(fine) == {"vlm-a", "vlm-b"}
    a = planning["vlm-a"]
    assert a["cells"]["Handover2"] == {
        "task": "handover_block",
        "success": 3,
        "episodes": 4,
        "rate_pct": 75.0,
    }
    assert a["cells"]["Place3"]["rate_pct"] == 100.0 and a["cells"]["Place5"] is None
    assert a["total_avg"] is None and "Place1" in a["missing"] and "Place3" not in a["missing"]
    assert a["group_avg"] == {"Independent Parallel": None, "Sequential Collaborative": None}
    assert fine["vlm-a"]["cells"]["Place9"]["rate_pct"] == 0.0
    assert fine["vlm-a"]["cells"]["Place10"]["task"] == "place_bread_skillet_vla"
    assert fine["vlm-b"]["cells"]["Grab1"]["episodes"] == 1 and fine["vlm-b"]["avg"] is None
    assert "tier" in paper["settings"]


def _csv(text: str) -> tuple[list[list[str]], list[str]]:
    lines = text.splitlines()
    notes = [line for line in lines if line.startswith("#")]
    body = "\n".join(x for x in lines if not x.startswith("#"))
    return list(csv.reader(io.StringIO(body))), notes


def test_planning_table_as_csv_and_latex(db, capsys):
    assert main(["metrics", "--db", str(db), "--table", "bimanual_planning"]) == 0
    (header, row), notes = _csv(capsys.readouterr().out)
    assert header[:3] == ["Models", "Independent Parallel Avg.", "Place1"]
    assert header[7:10] == ["Stack2", "Sequential Collaborative Avg.", "Handover1"]
    assert header[-1] == "Total Avg." and len(header) == 1 + 2 + 14 + 1
    cells = dict(zip(header, row, strict=True))
    assert cells["Handover2"] == "75" and cells["Place1"] == "-"
    assert cells["Total Avg."].startswith("incomplete (no Place1")
    assert any("Place7 put_bottles_dustbin" in n for n in notes)
    assert (
        main(["metrics", "--db", str(db), "--table", "bimanual_planning", "--format", "latex"]) == 0
    )
    tex = capsys.readouterr().out
    assert r"\multicolumn{7}{c}{Independent Parallel Manipulation Tasks}" in tex
    assert r"\multicolumn{9}{c}{Sequential Collaborative Manipulation Tasks}" in tex
    assert r"\cmidrule(lr){2-8} \cmidrule(lr){9-17}" in tex
    assert tex.count("{") == tex.count("}")
    group_row = next(line for line in tex.splitlines() if "multicolumn" in line)
    assert group_row.count("&") == 3  # blank | 7 | 9 | blank: 18 columns in all


def test_fine_table_as_csv(db, capsys):
    assert main(["metrics", "--db", str(db), "--table", "bimanual_fine"]) == 0
    (header, *rows), _ = _csv(capsys.readouterr().out)
    assert header == ["Models", "Place8", "Place9", "Place10", "Grab1", "Stack3", "Avg."]
    by_model = {r[0]: r for r in rows}
    assert by_model["vlm-a"][2:4] == ["0", "100"] and by_model["vlm-b"][4] == "100"
