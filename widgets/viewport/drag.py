"""Dragging bodies in the 3D viewport (the scene editor): press on an object, move, release.

While enabled, a left press on a movable body starts a drag instead of orbiting the
camera; each move reports the ray under the cursor (world origin and direction), which
the editor follows onto the table or the object below; the release ends it. A press on
nothing (or with Ctrl, or another button) still orbits and pans as always.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal

from widgets.viewport.camera import click_ray


class BodyDrag(QObject):
    """An event filter on a `SceneViewport`'s GL view; `movable(key)` says what may move."""

    started = Signal(str)
    moved = Signal(str, object, object)  # key, ray origin (3,), ray direction (3,)
    finished = Signal(str)

    def __init__(self, viewport, movable) -> None:
        super().__init__(viewport)
        self.viewport = viewport
        self.movable = movable
        self.enabled = False
        self.key = ""
        viewport.gl_view.installEventFilter(self)

    def set_enabled(self, enabled: bool) -> None:
        if not enabled and self.key:
            self._finish()
        self.enabled = enabled

    def ray(self, x: float, y: float):
        view = self.viewport.gl_view
        return click_ray(
            self.viewport.view_params(),
            width=max(1, view.width()),
            height=max(1, view.height()),
            x=x,
            y=y,
        )

    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        if not self.enabled:
            return False
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress:
            if event.button() != Qt.MouseButton.LeftButton or event.modifiers():
                return False
            pos = event.position()
            key = self.viewport.body_at(pos.x(), pos.y())
            if not key or not self.movable(key):
                return False
            self.key = key
            self.started.emit(key)
            return True
        if kind == QEvent.Type.MouseMove and self.key:
            pos = event.position()
            origin, direction = self.ray(pos.x(), pos.y())
            self.moved.emit(self.key, origin, direction)
            return True
        if kind == QEvent.Type.MouseButtonRelease and self.key:
            self._finish()
            return True
        return False

    def _finish(self) -> None:
        key, self.key = self.key, ""
        self.finished.emit(key)
