"""The Verify questions form: the open question, the three criteria, the decision.

It takes the mode's `VerifyState`, reads it on its signals, and writes only
through its methods. The form never shows a verdict the state did not get from
`visible_verdicts` (the blind rule).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from annotation.verification import ALL_CRITERIA, CRITERIA
from widgets.verify.jrdb_evidence_rows import answer_entities, entity_words, is_jrdb
from widgets.verify.state import DECISION_NEEDS, VerifyState
from widgets.verify.text import (
    answer_option,
    describe_answer,
    describe_difficulty,
    describe_verdict,
    heading,
    rich_label,
    steps_html,
    task_words,
)

_Index = QModelIndex | QPersistentModelIndex
ERROR_STYLE = "color: #c0392b"


@dataclass(frozen=True)
class CriteriaWording:
    """How the panel and the toolbar word the three stored criteria
    (`annotation.verification.CRITERIA`) for one benchmark. Their meaning in the store
    and in `allowed_decisions` is the same for every benchmark: 1 is fixable by a
    correction; 2 and 3 false leave only reject."""

    labels: tuple[str, str, str]  # the check boxes
    short: tuple[str, str, str]  # the toolbar's actions (keys 1, 2, 3)
    tips: tuple[str, str, str]
    correct_needs: str  # why Correct is refused without 2 and 3
    blocked_note: str  # the correction editor's note while Correct is not allowed

    def label(self, name: str) -> str:
        return self.labels[CRITERIA.index(name)]


TABLETOP_WORDING = CriteriaWording(
    (
        "Wording, options and answer are unambiguous",
        "The initial view withholds the evidence",
        "Feasible clutter removal reveals it",
    ),
    ("1 Unambiguous", "2 Withheld", "3 Recoverable"),
    ("Wording, options, answer", "The first view hides the evidence", "Clutter removal reveals it"),
    DECISION_NEEDS["correct"],
    "A correction needs a valid scene: tick 2 and 3 to save it.",
)
#: The wording per benchmark; any other benchmark is a tabletop scene (MG-VQA).
CRITERIA_WORDING = {
    "jrdb": CriteriaWording(
        (
            "Wording and answer are unambiguous",
            "The labels it rests on match the image",
            "Every step's entity set is right",
        ),
        ("1 Unambiguous", "2 Labels match", "3 Steps right"),
        (
            "The question's wording and its answer (a correction can fix them)",
            "The people, objects, attributes and relations it uses are labelled as the image shows",
            "Each step keeps exactly the entities its description names",
        ),
        "Correct needs right labels and steps (criteria 2 and 3): a text cannot fix labels",
        "A correction cannot fix wrong labels or steps: tick 2 and 3 to save it.",
    ),
}
CRITERION_LABELS = dict(zip(CRITERIA, TABLETOP_WORDING.labels, strict=True))


@dataclass(frozen=True)
class TaskCriterionWording:
    """A criterion asked of one task only: its check box, toolbar name and tooltip."""

    label: str
    short: str
    tip: str


#: Criterion 4, asked of Compare questions only (MG-VQA, appendix C.2).
VOLUMES_WORDING = TaskCriterionWording(
    # short: a check box does not wrap, and a longer one would widen the whole form
    "The three volumes are visibly distinct",
    "4 Volumes distinct",
    "Compare: the three labelled objects clearly differ in occupied volume, so the top-down "
    "view can tell which is largest. If not, the scene is invalid: only reject is left",
)
TASK_CRITERION_WORDING = {"volumes_distinct": VOLUMES_WORDING}
COMPARE_BLOCKED_NOTE = "A correction needs a valid scene: tick 2, 3 and 4 to save it."


def criteria_wording(benchmark: str | None) -> CriteriaWording:
    """The criteria's wording for a question of `benchmark`."""
    return CRITERIA_WORDING.get(benchmark or "", TABLETOP_WORDING)


def decision_needs(benchmark: str | None, decision: str) -> str:
    """Why `decision` is not allowed by the ticked criteria, in the benchmark's words."""
    if decision == "correct":
        return criteria_wording(benchmark).correct_needs
    return DECISION_NEEDS.get(decision, f"{decision} is not allowed now")


