"""The dual-arm side of Replay episodes: episodes of benchmark "bimanual".

A dual-arm step is one planner reply and its plan. Its panel (`BimanualStepPanel`) shows
the plan with each action's outcome, both end effectors, the model's text and the parse
report; the Observation dock shows the camera views stored with the step (by content
hash); the 3D viewport shows `DualArmWorld` restored to the step's stored state when the
episode has states (recorded here), and the step's views large otherwise (imported logs).
`R` replays the episode's plans in our world (`app.jobs.bimanual.replay_in_sim`, in a
worker with progress and Cancel); the comparison with the record then shows per step,
and the stored sim run opens from the report's link.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QTextBrowser, QWidget

from annotation.bimanual.metrics import REPLAY_IN_SIM_AGENT, is_bimanual
from app.modes.replay.presenter import StepPresenter
from app.modes.replay.resim import (
    comparisons_from_run,
    latest_sim_run,
    replay_report_html,
    run_replay_in_sim,
)
from app.session import ProjectSession
from sim.camera import CameraSpec
from store import ProjectError
from widgets.replay.bimanual_images import ObservationPanel, decode_image
from widgets.replay.bimanual_step import BimanualStepPanel
from widgets.replay.episode_list import EpisodeListPanel
from widgets.replay.state import ReplayState
from widgets.tasks import TaskRunner
from widgets.viewport.camera import view_params_from_spec
from widgets.viewport.view import SceneViewport

# the 3D view of the dual-arm world: from behind and above the robot, the table and both arms
OVERVIEW = CameraSpec(
    width=800,
    height=600,
    fov_deg=50.0,
    eye=(0.35, -1.8, 2.45),
    target=(0.0, -0.1, 0.76),
    up=(0.0, 0.0, 1.0),
    near=0.05,
    far=6.0,
    name="bimanual overview",
)
IMAGE_CACHE = 48


@dataclass(frozen=True)
class ReplayParts:
    """What the dual-arm view uses of the Replay mode, handed to it by the mode.

    The mode owns its docks and the centre: it puts `BimanualReplay.step_panel`,
    `.observation` and `.big_observation` where its own panels are, and switches
    to them while `active`."""

    owner: QWidget  # the parent of its worker
    state: ReplayState
    session: ProjectSession
    presenter: StepPresenter  # the loaded episode, the timeline, the motion lines
    viewport: SceneViewport
    episodes: EpisodeListPanel
    report: QTextBrowser  # the Re-simulation dock: the replay-in-sim report goes here
    message: Callable[[str, int], None]  # a status line for so many milliseconds
    raise_report: Callable[[], None]  # bring the report's dock to the front
    show_world: Callable[[bool], None]  # the centre: the 3D world (True) or the big views


class BimanualReplay(QObject):
    """Shows dual-arm episodes in Replay's panels; built by `ReplayMode` from `ReplayParts`."""

    def __init__(self, parts: ReplayParts) -> None:
        super().__init__(parts.owner)
        self.parts = parts
        self.state, self.session = parts.state, parts.session
        self.step_panel = BimanualStepPanel()
        self.step_panel.setObjectName("bimanual_step")
        self.observation = ObservationPanel()
        self.big_observation = ObservationPanel()  # the centre, for episodes without states
        self.observation.view_changed.connect(self.big_observation.show_view)
        self.big_observation.view_changed.connect(self.observation.show_view)
        parts.report.setOpenLinks(False)
        parts.report.anchorClicked.connect(self._link_clicked)
        self.images: OrderedDict[str, QImage] = OrderedDict()
        self.comparisons: dict[int, dict[str, Any]] = {}
        self.sim_run: int | None = None  # the stored replay in sim of the open episode
        self.task: TaskRunner | None = None
        self.task_episode: int | None = None

    @property
    def active(self) -> bool:
        """Whether the open episode is a dual-arm one."""
        episode = self.state.episode
        return episode is not None and is_bimanual(episode)

    # -- opening --------------------------------------------------------------------------
    def episode_opened(self) -> None:
        """Another episode: forget the last one's comparison; read this one's replay in sim."""
        self.comparisons, self.sim_run = {}, None
        if self.active:
            self._read_sim_run()

    def describe(self) -> str:
        """The banner line: model, task, outcome, instruction and where it came from."""
        e = self.state.episode
        result = {True: "✓ success", False: "✗ failure"}.get(e.success, e.outcome or "no outcome")
        who = e.model or e.agent or "unknown model"
        info = e.header.get("bimanual") or {}
        bits = [f"Episode #{e.id}", who, e.task, result]
        if info:
            bits.append(f"seed {info.get('seed', 0)}")
        source = info.get("source_episode")
        if source is not None:
            bits.append(f"replay in sim of #{source}")
        elif e.agent:
            bits.append(f"from {e.agent}")
        text = " · ".join(bits)
        instruction = info.get("instruction") or e.header.get("instruction")
        return text + (f" — “{instruction}”" if instruction else "")

    def _read_sim_run(self) -> None:
        project, episode = self.session.project, self.state.episode
        if project is None or episode is None:
            return
        if episode.agent == REPLAY_IN_SIM_AGENT:
            self.comparisons = comparisons_from_run(self.state.steps, on_run=True)
            self.sim_run = episode.id
            return
        run = latest_sim_run(project, episode.id)
        if run is not None:
            self.sim_run = run.id
            self.comparisons = comparisons_from_run(project.episodes.steps(run.id))
            self.parts.report.setHtml(replay_report_html(episode, run, self.comparisons))

    # -- the current step -------------------------------------------------------------------
    def show(self) -> None:
        s, viewport = self.state, self.parts.viewport
        if not s.step_dicts:
            return
        view = self.parts.presenter
        i, step = s.index, s.step_dicts[s.index]
        view.timeline.set_current(i)
        replay = view.loaded.view if view.loaded else None
        note, motion = "", []
        if replay is not None:
            if not replay.seek(i):
                note = "No stored state at this step: the world is shown as it was before."
            viewport.sync()
            motion = replay.motion(i)
            viewport.select(None)
            viewport.set_highlight([m.key for m in motion])
            view.lines.set(
                [
                    (f"moved:{m.key}", [m.before, m.after], (0.15, 0.75, 1.0, 1.0), 3.0)
                    for m in motion
                ]
            )
            self.parts.show_world(True)
        else:
            self.parts.show_world(view.loaded is None)
            if view.loading:
                note = "Building the dual-arm world…"
        images, caption = self._images(step, i)
        self.observation.set_views(images, caption)
        self.big_observation.set_views(images, caption)
        if view.loaded is not None and replay is None and not note:
            note = (
                "This log has no simulator states: the centre shows the views the model saw. "
                "Replay in sim (R) runs its plans in our dual-arm world."
            )
        names = view.loaded.names if view.loaded else {}
        moved = ", ".join(f"{names.get(m.key, m.key)} {1000 * m.moved_m:.0f} mm" for m in motion)
        if moved:
            note = (note + " " if note else "") + f"Moved in this step: {moved}."
        self.step_panel.show_bimanual_step(
            i, s.last_index, step, comparison=self.comparisons.get(i), note=note
        )

    def _images(self, step: dict[str, Any], index: int) -> tuple[dict[str, QImage], str]:
        """The step's stored views, decoded (cached by hash), and what they show."""
        project = self.session.project
        result = step.get("result") if isinstance(step.get("result"), dict) else {}
        shas = dict(result.get("images") or {})
        if not shas and step.get("image_sha256"):
            shas = {"head": step["image_sha256"]}
        images = {}
        for name, sha in shas.items():
            image = self._image(project, sha)
            if image is not None:
                images[name] = image
        recorded_here = "bimanual" in self.state.episode.header
        if step.get("kind") == "observation":
            caption = "The first observation"
        elif recorded_here:
            caption = f"After step {index} (what the model saw next)"
        else:
            caption = f"What the model saw before reply {index}"
        return images, caption

    def _image(self, project, sha: str) -> QImage | None:
        if sha in self.images:
            self.images.move_to_end(sha)
            return self.images[sha]
        if project is None:
            return None
        try:
            _mime, data = project.images.get(sha)
        except ProjectError:
            return None
        image = decode_image(data)
        self.images[sha] = image
        while len(self.images) > IMAGE_CACHE:
            self.images.popitem(last=False)
        return image

    def set_loaded_camera(self) -> None:
        """Frame the dual-arm world (table, both arms) when its world arrives."""
        v = self.parts.viewport
        v.set_view_params(
            view_params_from_spec(OVERVIEW, width=max(1, v.width()), height=max(1, v.height()))
        )

    # -- replay in sim ----------------------------------------------------------------------
    def replay_in_sim(self) -> None:
        """Run the open episode's plans in our dual-arm world from the task's seeded start."""
        p = self.parts
        episode, project = self.state.episode, self.session.project
        if episode is None or project is None:
            return
        if episode.agent == REPLAY_IN_SIM_AGENT:
            p.message("This is a replay in sim already: open its source episode to replay.", 8000)
            return
        if self.task is not None:
            p.message("A replay in sim is running already.", 5000)
            return
        self.state.pause()
        path, episode_id = project.path, episode.id
        self.task_episode = episode_id
        self.task = TaskRunner(
            f"Replaying episode #{episode_id} in the dual-arm simulator",
            lambda progress: run_replay_in_sim(path, episode_id, progress),
            p.owner,
        )
        self.task.succeeded.connect(self._replayed)
        self.task.failed.connect(self._replay_failed)
        self.task.cancelled.connect(self._replay_cancelled)
        self.task.finished.connect(self._replay_done)
        self.task.start()

    @Slot(object)
    def _replayed(self, run_id: int) -> None:
        p = self.parts
        self.session.data_changed.emit()  # the new run in the list, Results, the summary
        if self.state.episode is None or self.state.episode.id != self.task_episode:
            p.message(f"Replay in sim stored as episode #{run_id}.", 8000)
            return
        self._read_sim_run()
        p.raise_report()
        self.show()
        same = sum(1 for c in self.comparisons.values() if c.get("same"))
        p.message(
            f"Replayed in sim as episode #{run_id}: {same} of {len(self.comparisons)} steps "
            "had the recorded outcome.",
            10000,
        )

    @Slot(str, str)
    def _replay_failed(self, summary: str, _details: str) -> None:
        self.parts.message(f"Replay in sim failed: {summary}", 10000)

    @Slot()
    def _replay_cancelled(self) -> None:
        self.parts.message("Replay in sim cancelled: nothing was stored.", 5000)

    @Slot()
    def _replay_done(self) -> None:
        self.task = None

    @Slot(QUrl)
    def _link_clicked(self, url: QUrl) -> None:
        """`episode:N` links in the report open that episode."""
        if url.scheme() == "episode":
            self.open_episode(int(url.path()))

    def open_episode(self, episode_id: int) -> None:
        """Open an episode, showing every episode in the list if filters hide it."""
        state, episodes = self.state, self.parts.episodes
        if all(e.id != episode_id for e in state.episodes):
            episodes.clear_filters()
        state.open(episode_id)
        episodes.show_open()

    def shutdown(self) -> None:
        if self.task is not None:
            self.task.shutdown()
            self.task = None
