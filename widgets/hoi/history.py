"""Undo and redo of HOI labelling and review, saved like every other change.

A `Step` is what one key press saved: the labels (or one person's review of
one round) it touched, each before and after. Undoing writes every "before"
back through `project.hoi.put_label` / `put_review` in one transaction, each
checked against its "after": when someone else has reviewed or changed the
label since, the store refuses and nothing is written. Redo is the mirror.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from annotation.jrdb.hoi_review import LabelRecord, ReviewRecord
from annotation.models import Annotator

LABEL, REVIEW = "label", "review"


def one_line(exc: Exception) -> str:
    """The first line of an error's message, for a status bar."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


@dataclass(frozen=True)
class Change:
    """One saved change: a label (or one person's review of one round) before and after."""

    kind: str  # LABEL or REVIEW
    label_id: int
    before: LabelRecord | ReviewRecord | None
    after: LabelRecord | ReviewRecord | None
    review_kind: str = ""  # for REVIEW: 'review' or 'qc'
    round: int = 0


@dataclass(frozen=True)
class Step:
    """What one undo takes back: a key press may change several labels (propagation)."""

    description: str
    changes: tuple[Change, ...]


@dataclass
class History:
    """The two stacks; `replay` moves the top step of one to the other, writing it."""

    undo: list[Step] = field(default_factory=list)
    redo: list[Step] = field(default_factory=list)

    def push(self, step: Step) -> None:
        self.undo.append(step)
        self.redo.clear()

    def clear(self) -> None:
        self.undo.clear()
        self.redo.clear()

    def replay(self, repo: Any, annotator: Annotator, *, forward: bool) -> Step:
        """Undo (forward False) or redo the top step; ProjectError leaves both stacks and
        the store as they were, except that the refused step is dropped."""
        source, target = (self.redo, self.undo) if forward else (self.undo, self.redo)
        step = source.pop()
        with repo.project.write():
            ordered = step.changes if forward else tuple(reversed(step.changes))
            done = {id(c): apply_change(repo, annotator, c, forward) for c in ordered}
        target.append(replace(step, changes=tuple(done[id(c)] for c in step.changes)))
        return step


def apply_change(repo: Any, annotator: Annotator, change: Change, forward: bool) -> Change:
    """Write one side of a change, checking the other is what is stored; returns the
    change as the next replay of it needs it (with what the store now holds)."""
    write, expect = (change.after, change.before) if forward else (change.before, change.after)
    if change.kind == LABEL:
        stored = repo.put_label(change.label_id, write, annotator, expect=expect)
    else:
        repo.put_review(
            change.label_id, annotator, change.review_kind, change.round, write, expect=expect
        )
        record = repo.record(change.label_id)
        mine = [
            r
            for r in (record.reviews if record else ())
            if (r.round, r.kind, r.reviewer_id) == (change.round, change.review_kind, annotator.id)
        ]
        stored = mine[0] if mine else None
    if forward:
        return replace(change, before=expect, after=stored)
    return replace(change, before=stored, after=expect)
