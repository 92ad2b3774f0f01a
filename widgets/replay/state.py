"""The Replay episodes mode's state: the filtered episode list, the open episode, the current
step, playback, and the error labels.

Panels read it and call its methods; it tells them what changed through its
signals and writes only through the episode repository (error labels, saved
at once). Testable without a screen: pass any object with the repository's
methods.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer, Signal

from annotation.error_taxonomy import Taxonomy, load_taxonomy
from annotation.models import Annotator, Episode, ErrorLabel, Step
from sim.tabletop.replay import as_step, failed_steps
from store import ProjectError

PLAY_INTERVAL_MS = 800
CORRECT, INCORRECT = "correct", "incorrect"  # outcome filter values that read `success`


class EpisodeSource(Protocol):
    """What the state needs of `project.episodes`."""

    def list(self, **filters: Any) -> list[Episode]: ...
    def facets(self) -> dict[str, list[str]]: ...
    def failed_grasps(self) -> dict[int, int]: ...
    def get(self, episode_id: int) -> Episode: ...
    def steps(self, episode_id: int) -> list[Step]: ...
    def labels(self, episode_id: int) -> list[ErrorLabel]: ...
    def label_authors(self, episode_id: int) -> dict[int, str]: ...
    def add_label(self, episode_id, step_index, category, subcategory, note, annotator): ...
    def remove_label(self, label_id: int, annotator: Annotator | None) -> None: ...


@dataclass(frozen=True)
class EpisodeFilter:
    """None (or False) means any. `outcome` is a stored outcome, or CORRECT / INCORRECT."""

    model: str | None = None
    task: str | None = None
    mode: str | None = None
    outcome: str | None = None
    failed_grasp: bool = False

    def query(self) -> dict[str, Any]:
        q: dict[str, Any] = {"model": self.model, "task": self.task, "mode": self.mode}
        if self.outcome in (CORRECT, INCORRECT):
            q["success"] = self.outcome == CORRECT
        else:
            q["outcome"] = self.outcome
        q["failed_grasp"] = True if self.failed_grasp else None
        return q


class ReplayState(QObject):
    episodes_changed = Signal()
    episode_opened = Signal()  # `episode` and `steps` are the new ones (or None and [])
    step_changed = Signal(int)
    playing_changed = Signal(bool)
    labels_changed = Signal()
    saved = Signal(str)
    refused = Signal(str)

    def __init__(
        self,
        source: EpisodeSource | None = None,
        annotator: Annotator | None = None,
        *,
        taxonomy: Taxonomy | None = None,
        play_interval_ms: int = PLAY_INTERVAL_MS,
    ) -> None:
        super().__init__()
        self.source, self.annotator = source, annotator
        self.taxonomy = taxonomy or load_taxonomy()
        self.filter = EpisodeFilter()
        self.episodes: list[Episode] = []
        self.facets: dict[str, list[str]] = {}
        self.failed_grasps: dict[int, int] = {}
        self.episode: Episode | None = None
        self.steps: list[Step] = []
        self.step_dicts: list[dict[str, Any]] = []
        self.bookmarks: list[int] = []
        self.index = 0
        self.labels: list[ErrorLabel] = []
        self.authors: dict[int, str] = {}
        self.timer = QTimer(self)
        self.timer.setInterval(play_interval_ms)
        self.timer.timeout.connect(self._tick)
        if source is not None:
            self.refresh()

    # -- the list ------------------------------------------------------------------------
    def set_source(self, source: EpisodeSource | None, annotator: Annotator | None) -> None:
        """Another project: empty filters, nothing open."""
        self.source, self.annotator = source, annotator
        self.filter = EpisodeFilter()
        self.close()
        self.refresh()

    def set_annotator(self, annotator: Annotator | None) -> None:
        self.annotator = annotator
        self.labels_changed.emit()

    def refresh(self) -> None:
        """Re-read the list (and the open episode's labels); what is open stays open."""
        if self.source is None:
            self.episodes, self.facets, self.failed_grasps = [], {}, {}
        else:
            self.episodes = self.source.list(**self.filter.query())
            self.facets = self.source.facets()
            self.failed_grasps = self.source.failed_grasps()
        self.episodes_changed.emit()
        if self.episode is not None:
            self._load_labels()

    def set_filter(self, episode_filter: EpisodeFilter) -> None:
        self.filter = episode_filter
        self.refresh()

    # -- the open episode ----------------------------------------------------------------
    def open(self, episode_id: int) -> None:
        """Open an episode at its first step."""
        if self.source is None:
            return
        if self.episode is not None and self.episode.id == episode_id:
            return
        self.pause()
        self.episode = self.source.get(episode_id)
        self.steps = self.source.steps(episode_id)
        self.step_dicts = [as_step(s) for s in self.steps]
        self.bookmarks = failed_steps(self.step_dicts)
        self.index = 0
        self._load_labels(emit=False)
        self.episode_opened.emit()
        self.labels_changed.emit()
        self.step_changed.emit(self.index)

    def close(self) -> None:
        self.pause()
        if self.episode is None:
            return
        self.episode, self.steps, self.step_dicts, self.bookmarks = None, [], [], []
        self.labels, self.index = [], 0
        self.episode_opened.emit()
        self.labels_changed.emit()

    @property
    def current(self) -> Step | None:
        return self.steps[self.index] if self.steps else None

    @property
    def last_index(self) -> int:
        return max(0, len(self.steps) - 1)

    # -- moving through it -----------------------------------------------------------------
    def seek(self, index: int) -> None:
        if not self.steps:
            return
        index = max(0, min(int(index), self.last_index))
        if index != self.index:
            self.index = index
            self.step_changed.emit(index)

    def step_by(self, delta: int) -> None:
        self.seek(self.index + delta)

    def first(self) -> None:
        self.seek(0)

    def last(self) -> None:
        self.seek(self.last_index)

    def next_bookmark(self) -> None:
        later = [i for i in self.bookmarks if i > self.index]
        if later:
            self.seek(later[0])
        else:
            self.refused.emit("No failed step after this one.")

    def previous_bookmark(self) -> None:
        earlier = [i for i in self.bookmarks if i < self.index]
        if earlier:
            self.seek(earlier[-1])
        else:
            self.refused.emit("No failed step before this one.")

    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def toggle_play(self) -> None:
        if self.playing:
            self.pause()
        else:
            self.play()

    def play(self) -> None:
        if not self.steps or self.playing:
            return
        if self.index >= self.last_index:
            self.seek(0)  # play again from the start
        self.timer.start()
        self.playing_changed.emit(True)

    def pause(self) -> None:
        if self.playing:
            self.timer.stop()
            self.playing_changed.emit(False)

    def _tick(self) -> None:
        self.step_by(1)
        if self.index >= self.last_index:
            self.pause()

    # -- error labels ----------------------------------------------------------------------
    def _load_labels(self, emit: bool = True) -> None:
        if self.source is None or self.episode is None:
            self.labels, self.authors = [], {}
        else:
            self.labels = self.source.labels(self.episode.id)
            self.authors = self.source.label_authors(self.episode.id)
        if emit:
            self.labels_changed.emit()

    def own_label(self, category: str, subcategory: str) -> ErrorLabel | None:
        """The signed-in annotator's label of this kind on the current step, if any."""
        if self.annotator is None:
            return None
        return next(
            (
                lab
                for lab in self.labels
                if lab.step_index == self.index
                and lab.annotator_id == self.annotator.id
                and (lab.category, lab.subcategory) == (category, subcategory)
            ),
            None,
        )

    def set_label(self, category: str, subcategory: str, on: bool, note: str = "") -> bool:
        """Label the current step with (or take the label off): saved at once, with the annotator."""
        if self.episode is None or self.source is None:
            return False
        if self.annotator is None:
            self.refused.emit("Sign in to label errors (File ▸ Switch annotator).")
            self.labels_changed.emit()  # the panel shows the label unchosen again
            return False
        what = self.taxonomy.describe(category, subcategory)
        existing = self.own_label(category, subcategory)
        try:
            if on and existing is None:
                self.source.add_label(
                    self.episode.id, self.index, category, subcategory, note, self.annotator
                )
                message = f"Saved: {what} on step {self.index}"
            elif not on and existing is not None:
                self.source.remove_label(existing.id, self.annotator)
                message = f"Removed: {what} from step {self.index}"
            else:
                return True
        except (ProjectError, ValueError) as exc:
            self.refused.emit(str(exc))
            self._load_labels()
            return False
        self._load_labels()
        self.saved.emit(message)
        return True

    def remove_label(self, label_id: int) -> bool:
        """Take one of one's own labels off (any step)."""
        if self.source is None:
            return False
        try:
            self.source.remove_label(label_id, self.annotator)
        except ProjectError as exc:
            self.refused.emit(str(exc))
            return False
        self._load_labels()
        self.saved.emit("Removed the label")
        return True

    def describe_label(self, label: ErrorLabel) -> str:
        where = "episode" if label.step_index is None else f"step {label.step_index}"
        who = self.authors.get(label.annotator_id, f"annotator #{label.annotator_id}")
        note = f": {label.note}" if label.note else ""
        return (
            f"{where} · {self.taxonomy.describe(label.category, label.subcategory)} — {who}{note}"
        )
