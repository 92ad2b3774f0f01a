"""Explore scenes > Generate scenes…: a scene batch started from the app, with its progress.

The batch is `app.jobs.scenes.generate_and_store`, the code behind `reasonscope scenes
generate`: in a worker thread, on a local Ray or a cluster when asked, each scene stored
by this process as it comes back. The progress dialog shows scenes stored, failed, the
rate and the time left; Cancel stops at the next scene and keeps what is stored.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QToolBar

from annotation.progress import Progress
from app.jobs.batch import BatchReport, BatchSetupError, ray_module
from app.jobs.scenes import generate_and_store
from app.session import ProjectSession
from widgets.explore.generate_dialog import GenerateScenesDialog, SceneBatch
from widgets.mode import ModeWindow
from widgets.tasks import TaskRunner


class SceneBatchRunner(QObject):
    """The Generate scenes action, its dialog and the running batch."""

    def __init__(self, mode: ModeWindow, bar: QToolBar, session: ProjectSession) -> None:
        super().__init__(mode)
        self.mode, self.session = mode, session
        self.action = QAction("Generate scenes…", bar)
        self.action.setObjectName("generate_scenes_action")
        self.action.setToolTip(
            "Generate seeded scenes into this project, on this machine's "
            "cores or a Ray cluster (docs/scale-out.md)"
        )
        self.action.triggered.connect(self.ask)
        bar.addAction(self.action)
        self.dialog: GenerateScenesDialog | None = None
        self.task: TaskRunner | None = None
        self.last: BatchReport | None = None
        self.last_message = ""
        session.project_changed.connect(self._enable)
        self._enable()

    def _enable(self) -> None:
        self.action.setEnabled(self.session.project is not None and self.task is None)

    def ask(self) -> GenerateScenesDialog:
        """Open the dialog (not modal for the app); Generate starts the batch."""
        project = self.session.project
        seeds = [s.seed for s in project.scenes.list(limit=10**9) if s.seed is not None]
        self.dialog = GenerateScenesDialog(self.mode, next_seed=max(seeds, default=-1) + 1)
        self.dialog.accepted.connect(lambda: self.start(self.dialog.batch()))
        self.dialog.open()
        return self.dialog

    def start(self, batch: SceneBatch) -> bool:
        """Run `batch` in a worker thread with a progress dialog; False if it cannot start."""
        if self.task is not None or self.session.path is None:
            return False
        if batch.workers > 1 or batch.ray_address:
            try:
                ray_module()
            except BatchSetupError as exc:
                self._say(str(exc))
                return False
        path, reports = self.session.path, []

        def work(progress: Progress) -> list[int]:
            # the dialog says the time left itself: the batch's own estimate would repeat it
            def forward(done: int, total: int, message: str) -> None:
                head, _, tail = message.rpartition(", ")
                progress.report(done, total, head if tail.endswith(" left") else message)

            return generate_and_store(
                path,
                n=batch.n,
                seed=batch.seed,
                objects=batch.objects,
                gripper=batch.gripper,
                progress=Progress(forward),
                workers=batch.workers,
                ray_address=batch.ray_address,
                resume=batch.resume,
                report=reports,
            )

        self.task = TaskRunner(f"Generating {batch.n} scenes", work, self.mode)
        self.task.setObjectName("scene_batch_task")
        self.task.succeeded.connect(lambda ids: self._done(reports, len(ids)))
        self.task.failed.connect(lambda summary, _details: self._say(f"Scenes: {summary}"))
        self.task.cancelled.connect(
            lambda: self._say("Scene generation cancelled; the scenes made so far are stored")
        )
        self.task.finished.connect(self._finished)
        self._enable()
        self.task.start()
        return True

    def _done(self, reports: list[BatchReport], stored: int) -> None:
        self.last = reports[0] if reports else None
        failed = len(self.last.failed) if self.last else 0
        how = f" ({self.last.backend}, {self.last.seconds:.0f} s)" if self.last else ""
        text = f"Stored {stored} scene{'' if stored == 1 else 's'}{how}"
        if failed:
            first = self.last.failed[0]
            text += f"; {failed} failed, first {first[0]}: {first[1]}"
        self._say(text)

    def _say(self, text: str) -> None:
        self.last_message = text
        self.mode.statusBar().showMessage(text, 15000)

    def _finished(self) -> None:
        self.task = None
        self._enable()
        self.session.reload()  # the scene list shows the new scenes

    def shutdown(self) -> None:
        if self.task is not None:
            self.task.shutdown()
