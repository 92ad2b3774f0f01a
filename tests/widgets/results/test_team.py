"""Results > Team as a view of `team_rows` from a small real project: two people verified a
question in the project itself, one package is out with a third. Then the cell helpers."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from annotation.agreement import ONE_CATEGORY
from annotation.verification import Verdict
from app.modes.results.team import team_rows
from app.work_packages.create import PackageRequest, create_package
from store import open_project
from store.packages import WORK_KINDS
from widgets.results.team import (
    NONE,
    OUT_COLUMNS,
    PEOPLE_COLUMNS,
    WORK_WORDS,
    TeamResultsView,
    agreement_cell,
    figure,
    out_list,
    when,
    work_cell,
)

APPROVE = Verdict(True, True, True, "approve")
MUG = {
    "id": "mug_1",
    "name": "red mug",
    "asset": "mug.urdf",
    "position": [0, 0, 0.8],
    "orientation": [0, 0, 0, 1],
}


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    """`team_rows` of a project where dora and eve approved question 1 and cy has
    question 2 out in a package."""
    folder = tmp_path_factory.mktemp("team_view")
    db = folder / "team.reasonscope"
    with open_project(db, create=True) as p:
        scene = p.scenes.add({"name": "one mug", "seed": 1, "bodies": [MUG]})
        for i in (1, 2):
            p.questions.add(
                {
                    "benchmark": "mgvqa",
                    "task": "count",
                    "text": f"How many mugs? ({i})",
                    "answer": 1,
                    "evidence_ids": ["mug_1"],
                    "scene_id": scene,
                }
            )
        for name in ("dora", "eve"):
            p.verifications.submit(1, p.annotators.sign_in(name), APPROVE, 4.0)
    create_package(db, PackageRequest("cy", "verifier", questions=[2]), folder / "cy.rspack")
    with open_project(db) as p:
        return team_rows(p)


@pytest.fixture
def view(qtbot):
    v = TeamResultsView()
    qtbot.addWidget(v)
    v.resize(1000, 600)
    return v


def _cells(table) -> list[list[str]]:
    model = table.model()
    return [
        [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def _tip(table, row, column) -> str:
    return table.model().index(row, column).data(Qt.ItemDataRole.ToolTipRole)


def _heads(table, count) -> list[str]:
    return [table.model().headerData(c, Qt.Orientation.Horizontal) for c in range(count)]


def test_no_project_or_no_team_shows_how_to_send_packages(view):
    assert view.currentWidget() is view.empty
    assert view.empty.status_label.text() == "No project open."
    assert "reasonscope pack create --for NAME" in view.empty.how_to_label.text()
    view.set_rows({"people": [], "packages_out": [], "packages": 0})
    assert view.currentWidget() is view.empty
    assert view.empty.status_label.text() == "No team work yet."


def test_the_people_and_the_packages_out(view, team):
    view.set_rows(team)
    assert view.currentIndex() == 1
    assert _heads(view.people, 11) == list(PEOPLE_COLUMNS)
    cells = {row[0]: row for row in _cells(view.people)}
    assert list(cells) == ["cy", "dora", "eve"]
    assert cells["cy"][1:5] == ["1", "1", "0", "1"]  # one package, one item, still out
    assert cells["cy"][6] == NONE and cells["cy"][7].startswith("verifier 20")
    assert cells["cy"][8] == NONE  # no pairs: no kappa
    assert cells["dora"][1:8] == [NONE] * 7  # worked in the project: no package figures
    assert cells["dora"][8] == f"{ONE_CATEGORY}, n = 1" and cells["dora"][9] == NONE
    assert [cells[n][10] for n in ("cy", "dora", "eve")] == ["none", "1 verdict", "1 verdict"]
    dora = list(cells).index("dora")
    assert _tip(view.people, dora, 8) == (
        "1 questions verified by this person and another; they agree on 100 %."
    )
    assert view.summary.text() == (
        "3 people, 1 with packages: 1 package sent, 1 not yet returned. "
        "0 of the 1 items assigned are done."
    )
    (out,) = _cells(view.out)
    assert _heads(view.out, 5) == list(OUT_COLUMNS)
    assert out[:2] == ["cy", "verifier"] and out[3:] == ["1", "cy.rspack"]
    assert _tip(view.out, 0, 4).endswith("/cy.rspack")
    assert view.out_note.text().startswith("Merge a returned package")
    assert view.settings.text().startswith("Computed with: ")


def test_when_everything_came_back_the_out_table_hides(view, team):
    returned = {**team, "packages_out": []}
    returned["people"] = [{**p, "not_returned": []} for p in team["people"]]
    view.set_rows(returned)
    assert view.out.model().rowCount() == 0 and view.out.isHidden()
    assert view.out_note.text() == "Every package has come back (or was recalled)."
    assert _cells(view.people)[0][7] == "none"  # cy has a package, none of it out
    view.set_rows(None)  # the project closed
    assert view.currentWidget() is view.empty and view.people.model().rowCount() == 0


def test_the_cell_helpers():
    assert when(None) == NONE and when("not a time") == "not a time"
    assert when("2026-03-04T05:06:07") == "2026-03-04 05:06"  # no zone: as stored
    assert len(when("2026-03-04T05:06:07+00:00")) == len("2026-03-04 05:06")  # local time
    assert figure(None) == NONE and figure(0) == "0"
    none = {"n": 0, "kappa": None, "kappa_reason": "", "percent_agreement": None}
    assert agreement_cell(none, "label rounds reviewed") == (
        NONE,
        "No label rounds reviewed by this person and another yet.",
    )
    half = {"n": 4, "kappa": 0.5, "kappa_reason": "", "percent_agreement": 75.0}
    assert agreement_cell(half, "questions verified") == (
        "0.50 (moderate), n = 4",
        "4 questions verified by this person and another; they agree on 75 %.",
    )
    out = [{"role": "verifier", "created": "2026-03-04T05:06:07"}]
    assert out_list(out, True) == "verifier 2026-03-04"
    assert out_list([], True) == "none" and out_list([], False) == NONE
    work = dict.fromkeys(WORK_KINDS, 0) | {"verdicts": 12, "ratings": 1, "boxes_2d": 3}
    text, tip = work_cell(work)
    assert text == "12 verdicts, 1 rating, 3 2D boxes"
    assert tip.splitlines()[1:4] == ["verdicts: 12", "reviews: 0", "HOI labels: 0"]
    assert len(tip.splitlines()) == 1 + len(WORK_KINDS)
    assert work_cell({})[0] == "none"


def test_every_kind_of_work_has_its_words():
    assert tuple(WORK_WORDS) == WORK_KINDS


def test_the_work_column_is_shown_beside_the_person(view, team):
    view.set_rows(team)
    header = view.people.horizontalHeader()
    shown = [PEOPLE_COLUMNS[header.logicalIndex(i)] for i in range(header.count())]
    assert shown[:2] == ["Person", "Work"] and sorted(shown) == sorted(PEOPLE_COLUMNS)
