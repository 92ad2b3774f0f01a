"""Each object's visibility in the model's view, kept up to date while an author drags one.

A full visibility measure renders the whole image and every object alone. While one
object moves, only the pixels it left and the pixels it now covers can change, and only
its own alone-count: `LiveVisibility.moved(key)` renders that window of the view again
(its old screen box joined with its new one), patches it into the kept segmentation,
renders the moved object alone in its new window, and recounts. The result equals a full
measure (the tests compare them after many moves) at the cost of two small renders.
"""

from __future__ import annotations

import numpy as np

from sim.camera import CameraSpec
from sim.render import alone_pixel_counts, render, render_window, screen_window
from sim.world import World

Window = tuple[int, int, int, int]


def _join(a: Window | None, b: Window | None) -> Window | None:
    if a is None or b is None:
        return a or b
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


class LiveVisibility:
    """Visible fraction of every object of `world` in `camera`'s image, updated per move."""

    def __init__(self, world: World, camera: CameraSpec) -> None:
        self.world, self.camera = world, camera
        self.refresh()

    def refresh(self) -> None:
        """Measure everything again (after objects were added, removed or settled)."""
        keys = [b.key for b in self.world.objects()]
        self.segmentation = render(self.world, self.camera).segmentation.copy()
        self.alone = alone_pixel_counts(self.world, self.camera, keys)
        self.windows = {k: screen_window(self.world, self.camera, k) for k in keys}
        self._recount()

    def _recount(self) -> None:
        uids, counts = np.unique(self.segmentation, return_counts=True)
        self.visible_px = dict(zip(uids.tolist(), counts.tolist(), strict=True))

    def fractions(self) -> dict[str, float]:
        """Object key -> visible pixels / pixels it would cover alone (0 when off-image)."""
        out = {}
        for key, alone in self.alone.items():
            uid = self.world.bodies[key].uid
            out[key] = min(1.0, self.visible_px.get(uid, 0) / alone) if alone else 0.0
        return out

    def moved(self, key: str) -> dict[str, float]:
        """Update after `key` moved (or turned); return every object's fraction."""
        old, new = self.windows.get(key), screen_window(self.world, self.camera, key)
        dirty = _join(old, new)
        if dirty is not None:
            x0, y0, x1, y1 = dirty
            self.segmentation[y0:y1, x0:x1] = render_window(self.world, self.camera, dirty)
            self._recount()
        self.windows[key] = new
        self.alone[key] = alone_pixel_counts(self.world, self.camera, [key])[key]
        return self.fractions()
