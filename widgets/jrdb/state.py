"""The Annotate HOI mode's shared state: which sequence, which frame, which entity is selected.

Every view of the mode (the stitched image, the point cloud, the entity list,
the relations panel, the labelling panels) reads this one object and calls its
methods; it tells them what changed through its signals. A click on an entity
anywhere goes through `pick`: it selects the entity, or, while a labelling
panel is asking for a target (`picking`), it emits `target_picked` instead.

The state reads through `project.sequences` only (any object with the
repository's reading methods will do), so it is testable without a screen.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from annotation.jrdb.dataset import SequenceEntity
from annotation.models import Box2D, Box3D, Frame, Sequence

#: Words for entity categories in sentences and lists ("pedestrian:7" -> "person 7").
CATEGORY_WORDS = {"pedestrian": "person", "person": "person"}
GOLDEN = 0.618033988749895


class SequenceSource(Protocol):
    """What the state needs of `project.sequences`."""

    def get(self, sequence_id: int) -> Sequence: ...
    def frames(self, sequence_id: int) -> list[Frame]: ...
    def entities(self, sequence_id: int, kind: str | None = None) -> list[SequenceEntity]: ...
    def boxes_2d(self, frame_id: int) -> list[Box2D]: ...
    def boxes_3d(self, frame_id: int) -> list[Box3D]: ...
    def person_labels(self, frame_id: int) -> list[dict[str, Any]]: ...
    def frame_times(self, sequence_id: int) -> dict[int, float | None]: ...


def natural_key(text: str) -> tuple:
    """Sort key that puts "pedestrian:2" before "pedestrian:10"."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", text))


def entity_label(entity: SequenceEntity | None, entity_id: int | None = None) -> str:
    """How people read an entity: "person 7", "chair 1" (the key's number, not the row id)."""
    if entity is None:
        return f"entity {entity_id}" if entity_id is not None else "nobody"
    name, _, number = entity.key.partition(":")
    word = CATEGORY_WORDS.get(name, entity.category or name)
    if entity.kind == "human":
        word = "person"
    return f"{word} {number}" if number else entity.key


def entity_colour(entity_id: int) -> tuple[int, int, int]:
    """A stable, distinct colour per entity (the same in the image, the cloud and the lists)."""
    hue = (int(entity_id) * GOLDEN + 0.11) % 1.0
    i, f = int(hue * 6) % 6, hue * 6 - int(hue * 6)
    v, s = 0.95, 0.7
    p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
    r, g, b = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]
    return int(r * 255), int(g * 255), int(b * 255)


