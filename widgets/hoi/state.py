"""The HOI labelling state: the person's labels, label keys, difficulty, targets picked in
the views, propagation along a track, and undo/redo. It follows the mode's `JrdbViewState`
and writes only through `project.hoi`, saving every change (undo and redo too) when made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from annotation.jrdb.hoi_review import LabelRecord, SequenceProgress
from annotation.jrdb.hoi_taxonomy import HoiLabelType, HoiTaxonomy, load_hoi_taxonomy
from annotation.models import Annotator
from store import ProjectError
from widgets.hoi.history import LABEL, Change, History, Step, one_line
from widgets.jrdb.state import JrdbViewState

DEFAULT_PROPAGATE = 10


class HoiState(QObject):
    labels_changed = Signal()  # the current frame's labels (or the person) changed
    label_selected = Signal(object)  # the selected label's id, or None
    picking_changed = Signal(bool)  # waiting for a target to be picked in a view
    defaults_changed = Signal()  # the default difficulty or the propagation count
    history_changed = Signal()
    saved = Signal(str)  # one line: what was saved (or undone)
    refused = Signal(str)  # one line: why nothing was saved

    def __init__(
        self, view: JrdbViewState, taxonomy: HoiTaxonomy | None = None, parent: Any = None
    ) -> None:
        super().__init__(parent)
        self.view = view
        self.taxonomy = taxonomy or load_hoi_taxonomy()
        self.repo: Any = None  # project.hoi
        self.annotator: Annotator | None = None
        self.frame_records: list[LabelRecord] = []
        self.selected_id: int | None = None
        # The label chosen last (predicate, target): it is selected again in every frame
        # that has it, also after frames that do not (docs/hoi-labels.md).
        self.wanted_key: tuple[str, int | None] | None = None
        self.difficulty = 1
        self.propagate_count = DEFAULT_PROPAGATE
        self.pending: HoiLabelType | None = None  # a label waiting for its target
        self.retargeting: int | None = None  # a label whose target is being picked again
        self.history = History()
        view.sequence_changed.connect(self.reload)
        view.frame_changed.connect(lambda _i: self._frame_changed())
        view.selection_changed.connect(lambda _e: self._person_changed())
        view.target_picked.connect(self.target_picked)

    # -- source -----------------------------------------------------------------------
    def set_source(self, repo: Any, annotator: Annotator | None) -> None:
        """Another project (its `hoi` repository) or another person: history starts afresh."""
        self.repo, self.annotator = repo, annotator
        self.history.clear()
        self.cancel_pick()
        self.history_changed.emit()
        self.reload()

    def reload(self) -> None:
        """Read the current frame's labels again, keeping the selected label if it is there."""
        frame = self.view.frame
        ready = self.repo is not None and frame is not None and self.view.sequence is not None
        self.frame_records = self.repo.records(frame_id=frame.id) if ready else []
        if self.selected_id not in {r.id for r in self.frame_records}:
            self.selected_id = None
        self.labels_changed.emit()
        self.label_selected.emit(self.selected_id)

    def _frame_changed(self) -> None:
        """A new frame: the label last chosen (predicate and target) of the person stays
        selected where the frame has it; a frame without it shows none selected, and the
        next frame that has it selects it again."""
        self.cancel_pick()
        wanted = self.wanted_key
        self.reload()
        if wanted is not None:
            match = next((r for r in self.labels if r.label_key() == wanted), None)
            self.select_label(match.id if match else None, remember=False)

    def _person_changed(self) -> None:
        self.cancel_pick()
        self.select_label(None)
        self.labels_changed.emit()

    # -- what is shown ----------------------------------------------------------------------
    @property
    def person(self) -> int | None:
        entity = self.view.entities.get(self.view.selected) if self.view.selected else None
        return entity.id if entity is not None and entity.kind == "human" else None

    @property
    def labels(self) -> list[LabelRecord]:
        """The selected person's labels in this frame."""
        person = self.person
        return [r for r in self.frame_records if r.label.subject_entity_id == person]

    @property
    def selected(self) -> LabelRecord | None:
        return next((r for r in self.frame_records if r.id == self.selected_id), None)

    def has_label(self, label_id: str) -> bool:
        """Whether the selected person has this label (any target) in this frame."""
        return any(r.label.predicate == label_id for r in self.labels)

    def progress(self) -> SequenceProgress | None:
        ready = self.repo is not None and self.view.sequence is not None
        return self.repo.progress(self.view.sequence.id) if ready else None

    def select_label(self, label_id: int | None, *, remember: bool = True) -> None:
        """Select a label of this frame (None: none); `remember` makes it the one the
        following frames select (a frame change passes False)."""
        if remember:
            record = next((r for r in self.frame_records if r.id == label_id), None)
            self.wanted_key = record.label_key() if record is not None else None
        if label_id != self.selected_id:
            self.selected_id = label_id
            self.label_selected.emit(label_id)

    def cycle_label(self, delta: int) -> None:
        ids = [r.id for r in self.labels]
        if not ids:
            self.refused.emit("This person has no labels in this frame")
            return
        at = ids.index(self.selected_id) if self.selected_id in ids else (-1 if delta > 0 else 0)
        self.select_label(ids[(at + delta) % len(ids)])

    def next_person(self, delta: int = 1) -> None:
        """Tab: the next person with a box in this frame (wrapping round)."""
        people = self.view.people_in_frame()
        if not people:
            self.refused.emit("Nobody in this frame")
            return
        current = self.person
        at = people.index(current) if current in people else (-1 if delta > 0 else 0)
        self.view.select(people[(at + delta) % len(people)])

    def goto(self, record: LabelRecord) -> None:
        """Show a label: its sequence, frame and person, the label selected."""
        view = self.view
        if record.sequence_id is not None and (
            view.sequence is None or view.sequence.id != record.sequence_id
        ):
            view.load(self.repo.project, record.sequence_id)
        positions = [f.id for f in view.frames]
        if record.label.frame_id in positions:
            view.set_frame(positions.index(record.label.frame_id))
        view.select(record.label.subject_entity_id)
        self.select_label(record.id)

    # -- label keys ---------------------------------------------------------------------------
    def _ready(self, needs_person: bool = True) -> bool:
        if self.repo is None or self.view.frame is None:
            self.refused.emit("Open a JRDB sequence first")
        elif self.annotator is None:
            self.refused.emit("Sign in to label")
        elif needs_person and self.person is None:
            self.refused.emit("Select a person first: click one, or press Tab")
        else:
            return True
        return False

    def press(self, label_id: str) -> None:
        """A label key: a pose label is added (or, if there, removed); any other label
        asks for its target, picked by clicking an object in the image or the cloud."""
        label_type = self.taxonomy.label(label_id)
        if label_type is None or not self._ready():
            return
        self.cancel_pick()
        if label_type.needs_target:
            self.pending = label_type
            self._start_pick(f"Pick what the person is {label_type.label}")
            return
        there = [r for r in self.labels if r.label.predicate == label_id]
        if there:
            if self._own(there[0]):
                self._delete(there[0])
            return
        self._add(label_type, None)

    def retarget(self) -> None:
        """Pick another target for the selected label."""
        record = self.selected
        if record is None or record.label.object_entity_id is None:
            self.refused.emit("Select a label that has a target first")
        elif self._ready(needs_person=False) and self._own(record):
            self.cancel_pick()
            self.retargeting = record.id
            self._start_pick("Pick the new target")

    def _start_pick(self, text: str) -> None:
        self.view.picking = True
        self.picking_changed.emit(True)
        self.saved.emit(
            f"{text}: Tab through the nearest objects and Enter, or click one in the list, "
            "the image or the cloud (Esc cancels)"
        )

    def cancel_pick(self) -> None:
        if self.pending is None and self.retargeting is None:
            return
        self.pending = self.retargeting = None
        self.view.picking = False
        self.picking_changed.emit(False)

    def target_picked(self, entity_id: int) -> None:
        if self.pending is None and self.retargeting is None:
            return
        entity = self.view.entities.get(entity_id)
        if entity is None or entity.kind != "object":
            self.refused.emit(f"{self.view.label(entity_id)} is not an object: pick an object")
            return
        pending, retargeting = self.pending, self.retargeting
        self.cancel_pick()
        if retargeting is not None:
            self._update(retargeting, f"target → {self.view.label(entity_id)}", object=entity_id)
            return
        assert pending is not None
        key = (pending.id, entity_id)
        there = next((r for r in self.labels if r.label_key() == key), None)
        if there is not None:
            self.select_label(there.id)
            self.refused.emit("The person already has this label: Delete removes it")
            return
        self._add(pending, entity_id)

    def set_difficulty(self, difficulty: int) -> None:
        """1, 2, 3: the selected label's difficulty, and the one new labels get."""
        if difficulty not in (1, 2, 3):
            raise ValueError(f"difficulty must be 1, 2 or 3, not {difficulty!r}")
        if difficulty != self.difficulty:
            self.difficulty = difficulty
            self.defaults_changed.emit()
        record = self.selected
        if record is None:
            self.saved.emit(f"New labels get difficulty {difficulty}")
        elif self._ready(needs_person=False) and self._own(record):
            if record.label.difficulty != difficulty:
                self._update(record.id, f"difficulty {difficulty}", difficulty=difficulty)

    def set_propagate_count(self, count: int) -> None:
        count = max(1, int(count))
        if count != self.propagate_count:
            self.propagate_count = count
            self.defaults_changed.emit()

    def delete_selected(self) -> None:
        record = self.selected
        if record is None:
            self.refused.emit("Select a label first")
        elif self._ready(needs_person=False) and self._own(record):
            self._delete(record)

    def resubmit_selected(self) -> None:
        """Send the selected (returned) label back for review unchanged."""
        record = self.selected
        if record is None or not self._ready(needs_person=False) or not self._own(record):
            return
        self._run(
            f"Resubmitted {self.words(record)} for review",
            lambda: [(record.id, record, self.repo.resubmit(record.id, self.annotator))],
        )

    def propagate(self, direction: int, all_labels: bool = False) -> None:
        """Copy the selected label (or all of this person's own labels here) to the next
        (direction +1) or previous (-1) `propagate_count` frames of the same track."""
        if not self._ready():
            return
        if all_labels:
            records = [r for r in self.labels if self._own(r, quiet=True)]
        else:
            records = [self.selected] if self.selected is not None else []
        if not records:
            self.refused.emit("Nothing to copy: select one of your labels (Shift copies all)")
            return
        skipped: dict[str, int] = {}

        def work() -> list[tuple[int, Any, Any]]:
            out = []
            for record in records:
                made, plan = self.repo.propagate(
                    record.id, self.annotator, self.propagate_count, direction
                )
                for reason, n in plan.skipped.items():
                    skipped[reason] = skipped.get(reason, 0) + n
                out += [(label.id, None, self.repo.record(label.id)) for label in made]
            return out

        way = "forward" if direction > 0 else "back"
        step = self._run(f"Copied {len(records)} label(s) {way}", work)
        if step is not None and skipped:
            why = ", ".join(f"{n} {reason}" for reason, n in sorted(skipped.items()))
            self.saved.emit(f"{step.description} to {len(step.changes)} frame(s); skipped {why}")

    # -- writes ----------------------------------------------------------------------------------
    def _own(self, record: LabelRecord, quiet: bool = False) -> bool:
        if self.annotator is not None and record.label.annotator_id == self.annotator.id:
            return True
        if not quiet:
            self.refused.emit(
                f"{self.words(record)} is {record.author_name or 'someone else'}'s label: "
                "only its author changes it (review it instead)"
            )
        return False

    def words(self, record: LabelRecord) -> str:
        words = f"'{self.taxonomy.words(record.label.predicate)}'"
        target = record.label.object_entity_id
        return words + (f" {self.view.label(target)}" if target else "")

    def _add(self, label_type: HoiLabelType, target: int | None) -> None:
        frame, person = self.view.frame, self.person

        def work() -> list[tuple[int, Any, Any]]:
            label = self.repo.add_label(
                frame_id=frame.id,
                subject_entity_id=person,
                object_entity_id=target,
                category=label_type.category,
                predicate=label_type.id,
                difficulty=self.difficulty,
                annotator=self.annotator,
                unique=True,
            )
            return [(label.id, None, self.repo.record(label.id))]

        target_words = f" {self.view.label(target)}" if target else ""
        step = self._run(
            f"Added '{label_type.label}'{target_words} ({self.difficulty}) to "
            f"{self.view.label(person)}",
            work,
        )
        if step is not None:
            self.select_label(step.changes[0].label_id)

    def _update(self, label_id: int, what: str, **fields: Any) -> None:
        before = self.repo.record(label_id)
        kwargs = {"object_entity_id": fields["object"]} if "object" in fields else {}
        kwargs.update({k: v for k, v in fields.items() if k != "object"})
        step = self._run(
            f"{self.words(before)}: {what}",
            lambda: [
                (label_id, before, self.repo.update_label(label_id, self.annotator, **kwargs))
            ],
        )
        after = step.changes[0].after if step is not None else None
        if after is not None and after.round != before.round:
            self.saved.emit(f"{step.description}; it goes to review again (round {after.round})")

    def _delete(self, record: LabelRecord) -> None:
        delete = self.repo.put_label  # with None: delete it (into the trash)
        self._run(
            f"Removed {self.words(record)}",
            lambda: [(record.id, record, delete(record.id, None, self.annotator))],
        )

    def _run(self, description: str, work: Callable[[], list[tuple[int, Any, Any]]]) -> Step | None:
        """Do `work` in one transaction; on success it becomes one undo step."""
        try:
            with self.repo.project.write():
                changes = tuple(Change(LABEL, i, b, a) for i, b, a in work())
        except (ProjectError, ValueError) as exc:
            self.refused.emit(one_line(exc))
            self.reload()
            return None
        return self.push(Step(description, changes))

    def push(self, step: Step) -> Step:
        """Record a saved step for undo (the review panel pushes its reviews here too)."""
        self.history.push(step)
        self.history_changed.emit()
        self.reload()
        self.saved.emit(step.description)
        return step

    # -- undo and redo --------------------------------------------------------------------------
    @property
    def can_undo(self) -> bool:
        return bool(self.history.undo) and self.annotator is not None

    @property
    def can_redo(self) -> bool:
        return bool(self.history.redo) and self.annotator is not None

    def undo(self) -> bool:
        return self._replay(forward=False)

    def redo(self) -> bool:
        return self._replay(forward=True)

    def _replay(self, *, forward: bool) -> bool:
        word = "redo" if forward else "undo"
        stack = self.history.redo if forward else self.history.undo
        if not stack or self.repo is None or self.annotator is None:
            self.refused.emit(f"Nothing to {word}")
            return False
        self.cancel_pick()
        description = stack[-1].description
        try:
            self.history.replay(self.repo, self.annotator, forward=forward)
            message, ok = f"{word.capitalize()}: {description}", True
        except ProjectError as exc:
            message, ok = f"Cannot {word} '{description}': {one_line(exc)}", False
        self.history_changed.emit()
        self.reload()
        (self.saved if ok else self.refused).emit(message)
        return ok
