"""Results > Team on a real project: packages sent, worked in as projects and merged back
(or not yet returned, or recalled), verdicts given in the project itself, and each
person's kappa against the others worked by hand."""

from __future__ import annotations

import pytest
from gestures import shown_window
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import Qt
from question_fixtures import add_mug_questions, jrdb_questions

from annotation.agreement import ONE_CATEGORY
from annotation.verification import Verdict
from app.modes.results.team import team_rows
from app.work_packages.create import PackageRequest, create_package
from app.work_packages.merge import merge_package
from store import open_project
from store.packages import WORK_KINDS
from widgets.results.team import TeamResultsView

APPROVE = Verdict(True, True, True, "approve")
REJECT = Verdict(True, False, True, "reject", reason="the mug is visible from the start")
A, R = "accept", "reject"
# ana and ben verify questions 1-4, Bob and Carol review labels 1-4, in packages:
#   ana  approve approve reject reject     Bob   accept accept reject reject
#   ben  approve reject  reject reject     Carol accept reject reject reject
# so each sees (own, other's) = (x,x) (x,y) (y,y) (y,y): n = 4, 3 agree; the marginals
# 2/2 and 1/3 give S = 2*1 + 2*3 = 8, kappa = (4*3 - 8) / (4*4 - 8) = 0.5 for all four.
VERDICTS = {"ana": [APPROVE, APPROVE, REJECT, REJECT], "ben": [APPROVE, REJECT, REJECT, REJECT]}
REVIEWS = {"Bob": [A, A, R, R], "Carol": [A, R, R, R]}


def _pack(db, folder, person, role, **kw):
    out = folder / f"{person}-{role}.rspack"
    create_package(db, PackageRequest(person, role, **kw), out)
    return out


@pytest.fixture(scope="module")
def team_project(tmp_path_factory):
    folder = tmp_path_factory.mktemp("team")
    hp = build_hoi_project(folder)
    db = hp.db
    with open_project(db) as p:
        add_mug_questions(p, 6)
        alice = p.annotators.sign_in("Alice")
        for frame in range(4):
            p.hoi.add_label(
                frame_id=hp.frame_ids[frame],
                subject_entity_id=hp.persons["pedestrian:1"],
                object_entity_id=None,
                category="pose",
                predicate="walking",
                difficulty=1,
                annotator=alice,
            )
    # verification: ana and ben take questions 1-4 and send them back
    for person, verdicts in VERDICTS.items():
        pack = _pack(db, folder, person, "verifier", questions="pending", limit=4)
        with open_project(pack) as p:
            me = p.annotators.sign_in(person)
            for qid, verdict in zip([1, 2, 3, 4], verdicts, strict=True):
                p.verifications.submit(qid, me, verdict, 2.0)
        assert merge_package(db, pack).merged["verdicts"] == 4
    # HOI review: Bob and Carol review Alice's four labels in packages
    for person, verdicts in REVIEWS.items():
        pack = _pack(db, folder, person, "reviewer", labels=True)
        with open_project(pack) as p:
            me = p.annotators.sign_in(person)
            labels = sorted(r.id for r in p.hoi.records())
            for label_id, verdict in zip(labels, verdicts, strict=True):
                p.hoi.review(
                    label_id,
                    reviewer=me,
                    verdict=verdict,
                    comment="" if verdict == A else "not walking",
                )
        assert merge_package(db, pack).merged
    # cy's package is still out; fay's was recalled; dora and eve verify in the project
    _pack(db, folder, "cy", "verifier", questions=[5])
    _pack(db, folder, "fay", "verifier", questions=[6])
    with open_project(db) as p:
        (fay,) = [k for k in p.packages.list() if k["person"] == "fay"]
        assert p.packages.recall(fay["package_id"]) == 1
        for name in ("dora", "eve"):
            p.verifications.submit(6, p.annotators.sign_in(name), APPROVE, 4.0)
    return db


@pytest.fixture(scope="module")
def rows(team_project):
    with open_project(team_project) as p:
        return team_rows(p)