class JrdbViewState(QObject):
    """The sequence, the frame and the selection the Annotate HOI views share."""

    sequence_changed = Signal()  # a (different) sequence was loaded or cleared
    frame_changed = Signal(int)  # the new frame_index
    selection_changed = Signal(object)  # selected entity id (int) or None
    target_picked = Signal(int)  # emitted instead of selecting when `picking` is True
    boxes_changed = Signal()  # the current frame's boxes or the entities were read again

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Any = None
        self.sequence: Sequence | None = None
        self.frames: list[Frame] = []
        self.frame_index = 0
        self.entities: dict[int, SequenceEntity] = {}
        self.frame_times: dict[int, float | None] = {}
        self.picking = False
        self.selected: int | None = None
        self.boxes_2d: list[Box2D] = []
        self.boxes_3d: list[Box3D] = []
        self.person_labels: list[dict[str, Any]] = []

    # -- reading -------------------------------------------------------------------------
    @property
    def source(self) -> SequenceSource | None:
        return self.project.sequences if self.project is not None else None

    def load(self, project: Any, sequence_id: int | None) -> None:
        """Show another sequence (or none) from its first frame, with nothing selected."""
        self.project = project
        if project is None or sequence_id is None:
            self.sequence, self.frames, self.entities, self.frame_times = None, [], {}, {}
        else:
            source = project.sequences
            self.sequence = source.get(sequence_id)
            self.frames = source.frames(sequence_id)
            self.entities = {e.id: e for e in source.entities(sequence_id)}
            self.frame_times = source.frame_times(sequence_id)
        self.frame_index = 0
        self._read_frame()
        had_selection, self.selected = self.selected is not None, None
        self.sequence_changed.emit()
        self.frame_changed.emit(self.frame_index)
        if had_selection:
            self.selection_changed.emit(None)

    def refresh(self) -> None:
        """Read the entities and the current frame's boxes again (after an edit elsewhere)."""
        if self.sequence is not None and self.source is not None:
            self.entities = {e.id: e for e in self.source.entities(self.sequence.id)}
        self._read_frame()
        self.boxes_changed.emit()

    def _read_frame(self) -> None:
        frame, source = self.frame, self.source
        if frame is None or source is None:
            self.boxes_2d, self.boxes_3d, self.person_labels = [], [], []
            return
        self.boxes_2d = source.boxes_2d(frame.id)
        self.boxes_3d = source.boxes_3d(frame.id)
        self.person_labels = source.person_labels(frame.id)

    @property
    def frame(self) -> Frame | None:
        return self.frames[self.frame_index] if self.frames else None

    def image_path(self) -> Path | None:
        """The current frame's stitched panorama on disk, if it has one."""
        frame = self.frame
        if frame is None or self.sequence is None or not frame.image_path:
            return None
        return Path(self.sequence.root) / frame.image_path

    def timestamp(self) -> float | None:
        frame = self.frame
        return self.frame_times.get(frame.index) if frame is not None else None

    # -- frames ------------------------------------------------------------------------------
    def set_frame(self, index: int) -> None:
        """Go to the frame at `index` (clamped to the sequence); the selection stays."""
        if not self.frames:
            return
        index = max(0, min(int(index), len(self.frames) - 1))
        if index == self.frame_index:
            return
        self.frame_index = index
        self._read_frame()
        self.frame_changed.emit(index)

    def step(self, delta: int) -> None:
        self.set_frame(self.frame_index + int(delta))

    # -- selection -----------------------------------------------------------------------------
    def select(self, entity_id: int | None) -> None:
        entity_id = None if entity_id is None else int(entity_id)
        if entity_id == self.selected:
            return
        self.selected = entity_id
        self.selection_changed.emit(entity_id)

    def pick(self, entity_id: int) -> None:
        """What a click on an entity does: hand it to the labeller if it asked, else select it."""
        if self.picking:
            self.target_picked.emit(int(entity_id))
        else:
            self.select(entity_id)

    # -- what the frame holds --------------------------------------------------------------------
    def _in_frame(self, kind: str) -> list[int]:
        ids = {b.entity_id for b in self.boxes_2d} | {b.entity_id for b in self.boxes_3d}
        chosen = [i for i in ids if i in self.entities and self.entities[i].kind == kind]
        return sorted(chosen, key=lambda i: (natural_key(self.entities[i].key), i))

    def people_in_frame(self) -> list[int]:
        """Persons with a box (2D or 3D) in the current frame, in key order (":2" before ":10")."""
        return self._in_frame("human")

    def objects_in_frame(self) -> list[int]:
        return self._in_frame("object")

    def label(self, entity_id: int | None) -> str:
        if entity_id is None:
            return "the robot"
        return entity_label(self.entities.get(entity_id), entity_id)

    def box_2d(self, entity_id: int) -> Box2D | None:
        return next((b for b in self.boxes_2d if b.entity_id == entity_id), None)

    def box_3d(self, entity_id: int) -> Box3D | None:
        return next((b for b in self.boxes_3d if b.entity_id == entity_id), None)

    def labels_of(self, entity_id: int, kind: str = "action") -> list[str]:
        """The imported labels of one kind (action, social_activity, ...) of a person here."""
        return [
            r["label"]
            for r in self.person_labels
            if r["entity_id"] == entity_id and r["kind"] == kind
        ]
