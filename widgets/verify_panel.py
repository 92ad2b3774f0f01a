"""The Verify questions form: the open question, the three criteria, the decision.

It takes the mode's `VerifyState`, reads it on its signals, and writes only
through its methods. The form never shows a verdict the state did not get from
`visible_verdicts` (the blind rule).
"""

from __future__ import annotations

import html
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

from annotation.verification import CRITERIA, VerdictRecord
from widgets.verify_state import VerifyState

_Index = QModelIndex | QPersistentModelIndex
ERROR_STYLE = "color: #c0392b"
CRITERION_LABELS = {
    "unambiguous": "Wording, options and answer are unambiguous",
    "evidence_withheld": "The initial view withholds the evidence",
    "evidence_recoverable": "Feasible clutter removal reveals it",
}


def answer_option(answer: Any) -> Any:
    """The option an answer picks (Find answers carry a point too)."""
    return answer.get("answer") if isinstance(answer, dict) else answer


def describe_answer(answer: Any) -> str:
    if isinstance(answer, dict) and "answer" in answer:
        point = answer.get("point")
        at = f", at ({point[0]:g}, {point[1]:g}) px in the model's image" if point else ""
        return f"{answer['answer']}{at}"
    return str(answer)


def describe_verdict(record: VerdictRecord, *, own: bool) -> str:
    """One verdict as a line of rich text: who, round, decision, criteria, reason, edits."""
    v = record.verdict
    who = "You" if own else html.escape(record.annotator_name)
    marks = " ".join(f"{i}{'✓' if getattr(v, c) else '✗'}" for i, c in enumerate(CRITERIA, 1))
    line = f"<b>{who}</b> ({record.round} round): <b>{v.decision}</b> &nbsp;[{marks}]"
    if v.reason:
        line += f" — “{html.escape(v.reason)}”"
    if v.corrections:
        edits = ", ".join(f"{k} → {html.escape(str(val))}" for k, val in v.corrections.items())
        line += f"<br>&nbsp;&nbsp;proposes {edits}"
    return line


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
        self.header = QLabel()
        self.header.setObjectName("verify_question_header")
        self.text = _rich_label()
        font = self.text.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.text.setFont(font)
        self.options, self.answer, self.evidence = _rich_label(), _rich_label(), _rich_label()
        facts = QFormLayout()
        facts.addRow("Options", self.options)
        facts.addRow("Answer", self.answer)
        facts.addRow("Evidence", self.evidence)

        self.criteria: dict[str, QCheckBox] = {}
        criteria = QGroupBox("Criteria (1, 2, 3)")
        column = QVBoxLayout(criteria)
        for i, name in enumerate(CRITERIA, 1):
            box = QCheckBox(f"{i}  {CRITERION_LABELS[name]}")
            box.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the mode's actions
            box.clicked.connect(lambda checked, n=name: state.set_criterion(n, checked))
            column.addWidget(box)
            self.criteria[name] = box

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

        self.editor = QGroupBox("Correction")
        self.editor_note = note = _rich_label()
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

        self._syncing = False
        self.message = _rich_label()
        self.verdicts, self.last = _rich_label(), _rich_label()
        self.verdicts.setObjectName("verify_visible_verdicts")
        self.last.setObjectName("verify_last_verdict")

        layout = QVBoxLayout(body)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(self.header)
        layout.addWidget(self.text)
        layout.addLayout(facts)
        layout.addWidget(criteria)
        layout.addLayout(row)
        layout.addWidget(self.reason)
        layout.addWidget(self.editor)
        layout.addWidget(self.message)
        layout.addWidget(_heading("Verdicts on this question"))
        layout.addWidget(self.verdicts)
        layout.addWidget(_heading("Your last verdict (Ctrl+Z undoes it)"))
        layout.addWidget(self.last)
        layout.addStretch(1)

        state.question_opened.connect(self._show_question)
        state.draft_changed.connect(self._show_draft)
        state.evidence_changed.connect(self._show_evidence)
        state.focus_requested.connect(self._focus)
        state.refused.connect(lambda text: self._set_message(text, error=True))
        state.verdict_saved.connect(self._saved)
        self._show_question()

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
            self.header.setText(
                f"<b>{q.task.capitalize()}</b> · question #{q.id} v{q.version} · {q.benchmark} · "
                f"{scene}" + (f" · D={q.difficulty.D}" if q.difficulty else "")
            )
            self.text.setText(f"<b>{html.escape(q.text)}</b>")
            self.options.setText(self._options_html(q.options, q.answer))
            self.answer.setText(f"<b>{html.escape(describe_answer(q.answer))}</b>")
            self._show_verdicts()
        self._show_evidence()
        self._show_last()
        self._show_draft()

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
                )  # fmt: skip
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
            box.setChecked(getattr(d, name))
            box.setEnabled(has_question)
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
            else "<i>A correction needs a valid scene: tick 2 and 3 to save it.</i>"
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


def _rich_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _heading(text: str) -> QLabel:
    label = QLabel(f"<b>{html.escape(text)}</b>")
    label.setContentsMargins(0, 8, 0, 0)
    return label
