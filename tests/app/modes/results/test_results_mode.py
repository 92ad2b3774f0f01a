"""Which Results tab is in front: a project opens on its first tab with something to show
(Verification, when there are verdicts), and once the person has picked a tab, new data
never moves them off it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStackedWidget

from annotation.verification import Verdict
from app.modes.results.mode import ResultsMode
from app.session import ProjectSession
from store import open_project
from widgets.mode import ModeWindow

BOX = [10, 10, 20, 40]
VERIFICATION, EPISODES, HOI, REASONING, BIMANUAL = range(5)


def _vg(uid: str) -> dict:
    return {
        "uid": uid,
        "benchmark": "jrdb",
        "task": "vg",
        "text": f"{uid}?",
        "answer": {"entity_ids": ["pedestrian:3"], "image_id": "0.jpg", "boxes": [BOX]},
        "evidence_ids": ["pedestrian:3"],
        "steps": [],
        "difficulty": {"S": 1, "R": 0, "T": 1},
    }


def make_project(path, *, verdicts: bool, predictions: bool):
    with open_project(path, create=True) as p:
        p.questions.add_many([_vg("vg-1"), _vg("vg-2")])
        if verdicts:
            ids = {q.uid: q.id for q in p.questions.page().rows}
            for name in ("Ben", "Cleo"):
                who = p.annotators.sign_in(name)
                p.verifications.submit(ids["vg-1"], who, Verdict(True, True, True, "approve"), 30)
        if predictions:
            import_predictions(path)
    return path


def import_predictions(path, model="florence"):
    with open_project(path) as p:
        p.reasoning.import_predictions(model, [{"question_id": "vg-1", "box": BOX}])


@pytest.fixture
def results(qtbot):
    session = ProjectSession()
    pages = QStackedWidget()
    pages.addWidget(QStackedWidget())  # the empty state
    mode = ModeWindow("results", "Results", pages)
    qtbot.addWidget(mode)
    mode.resize(1000, 700)
    mode.show()
    qtbot.waitExposed(mode)
    yield ResultsMode(mode, pages, session)
    session.close()


def click_tab(qtbot, results, index: int) -> None:
    bar = results.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    assert results.tabs.currentIndex() == index


def test_a_project_with_verdicts_opens_on_verification(results, tmp_path):
    db = make_project(tmp_path / "p.reasonscope", verdicts=True, predictions=True)
    results.session.open(db)
    assert results.pages.currentWidget() is results.tabs
    assert results.tabs.currentIndex() == VERIFICATION  # not Reasoning, evaluated as well


def test_without_verdicts_it_opens_on_the_first_tab_with_data(results, tmp_path):
    db = make_project(tmp_path / "p.reasonscope", verdicts=False, predictions=True)
    results.session.open(db)
    assert results.tabs.currentIndex() == REASONING


def test_the_tab_the_person_picked_stays_when_data_arrives(qtbot, results, tmp_path):
    db = make_project(tmp_path / "p.reasonscope", verdicts=True, predictions=False)
    results.session.open(db)
    assert results.tabs.currentIndex() == VERIFICATION
    click_tab(qtbot, results, HOI)  # nothing there yet: still the person's choice
    import_predictions(db)  # e.g. `reasonscope import predictions` in a terminal
    assert results.session.check_outside_changes()
    assert results.reasoning_results.level_tables  # the new numbers are read...
    assert results.tabs.currentIndex() == HOI  # ...but the page stays where it was
    results.session.reload()
    assert results.tabs.currentIndex() == HOI


def test_an_untouched_empty_tab_gives_way_to_new_data_and_a_new_project_starts_afresh(
    qtbot, results, tmp_path
):
    db = make_project(tmp_path / "p.reasonscope", verdicts=False, predictions=False)
    results.session.open(db)
    assert results.tabs.currentIndex() == VERIFICATION  # nothing anywhere: the first tab
    import_predictions(db)
    results.session.check_outside_changes()
    assert results.tabs.currentIndex() == REASONING  # the person had not picked one
    click_tab(qtbot, results, EPISODES)
    other = make_project(tmp_path / "q.reasonscope", verdicts=True, predictions=True)
    results.session.open(other)
    assert results.tabs.currentIndex() == VERIFICATION


def test_the_papers_tables_export_from_results(results, tmp_path):
    """A plain and a Search run of one model: the Episodes tab shows two rows, each with its
    run, and Export writes MG-VQA's ablation table with a row per variant."""
    db = tmp_path / "runs.reasonscope"
    with open_project(db, create=True) as p, p.write():
        for variant, success in (("plain", True), ("search", False)):
            header = {
                "benchmark": "mgvqa",
                "model": "vlm-a",
                "agent": "openai",
                "mode": "direct",
                "task": "count",
                "success": success,
                "prompt_variant": variant,
                "camera": {"width": 1024, "height": 1024},
            }
            p.episodes.add(header, [{"kind": "observation", "name": "observe"}])
    results.session.open(db)
    assert results.tabs.currentIndex() == EPISODES
    table = results.episode_results.success_table.model()
    runs = [table.index(r, 2).data() for r in range(table.rowCount())]
    assert sorted(runs) == ["plain, 1024x1024 px", "search, 1024x1024 px"]
    names = {a.objectName() for a in results.export_button.menu().actions()}
    assert {"export_mgvqa_ablations_csv", "export_bimanual_views_latex"} <= names
    out = tmp_path / "ablations.csv"
    assert results.export_table("mgvqa_ablations", "csv", out)
    lines = out.read_text().splitlines()
    assert lines[1].startswith("vlm-a,direct,Base,1024x1024 px,100.0")
    assert lines[2].startswith("vlm-a,direct,+Search,1024x1024 px,0.0")


def test_the_paper_tables_tab_shows_the_chosen_table(qtbot, results, tmp_path):
    db = tmp_path / "paper.reasonscope"
    with open_project(db, create=True) as p, p.write():
        for variant, success in (("plain", True), ("search", False), ("search", True)):
            header = {
                "benchmark": "mgvqa",
                "model": "vlm-a",
                "agent": "openai",
                "mode": "manipulation",
                "task": "find",
                "success": success,
                "prompt_variant": variant,
            }
            steps = [{"kind": "tool", "name": "grasp", "ok": success}, {"kind": "answer"}]
            p.episodes.add(header, steps)
    results.session.open(db)
    view = results.paper_tables
    click_tab(qtbot, results, results.tabs.indexOf(view))
    assert view.name == "mgvqa_ablations"  # the first choice
    model = view.table.model()
    rows = [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(2)]
    assert [r[2] for r in rows] == ["Base", "+Search"]
    assert rows[1][5] == "50.0"  # Find under +Search: one of two
    assert "MG-VQA Table 2" in view.notes.text()
    view.choice.setCurrentIndex(view.choice.findData("mgvqa_recovery"))
    assert view.name == "mgvqa_recovery" and "failed grasps" in view.title.text()
    assert model.rowCount() == 1 and model.index(0, 3).data() == "1"  # one failed grasp