def test_everyone_with_packages_or_work_has_a_row(rows):
    people = [r["person"] for r in rows["people"]]
    # Alice has no package and no pair, but she labelled: her work counts
    assert people == ["Alice", "ana", "ben", "Bob", "Carol", "cy", "dora", "eve", "fay"]
    assert rows["packages"] == 6


def test_every_persons_work_is_counted(rows):
    by = {r["person"]: r["work"] for r in rows["people"]}
    done = {name: {k: n for k, n in work.items() if n} for name, work in by.items()}
    assert done == {
        "Alice": {"hoi_labels": 4},
        "ana": {"verdicts": 4},  # merged from her package
        "ben": {"verdicts": 4},
        "Bob": {"reviews": 4},
        "Carol": {"reviews": 4},
        "cy": {},  # his package is still out
        "dora": {"verdicts": 1},  # given in the project itself
        "eve": {"verdicts": 1},
        "fay": {},
    }
    assert all(set(work) == set(WORK_KINDS) for work in by.values())


def test_items_assigned_done_and_outstanding(rows):
    by = {r["person"]: r for r in rows["people"]}
    figures = ("packages", "assigned", "done", "outstanding", "recalled")
    assert [by["ana"][k] for k in figures] == [1, 4, 4, 0, 0]
    assert [by["Bob"][k] for k in figures] == [1, 4, 4, 0, 0]
    assert [by["cy"][k] for k in figures] == [1, 1, 0, 1, 0]
    assert [by["fay"][k] for k in figures] == [1, 1, 0, 0, 1]
    assert by["ana"]["first_assigned"] <= by["ana"]["last_merged"]
    assert by["cy"]["first_assigned"] and by["cy"]["last_merged"] is None
    for name in ("dora", "eve"):  # work done in the project itself: no package figures
        assert all(by[name][k] is None for k in figures + ("first_assigned", "last_merged"))


def test_kappa_per_person_worked_by_hand(rows):
    by = {r["person"]: r for r in rows["people"]}
    for name in ("ana", "ben"):
        v = by[name]["verification"]
        assert (v["n"], v["kappa"], v["percent_agreement"]) == (4, pytest.approx(0.5), 75.0)
        assert by[name]["review"]["n"] == 0
    for name in ("Bob", "Carol"):
        h = by[name]["review"]
        assert (h["n"], h["kappa"], h["percent_agreement"]) == (4, pytest.approx(0.5), 75.0)
        assert by[name]["verification"]["n"] == 0
    for name in ("dora", "eve"):  # both approved question 6: one category
        v = by[name]["verification"]
        assert (v["n"], v["kappa"], v["kappa_reason"]) == (1, None, ONE_CATEGORY)
    assert by["cy"]["verification"]["n"] == 0


def test_packages_not_yet_returned(rows):
    (out,) = rows["packages_out"]
    assert (out["person"], out["role"], out["items"]) == ("cy", "verifier", 1)
    assert out["file"].endswith("cy-verifier.rspack")
    by = {r["person"]: r for r in rows["people"]}
    assert by["cy"]["not_returned"] == [out]
    assert by["fay"]["not_returned"] == [] and by["ana"]["not_returned"] == []


def test_an_empty_project_has_no_rows(tmp_path):
    with open_project(tmp_path / "empty.reasonscope", create=True) as p:
        assert team_rows(p)["people"] == [] and team_rows(p)["packages_out"] == []


