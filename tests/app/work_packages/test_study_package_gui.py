"""Human-study packages in the app, as the people involved use it: the owner sends a
rater's package from File > Work packages > Create, the rater rates in it on a laptop
with keys 1-5 (the questions blind, no difficulty anywhere), an answerer types the human
baseline in theirs, and the owner merges both and reads the Spearman and the human rows
in Results > Reasoning."""

from __future__ import annotations

import shutil

import pytest
from gestures import press_shortcut
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QLabel, QPushButton
from question_fixtures import WH_ANSWER, build_study_project
from scipy.stats import spearmanr

from app import settings
from app.main_window import MainWindow
from app.work_packages.create import PackageRequest, create_package
from store import ProjectError

ALT = Qt.KeyboardModifier.AltModifier
KEYS = {1: Qt.Key.Key_1, 2: Qt.Key.Key_2, 3: Qt.Key.Key_3, 4: Qt.Key.Key_4, 5: Qt.Key.Key_5}
ADA = {1: 5, 2: 1, 3: 3}  # Ada's ratings of the three JRDB questions


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_study_project(tmp_path_factory.mktemp("study_gui"))


def _window(qtbot, path):
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 860)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_path(path)
    return window


def _shown(window) -> str:
    mode = window.mode_window("study")
    texts = [label.text() for label in mode.findChildren(QLabel) if label.isVisible()]
    texts += [b.text() for b in mode.findChildren(QPushButton) if b.isVisible()]
    return "\n".join(texts + [window.windowTitle(), mode.statusBar().currentMessage()])


def _close(qtbot, window) -> None:
    qtbot.waitUntil(lambda: window.mode("study").task is None, timeout=30000)
    window.close()


def test_rate_and_answer_in_packages_then_merge_into_the_results(qtbot, built, tmp_path):
    owner = tmp_path / "owner"
    owner.mkdir()
    project = owner / "study.reasonscope"
    shutil.copyfile(built, project)

    # The owner sends Ada her questions to rate from the menu, JRDB ones only.
    window = _window(qtbot, project)
    dialog = window.work_packages.create_dialog()
    dialog.person.setCurrentText("Ada")
    dialog.role.setCurrentText("rater")
    dialog.benchmark.setCurrentText("jrdb")
    dialog.out.setText(str(owner / "ada.rspack"))
    assert "--role rater --questions pending --benchmark jrdb" in dialog.command.text()
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.LeftButton)
    assert "3 ratings for Ada as rater" in window.message_box.text()
    window.message_box.close()
    window.close()
    create_package(project, PackageRequest("Ben", "human-baseline", [2, 3]), owner / "ben.rspack")

    # Ada's laptop: the package alone. The app signs her in and she rates with the keys.
    laptop = tmp_path / "laptop"
    laptop.mkdir()
    shutil.move(owner / "ada.rspack", laptop / "ada.rspack")
    project.rename(owner / "away")
    settings.remember_annotator("Zed")
    window = _window(qtbot, laptop / "ada.rspack")
    assert window.session.annotator.name == "Ada"
    assert "Work package: Ada, rater, 3 ratings" in window.project_label.text()
    with pytest.raises(ProjectError, match="this work package is Ada's; Zed cannot"):
        window.session.sign_in("Zed")
    window.set_mode("study")
    study = window.mode("study")
    assert study.panel.progress.text() == "0 / 3 rated"
    while (question := study.state.current) is not None:
        assert question.difficulty is None  # not in the package at all
        text = _shown(window)
        assert question.text in text and "difficulty" not in text.lower().replace(
            "rate difficulty", ""
        )
        assert study.image.panorama.has_image  # the frame's panorama travelled
        press_shortcut(qtbot, window, KEYS[ADA[question.id]])
    assert study.panel.progress.text() == "3 / 3 rated"
    _close(qtbot, window)

    # Ben's: the human baseline, typed; feedback on says it is scored at the merge.
    settings.remember_annotator("Ben")
    window = _window(qtbot, owner / "ben.rspack")
    window.set_mode("study")
    study = window.mode("study")
    press_shortcut(qtbot, window, Qt.Key.Key_B, ALT)
    study.feedback_action.trigger()
    while (question := study.state.current) is not None:
        field = study.panel.count_field if question.task == "vqa-count" else study.panel.text_field
        assert field.isVisible() and question.answer is None
        qtbot.keyClicks(field, "0" if question.task == "vqa-count" else WH_ANSWER)
        press_shortcut(qtbot, field, Qt.Key.Key_Return)
        assert "scored when the work package is merged" in study.panel.feedback.text()
    assert study.panel.progress.text() == "2 / 2 answered"
    _close(qtbot, window)
    (owner / "away").rename(project)

    # The owner merges both from the menu and reads Results > Reasoning.
    window = _window(qtbot, project)
    report = window.work_packages.merge_dialog(laptop / "ada.rspack")
    assert report.merged["ratings"] == 3 and "3 ratings" in window.message_box.text()
    window.message_box.close()
    assert window.work_packages.merge_dialog(owner / "ben.rspack").merged["answers"] == 2
    window.message_box.close()
    window.set_mode("results")
    results = window.mode("results")
    results.tabs.setCurrentWidget(results.reasoning_results)
    view = results.reasoning_results
    project_questions = window.session.project.questions
    d = [project_questions.get(q).difficulty.D for q in (1, 2, 3)]
    rho = spearmanr([(4 + ADA[1]) / 2, ADA[2], ADA[3]], d).statistic  # Zoe rated 1 as 4
    table = view.spearman_table.model()
    rows = {
        (table.index(r, 0).data(), table.index(r, 1).data()): r for r in range(table.rowCount())
    }
    row = rows[("all tasks", "jrdb")]
    assert table.index(row, 5).data() == f"{rho:.2f}" and table.index(row, 3).data() == "4"
    counts = view.level_tables[("jrdb", "vqa-count")].model()
    wh = view.level_tables[("jrdb", "vqa-wh")].model()
    assert counts.index(0, 0).data() == wh.index(0, 0).data()  # the human row, one each
    assert wh.index(0, 6).data().startswith("100") and counts.index(0, 6).data().startswith("0")
    window.close()
