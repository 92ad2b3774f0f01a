"""Results ▸ Export ▸ Benchmark: the project's questions as a reasonscope-benchmark/1 file
(`app.io.benchmark`) or as a Hugging Face dataset folder (`app.io.hf_dataset`), written off
the GUI thread. Approved (and corrected) questions, as `reasonscope export benchmark`
writes by default; with none approved, the person is asked before all are written
unverified. Without the hf extra, the dataset entry says the pip line (docs/sharing.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from app.io.benchmark import export_benchmark
from app.io.hf_dataset import HubSetupError, export_hf_dataset, hf_modules
from app.session import ProjectSession
from widgets.tasks import TaskRunner

FORMATS = (
    ("jsonl", "Benchmark as JSON Lines…"),
    ("hf", "Benchmark as a Hugging Face dataset…"),
)


class BenchmarkExport(QObject):
    """The two benchmark entries of the Results export menu (`actions`)."""

    def __init__(
        self, owner: QWidget, session: ProjectSession, message: Callable[[str, int], None]
    ) -> None:
        super().__init__(owner)
        self.owner, self.session, self.message = owner, session, message
        self.actions: list[QAction] = []
        for fmt, title in FORMATS:
            action = QAction(title, owner)
            action.setObjectName(f"export_benchmark_{fmt}")
            action.triggered.connect(lambda _=False, f=fmt: self.ask(f))
            self.actions.append(action)
        self.task: TaskRunner | None = None

    def _status(self) -> str | None:
        """ "approved", or "any" when none is approved and the person agrees; None to stop."""
        counts = self.session.project.questions.counts_by_status()
        if counts.get("approved", 0) + counts.get("corrected", 0):
            return "approved"
        total = sum(counts.values())
        if not total:
            self.message("The project has no questions to export.", 6000)
            return None
        answer = QMessageBox.question(
            self.owner,
            "No approved questions",
            f"None of the {total} questions is approved yet ({counts.get('pending', 0)} "
            "pending verification). Export them all, unverified?",
        )
        return "any" if answer == QMessageBox.StandardButton.Yes else None

    def ask(self, fmt: str) -> None:
        """Ask where, then export there off the GUI thread."""
        db = self.session.path
        if db is None or self.session.project is None:
            self.message("No project open: nothing to export.", 6000)
            return
        if fmt == "hf":
            try:
                hf_modules()
            except HubSetupError as exc:
                QMessageBox.information(self.owner, "Hugging Face datasets not installed", str(exc))
                return
        status = self._status()
        if status is None:
            return
        if fmt == "hf":
            path = QFileDialog.getExistingDirectory(
                self.owner, "Export the benchmark into an empty folder", str(Path(db).parent)
            )
        else:
            path, _ = QFileDialog.getSaveFileName(
                self.owner,
                "Export the benchmark",
                str(Path(db).parent / "benchmark.jsonl"),
                "JSON Lines (*.jsonl)",
            )
        if path:
            self.export(fmt, Path(path), status)

    def export(self, fmt: str, out: Path, status: str) -> None:
        """Write the benchmark to `out` in a worker thread; say how it went."""
        db = self.session.path

        def work(progress):
            if fmt == "hf":
                return export_hf_dataset(db, out, status=status, progress=progress)["questions"]
            return export_benchmark(db, out, status=status)

        self.task = TaskRunner("Exporting the benchmark", work, self.owner)
        self.task.succeeded.connect(
            lambda n: self.message(f"Exported {n} questions to {out}", 8000)
        )
        self.task.failed.connect(
            lambda summary, _d: self.message(f"Cannot export the benchmark: {summary}", 10000)
        )
        self.task.start()

    def shutdown(self) -> None:
        """Stop an export under way (the window is closing)."""
        if self.task is not None:
            self.task.shutdown()
