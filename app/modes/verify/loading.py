"""Restored scenes kept ready for Verify: the next question's, restored while the verifier
reads the current one, and the few just left, so that J and K open a question at once.

A restore (`sim.tabletop.restore.load_scene`: the physics world, the model's image and
the visibility measure) takes one to two seconds here; a verifier moves on every minute
or so, so one restore ahead in the background is enough. Verify never steps the physics,
so a kept world is exactly as restored. At most `KEEP` worlds are kept (each is a PyBullet
client); the oldest is closed first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from annotation.models import Scene
from sim.tabletop.restore import LoadedScene
from widgets.tasks import TaskRunner

KEEP = 3


class ScenePrefetch(QObject):
    """Restored scenes by scene id, and one background restore at a time."""

    ready = Signal(int)  # a scene id: its restore finished and it is kept

    def __init__(
        self, parent: QObject, restore: Callable[[Scene], LoadedScene], *, ahead: bool = True
    ) -> None:
        super().__init__(parent)
        self.restore = restore
        self.ahead = ahead  # False: restore only when asked (`take` finds nothing kept ahead)
        self.kept: OrderedDict[int, LoadedScene] = OrderedDict()
        self.task: TaskRunner | None = None
        self.loading: Scene | None = None
        self.generation = 0  # `clear` starts a new one: later results of older restores go

    def take(self, scene: Scene) -> LoadedScene | None:
        """The kept restore of exactly this scene (it leaves the cache), or None."""
        loaded = self.kept.get(scene.id)
        if loaded is None or loaded.scene != scene:
            return None
        return self.kept.pop(scene.id)

    def keep(self, loaded: LoadedScene) -> None:
        """Keep a restored scene for later (a question left, or one restored ahead)."""
        old = self.kept.pop(loaded.scene.id, None)
        if old is not None and old is not loaded:
            old.world.close()
        self.kept[loaded.scene.id] = loaded
        while len(self.kept) > KEEP:
            _, oldest = self.kept.popitem(last=False)
            oldest.world.close()

    def is_loading(self, scene: Scene) -> bool:
        return self.loading == scene

    def prefetch(self, scene: Scene) -> bool:
        """Restore `scene` in the background unless it is kept, being restored, or another
        restore ahead is running; True when it started."""
        kept = self.kept.get(scene.id)
        if not self.ahead or (kept is not None and kept.scene == scene) or self.task is not None:
            return False
        self.loading = scene
        self.task = TaskRunner(
            f"Restoring scene #{scene.id} ahead",
            lambda _p: self.restore(scene),
            self.parent(),
            show_dialog=False,
        )
        generation = self.generation
        self.task.succeeded.connect(lambda loaded: self._restored(loaded, generation))
        self.task.finished.connect(self._done)
        self.task.start()
        return True

    def _restored(self, loaded: LoadedScene, generation: int) -> None:
        if generation != self.generation:
            loaded.world.close()  # restored for a project (or a mode) that is gone
            return
        self.keep(loaded)
        self.ready.emit(loaded.scene.id)

    def _done(self) -> None:
        self.task, self.loading = None, None

    def clear(self) -> None:
        """Close every kept world (another project, or the mode closes)."""
        self.generation += 1
        while self.kept:
            _, loaded = self.kept.popitem()
            loaded.world.close()

    def shutdown(self) -> None:
        if self.task is not None:
            self.task.shutdown()
        self.clear()
