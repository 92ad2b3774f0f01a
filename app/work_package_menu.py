"""File > Work packages: create a package for a person, merge a returned one with a
report, recall one (docs/work-packages.md#in-the-app)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMenu, QMessageBox, QWidget

from app.session import ProjectSession
from widgets.work_packages.create_dialog import CreatePackageDialog

if TYPE_CHECKING:  # the packages' code (and the store under it) is imported when used, so
    # the window is on screen before it
    from app.work_packages.merge import MergeReport

PACKAGE_FILTER = "Work packages (*.rspack);;All files (*)"


class WorkPackageHost(Protocol):
    """What the menu needs of the window that hosts it, and nothing more."""

    session: ProjectSession

    def show_message(self, title: str, text: str, icon_kind: QMessageBox.Icon) -> None:
        """A message box the person dismisses."""

    def show_status(self, text: str, timeout_ms: int) -> None:
        """A passing line in the status bar."""

    def switch_to(self, mode: str, page: str | None = None) -> None:
        """Bring mode `mode` to the front, at its page `page` when given."""


class WorkPackagesMenu(QObject):
    """The submenu and its dialogs; `window` is the widget that parents the dialogs and
    `host` what they report to (in the app both are the main window)."""

    def __init__(self, window: QWidget, host: WorkPackageHost, menu: QMenu) -> None:
        super().__init__(window)
        self.window = window
        self.host = host
        self.menu = menu
        self.create_action = menu.addAction("&Create package…", self.create_dialog)
        self.merge_action = menu.addAction("&Merge returned package…", self.merge_dialog)
        self.recall_action = menu.addAction("&Recall package…", self.recall_dialog)
        menu.addSeparator()
        self.team_action = menu.addAction("Show &team (Results)", self.show_team)
        menu.aboutToShow.connect(self.update)
        self.dialog: CreatePackageDialog | None = None
        self.last_report: MergeReport | None = None

    @property
    def session(self) -> ProjectSession:
        return self.host.session

    def update(self) -> None:
        """Packages are sent from and merged into a project, not from inside a package."""
        project = self.session.project is not None and self.session.package is None
        for action in (self.create_action, self.merge_action, self.recall_action):
            action.setEnabled(project)
            action.setToolTip("" if project else "Open the project the packages belong to")

    def create_dialog(self) -> CreatePackageDialog | None:
        if not self._project_open():
            return None
        project = self.session.project
        people = [a.name for a in project.annotators.list()]
        sequences = [s.name for s in project.sequences.list()]
        self.dialog = CreatePackageDialog(people, sequences, project.path.parent, self.window)
        self.dialog.accepted.connect(self._create)
        self.dialog.open()
        return self.dialog

    def _create(self) -> None:
        from app.work_packages.create import create_package, package_request
        from store import ProjectError

        order = self.dialog.order()
        try:
            request = package_request(
                order.person,
                order.role,
                questions=order.questions,
                labels=order.labels,
                sequence=order.sequence,
                frames=order.frames,
                limit=order.limit,
                benchmark=order.benchmark,
            )
            with _busy():
                manifest = create_package(self.session.path, request, order.out)
        except (ProjectError, OSError) as exc:  # a bad file or folder: said, nothing changed
            self.host.show_message("Package not created", str(exc), QMessageBox.Icon.Warning)
            return
        self.session.reload()
        n, kind = len(manifest["items"]), manifest["items"][0]["kind"]
        notes = "".join(f"\nNote: {note}" for note in manifest["notes"][:5])
        self.host.show_message(
            "Package created",
            f"Wrote {order.out}: {n} {kind}{'s' if n != 1 else ''} for {manifest['person']} "
            f"as {manifest['role']}. Send the file; they open it in ReasonScope, work, and "
            f"send it back for File ▸ Work packages ▸ Merge.{notes}",
            QMessageBox.Icon.Information,
        )

    def merge_dialog(self, path: str | Path | None = None) -> MergeReport | None:
        if not self._project_open():
            return None
        if path is None:
            path, _ = QFileDialog.getOpenFileName(
                self.window,
                "Merge a returned package",
                str(self.session.path.parent),
                PACKAGE_FILTER,
            )
            if not path:
                return None
        from app.work_packages.merge import merge_package
        from store import ProjectError

        try:
            with _busy():
                report = merge_package(self.session.path, Path(path))
        except (ProjectError, OSError) as exc:  # a bad file or folder: said, nothing changed
            self.host.show_message("Package not merged", str(exc), QMessageBox.Icon.Warning)
            return None
        self.last_report = report
        self.session.reload()
        icon = QMessageBox.Icon.Warning if report.conflicts else QMessageBox.Icon.Information
        title = "Package merged with conflicts" if report.conflicts else "Package merged"
        text = "\n".join(report.lines())
        if report.conflicts:
            text += "\n\nConflicting work is kept aside: reasonscope pack conflicts --db PROJECT."
        self.host.show_message(title, text, icon)
        return report

    def recall_dialog(self) -> None:
        if not self._project_open():
            return
        out = [p for p in self.session.project.packages.list() if not p["recalled_at"]]
        labels = [
            f"{p['person']} · {p['role']} · {p['created'][:10]} · {p['package_id'][:8]}"
            for p in out
        ]
        if not labels:
            self.host.show_message(
                "Nothing to recall", "No package is out.", QMessageBox.Icon.Information
            )
            return
        choice, ok = QInputDialog.getItem(
            self.window, "Recall a package", "Package", labels, 0, False
        )
        if ok:
            package = out[labels.index(choice)]
            count = self.session.project.packages.recall(package["package_id"])
            self.session.reload()
            self.host.show_status(f"Recalled {count} items of {package['person']}'s package", 6000)

    def show_team(self) -> None:
        self.host.switch_to("results", "team")

    def _project_open(self) -> bool:
        if self.session.project is None or self.session.package is not None:
            self.host.show_message(
                "Open the project",
                "Work packages are created and merged in the project they belong to; "
                "open it first (File ▸ Open project).",
                QMessageBox.Icon.Information,
            )
            return False
        return True


class _busy:
    def __enter__(self) -> None:
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)

    def __exit__(self, *exc: object) -> None:
        QGuiApplication.restoreOverrideCursor()
