"""Explore scenes > Author question: a question authored on the edited scene by clicking
its objects, checked as generated ones are, stored pending for two verifiers
(docs/scene-authoring.md#authoring-a-question)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence

from widgets.explore.author_panel import AuthorPanel
from widgets.tasks import TaskRunner


def check_and_add(
    db: Path,
    scene_id: int,
    task: str,
    targets: list[str],
    tags: list[str],
    threshold: float,
    extreme: str,
) -> dict:
    """Run the generators' checks on the stored scene and store a passing question; a plain
    report either way (a failing criterion is an answer, not an error)."""
    from app.jobs.questions import add_question
    from sim.tabletop.authoring.questions import CriterionFailed
    from store import open_project

    try:
        question_id = add_question(
            db, scene_id, task, targets, tags=tags, threshold=threshold, extreme=extreme
        )
    except CriterionFailed as exc:
        return {"ok": False, "criterion": exc.criterion, "message": str(exc)}
    with open_project(db) as project:
        q = project.questions.get(question_id)
    return {
        "ok": True,
        "question_id": q.id,
        "text": q.text,
        "answer": q.answer,
        "measured": (q.criteria or {}).get("measured", {}),
        "scene_id": q.scene_id,
    }


class QuestionAuthoring(QObject):
    """The Author question dock, shown while a scene is edited."""

    def __init__(self, explore, editing) -> None:
        super().__init__(explore.mode)
        self.explore, self.editing = explore, editing
        self.panel = AuthorPanel()
        self.dock = explore.mode.add_dock(
            "author", "Author question", self.panel, Qt.DockWidgetArea.RightDockWidgetArea
        )
        self.dock.hide()
        self.panel.add_target_requested.connect(self.add_selected)
        self.panel.submit_requested.connect(self.submit)
        self.add_action = QAction("Add selected object to the question", explore.mode)
        self.add_action.setShortcut(QKeySequence("Ctrl+T"))
        self.add_action.triggered.connect(self.add_selected)
        explore.mode.addAction(self.add_action)
        self.task: TaskRunner | None = None
        self.last: dict | None = None

    def set_editing(self, editing: bool) -> None:
        self.dock.setVisible(editing)
        self.add_action.setEnabled(editing)
        if not editing:
            self.panel.clear_targets()

    def add_selected(self) -> None:
        editor, key = self.editing.editor, self.explore.state.selected
        if editor is None or not key or editor.world.bodies[key].role != "object":
            self.explore.mode.statusBar().showMessage("Select an object in the scene first.", 4000)
            return
        body = editor.world.bodies[key]
        if self.panel.current_task() in ("count", "find"):
            self.panel.add_target(body.name, body.name)  # a kind of object
        else:
            self.panel.add_target(key, f"{body.name} ({key})")

    def submit(self) -> None:
        """Save the scene if it has unsaved edits (a question needs a stored scene), then
        check and store the question off the GUI thread."""
        if self.task is not None or self.editing.editor is None:
            return
        editor = self.editing.editor
        scene_id = self.editing.save() if editor.dirty else editor.derived_from
        if scene_id is None:
            self.panel.show_result(False, "The scene cannot be saved as it is; see the status bar.")
            return
        p = self.panel
        args = (
            self.explore.session.path,
            scene_id,
            p.current_task(),
            p.target_keys(),
            p.tag_list(),
            p.fraction(),
            p.extreme.currentText(),
        )
        self.panel.show_result(True, "Checking in the simulator…")
        self.panel.submit.setEnabled(False)
        self.task = TaskRunner(
            "Checking the question",
            lambda _p: check_and_add(*args),
            self.explore.mode,
            show_dialog=False,
        )
        self.task.succeeded.connect(self._done)
        self.task.failed.connect(lambda summary, _d: self.panel.show_result(False, summary))
        self.task.finished.connect(self._finished)
        self.task.start()

    def _done(self, report: dict) -> None:
        self.last = report
        if not report["ok"]:
            self.panel.show_result(False, f"Not stored: fails {report['message']}")
            return
        shown = {k: f"{100 * v:.0f}%" for k, v in report["measured"].get("visibility", {}).items()}
        answer = report["answer"]
        if isinstance(answer, dict):  # Find: yes or no, and the point to click
            answer = answer.get("answer")
        self.panel.show_result(
            True,
            f"Stored question #{report['question_id']}, pending for two verifiers: "
            f"{report['text']} Answer: {answer}. Visible in the model's view: "
            f"{', '.join(f'{k} {v}' for k, v in shown.items()) or '-'}.",
        )
        self.explore.session.reload()

    def _finished(self) -> None:
        self.task = None
        self.panel.refresh()

    def shutdown(self) -> None:
        if self.task is not None:
            self.task.shutdown()
