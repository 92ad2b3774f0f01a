"""Two verifiers' packages, as on two machines: Ada works hers in the app (qtbot, keys),
Ben his with the CLI; the owner creates and merges them from File > Work packages."""

from __future__ import annotations

import shutil

import pytest
from gestures import approve_question, reject_question
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from question_fixtures import write_question_project

from app import settings
from app.cli import main as cli
from app.main_window import MainWindow
from app.work_packages.create import PackageRequest, create_package
from store import ProjectError


@pytest.fixture(scope="module")
def team_project(tmp_path_factory):
    return write_question_project(tmp_path_factory.mktemp("team") / "team.reasonscope")


def _window(qtbot, path=None):
    window = MainWindow()
    window.mode("verify").image_size = 256
    qtbot.addWidget(window)
    window.resize(1280, 860)
    window.show()
    qtbot.waitExposed(window)
    if path is not None:
        assert window.open_path(path)
    return window


def test_two_verifiers_on_two_machines_then_merge(qtbot, team_project, tmp_path, capsys):
    owner = tmp_path / "owner"
    owner.mkdir()
    project = owner / "team.reasonscope"
    shutil.copy(team_project, project)

    # The owner creates Ada's package from the menu (the dialog, as a person fills it in).
    window = _window(qtbot, project)
    dialog = window.work_packages.create_dialog()
    dialog.person.setCurrentText("Ada")
    dialog.out.setText(str(owner / "ada.rspack"))
    assert "reasonscope pack create --for 'Ada' --role verifier --questions pending" in (
        dialog.command.text()
    )
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.LeftButton)
    assert (owner / "ada.rspack").is_file()
    assert "2 questions for Ada" in window.message_box.text()
    window.message_box.close()
    window.close()
    # ... and Ben's on the command line.
    create_package(project, PackageRequest("Ben", "verifier", "pending"), owner / "ben.rspack")

    # Ada's laptop: the package alone, the project out of reach.
    laptop = tmp_path / "ada-laptop"
    laptop.mkdir()
    shutil.move(owner / "ada.rspack", laptop / "ada.rspack")
    project.rename(owner / "elsewhere")
    settings.remember_annotator("Zed")  # whoever used this app last: the package says who works
    window = _window(qtbot, laptop / "ada.rspack")
    session, verify = window.session, window.mode("verify")
    assert session.annotator.name == "Ada"
    assert "Work package: Ada, verifier, 2 questions" in window.project_label.text()
    with pytest.raises(ProjectError, match="this work package is Ada's; Zed cannot"):
        session.sign_in("Zed")
    window.set_mode("verify")
    assert verify.queue.model.rowCount() == 2
    first = verify.state.current
    qtbot.waitUntil(
        lambda: verify.loaded is not None and verify.loaded.scene.id == first.scene_id,
        timeout=30000,
    )  # the evidence view restores the scene from the package alone
    approve_question(qtbot, window)
    second = verify.state.current
    assert second.id != first.id
    reject_question(qtbot, window, "two objects are hidden")
    assert verify.state.current is None  # her queue is done
    window.close()
    (owner / "elsewhere").rename(project)

    # Ben's laptop: the CLI, in his package.
    ben = owner / "ben.rspack"
    assert cli(["queue", "--as", "Ben", "--db", str(ben), "--json"]) == 0
    assert '"verify"' in capsys.readouterr().out
    for qid in (first.id, second.id):
        argv = ["verify", str(qid), "--as", "Ben", "--decision", "approve", "--criteria", "1,2,3"]
        assert cli([*argv, "--db", str(ben)]) == 0
    assert (
        cli(
            [
                "verify",
                str(first.id),
                "--as",
                "Ada",
                "--decision",
                "approve",
                "--criteria",
                "1,2,3",
                "--db",
                str(ben),
            ]
        )
        == 2
    )
    assert "Ben's; Ada cannot work in it" in capsys.readouterr().err

    # Back at the owner's: merge both from the menu, one twice.
    window = _window(qtbot, project)
    report = window.work_packages.merge_dialog(laptop / "ada.rspack")
    assert report.merged["verdicts"] == 2 and "Package merged" in window.message_box.windowTitle()
    window.message_box.close()
    assert window.work_packages.merge_dialog(ben).merged["verdicts"] == 2
    window.message_box.close()
    again = window.work_packages.merge_dialog(ben)
    assert not again.changed and "nothing new" in window.message_box.text()
    window.message_box.close()
    repo = window.session.project.verifications
    assert window.session.project.questions.get(first.id).status == "approved"
    cleo = window.session.project.annotators.sign_in("Cleo")
    assert [q.id for q in repo.adjudication_queue(cleo)] == [second.id]
    assert repo.agreement()["n"] == 2
    assert window.session.project.integrity_ok()
    window.close()


def test_show_team_opens_results_on_the_team_tab(qtbot, team_project, tmp_path):
    project = tmp_path / "team.reasonscope"
    shutil.copy(team_project, project)
    create_package(project, PackageRequest("Ada", "verifier", "pending"), tmp_path / "a.rspack")
    window = _window(qtbot, project)
    window.work_packages.team_action.trigger()
    results = window.mode("results")
    assert window.current_mode == "results"
    assert results.tabs.currentWidget() is results.team_results
    window.close()


def test_a_refused_package_is_said_in_one_line_and_changes_nothing(qtbot, team_project, tmp_path):
    import sqlite3

    project = tmp_path / "team.reasonscope"
    shutil.copy(team_project, project)
    pack = tmp_path / "ada.rspack"
    create_package(project, PackageRequest("Ada", "verifier", "pending"), pack)
    with sqlite3.connect(pack) as conn:
        conn.execute("UPDATE questions SET text = 'edited' WHERE id = 1")
    window = _window(qtbot, project)
    audit = window.session.project.audit.count()
    assert window.work_packages.merge_dialog(pack) is None
    box = window.message_box
    assert box.windowTitle() == "Package not merged"
    assert "tampered: its content hash" in box.text() and "\n" not in box.text()
    assert window.session.project.audit.count() == audit
    box.close()
    window.close()
