"""Choosing an interaction's target without the mouse: the objects near the person.

In a crowded frame the boxes of a person's cup, the table under it and the bag
beside it overlap, and clicking the right one means zooming in. While a label
waits for its target, `TargetChooser` lists the frame's objects nearest the person
first (3D box centres in metres; by panorama columns where a 3D box is missing),
Tab / Shift+Tab move through them with the current one highlighted in the views,
Enter takes it, and the panel's list takes a click. Nothing here saves: taking a
target hands it to `HoiState.target_picked`, which does.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QObject, Signal

from annotation.jrdb.dataset import PANORAMA_WIDTH


def nearest_objects(view: Any, person: int | None) -> list[tuple[int, float | None]]:
    """(object id, distance in metres or None) for the frame's objects, nearest first.

    Distances are between 3D box centres; an object (or a person) without a 3D box in
    the frame is placed by the horizontal distance of the 2D boxes' centres on the
    panorama's cylinder, after every object with a distance."""
    objects = view.objects_in_frame()
    if person is None:
        return [(o, None) for o in objects]
    p3, p2 = view.box_3d(person), view.box_2d(person)

    def key(entity: int) -> tuple[int, float]:
        b3 = view.box_3d(entity)
        if p3 is not None and b3 is not None:
            return (0, math.dist((p3.cx, p3.cy, p3.cz), (b3.cx, b3.cy, b3.cz)))
        b2 = view.box_2d(entity)
        if p2 is not None and b2 is not None:
            dx = abs((b2.x + b2.w / 2) - (p2.x + p2.w / 2)) % PANORAMA_WIDTH
            return (1, min(dx, PANORAMA_WIDTH - dx))
        return (2, 0.0)

    ranked = sorted((key(o), o) for o in objects)
    return [(o, distance if kind == 0 else None) for (kind, distance), o in ranked]


class TargetChooser(QObject):
    """The candidate targets of the label waiting for one, and the highlighted one."""

    changed = Signal()  # the candidates or the highlighted one

    def __init__(self, hoi_state: Any) -> None:
        super().__init__(hoi_state)
        self.state = hoi_state
        self.candidates: list[tuple[int, float | None]] = []
        self.index = -1
        hoi_state.picking_changed.connect(self._picking)

    @property
    def current(self) -> int | None:
        return self.candidates[self.index][0] if 0 <= self.index < len(self.candidates) else None

    def _picking(self, on: bool) -> None:
        self.candidates = nearest_objects(self.state.view, self.state.person) if on else []
        self.index = 0 if self.candidates else -1
        self.changed.emit()

    def cycle(self, delta: int) -> None:
        """Highlight the next (+1) or previous (-1) candidate, wrapping round."""
        if not self.candidates:
            self.state.refused.emit("No object in this frame to take as the target")
            return
        self.index = (self.index + delta) % len(self.candidates)
        self.changed.emit()

    def take(self, entity_id: int | None = None) -> None:
        """Take the highlighted candidate (or `entity_id`) as the waiting label's target."""
        chosen = self.current if entity_id is None else entity_id
        if chosen is None:
            self.state.refused.emit("No target highlighted: Tab moves through the objects")
            return
        self.state.target_picked(chosen)

    def describe(self, entity_id: int, distance: float | None) -> str:
        """A candidate as the list shows it: its name and how far it is from the person."""
        far = f" — {distance:.1f} m" if distance is not None else ""
        return f"{self.state.view.label(entity_id)}{far}"
