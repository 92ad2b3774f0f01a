"""The Explore scenes mode's state: which scenes, which one is open, what is selected.

Panels never hold a second copy of this: they read it and call its methods;
it tells them what changed through its signals. Testable without a screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QObject, Signal

from annotation.models import Scene, SceneSummary
from sim.tabletop.restore import LoadedScene


class SceneSource(Protocol):
    def list(
        self,
        *,
        min_objects: int | None = None,
        max_objects: int | None = None,
        seed: int | None = None,
        limit: int = 10_000,
    ) -> list[SceneSummary]: ...

    def get(self, scene_id: int) -> Scene: ...


@dataclass(frozen=True)
class SceneFilter:
    min_objects: int | None = None
    max_objects: int | None = None
    seed: int | None = None


class ExploreState(QObject):
    scenes_changed = Signal()
    scene_opened = Signal()  # `loaded` is the new scene (or None)
    selection_changed = Signal(str)  # body key, "" for none

    def __init__(self, source: SceneSource | None = None) -> None:
        super().__init__()
        self.source = source
        self.filter = SceneFilter()
        self.scenes: list[SceneSummary] = []
        self.loaded: LoadedScene | None = None
        self.selected: str = ""

    def set_source(self, source: SceneSource | None) -> None:
        self.source = source
        self.close_scene()
        self.refresh()

    def refresh(self) -> None:
        f = self.filter
        self.scenes = (
            self.source.list(min_objects=f.min_objects, max_objects=f.max_objects, seed=f.seed)
            if self.source
            else []
        )
        self.scenes_changed.emit()

    def set_filter(self, scene_filter: SceneFilter) -> None:
        self.filter = scene_filter
        self.refresh()

    def open(self, loaded: LoadedScene) -> None:
        """Show a loaded scene (built off the GUI thread by `load_scene`)."""
        previous = self.loaded
        self.loaded = loaded
        self.selected = ""
        self.scene_opened.emit()
        self.selection_changed.emit("")
        if previous is not None:
            previous.world.close()

    def close_scene(self) -> None:
        if self.loaded is not None:
            world = self.loaded.world
            self.loaded = None
            self.scene_opened.emit()
            world.close()

    def select(self, key: str | None) -> None:
        key = key or ""
        if self.loaded is not None and key and key not in self.loaded.world.bodies:
            raise KeyError(f"no body {key!r} in this scene")
        if key != self.selected:
            self.selected = key
            self.selection_changed.emit(key)

    def key_of_uid(self, uid: int) -> str:
        if self.loaded is None:
            return ""
        info = self.loaded.world.info(int(uid))
        return info.key if info else ""
