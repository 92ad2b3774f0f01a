"""`reasonscope import predictions`, the `reasoning` key of `metrics --json`, and the Results
mode's Reasoning tab."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStackedWidget

from app.cli import main
from app.jobs.metrics import project_metrics
from app.modes.results.mode import ResultsMode
from app.session import ProjectSession
from store import open_project
from widgets.mode import ModeWindow
from widgets.results.reasoning import HUMAN_ROW

BOX = [10, 10, 20, 40]
STEPS = [
    {
        "description": "all persons",
        "entity_ids": ["pedestrian:3", "pedestrian:4"],
        "slot": 0,
        "boxes": {"pedestrian:3": BOX, "pedestrian:4": [200, 10, 20, 40]},
    },
    {
        "description": "female",
        "entity_ids": ["pedestrian:3"],
        "slot": 0,
        "boxes": {"pedestrian:3": BOX},
    },
]


def _text(table, row, column):
    return table.model().index(row, column).data()


def _tip(table, row, column):
    return table.model().index(row, column).data(Qt.ItemDataRole.ToolTipRole)


def _q(uid, task, answer, srt):
    s, r, t = srt
    return {
        "uid": uid,
        "benchmark": "jrdb",
        "task": task,
        "text": f"{uid}?",
        "answer": answer,
        "evidence_ids": ["pedestrian:3"],
        "steps": STEPS if task == "vg" else [],
        "difficulty": {"S": s, "R": r, "T": t},
    }


def _vg(uid, srt):
    return _q(uid, "vg", {"entity_ids": ["pedestrian:3"], "image_id": "0.jpg", "boxes": [BOX]}, srt)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "reasoning.reasonscope"
    with open_project(path, create=True) as p:
        p.questions.add_many(
            [
                _vg("vg-d1", (1, 0, 1)),
                _vg("vg-d2", (2, 1, 1)),
                _vg("vg-d3", (3, 2, 1)),
                _q("wh-d1", "vqa-wh", "female", (1, 0, 1)),
                _q("count-d2", "vqa-count", 2, (2, 1, 1)),
            ]
        )
    return path


def write_lines(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_import_predictions_then_metrics_json(db, tmp_path, capsys):
    preds = write_lines(
        tmp_path / "florence.jsonl",
        [
            {
                "question_id": "vg-d1",
                "box": [11, 10, 20, 40],
                "steps": [[BOX, [200, 10, 20, 40]], [BOX]],
            },
            {"question_id": "vg-d2", "box": {"box": [0, 0, 5, 5]}, "steps": [1, [BOX]]},
            {"question_id": "vg-d3", "box": [10, 10, 20, 39]},
            "",
            {"question_id": "wh-d1", "answer": "Female", "model": "paligemma"},
            {"question_id": "count-d2", "answer": "2", "model": "paligemma"},
        ],
    )
    assert main(["import", "predictions", str(preds), "--model", "florence", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "Imported 3 predictions of florence: 2 correct (66.7 % accuracy)" in out
    assert "Imported 2 predictions of paligemma: 2 correct (100.0 % accuracy)" in out

    with open_project(db) as p:
        alice, bob = p.annotators.sign_in("Alice"), p.annotators.sign_in("Bob")
        ids = {q.uid: q.id for q in p.questions.page().rows}
        p.reasoning.answer(ids["vg-d1"], alice, BOX)
        p.reasoning.answer(ids["vg-d1"], bob, [100, 100, 5, 5])
        for who, ratings in ((alice, (1, 3, 5)), (bob, (2, 3, 4))):
            for uid, rating in zip(("vg-d1", "vg-d2", "vg-d3"), ratings, strict=True):
                p.reasoning.rate(ids[uid], who, rating)

    assert main(["metrics", "--db", str(db), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)["reasoning"]
    assert r["models"] == ["florence", "paligemma"]
    assert r["counts"] == {
        "predictions": 5,
        "stale_predictions": 0,
        "human_answers": 2,
        "stale_human_answers": 0,
        "ratings": 6,
    }
    rows = {(row["model"], row["task"]): row for row in r["accuracy"]}
    vg = rows[("florence", "vg")]["levels"]
    assert [vg[lv]["accuracy_pct"] for lv in ("D1", "D2", "D3")] == [100.0, 0.0, 100.0]
    assert vg["D1"]["mean_iou"] == pytest.approx(0.905, abs=1e-3) and vg["other"]["n"] == 0
    assert rows[("paligemma", "vqa-count")]["levels"]["D2"]["correct"] == 1
    (human,) = r["human"]
    assert human["model"] == "human" and human["levels"]["D1"]["annotators"] == 2
    assert human["levels"]["D1"]["accuracy_pct"] == 50.0  # mean of 100 and 0
    curves = {(c["model"], c["level"]): c["curve"] for c in r["steps"]}
    assert [s["accuracy_pct"] for s in curves[("florence", "all")]] == [50.0, 100.0]
    assert ("florence", "D3") not in curves  # no step answers there
    (rho,) = r["spearman"]
    assert (rho["task"], rho["n"], rho["ratings"], rho["rho"]) == ("vg", 3, 6, 1.0)
    assert rho["words"] == "very strong positive"


@pytest.mark.parametrize(
    ("lines", "args", "needle"),
    [
        (['{"question_id": "vg-d1", "box": [0, 0, 1, 1]}', "{not json"], [], ":2: not JSON"),
        (
            [{"question_id": "vg-d1", "box": [0, 0, 1, 1]}, {"question_id": "nope", "answer": 1}],
            [],
            ":2: no question with id 'nope'",
        ),
        ([{"question_id": "vg-d1", "box": [0, 0, 1, 1]}], ["--model", ""], ":1: no model name"),
        (["", "[1, 2]"], [], ":2: not a JSON object"),
        ([], [], "no predictions in the file"),
        # [x1, y1, x2, y2] written where [x, y, w, h] belongs: y + h = 150 + 420 is below
        # the 480-row panorama; the line is refused, not scored as a wrong box
        (
            [
                {"question_id": "vg-d1", "box": [11, 10, 20, 40]},
                {"question_id": "vg-d2", "box": [1000, 150, 1100, 420]},
            ],
            [],
            ":2: box [1000, 150, 1100, 420] runs past the image's rows",
        ),
        (
            [{"question_id": "vg-d3", "answer": [[10, 10, 2500, 40]]}],
            [],
            ":1: box [10, 10, 2500, 40] is 2500 px wide, more than half the panorama",
        ),
    ],
)
def test_a_bad_file_is_one_line_and_imports_nothing(db, tmp_path, capsys, lines, args, needle):
    path = write_lines(tmp_path / "bad.jsonl", lines)
    argv = ["import", "predictions", str(path), "--db", str(db)]
    assert main(argv + (args or ["--model", "m"])) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and needle in err[0], err
    with open_project(db) as p:
        assert p.reasoning.predictions() == []


def test_import_predictions_json_report(db, tmp_path, capsys):
    path = write_lines(tmp_path / "p.jsonl", [{"question_id": "wh-d1", "answer": "male"}])
    assert (
        main(["import", "predictions", str(path), "--model", "m", "--db", str(db), "--json"]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert (report["imported"], report["correct"], report["accuracy_pct"]) == (1, 0, 0.0)


def test_metrics_reasoning_key_on_an_empty_project(db):
    r = project_metrics(db)["reasoning"]
    assert r["accuracy"] == [] and r["human"] == [] and r["spearman"] == []
    assert r["levels"] == ["D1", "D2", "D3", "other"]


# -- the Results tab ------------------------------------------------------------------------
def test_results_mode_reasoning_tab_shows_models_and_human_eval(qtbot, db, tmp_path):
    with open_project(db) as p:
        alice = p.annotators.sign_in("Alice")
        p.reasoning.import_predictions(
            "florence",
            [
                {"question_id": "vg-d1", "box": BOX, "steps": [[BOX, [200, 10, 20, 40]], [BOX]]},
                {"question_id": "vg-d2", "box": [0, 0, 1, 1]},
            ],
        )
        ids = {q.uid: q.id for q in p.questions.page().rows}
        p.reasoning.answer(ids["vg-d1"], alice, BOX)
        p.reasoning.rate(ids["vg-d1"], alice, 2)
    session = ProjectSession()
    pages = QStackedWidget()
    pages.addWidget(QStackedWidget())  # the empty state
    mode = ModeWindow("results", "Results", pages)
    qtbot.addWidget(mode)
    results = ResultsMode(mode, pages, session)
    session.open(db)
    tabs = results.tabs
    assert tabs.tabText(tabs.indexOf(results.reasoning_results)) == "Reasoning"
    assert tabs.currentWidget() is results.reasoning_results
    view = results.reasoning_results
    table = view.level_tables[("jrdb", "vg")]
    names = [_text(table, r, 0) for r in range(table.model().rowCount())]
    assert names == ["florence", HUMAN_ROW]
    assert [_text(table, r, 1) for r in range(2)] == ["2", "1"]  # answered
    assert _text(table, 0, 2).startswith("100.0") and _text(table, 0, 3).startswith("0.0")
    assert _text(table, 1, 2).startswith("100.0") and "1 of 1" in _tip(table, 1, 2)
    assert table.isColumnHidden(5)  # no "other" questions
    assert set(view.step_plot.lines) == {"florence"}
    assert view.step_task.currentData() == "vg" and view.step_level.currentData() == "all"
    qtbot.keyClicks(view.step_level, "D2")  # a level without step answers: an empty plot
    assert view.step_level.currentData() == "D2" and view.step_plot.lines == {}
    assert "No model gave per-step answers" in view.steps_note.text()
    assert view.spearman_table.model().rowCount() == 1
    assert _text(view.spearman_table, 0, 6) == "undefined"  # one question: no rho yet
    assert "IoU on the panorama's cylinder" in view.settings.text()  # the footnote
    # Export table: the shown tables as CSV / LaTeX, the settings with them
    menu = results.export_button.menu()
    names = {a.objectName() for a in menu.actions()}
    assert {"export_reasoning_csv", "export_reasoning_latex", "export_spatial_csv"} <= names
    out = tmp_path / "reasoning.csv"
    assert results.export_table("reasoning", "csv", out)
    text = out.read_text()
    assert text.splitlines()[0].startswith("Model,Benchmark,Task,Modality,D1,D1 n")
    assert "florence,jrdb,vg,image,100.0,1" in text and "# Computed with: vg: correct when" in text
    assert "Saved the reasoning table" in mode.statusBar().currentMessage()
    assert not results.export_table("reasoning", "latex", tmp_path / "no" / "dir" / "r.tex")
    assert "cannot write the table" in mode.statusBar().currentMessage()
    session.close()


def _video(question: dict) -> dict:
    return {
        **question,
        "criteria": {"preferences": {"modality": "video", "task": question["task"]}},
    }


def test_paper_tables_keep_images_and_videos_apart(tmp_path, capsys):
    """JRDB-Reasoning Tables 2, 3 and 4 from imported predictions and human answers: a
    one-slot video question is a D1 question of Table 3, never of Table 2."""
    db = tmp_path / "paper.reasonscope"
    with open_project(db, create=True) as p:
        p.questions.add_many(
            [
                _vg("vg-d1", (1, 0, 1)),
                _q("wh-d1", "vqa-wh", "female", (1, 0, 1)),
                _q("count-d1", "vqa-count", 2, (1, 0, 1)),
                _q("count-d2", "vqa-count", 3, (2, 1, 1)),
                _video(_q("video-wh-d1", "vqa-wh", "walking", (1, 0, 1))),
                _video(_q("video-count-d3", "vqa-count", 1, (3, 2, 1))),
            ]
        )
    preds = write_lines(
        tmp_path / "qwen.jsonl",
        [
            {"question_id": "vg-d1", "box": [12, 10, 20, 40]},
            {"question_id": "wh-d1", "answer": "female"},
            {"question_id": "count-d1", "answer": "5"},
            {"question_id": "count-d2", "answer": "3"},
            {"question_id": "video-wh-d1", "answer": "standing"},
            {"question_id": "video-count-d3", "answer": "1"},
        ],
    )
    assert main(["import", "predictions", str(preds), "--model", "qwen", "--db", str(db)]) == 0
    with open_project(db) as p:
        alice = p.annotators.sign_in("Alice")
        ids = {q.uid: q.id for q in p.questions.page().rows}
        p.reasoning.answer(ids["wh-d1"], alice, "female")
        p.reasoning.answer(ids["count-d1"], alice, 1)
        p.reasoning.answer(ids["video-wh-d1"], alice, "walking")
    capsys.readouterr()

    def table(name):
        out = tmp_path / f"{name}.csv"
        assert main(["metrics", "--db", str(db), "--table", name, "--out", str(out)]) == 0
        lines = out.read_text().splitlines()
        return (
            lines[0],
            {
                tuple(r.split(",")[:2]): r.split(",")[2:6]
                for r in lines[1:]
                if not r.startswith("#")
            },
            lines,
        )

    header, rows, lines = table("jrdb_vqa_images")
    assert header == "Model,Part,D1,D2,D3,Avg.,D1 n,D2 n,D3 n"
    # images: D1 holds wh (right) and count-d1 (wrong): VQA 50, Wh 100, Count 0
    assert rows[("qwen", "VQA")] == ["50.0", "100.0", "-", "incomplete (no D3)"]
    assert rows[("qwen", "Wh")][0] == "100.0" and rows[("qwen", "Count")][:2] == ["0.0", "100.0"]
    assert rows[("Human Eval", "VQA")][0] == "50.0"  # Alice: wh right, count wrong
    assert any("VQA pools the Wh and Count questions" in line for line in lines)
    _, video, _ = table("jrdb_vqa_videos")
    assert video[("qwen", "VQA")] == ["0.0", "-", "100.0", "incomplete (no D2)"]
    assert video[("Human Eval", "Wh")][0] == "100.0"
    _, vg, vg_lines = table("jrdb_vg_images")
    assert vg[("qwen", "VG")][0] == "100.0" and ("Human Eval", "VG") not in vg
    assert vg_lines[0].startswith("Model,Part,D1")
