"""Replay ▸ Export to Rerun: the open episode as a Rerun recording (`.rrd`), written off
the GUI thread by `app.io.rerun.export`; then, where the `rerun` viewer is installed, an
offer to open it (a separate process: Replay goes on), and where it is not, how to
install it (docs/sharing.md#rerun)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from app.io.rerun.export import VIEWER_HINT, RerunMissing, export_rerun, rerun_module
from app.session import ProjectSession
from widgets.replay.state import ReplayState
from widgets.tasks import TaskRunner


def viewer_command() -> str | None:
    """The `rerun` viewer: on the PATH, or beside this Python (a virtual environment's
    bin/, where `pip install rerun-sdk` puts it); None when it is not installed."""
    found = shutil.which("rerun")
    if found:
        return found
    beside = Path(sys.executable).parent / "rerun"
    return str(beside) if beside.exists() else None


def open_in_viewer(viewer: str, path: Path) -> subprocess.Popen:
    """Start the viewer on `path` and return at once; it lives on if Replay closes."""
    return subprocess.Popen(
        [viewer, str(path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


class RerunExport(QObject):
    """The Export to Rerun action of Replay's toolbar, for the episode `state` has open."""

    def __init__(
        self,
        owner: QWidget,
        session: ProjectSession,
        state: ReplayState,
        message: Callable[[str, int], None],
    ) -> None:
        super().__init__(owner)
        self.owner, self.session, self.state, self.message = owner, session, state, message
        self.action = QAction("Export to Rerun…", owner)
        self.action.setObjectName("replay_export_rerun")
        self.action.setToolTip(
            "Write the open episode as a Rerun recording (.rrd): the scene at every step, "
            "the images, the texts, the grasps and the labels"
        )
        self.action.triggered.connect(lambda _=False: self.export())
        self.task: TaskRunner | None = None
        self.viewer: subprocess.Popen | None = None  # the last viewer started

    def export(self) -> None:
        """Ask where, then write the open episode there off the GUI thread."""
        episode, db = self.state.episode, self.session.path
        if episode is None or db is None:
            self.message("Open an episode first: Export to Rerun writes the open one.", 5000)
            return
        try:
            rerun_module()
        except RerunMissing as exc:
            QMessageBox.information(self.owner, "Rerun is not installed", str(exc))
            return
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in episode.uid)
        path, _ = QFileDialog.getSaveFileName(
            self.owner, "Export to Rerun", str(Path(db).parent / f"{name}.rrd"), "Rerun (*.rrd)"
        )
        if not path:
            return
        out = Path(path if path.endswith(".rrd") else path + ".rrd")
        self.task = TaskRunner(
            f"Exporting episode #{episode.id} to Rerun",
            lambda progress: export_rerun(db, out, [episode.uid], progress),
            self.owner,
        )
        self.task.succeeded.connect(lambda _count: self.written(out))
        self.task.failed.connect(
            lambda summary, _d: self.message(f"Cannot export to Rerun: {summary}", 8000)
        )
        self.task.start()

    def written(self, out: Path) -> None:
        """Say where the file is; offer the viewer, or say how to get it."""
        viewer = viewer_command()
        if viewer is None:
            self.message(f"Wrote {out}.", 8000)
            QMessageBox.information(self.owner, "Rerun viewer not installed", VIEWER_HINT)
            return
        answer = QMessageBox.question(
            self.owner,
            "Exported to Rerun",
            f"Wrote {out}.\n\nOpen it in the Rerun viewer?",
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.viewer = open_in_viewer(viewer, out)
            self.message(f"Opened {out.name} in the Rerun viewer.", 5000)
        else:
            self.message(f"Wrote {out}.", 8000)
