"""The open project and the signed-in annotator, shared by every mode."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from annotation.models import Annotator, ProjectSummary
from store import Project, open_project


class ProjectSession(QObject):
    """Owns the GUI thread's project connection; tells panels when things change."""

    project_changed = Signal()
    annotator_changed = Signal()
    data_changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.project: Project | None = None
        self.annotator: Annotator | None = None

    @property
    def path(self) -> Path | None:
        return self.project.path if self.project else None

    def open(self, path: Path | str, *, create: bool = False) -> Project:
        """Open `path`; on error (ProjectError) the current project stays open."""
        project = open_project(path, create=create)
        if self.project is not None:
            self.project.close()
        self.project = project
        previous = self.annotator.name if self.annotator else None
        self.annotator = None
        self.project_changed.emit()
        if previous:
            self.sign_in(previous)
        return project

    def sign_in(self, name: str) -> Annotator:
        if self.project is None:
            raise RuntimeError("no project open")
        self.annotator = self.project.annotators.sign_in(name)
        self.annotator_changed.emit()
        self.data_changed.emit()
        return self.annotator

    def summary(self) -> ProjectSummary | None:
        return self.project.summary.summary() if self.project else None

    def recent_activity(self, limit: int = 200):
        return self.project.audit.recent(limit) if self.project else []

    def known_annotators(self) -> list[str]:
        return [a.name for a in self.project.annotators.list()] if self.project else []

    def close(self) -> None:
        if self.project is not None:
            self.project.close()
            self.project = None
