"""Verify questions on JRDB-Reasoning questions: the evidence page instead of the 3D viewport.

A question with a `sequence_id` and no stored scene (the query engine's, benchmark
`jrdb`) is checked against the frames it was asked about. `read_evidence` reads the
question's frames, their 2D boxes and the sequence's entities through the project's
repositories (quick reads, on the GUI thread); `EvidencePage` loads the panoramas off the
GUI thread (`load_images`), keeps the last few, and hands them to the mode's
`widgets.verify.jrdb_evidence.JrdbEvidenceView`. The step the verifier picks there is announced
(`highlight_changed`), so the Scene graph dock follows it.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QEvent, QObject, Signal, Slot
from PySide6.QtGui import QImage

from annotation.jrdb.dataset import frame_name
from annotation.jrdb.question_frames import slot_frame
from annotation.models import Question
from app.session import ProjectSession
from store import ProjectError
from widgets.image_view import TopDownImagePanel
from widgets.jrdb.state import entity_label
from widgets.mode import ModeWindow
from widgets.tasks import TaskRunner
from widgets.verify.jrdb_evidence import JrdbEvidenceView
from widgets.verify.jrdb_evidence_rows import EvidenceFrame, JrdbEvidence, answer_slot, entity_words
from widgets.verify.state import VerifyState

log = logging.getLogger(__name__)

BANNER = (
    "Verification view: the answer's boxes are outlined; click a step to see its entities. "
    "For annotators only."
)
CACHED_IMAGES = 12  # panoramas kept (a video question has up to five frames)


def read_evidence(project: Any, question: Question) -> JrdbEvidence:
    """The question's frames (one per `criteria.frame_ids`, or `image_ids`) with their
    stored 2D boxes, and the sequence's entities by graph id. Raises `ProjectError` or
    `KeyError` when the sequence is gone."""
    repo = project.sequences
    sequence = repo.get(question.sequence_id)
    frames = repo.frames(sequence.id)
    entities = repo.entities(sequence.id)
    criteria = question.criteria or {}
    slots = max(len(criteria.get("frame_ids") or []), len(criteria.get("image_ids") or []), 1)
    shown: list[EvidenceFrame | None] = []
    for slot in range(slots):
        frame = slot_frame(question, slot, frames)
        if frame is None:
            shown.append(None)
            continue
        path = Path(sequence.root) / frame.image_path if frame.image_path else None
        name = Path(frame.image_path).name if frame.image_path else frame_name(frame.index)
        boxes = tuple(repo.boxes_2d(frame.id))
        shown.append(EvidenceFrame(frame.id, frame.index, name, path, boxes))
    return JrdbEvidence(
        question,
        sequence.name,
        tuple(shown),
        {e.key: e.id for e in entities},
        {e.id: entity_label(e) for e in entities},
    )


def load_images(paths: Mapping[int, Path]) -> dict[int, QImage | None]:
    """Read panoramas (frame id -> file); None for a file that is missing or unreadable.
    QImage may be read on any thread."""
    out: dict[int, QImage | None] = {}
    for frame_id, path in paths.items():
        image = QImage(str(path)) if path.is_file() else QImage()
        out[frame_id] = None if image.isNull() else image
    return out


def rgb_of(image: QImage) -> np.ndarray:
    """A QImage's pixels as an (H, W, 3) uint8 array (a copy)."""
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    w, h, line = image.width(), image.height(), image.bytesPerLine()
    rows = np.frombuffer(image.constBits(), np.uint8, count=line * h).reshape(h, line)
    return rows[:, : w * 3].reshape(h, w, 3).copy()


