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
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QStackedWidget

from annotation.tabletop.episode_metrics import REPLAY_IN_SIM_AGENT, is_bimanual
from app.replay.resim import (
    comparisons_from_run,
    latest_sim_run,
    replay_report_html,
    run_replay_in_sim,
)
from sim.camera import CameraSpec
from store import ProjectError
from widgets.replay.bimanual_images import ObservationPanel, decode_image
from widgets.replay.bimanual_step import BimanualStepPanel
from widgets.tasks import TaskRunner
from widgets.viewport.camera import view_params_from_spec

if TYPE_CHECKING:
    from app.replay.mode import ReplayMode

# the 3D view of the dual-arm world: from behind and above the robot, the table and both arms
OVERVIEW = CameraSpec(
    width=800, height=600, fov_deg=50.0, eye=(0.35, -1.8, 2.45), target=(0.0, -0.1, 0.76),
    up=(0.0, 0.0, 1.0), near=0.05, far=6.0, name="bimanual overview",
)  # fmt: skip
IMAGE_CACHE = 48
IMAGE_DOCK_TITLES = ("Model view (top-down)", "Observation (what the model saw)")


class BimanualReplay(QObject):
    """Shows dual-arm episodes in Replay's panels; plugged in by `ReplayMode`."""

    def __init__(self, replay: ReplayMode) -> None:
        super().__init__(replay)
        self.replay = replay
        mode = replay.mode
        self.step_panel = BimanualStepPanel()
        self.step_panel.setObjectName("bimanual_step")
        self.observation = ObservationPanel()
        self.big_observation = ObservationPanel()  # the centre, for episodes without states
        self.step_stack = _stack(replay.step_panel, self.step_panel)
        mode.docks["step"].setWidget(self.step_stack)
        self.image_stack = _stack(replay.image, self.observation)
        mode.docks["image"].setWidget(self.image_stack)
        replay.centre.addWidget(self.big_observation)
        self.observation.view_changed.connect(self.big_observation.show_view)
        self.big_observation.view_changed.connect(self.observation.show_view)
        replay.resim_view.setOpenLinks(False)
        replay.resim_view.anchorClicked.connect(self._link_clicked)
        self.images: OrderedDict[str, QImage] = OrderedDict()
        self.comparisons: dict[int, dict[str, Any]] = {}
        self.sim_run: int | None = None  # the stored replay in sim of the open episode
        self.task: TaskRunner | None = None
        self.task_episode: int | None = None
        self.cloud_hidden = False

    @property
    def active(self) -> bool:
        """Whether the open episode is a dual-arm one."""
        episode = self.replay.state.episode
        return episode is not None and is_bimanual(episode)

    # -- opening --------------------------------------------------------------------------
    def episode_opened(self) -> None:
        """Swap the panels for the open episode's kind; read its stored replay in sim."""
        r, on = self.replay, self.active
        self.step_stack.setCurrentIndex(int(on))
        self.image_stack.setCurrentIndex(int(on))
        r.mode.docks["image"].setWindowTitle(IMAGE_DOCK_TITLES[int(on)])
        r.centre.setCurrentIndex(0)
        cloud = r.mode.docks["cloud"]
        if on and not cloud.isHidden():
            cloud.hide()  # no grasp points in a dual-arm episode: room for the views
            self.cloud_hidden = True
        elif not on and self.cloud_hidden:
            cloud.show()
            self.cloud_hidden = False
        r.actions["resim"].setText("Replay in sim" if on else "Re-simulate from here")
        self.comparisons, self.sim_run = {}, None
        if on:
            self._read_sim_run()

    def describe(self) -> str:
        """The banner line: model, task, outcome, instruction and where it came from."""
        e = self.replay.state.episode
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
        project, episode = self.replay.session.project, self.replay.state.episode
        if project is None or episode is None:
            return
        if episode.agent == REPLAY_IN_SIM_AGENT:
            self.comparisons = comparisons_from_run(self.replay.state.steps, on_run=True)
            self.sim_run = episode.id
            return
        run = latest_sim_run(project, episode.id)
        if run is not None:
            self.sim_run = run.id
            self.comparisons = comparisons_from_run(project.episodes.steps(run.id))
            self.replay.resim_view.setHtml(replay_report_html(episode, run, self.comparisons))

    # -- the current step -------------------------------------------------------------------
    def show(self) -> None:
        r, s = self.replay, self.replay.state
        if not s.step_dicts:
            return
        view = r.view
        i, step = s.index, s.step_dicts[s.index]
        view.timeline.set_current(i)
        replay = view.loaded.view if view.loaded else None
        note, motion = "", []
        if replay is not None:
            if not replay.seek(i):
                note = "No stored state at this step: the world is shown as it was before."
            r.viewport.sync()
            motion = replay.motion(i)
            r.viewport.select(None)
            r.viewport.set_highlight([m.key for m in motion])
            view.lines.set([(f"moved:{m.key}", [m.before, m.after], (0.15, 0.75, 1.0, 1.0), 3.0)
                            for m in motion])  # fmt: skip
            r.centre.setCurrentIndex(0)
        else:
            r.centre.setCurrentIndex(1 if view.loaded is not None else 0)
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
        moved = ", ".join(f"{names.get(m.key, m.key)} {1000 * m.moved_m:.0f} mm"
                          for m in motion)  # fmt: skip
        if moved:
            note = (note + " " if note else "") + f"Moved in this step: {moved}."
        self.step_panel.show_bimanual_step(
            i, s.last_index, step, comparison=self.comparisons.get(i), note=note
        )

    def _images(self, step: dict[str, Any], index: int) -> tuple[dict[str, QImage], str]:
        """The step's stored views, decoded (cached by hash), and what they show."""
        project = self.replay.session.project
        result = step.get("result") if isinstance(step.get("result"), dict) else {}
        shas = dict(result.get("images") or {})
        if not shas and step.get("image_sha256"):
            shas = {"head": step["image_sha256"]}
        images = {}
        for name, sha in shas.items():
            image = self._image(project, sha)
            if image is not None:
                images[name] = image
        recorded_here = "bimanual" in self.replay.state.episode.header
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
        v = self.replay.viewport
        v.set_view_params(view_params_from_spec(OVERVIEW, width=max(1, v.width()),
                                                height=max(1, v.height())))  # fmt: skip

    # -- replay in sim ----------------------------------------------------------------------
    def replay_in_sim(self) -> None:
        """Run the open episode's plans in our dual-arm world from the task's seeded start."""
        r = self.replay
        episode, project = r.state.episode, r.session.project
        if episode is None or project is None:
            return
        if episode.agent == REPLAY_IN_SIM_AGENT:
            r.message("This is a replay in sim already: open its source episode to replay.", 8000)
            return
        if self.task is not None:
            r.message("A replay in sim is running already.", 5000)
            return
        r.state.pause()
        path, episode_id = project.path, episode.id
        self.task_episode = episode_id
        self.task = TaskRunner(
            f"Replaying episode #{episode_id} in the dual-arm simulator",
            lambda p: run_replay_in_sim(path, episode_id, p),
            r.mode,
        )
        self.task.succeeded.connect(self._replayed)
        self.task.failed.connect(self._replay_failed)
        self.task.cancelled.connect(self._replay_cancelled)
        self.task.finished.connect(self._replay_done)
        self.task.start()

    @Slot(object)
    def _replayed(self, run_id: int) -> None:
        r = self.replay
        r.session.data_changed.emit()  # the new run in the list, Results, the summary
        if r.state.episode is None or r.state.episode.id != self.task_episode:
            r.message(f"Replay in sim stored as episode #{run_id}.", 8000)
            return
        self._read_sim_run()
        r.mode.docks["resim"].raise_()
        self.show()
        same = sum(1 for c in self.comparisons.values() if c.get("same"))
        r.message(
            f"Replayed in sim as episode #{run_id}: {same} of {len(self.comparisons)} steps "
            "had the recorded outcome.",
            10000,
        )

    @Slot(str, str)
    def _replay_failed(self, summary: str, _details: str) -> None:
        self.replay.message(f"Replay in sim failed: {summary}", 10000)

    @Slot()
    def _replay_cancelled(self) -> None:
        self.replay.message("Replay in sim cancelled: nothing was stored.", 5000)

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
        state = self.replay.state
        if all(e.id != episode_id for e in state.episodes):
            self.replay.episodes.clear_filters()
        state.open(episode_id)
        self.replay.episodes.show_open()

    def shutdown(self) -> None:
        if self.task is not None:
            self.task.shutdown()
            self.task = None


def _stack(*widgets) -> QStackedWidget:
    stack = QStackedWidget()
    for w in widgets:
        stack.addWidget(w)
    return stack
