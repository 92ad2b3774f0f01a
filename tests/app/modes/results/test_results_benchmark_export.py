"""Results ▸ Export ▸ Benchmark: the JSON Lines file or the Hugging Face dataset folder,
written off the GUI thread, the way a person picks it from the Export menu."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QMessageBox, QStackedWidget

import app.modes.results.benchmark_export as part
from annotation.verification import Verdict
from app.io.hf_dataset import INSTALL_HINT
from app.modes.results.mode import ResultsMode
from app.session import ProjectSession
from sim.tabletop.questions import Candidate, generate
from sim.tabletop.scenes import scene_record
from store import open_project
from widgets.mode import ModeWindow


def make_project(path, *, approve: bool):
    with open_project(path, create=True) as p:
        for seed in range(40):
            c = generate("count", seed, image_size=256)
            if isinstance(c, Candidate):
                with p.write():
                    question = p.questions.add(
                        c.question_record(p.scenes.add(scene_record(c.scene)))
                    )
                c.scene.world.close()
                break
        if approve:
            for name in ("Ben", "Cleo"):
                who = p.annotators.sign_in(name)
                p.verifications.submit(question.id, who, Verdict(True, True, True, "approve"), 30)
    return path


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
    results = ResultsMode(mode, pages, session)
    yield results
    results.shutdown()
    session.close()


def menu_action(results, name: str):
    """The Export menu's entry `name`, as the person finds it under the Export button."""
    actions = {a.objectName(): a for a in results.export_button.menu().actions()}
    assert actions[name].isEnabled()
    return actions[name]


def status_text(results) -> str:
    return results.mode.statusBar().currentMessage()


def test_the_hugging_face_dataset_is_written_and_loads(results, qtbot, tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    results.session.open(make_project(tmp_path / "p.reasonscope", approve=True))
    out = tmp_path / "dataset"
    out.mkdir()
    monkeypatch.setattr(part.QFileDialog, "getExistingDirectory", lambda *a, **k: str(out))
    menu_action(results, "export_benchmark_hf").trigger()
    qtbot.waitUntil(lambda: "Exported" in status_text(results), timeout=120000)
    assert status_text(results) == f"Exported 1 questions to {out}"
    rows = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))["test"]
    assert rows.num_rows == 1 and rows[0]["status"] == "approved"
    assert rows[0]["images"][0].size == (1024, 1024)


def test_with_nothing_approved_it_asks_then_writes_json_lines(
    results, qtbot, tmp_path, monkeypatch
):
    results.session.open(make_project(tmp_path / "p.reasonscope", approve=False))
    out = tmp_path / "bench.jsonl"
    asked = []
    monkeypatch.setattr(
        part.QMessageBox,
        "question",
        lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Yes,
    )
    monkeypatch.setattr(part.QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    menu_action(results, "export_benchmark_jsonl").trigger()
    qtbot.waitUntil(lambda: "Exported" in status_text(results), timeout=60000)
    assert asked[0].startswith("None of the 1 questions is approved yet (1 pending")
    [line] = out.read_text().splitlines()
    assert json.loads(line)["verification"]["status"] == "pending"


def test_without_the_extra_it_says_the_pip_line(results, tmp_path, monkeypatch):
    results.session.open(make_project(tmp_path / "p.reasonscope", approve=True))

    def missing():
        raise part.HubSetupError(INSTALL_HINT)

    told = []
    monkeypatch.setattr(part, "hf_modules", missing)
    monkeypatch.setattr(part.QMessageBox, "information", lambda *a, **k: told.append(a[2]))
    monkeypatch.setattr(
        part.QFileDialog, "getExistingDirectory", lambda *a, **k: pytest.fail("no folder asked")
    )
    menu_action(results, "export_benchmark_hf").trigger()
    assert told and "pip install 'reasonscope[hf]'" in told[0]
