"""The open project and the signed-in annotator, shared by every mode."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

if TYPE_CHECKING:  # the store (sqlite-utils, and pandas through it) is imported on first
    # open, so the window is on screen before it
    from annotation.models import Annotator, ProjectSummary
    from store import Project


class ProjectSession(QObject):
    """Owns the GUI thread's project connection; tells panels when things change."""

    project_changed = Signal()
    annotator_changed = Signal()
    data_changed = Signal()
    changed_outside = Signal()  # another process wrote to the open project (then data_changed)

    #: How often (ms) the open project is checked for writes by other processes.
    WATCH_MS = 1500

    def __init__(self) -> None:
        super().__init__()
        self.project: Project | None = None
        self.package: dict | None = None  # the manifest, when the open file is a work package
        self.annotator: Annotator | None = None
        self._seen_version: int | None = None
        self.watch = QTimer(self)
        self.watch.setInterval(self.WATCH_MS)
        self.watch.timeout.connect(self.check_outside_changes)

    @property
    def path(self) -> Path | None:
        return self.project.path if self.project else None

    def open(self, path: Path | str, *, create: bool = False) -> Project:
        """Open `path`; on error (ProjectError) the current project stays open."""
        from app.work_packages.files import unpack_files
        from store import ProjectError, open_project

        project = open_project(path, create=create)
        package = project.packages.manifest()
        if package is not None:
            try:
                unpack_files(project)
            except (ProjectError, OSError) as exc:
                project.close()
                raise ProjectError(f"{project.path}: cannot unpack its files ({exc})") from None
        if self.project is not None:
            self.project.close()
        self.project = project
        self.package = package
        self._seen_version = project.data_version
        self.watch.start()
        previous = self.annotator.name if self.annotator else None
        if package is not None:  # a package is one person's: they are the one working
            previous = package["person"]
        self.annotator = None
        self.project_changed.emit()
        if previous:
            self.sign_in(previous)
        return project

    def sign_in(self, name: str) -> Annotator:
        if self.project is None:
            raise RuntimeError("no project open")
        self.project.packages.check_person(name)  # a package is one person's
        self.annotator = self.project.annotators.sign_in(name)
        self.annotator_changed.emit()
        self.data_changed.emit()
        return self.annotator

    def check_outside_changes(self) -> bool:
        """Whether another process wrote to the project since the last look; if so, every
        panel is told (`changed_outside`, then `data_changed`) and reads it again."""
        if self.project is None:
            return False
        version = self.project.data_version
        if version == self._seen_version:
            return False
        self._seen_version = version
        self.changed_outside.emit()
        self.data_changed.emit()
        return True

    def reload(self) -> None:
        """Read everything shown again (View > Reload): for changes made elsewhere."""
        if self.project is not None:
            self._seen_version = self.project.data_version
            self.data_changed.emit()

    def describe(self) -> str:
        """What is open, for the status bar: a path, or whose work package it is."""
        if self.project is None:
            return "No project open"
        if self.package is not None:
            p = self.package
            n, kind = len(p["items"]), p["items"][0]["kind"] if p["items"] else "item"
            what = f"{n} {kind}{'' if n == 1 else 's'}"
            return f"Work package: {p['person']}, {p['role']}, {what} — {self.project.path}"
        return str(self.project.path)

    def summary(self) -> ProjectSummary | None:
        return self.project.summary.summary() if self.project else None

    def recent_activity(self, limit: int = 200):
        return self.project.audit.recent(limit) if self.project else []

    def known_annotators(self) -> list[str]:
        if self.package is not None:
            return [self.package["person"]]
        return [a.name for a in self.project.annotators.list()] if self.project else []

    def close(self) -> None:
        self.watch.stop()
        if self.project is not None:
            self.project.close()
            self.project = None
            self.package = None
