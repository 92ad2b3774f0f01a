"""The HOI review queues and the review being given.

Three lists for the signed-in annotator, within the sequence on screen: labels
to review, their own labels returned to them, and the quality-check sample.
Opening an item shows its frame and person in the views (through
`HoiState.goto`). A review is saved through `project.hoi.review` and pushed
on the labelling state's undo history, so Ctrl+Z takes back a review too.
The form is blind: it never shows the author's difficulty or the other
reviewer's verdict (docs/hoi-labels.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QObject, Signal

from annotation.jrdb.hoi_review import QC, REVIEW, LabelRecord, ReviewRecord
from store import ProjectError
from widgets.hoi.history import REVIEW as REVIEW_CHANGE
from widgets.hoi.history import Change, Step, one_line
from widgets.hoi.state import HoiState

TO_REVIEW, RETURNED, QUALITY = "review", "returned", "qc"
LISTS = {TO_REVIEW: "To review", RETURNED: "Returned to me", QUALITY: "Quality check"}


@dataclass(frozen=True)
class ReviewDraft:
    """The reviewer's own difficulty (needed to accept) and comment (needed to reject)."""

    difficulty: int | None = None
    comment: str = ""


class HoiReviewState(QObject):
    queues_changed = Signal()
    current_changed = Signal()  # `current` is another label (or None)
    draft_changed = Signal()
    focus_requested = Signal(str)  # "comment": where the reviewer types next

    def __init__(self, hoi: HoiState, parent: Any = None) -> None:
        super().__init__(parent)
        self.hoi = hoi
        self.lists: dict[str, list[LabelRecord]] = {name: [] for name in LISTS}
        self.list_name = TO_REVIEW
        self.current: LabelRecord | None = None
        self.draft = ReviewDraft()
        # Re-reading the lists scans the sequence: after other changes the mode calls
        # `refresh` once typing pauses (app.modes.annotate.hoi_panels); a review refreshes at once.
        hoi.view.sequence_changed.connect(self.refresh)

    @property
    def records(self) -> list[LabelRecord]:
        return self.lists[self.list_name]

    @property
    def index(self) -> int:
        ids = [r.id for r in self.records]
        return ids.index(self.current.id) if self.current and self.current.id in ids else -1

    @property
    def kind(self) -> str:
        return QC if self.list_name == QUALITY else REVIEW

    def refresh(self) -> None:
        """Read the three lists again; keep the open label if still listed, else open the
        one that took its row."""
        row = self.index
        hoi, sequence = self.hoi, self.hoi.view.sequence
        if hoi.repo is None or hoi.annotator is None or sequence is None:
            self.lists = {name: [] for name in LISTS}
        else:
            queues = hoi.repo.queues(hoi.annotator, sequence.id)
            self.lists = {TO_REVIEW: queues["review"], RETURNED: queues["returned"]}
            self.lists[QUALITY] = queues["qc"]
        self.queues_changed.emit()
        records = self.records
        if self.current is not None and self.index >= 0:
            self.current = records[self.index]  # a fresh copy; the draft stays
            self.current_changed.emit()
        elif self.current is not None:
            self._open(records[min(max(row, 0), len(records) - 1)] if records else None, False)

    def show_list(self, name: str) -> None:
        if name not in LISTS:
            raise ValueError(f"list must be one of {tuple(LISTS)}, not {name!r}")
        if name != self.list_name:
            self.list_name = name
            self.queues_changed.emit()
            self._open(None, False)

    def open_row(self, row: int) -> None:
        if 0 <= row < len(self.records):
            self._open(self.records[row], True)

    def step(self, delta: int) -> None:
        """J / K: the next or previous label of the list (the first one to begin with)."""
        records = self.records
        if not records:
            self.hoi.refused.emit(f"Nothing in '{LISTS[self.list_name]}'")
            return
        row = self.index
        self.open_row(0 if row < 0 else min(max(row + delta, 0), len(records) - 1))

    def _open(self, record: LabelRecord | None, show: bool) -> None:
        self.current = record
        mine = self.own_review()
        self.draft = ReviewDraft(mine.difficulty, mine.comment) if mine else ReviewDraft()
        self.current_changed.emit()
        self.draft_changed.emit()
        if record is not None and show:
            self.hoi.goto(record)

    def own_review(self) -> ReviewRecord | None:
        """The signed-in annotator's review of the open label's current round."""
        record, who = self.current, self.hoi.annotator
        if record is None or who is None:
            return None
        return next((r for r in record.current(self.kind) if r.reviewer_id == who.id), None)

    def visible_reviews(self) -> list[ReviewRecord]:
        """What the form may show: everything to the author of a returned label, else only
        one's own review (blind)."""
        record, who = self.current, self.hoi.annotator
        if record is None or who is None:
            return []
        if self.list_name == RETURNED:
            return record.current(REVIEW) + record.current(QC)
        mine = self.own_review()
        return [mine] if mine else []

    # -- the draft and the verdict ----------------------------------------------------------
    def set_difficulty(self, difficulty: int) -> None:
        self._edit(difficulty=difficulty)

    def set_comment(self, text: str) -> None:
        self._edit(comment=text)

    def _edit(self, **changes: Any) -> None:
        draft = replace(self.draft, **changes)
        if draft != self.draft:
            self.draft = draft
            self.draft_changed.emit()

    def accept(self) -> bool:
        if self.current is not None and self.draft.difficulty is None:
            self.hoi.refused.emit("Give your difficulty first: Alt+1, Alt+2 or Alt+3")
            return False
        return self._submit("accept")

    def reject(self) -> bool:
        """Reject with the typed comment; without one, ask for it (Enter then saves)."""
        if self.current is not None and not self.draft.comment.strip():
            self.hoi.refused.emit("A reject needs a comment: type it, then press Enter")
            self.focus_requested.emit("comment")
            return False
        return self._submit("reject")

    def _submit(self, verdict: str) -> bool:
        record, hoi = self.current, self.hoi
        if record is None or hoi.repo is None or hoi.annotator is None:
            hoi.refused.emit("Open a label to review" if hoi.annotator else "Sign in to review")
            return False
        if self.list_name == RETURNED:
            hoi.refused.emit("This is your own label: change it, or resubmit it unchanged")
            return False
        before, kind = self.own_review(), self.kind
        try:
            with hoi.repo.project.write():
                hoi.repo.review(
                    record.id,
                    reviewer=hoi.annotator,
                    verdict=verdict,
                    difficulty=self.draft.difficulty,
                    comment=self.draft.comment if verdict != "accept" else "",
                    kind=kind,
                )
                after = hoi.repo.record(record.id)
        except (ProjectError, ValueError) as exc:
            hoi.refused.emit(one_line(exc))
            self.refresh()
            return False
        mine = [r for r in after.current(kind) if r.reviewer_id == hoi.annotator.id]
        change = Change(REVIEW_CHANGE, record.id, before, mine[0], kind, record.round)
        what = "Quality check" if kind == QC else "Review"
        hoi.push(Step(f"{what}: {verdict} {hoi.words(record)}", (change,)))
        self.refresh()  # now: the next label takes its row
        if self.current is not None and self.current.id != record.id:
            hoi.goto(self.current)  # the next label took its row: show it
        return True

    def resubmit(self) -> None:
        """For a returned label: send it back for review unchanged."""
        if self.current is None or self.list_name != RETURNED:
            self.hoi.refused.emit("Open one of your returned labels first")
            return
        self.hoi.goto(self.current)
        self.hoi.resubmit_selected()