class EvidencePage(QObject):
    """The Verify mode's evidence page for JRDB questions (see the module docstring)."""

    highlight_changed = Signal()  # another row of the step list: the graph follows

    def __init__(
        self,
        mode: ModeWindow,
        state: VerifyState,
        session: ProjectSession,
        image: TopDownImagePanel,
    ) -> None:
        super().__init__(mode)
        self.mode, self.state, self.session = mode, state, session
        self.image = image  # the model's image dock: the answer frame, without boxes
        self.view = JrdbEvidenceView()
        self.view.row_changed.connect(self._row_changed)
        self.cache: OrderedDict[str, QImage | None] = OrderedDict()  # by file path
        self.task: TaskRunner | None = None
        self.wanted: dict[int, Path] = {}  # frame id -> file, for the open question
        self.loading: dict[int, Path] = {}  # what the running task reads
        self.question_id: int | None = None
        self.stale = False  # labels changed while the page was hidden: read them when shown
        self.view.installEventFilter(self)
        session.project_changed.connect(self.cache.clear)

    def open(self, question: Question | None, *, again: bool = False) -> None:
        """Show a JRDB question's evidence (None: nothing); its images load off the GUI
        thread, those seen lately come from the cache at once. `again`: the same question
        read again (its labels may have changed), on the same step."""
        project = self.session.project
        row = self.view.current_row if again and question is not None else 0
        self.question_id = question.id if question is not None else None
        self.stale = False
        self.wanted = {}
        if question is None or project is None:
            self.view.show_evidence(None)
            return
        try:
            evidence = read_evidence(project, question)
        except (ProjectError, KeyError, ValueError) as exc:
            self.view.show_evidence(None, f"Cannot read the question's frames: {exc}")
            return
        self.view.show_evidence(evidence, row=max(row, 0))
        used = {row.slot for row in self.view.rows}
        frames = [f for i, f in enumerate(evidence.frames) if f is not None and i in used]
        ready = {f.frame_id: self.cache[str(f.path)] for f in frames if str(f.path) in self.cache}
        ready |= {f.frame_id: None for f in frames if f.path is None}
        if ready:
            self._hand_over(ready)
        self.wanted = {f.frame_id: f.path for f in frames if f.frame_id not in ready}
        self._start()

    def labels_changed(self) -> None:
        """The project's data changed with the same question open: read its boxes again
        (now, or when the page is shown)."""
        if self.question_id is None:
            return
        if self.view.isVisible():
            self.open(self.state.current, again=True)
        else:
            self.stale = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.view and event.type() == QEvent.Type.Show and self.stale:
            question = self.state.current
            if question is not None and question.id == self.question_id:
                self.open(question, again=True)
        return False

    def _start(self) -> None:
        if self.task is not None or not self.wanted:
            return  # `_finished` starts the wanted ones
        paths = self.loading = dict(self.wanted)
        self.task = TaskRunner(
            "Loading the panorama",
            lambda _p: (paths, load_images(paths)),
            self.mode,
            show_dialog=False,
        )
        self.task.succeeded.connect(self._loaded)
        self.task.failed.connect(self._failed)
        self.task.finished.connect(self._finished)
        self.task.start()

    @Slot(object)
    def _loaded(self, result: tuple[dict[int, Path], dict[int, QImage | None]]) -> None:
        paths, images = result
        for frame_id, image in images.items():
            self.cache[str(paths[frame_id])] = image
            self.cache.move_to_end(str(paths[frame_id]))
        while len(self.cache) > CACHED_IMAGES:
            self.cache.popitem(last=False)
        mine = {f: images[f] for f in images if self.wanted.get(f) == paths[f]}
        for frame_id in mine:
            self.wanted.pop(frame_id, None)
        if mine:
            self._hand_over(mine)

    @Slot(str, str)
    def _failed(self, summary: str, details: str) -> None:
        log.warning("panorama not loaded: %s\n%s", summary, details)
        mine = [f for f, path in self.loading.items() if self.wanted.get(f) == path]
        for frame_id in mine:
            self.wanted.pop(frame_id)
        self._hand_over(dict.fromkeys(mine))

    def _hand_over(self, images: dict[int, QImage | None]) -> None:
        """Images of the open question's frames: to the evidence view, and the answer
        frame's to the Model view dock (what the model is given: the image, no boxes)."""
        self.view.set_images(images)
        evidence = self.view.evidence
        slot = answer_slot(evidence.question) if evidence is not None else -1
        frame = evidence.frames[slot] if evidence and 0 <= slot < len(evidence.frames) else None
        if frame is None or frame.frame_id not in images:
            return
        image, panel = images[frame.frame_id], self.image
        panel.set_image(rgb_of(image) if image is not None else None, None)
        panel.caption.setText(f"The model's image: {frame.image_name}, no boxes.")

    @Slot()
    def _finished(self) -> None:
        self.task = None
        self._start()  # another question's frames were asked for meanwhile

    @Slot(int)
    def _row_changed(self, row: int) -> None:
        self.highlight_changed.emit()
        current = self.view.current
        if current is None or row < 0:
            return
        names = ", ".join(entity_words(k) for k in current.keys[:6])
        more = "…" if len(current.keys) > 6 else ""
        what = "Answer" if current.answer else f"Step {row} of {len(self.view.rows) - 1}"
        self.mode.statusBar().showMessage(f"{what}: {names}{more}", 6000)

    def highlight_keys(self) -> list[str]:
        """What the Scene graph dock emphasises: the picked step's entities, or on the
        answer row the question's whole evidence (targets and references)."""
        row = self.view.current
        question = self.view.evidence.question if self.view.evidence is not None else None
        if row is None or question is None:
            return []
        return list(question.evidence_ids) if row.answer else list(row.keys)

    def shutdown(self) -> None:
        self.wanted = {}
        if self.task is not None:
            self.task.shutdown()
            self.task = None