def _cells(table) -> list[list[str]]:
    model = table.model()
    return [
        [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def _tip(table, row, column) -> str:
    return table.model().index(row, column).data(Qt.ItemDataRole.ToolTipRole)


def test_results_team_tab_in_the_main_window(qtbot, team_project, tmp_path):
    window = shown_window(qtbot)
    window.session.open(tmp_path / "empty.reasonscope", create=True)
    window.set_mode("results")
    results = window.mode("results")
    tabs = results.tabs
    team_index = tabs.indexOf(results.team_results)
    assert tabs.tabText(team_index) == "Team"
    bar = tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(team_index).center())
    view = results.team_results
    assert view.currentWidget() is view.empty  # nothing sent yet: how to send packages
    assert "reasonscope pack create" in view.empty.how_to_label.text()

    window.session.open(team_project)
    tabs.setCurrentIndex(team_index)
    assert view.currentIndex() == 1
    cells = {row[0]: row for row in _cells(view.people)}
    assert list(cells) == ["Alice", "ana", "ben", "Bob", "Carol", "cy", "dora", "eve", "fay"]
    assert cells["ana"][1:5] == ["1", "4", "4", "0"]
    assert cells["ana"][7] == "none"
    assert cells["ana"][8] == "0.50 (moderate), n = 4" and cells["ana"][9] == "-"
    assert cells["Carol"][9] == "0.50 (moderate), n = 4"
    assert cells["cy"][4] == "1" and cells["cy"][6] == "-"
    assert cells["cy"][7].startswith("verifier 20")
    assert cells["dora"][1:8] == ["-"] * 7
    assert cells["dora"][8] == f"{ONE_CATEGORY}, n = 1"
    assert "they agree on 75 %" in _tip(view.people, 1, 8)
    work = {name: row[10] for name, row in cells.items()}
    assert work == {
        "Alice": "4 HOI labels",
        "ana": "4 verdicts",
        "ben": "4 verdicts",
        "Bob": "4 reviews",
        "Carol": "4 reviews",
        "cy": "none",
        "dora": "1 verdict",
        "eve": "1 verdict",
        "fay": "none",
    }
    assert "HOI labels: 4\nerror labels: 0" in _tip(view.people, 0, 10)
    assert view.settings.text().startswith("Computed with: ")
    (out,) = _cells(view.out)
    assert out[0:2] == ["cy", "verifier"] and out[3:] == ["1", "cy-verifier.rspack"]
    assert view.summary.text().startswith("9 people, 6 with packages: 6 packages sent, 1 not")


def test_box_entity_rating_and_answer_work_counts_too(qtbot, tmp_path):
    """Annotator work (boxes set, entities added and removed, an error label) and human-study
    work (a rating, an answer) done in the project show in the person's row and the view."""
    hp = build_hoi_project(tmp_path)
    with open_project(hp.db) as p:
        ida, jo = p.annotators.sign_in("Ida"), p.annotators.sign_in("Jo")
        first, second = hp.persons["pedestrian:1"], hp.persons["pedestrian:2"]
        p.sequences.set_box_2d(first, hp.frame_ids[0], [10, 20, 30, 60], ida)
        p.sequences.set_box_3d(first, hp.frame_ids[0], [1, 2, 0, 0.5, 0.5, 1.7, 0], ida)
        p.sequences.add_drawn_entity(hp.sequence_id, "object", "chair", ida)
        p.sequences.remove_entity(second, hp.frame_ids[1], ida)
        episode = p.episodes.add(
            {"model": "m1", "task": "find", "success": False},
            [{"kind": "tool", "name": "grasp", "arguments": {}, "ok": False, "feedback": ""}],
        )
        p.episodes.add_label(episode.id, 0, "evidence_gathering", "failed_grasp_recovery", "", ida)
        question = p.questions.add(jrdb_questions(p, hp.sequence_id)["count"])
        p.reasoning.rate(question.id, jo, 2)
        p.reasoning.answer(question.id, jo, 3)
        rows = team_rows(p)
    by = {r["person"]: {k: n for k, n in r["work"].items() if n} for r in rows["people"]}
    assert by == {
        "Ida": {
            "error_labels": 1,
            "boxes_2d": 1,
            "boxes_3d": 1,
            "entities": 1,
            "entity_removals": 1,
        },
        "Jo": {"ratings": 1, "answers": 1},
    }
    view = TeamResultsView()
    qtbot.addWidget(view)
    view.set_rows(rows)
    work = {row[0]: row[10] for row in _cells(view.people)}
    assert work == {
        "Ida": "1 error label, 1 2D box, 1 3D box, 1 entity added, 1 entity removed",
        "Jo": "1 rating, 1 human answer",
    }
