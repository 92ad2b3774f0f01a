"""The `hoi` key of `reasonscope metrics --json` and the Results mode's HOI labels tab."""

from __future__ import annotations

import json

import pytest
from hoi_fixtures import build_hoi_project
from PySide6.QtWidgets import QStackedWidget

from app.cli import main
from app.jobs.metrics import project_metrics
from app.modes.results.mode import ResultsMode
from app.session import ProjectSession
from store import open_project
from widgets.mode import ModeWindow


@pytest.fixture(scope="module")
def hp(tmp_path_factory):
    hp = build_hoi_project(tmp_path_factory.mktemp("hoi_metrics"))
    with open_project(hp.db) as p:
        alice, bob, carol = (p.annotators.sign_in(n) for n in ("Alice", "Bob", "Carol"))
        # Three labels; Bob and Carol review all: difficulties (author, Bob, Carol).
        plan = [
            ("walking", None, "pose", (1, 1, 1), ("accept", "accept")),
            ("holding", "bag:1", "physical", (2, 3, 2), ("accept", "reject")),
            ("looking_at", "chair:1", "observational", (3, 3, 3), ("accept", "accept")),
        ]
        for frame, (predicate, target, category, (d, db, dc), verdicts) in enumerate(plan):
            label = p.hoi.add_label(
                frame_id=hp.frame_ids[frame],
                subject_entity_id=hp.persons["pedestrian:1"],
                object_entity_id=hp.objects[target] if target else None,
                category=category,
                predicate=predicate,
                difficulty=d,
                annotator=alice,
            )
            for who, verdict, diff in ((bob, verdicts[0], db), (carol, verdicts[1], dc)):
                comment = "" if verdict == "accept" else "not holding"
                p.hoi.review(
                    label.id, reviewer=who, verdict=verdict, difficulty=diff, comment=comment
                )
    return hp


def test_hoi_metrics(hp):
    metrics = project_metrics(hp.db)
    assert {"verification", "episodes", "hoi"} <= set(metrics)
    h = metrics["hoi"]
    assert h["labels"] == 3
    assert h["status_counts"] == {"unreviewed": 0, "reviewed once": 0, "accepted": 2, "returned": 1}
    assert list(h["by_category"]) == ["pose", "observational", "physical", "manipulative"]
    assert h["by_category"]["physical"] == {"labels": 1, "accepted": 0, "accepted_pct": 0.0}
    author = h["difficulty"]["author_vs_reviewer"]
    assert author["n"] == 6 and author["percent_agreement"] == pytest.approx(100 * 5 / 6)
    reviewers = h["difficulty"]["reviewer_vs_reviewer"]
    assert reviewers["n"] == 3 and reviewers["confusion"][2][1] == 1
    assert h["verdicts"]["n"] == 3 and h["verdicts"]["accept_rate_pct"] == pytest.approx(83.3)
    (seq,) = h["sequences"]
    assert seq["name"] == "synthetic-cafe_0" and seq["labels"] == 3
    assert (seq["person_frames"], seq["labelled_person_frames"]) == (18, 3)


def test_metrics_json_and_text(hp, capsys):
    assert main(["metrics", "--db", str(hp.db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hoi"]["labels"] == 3 and "verification" in data and "episodes" in data
    assert main(["metrics", "--db", str(hp.db)]) == 0
    text = capsys.readouterr().out
    assert "hoi labels: 3" in text and "synthetic-cafe_0: 3/18 person-frames" in text


def test_results_mode_has_an_hoi_tab(qtbot, hp):
    session = ProjectSession()
    pages = QStackedWidget()
    pages.addWidget(QStackedWidget())  # the empty state
    mode = ModeWindow("results", "Results", pages)
    qtbot.addWidget(mode)
    results = ResultsMode(mode, pages, session)
    session.open(hp.db)
    tabs = results.tabs
    assert [tabs.tabText(i) for i in range(tabs.count())] == [
        "Verification",
        "Episodes",
        "HOI labels",
        "Reasoning",
        "Bimanual",
        "Team",
        "Paper tables",
    ]
    assert tabs.currentWidget() is results.hoi_results  # the only tab with data
    view = results.hoi_results
    assert "3 HOI labels" in view.summary.text()
    agreement = view.agreement.model()
    assert agreement.rowCount() == 3 and view.sequences.model().rowCount() == 1
    assert agreement.index(0, 1).data() == "6"
    session.close()