class QuestionPanel(QScrollArea):
    """The open question, the three criteria, the decision, and the verdicts one may see."""

    def __init__(self, state: VerifyState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget()
        body.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # where focus goes after typing
        self.body = body
        self.setWidget(body)
        self._build_facts()
        criteria = self._build_criteria(state)
        row = self._build_decisions(state)
        self._build_editor(state)

        self._syncing = False
        self.message = rich_label()
        self.verdicts, self.last = rich_label(), rich_label()
        self.verdicts.setObjectName("verify_visible_verdicts")
        self.last.setObjectName("verify_last_verdict")

        layout = QVBoxLayout(body)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(self.header)
        layout.addWidget(self.text)
        layout.addLayout(self.facts)
        layout.addWidget(criteria)
        layout.addLayout(row)
        layout.addWidget(self.reason)
        layout.addWidget(self.editor)
        layout.addWidget(self.message)
        layout.addWidget(heading("Verdicts on this question"))
        layout.addWidget(self.verdicts)
        layout.addWidget(heading("Your last verdict (Ctrl+Z undoes it)"))
        layout.addWidget(self.last)
        layout.addStretch(1)

        state.question_opened.connect(self._show_question)
        state.draft_changed.connect(self._show_draft)
        state.evidence_changed.connect(self._show_evidence)
        state.focus_requested.connect(self._focus)
        state.refused.connect(lambda text: self._set_message(text, error=True))
        state.verdict_saved.connect(self._saved)
        self._show_question()

    def _build_facts(self) -> None:
        """The question's header, text and facts (options, answer, difficulty, steps,
        evidence)."""
        self.header = QLabel()
        self.header.setObjectName("verify_question_header")
        self.text = rich_label()
        font = self.text.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.text.setFont(font)
        self.options, self.answer, self.evidence = rich_label(), rich_label(), rich_label()
        self.difficulty, self.steps = rich_label(), rich_label()
        self.difficulty.setObjectName("verify_difficulty")
        self.steps.setObjectName("verify_steps")
        self.facts = facts = QFormLayout()
        facts.addRow("Options", self.options)
        facts.addRow("Answer", self.answer)
        facts.addRow("Difficulty", self.difficulty)
        facts.addRow("Steps", self.steps)
        facts.addRow("Evidence", self.evidence)

    def _build_criteria(self, state: VerifyState) -> QGroupBox:
        """The criteria as check boxes (keys 1 to 4 belong to the mode's actions); the
        fourth, volumes distinct, shows for Compare questions only."""
        self.criteria: dict[str, QCheckBox] = {}
        self.wording = TABLETOP_WORDING
        self.criteria_box = criteria = QGroupBox("Criteria (1, 2, 3)")
        column = QVBoxLayout(criteria)
        for i, name in enumerate(ALL_CRITERIA, 1):
            words = TASK_CRITERION_WORDING.get(name)
            box = QCheckBox(f"{i}  {words.label if words else self.wording.label(name)}")
            if words is not None:
                box.setToolTip(words.tip)
                box.setVisible(False)  # until a question asks it
            box.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the mode's actions
            box.clicked.connect(lambda checked, n=name: state.set_criterion(n, checked))
            column.addWidget(box)
            self.criteria[name] = box
        return criteria

    def _build_decisions(self, state: VerifyState) -> QHBoxLayout:
        """Approve, Reject, Correct, and the reason a reject needs."""
        self.buttons = {
            "approve": QPushButton("Approve (A)"),
            "reject": QPushButton("Reject (R)"),
            "correct": QPushButton("Correct (E)"),
        }
        row = QHBoxLayout()
        for decision, button in self.buttons.items():
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(getattr(state, decision))
            row.addWidget(button)
        self.reason = QLineEdit(placeholderText="Reason (needed to reject); Enter saves the reject")
        self.reason.textEdited.connect(state.set_reason)
        self.reason.returnPressed.connect(state.reject)
        return row

    def _build_editor(self, state: VerifyState) -> None:
        """The correction form: text, options and answer, saved with Ctrl+Enter."""
        self.editor = QGroupBox("Correction")
        self.editor_note = note = rich_label()
        self.edit_text, self.edit_options = QPlainTextEdit(), QPlainTextEdit()
        self.edit_options.setPlaceholderText("one option a line; none for an open question")
        self.edit_answer = QLineEdit()
        for edit in (self.edit_text, self.edit_options):
            edit.setMaximumHeight(self.fontMetrics().height() * 5)
            edit.textChanged.connect(self._correction_edited)
        self.edit_answer.textEdited.connect(self._correction_edited)
        self.edit_answer.returnPressed.connect(state.correct)
        self.save_correction = QPushButton("Save (Ctrl+Enter)")
        self.save_correction.clicked.connect(state.correct)
        cancel = QPushButton("Cancel (Esc)")
        cancel.clicked.connect(state.cancel_correction)
        form = QFormLayout(self.editor)
        form.addRow(note)
        form.addRow("Text", self.edit_text)
        form.addRow("Options", self.edit_options)
        form.addRow("Answer", self.edit_answer)
        actions = QHBoxLayout()
        actions.addStretch(1)
        actions.addWidget(cancel)
        actions.addWidget(self.save_correction)
        form.addRow(actions)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut = QShortcut(QKeySequence(keys), self.editor)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(state.correct)
        escape = QShortcut(QKeySequence("Escape"), self.editor)
        escape.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        escape.activated.connect(state.cancel_correction)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(400, 640)

    # -- display ---------------------------------------------------------------------
    def _show_question(self) -> None:
        q = self.state.current
        self._set_message("")
        if self._typing():
            self.body.setFocus()  # a new question: the keys go back to the actions
        if q is None:
            self.header.setText("No question open")
            self.text.setText(
                "Sign in to verify." if self.state.annotator is None else "Nothing to verify here."
            )
            for label in (self.options, self.answer, self.evidence, self.verdicts):
                label.setText("")
        else:
            scene = f"scene #{q.scene_id}" if q.scene_id is not None else "no stored scene"
            if is_jrdb(q):
                scene = f"sequence #{q.sequence_id}"
            self.header.setText(
                f"<b>{task_words(q.task)}</b> · question #{q.id} "
                f"v{q.version} · {q.benchmark} · {scene}"
                + (f" · D={q.difficulty.D}" if q.difficulty else "")
            )
            self.text.setText(f"<b>{html.escape(q.text)}</b>")
            self.options.setText(self._options_html(q.options, q.answer))
            self.answer.setText(f"<b>{html.escape(describe_answer(q.answer))}</b>")
            self.difficulty.setText(describe_difficulty(q))
            self.steps.setText(steps_html(q.steps) if q.steps else "")
            self._show_verdicts()
        self.facts.setRowVisible(self.difficulty, bool(q and q.difficulty))
        self.facts.setRowVisible(self.steps, bool(q and q.steps))
        self._show_wording(criteria_wording(q.benchmark if q is not None else None))
        self._show_evidence()
        self._show_last()
        self._show_draft()

    def _show_wording(self, wording: CriteriaWording) -> None:
        """Word the criteria for the open question's benchmark; show criterion 4 only
        when the open question asks it (Compare)."""
        self.wording = wording
        for i, name in enumerate(CRITERIA, 1):
            self.criteria[name].setText(f"{i}  {wording.label(name)}")
            self.criteria[name].setToolTip(wording.tips[i - 1])
        numbers = [str(i) for i, name in enumerate(ALL_CRITERIA, 1) if self._asked(name)]
        for name in TASK_CRITERION_WORDING:
            self.criteria[name].setVisible(self.state.asks(name))
        self.criteria_box.setTitle(f"Criteria ({', '.join(numbers)})")

    def _asked(self, name: str) -> bool:
        return name in CRITERIA or self.state.asks(name)

    @staticmethod
    def _options_html(options: list[Any] | None, answer: Any) -> str:
        if not options:
            return "<i>open question: no options</i>"
        picked = answer_option(answer)
        lines = [
            f"<b>✓ {html.escape(str(o))}</b>"
            if o == picked
            else f"&nbsp;&nbsp;&nbsp;{html.escape(str(o))}"
            for o in options
        ]
        return "<br>".join(lines)

    def _show_evidence(self) -> None:
        q = self.state.current
        if q is None:
            self.evidence.setText("")
            return
        names = self.state.evidence_names()
        if is_jrdb(q):  # graph entities of the question's frames: no visibility figures
            targets = answer_entities(q)
            lines = [
                f"{html.escape(entity_words(k))} <tt>{html.escape(k)}</tt>"
                + (" — the answer" if k in targets else "")
                for k in names
            ]
            self.evidence.setText("<br>".join(lines) or "<i>none</i>")
            return
        if not names:
            self.evidence.setText(
                "<i>none: nothing answer-critical is in the scene (an absent target); "
                "every object is see-through</i>"
            )
            return
        roles = {0: " (cover)", 1: " (hidden)"} if q.task == "beneath" else {}
        lines = []
        for i, (key, name) in enumerate(names.items()):
            seen = self.state.visibility.get(key)
            shown = "" if seen is None else f" — {100 * seen:.0f} % in the model's view"
            lines.append(f"{html.escape(name)}{roles.get(i, '')} <tt>{key}</tt>{shown}")
        self.evidence.setText("<br>".join(lines))

    def _show_verdicts(self) -> None:
        me = self.state.annotator
        records = self.state.verdicts
        if records:
            self.verdicts.setText(
                "<br>".join(
                    describe_verdict(r, own=me is not None and r.annotator_id == me.id)
                    for r in records
                )
            )
        else:
            self.verdicts.setText(
                "<i>None yet. The other verifier's verdict stays hidden until both have "
                "submitted.</i>"
            )

    def _show_last(self) -> None:
        record, visible, outcome = self.state.last_saved()
        if record is None:
            self.last.setText("<i>none yet</i>")
            return
        me = self.state.annotator
        lines = [f"Question #{record.question_id}, after {record.seconds_on_task or 0:.0f} s:"]
        lines += [describe_verdict(r, own=r.annotator_id == me.id) for r in visible]
        if len(visible) < 2 and record.round == "first":
            lines.append("<i>The other verdict stays hidden until both have submitted.</i>")
        if outcome is not None:
            status = "needs adjudication" if outcome.needs_adjudication else outcome.status
            lines.append(f"Outcome so far: <b>{status}</b>")
        lines.append("Ctrl+Z undoes it." if self.state.can_undo else "It can no longer be undone.")
        self.last.setText("<br>".join(lines))

    def _show_draft(self) -> None:
        d = self.state.draft
        has_question = self.state.current is not None
        for name, box in self.criteria.items():
            box.setChecked(bool(getattr(d, name)))
            box.setEnabled(has_question and self._asked(name))
        allowed = self.state.allowed()
        for decision, button in self.buttons.items():
            button.setEnabled(decision in allowed)
        self.reason.setEnabled(has_question)
        if self.reason.text() != d.reason:
            self.reason.setText(d.reason)
        self.editor.setVisible(d.editing)
        self.save_correction.setEnabled("correct" in allowed)
        self.editor_note.setText(
            "<i>Saved as a new version of the question; the old one is kept.</i>"
            if "correct" in allowed
            else f"<i>{html.escape(self._blocked_note())}</i>"
        )
        self._syncing = True  # the three fields change one by one: report none of it
        try:
            if self.edit_text.toPlainText() != d.text:
                self.edit_text.setPlainText(d.text)
            if self.edit_options.toPlainText() != d.options_text:
                self.edit_options.setPlainText(d.options_text)
            if self.edit_answer.text() != d.answer_text:
                self.edit_answer.setText(d.answer_text)
        finally:
            self._syncing = False
        if not d.editing and self._typing() and not self.reason.hasFocus():
            self.body.setFocus()

    def _blocked_note(self) -> str:
        if self.state.asks("volumes_distinct"):
            return COMPARE_BLOCKED_NOTE
        return self.wording.blocked_note

    # -- input -----------------------------------------------------------------------
    def _correction_edited(self, *_args) -> None:
        if self._syncing:
            return
        self.state.set_correction(
            text=self.edit_text.toPlainText(),
            options_text=self.edit_options.toPlainText(),
            answer_text=self.edit_answer.text(),
        )

    def _focus(self, where: str) -> None:
        self.ensureWidgetVisible(self.reason if where == "reason" else self.editor)
        (self.reason if where == "reason" else self.edit_text).setFocus()

    def _typing(self) -> bool:
        focus = QApplication.focusWidget()
        return focus is not None and focus in (
            self.reason,
            self.edit_text,
            self.edit_options,
            self.edit_answer,
        )

    def _saved(self, text: str) -> None:
        self._set_message(text)
        self._show_last()

    def _set_message(self, text: str, *, error: bool = False) -> None:
        self.message.setStyleSheet(ERROR_STYLE if error else "")
        self.message.setText(html.escape(text))
        self.message.setVisible(bool(text))
