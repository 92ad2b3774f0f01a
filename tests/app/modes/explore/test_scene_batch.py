"""Explore scenes > Generate scenes…: a batch started from the app shows its progress,
stores every scene as it comes (on Ray with two workers when asked), and Cancel keeps
what is stored."""

from __future__ import annotations

from gestures import open_as_ada
from PySide6.QtWidgets import QDialogButtonBox, QProgressDialog

from app.cli import main
from store import open_project


def _window(qtbot, tmp_path):
    path = tmp_path / "batch.reasonscope"
    open_project(path, create=True).close()
    return path, open_as_ada(qtbot, path, "explore")


def test_generate_dialog_runs_on_two_workers_with_progress(qtbot, tmp_path, capsys, ray_local):
    path, window = _window(qtbot, tmp_path)
    try:
        runner = window.mode("explore").batch
        assert runner.action.isEnabled()
        dialog = runner.ask()
        assert dialog.seed.value() == 0  # no scenes yet: the next free seed
        dialog.n.setValue(3)
        dialog.low.setValue(3)
        dialog.high.setValue(4)
        dialog.workers.setValue(2)
        assert dialog.batch().command() == (
            "reasonscope scenes generate --n 3 --seed 0 --objects 3-4 --gripper 2f140 --workers 2"
        )
        labels = []
        dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()
        task = runner.task
        assert task is not None and not runner.action.isEnabled()
        task.progressed.connect(labels.append)
        qtbot.waitUntil(lambda: runner.task is None, timeout=120_000)
        assert runner.last_message.startswith("Stored 3 scenes (ray (")
        assert any("scenes stored" in text and "/s" in text for text in labels)
        assert all(text.count("left") <= 1 for text in labels)
        assert [s.seed for s in window.mode("explore").state.scenes] == [0, 1, 2]
        assert runner.action.isEnabled()
        # the same batch from the command line gives the same scenes
        other = tmp_path / "cli.reasonscope"
        open_project(other, create=True).close()
        assert (
            main(
                [
                    "scenes",
                    "generate",
                    "--n",
                    "3",
                    "--seed",
                    "0",
                    "--objects",
                    "3-4",
                    "--db",
                    str(other),
                ]
            )
            == 0
        )
        for db in (path, other):
            assert main(["scenes", "export", "--db", str(db), "--out", f"{db}.jsonl"]) == 0
        capsys.readouterr()
        assert open(f"{path}.jsonl", "rb").read() == open(f"{other}.jsonl", "rb").read()
    finally:
        window.close()


def test_cancel_keeps_the_scenes_made_so_far(qtbot, tmp_path):
    from widgets.explore.generate_dialog import SceneBatch

    path, window = _window(qtbot, tmp_path)
    try:
        runner = window.mode("explore").batch
        batch = SceneBatch(
            n=200,
            seed=5,
            objects=(3, 4),
            gripper="2f140",
            workers=1,
            ray_address=None,
            resume=False,
        )
        assert runner.start(batch)
        dialog = runner.task.dialog
        assert isinstance(dialog, QProgressDialog)
        task = runner.task
        # Cancel as the first stored scene is reported, as a person pressing Cancel would
        task.progressed.connect(lambda text: "1 scenes stored" in text and task.cancel())
        qtbot.waitUntil(lambda: runner.task is None, timeout=120_000)
        assert "cancelled" in runner.last_message
        with open_project(path) as project:
            stored = [s.seed for s in project.scenes.list()]
        assert 1 <= len(stored) < 200 and stored == list(range(5, 5 + len(stored)))
        assert [s.seed for s in window.mode("explore").state.scenes] == stored
        # resuming from the dialog makes only the missing seeds
        resumed = SceneBatch(
            n=len(stored) + 1,
            seed=5,
            objects=(3, 4),
            gripper="2f140",
            workers=1,
            ray_address=None,
            resume=True,
        )
        assert runner.start(resumed)
        qtbot.waitUntil(lambda: runner.task is None, timeout=60_000)
        assert runner.last_message.startswith("Stored 1 scene (")
        assert [s.seed for s in window.mode("explore").state.scenes] == list(
            range(5, 7 + len(stored) - 1)
        )
    finally:
        window.close()
