"""The Human study form: the open question (blind), the 1..5 scale, or the answer fields.

It takes the mode's `StudyState`, reads it on its signals, and writes only
through its methods. It shows what `blind_header` and `blind_text` give and
nothing else of the question: no difficulty, no answer, no evidence, no steps.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QIntValidator
from PySide6.QtWidgets import (
    QButtonGroup,
    QCompleter,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from widgets.study.state import (
    RATE,
    RATING_WORDS,
    StudyState,
    blind_header,
    blind_text,
    question_slots,
)

ERROR_STYLE = "color: #c0392b"
PROMPTS = {
    "box": "Drag a box around the answer on the image (drag again to redraw, Shift+drag to "
    "add one for each of several people); Enter submits.",
    "count": "Type the number, then press Enter.",
    "text": "Type the answer, a word (words seen in this project are suggested as you type), "
    "then press Enter.",
}


class StudyPanel(QWidget):
    """Below the image: the question, then the rating scale or the answer input."""

    def __init__(self, state: StudyState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("study_panel")
        self.state = state
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # where focus goes after typing
        self.header = QLabel()
        self.header.setObjectName("study_header")
        self.progress = QLabel()
        self.progress.setObjectName("study_progress")
        self.progress.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        bold = self.progress.font()
        bold.setBold(True)
        bold.setPointSizeF(bold.pointSizeF() * 1.15)
        self.progress.setFont(bold)
        top = QHBoxLayout()
        top.addWidget(self.header, 1)
        top.addWidget(self.progress)
        self.text = QLabel()
        self.text.setObjectName("study_question_text")
        self.text.setTextFormat(Qt.TextFormat.PlainText)  # the question, never markup
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        big = self.text.font()
        big.setPointSizeF(big.pointSizeF() * 1.35)
        self.text.setFont(big)

        # one of the two shows at a time (hidden, the other takes no room)
        self.rate_page, self.answer_page = self._rating_page(), self._answer_page()
        self.feedback = QLabel()
        self.feedback.setObjectName("study_feedback")
        self.message = QLabel()
        self.message.setWordWrap(True)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 8, 14, 8)
        layout.addLayout(top)
        layout.addWidget(self.text)
        layout.addSpacing(6)
        layout.addWidget(self.rate_page)
        layout.addWidget(self.answer_page)
        layout.addWidget(self.feedback)
        layout.addWidget(self.message)
        layout.addStretch(1)

        state.question_opened.connect(self._show_question)
        state.progress_changed.connect(self._show_progress)
        state.draft_changed.connect(self._show_box)
        state.feedback_changed.connect(self._show_feedback)
        state.refused.connect(lambda text: self._set_message(text, error=True))
        state.saved.connect(lambda _text: self._set_message(""))
        self._show_question()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(900, 230)

    # -- the two pages -----------------------------------------------------------------------
    def _rating_page(self) -> QWidget:
        page = QWidget()
        self.rate_prompt = QLabel(
            "How hard is this question to answer from the image? Press 1 to 5; the next "
            "question opens at once."
        )
        self.rate_prompt.setWordWrap(True)
        self.scale = QButtonGroup(self)
        self.scale.setExclusive(False)  # checked only to show a rating given earlier
        row = QHBoxLayout()
        for value, word in RATING_WORDS.items():
            button = QPushButton(f"{value}\n{word}")
            button.setObjectName(f"study_rate_{value}")
            button.setCheckable(True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the mode's actions
            button.setMinimumHeight(54)
            button.setToolTip(f"Rate {value}: {word} (key {value})")
            button.clicked.connect(lambda _=False, v=value: self.state.rate(v))
            self.scale.addButton(button, value)
            row.addWidget(button)
        self.back_button = QPushButton("◀ Back (Backspace)")
        self.back_button.clicked.connect(self.state.back)
        self.forward_button = QPushButton("Forward (→)")
        self.forward_button.clicked.connect(self.state.forward)
        self.review_note = QLabel()
        nav = QHBoxLayout()
        for button in (self.back_button, self.forward_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            nav.addWidget(button)
        nav.addWidget(self.review_note, 1)
        column = QVBoxLayout(page)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.rate_prompt)
        column.addLayout(row)
        column.addLayout(nav)
        return page

    def _answer_page(self) -> QWidget:
        page = QWidget()
        self.answer_prompt = QLabel()
        self.answer_prompt.setWordWrap(True)
        self.count_field = QLineEdit(placeholderText="a number")
        self.count_field.setObjectName("study_count")
        self.count_field.setValidator(QIntValidator(0, 100_000, self.count_field))
        self.count_field.setMaximumWidth(160)
        self.text_field = QLineEdit(placeholderText="the answer")
        self.text_field.setObjectName("study_text")
        self.text_field.setMinimumWidth(260)
        self.completer = QCompleter([], self.text_field)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.text_field.setCompleter(self.completer)
        self.box_label = QLabel()
        self.box_label.setObjectName("study_box")
        for field in (self.count_field, self.text_field):
            field.returnPressed.connect(self.submit)
        self.submit_button = QPushButton("Submit (Enter)")
        self.submit_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.submit_button.clicked.connect(self.submit)
        self.clear_button = QPushButton("Clear boxes (Esc)")
        self.clear_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.clear_button.clicked.connect(self.state.clear_boxes)
        row = QHBoxLayout()
        for widget in (self.count_field, self.text_field, self.box_label):
            row.addWidget(widget)
        row.addWidget(self.submit_button)
        row.addWidget(self.clear_button)
        row.addStretch(1)
        column = QVBoxLayout(page)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.answer_prompt)
        column.addLayout(row)
        return page

    def set_completions(self, values: list[str]) -> None:
        """What the answer field suggests (values seen in the project, never the answer's)."""
        self.completer.model().setStringList(sorted(set(values), key=str.lower))

    # -- display ---------------------------------------------------------------------------------
    def _show_question(self) -> None:
        s, q = self.state, self.state.current
        self.rate_page.setVisible(s.task == RATE)
        self.answer_page.setVisible(s.task != RATE)
        self._set_message("")
        if q is None:
            self.header.setText("Rate difficulty" if s.task == RATE else "Human baseline")
            self.text.setText(self._nothing())
        else:
            slots = question_slots(q)
            shown = f" · {len(slots)} time slots" if len(slots) > 1 else ""
            self.header.setText(blind_header(q) + shown)
            self.text.setText(blind_text(q))
        self._show_scale()
        self._show_answer_input()
        self._show_progress()
        self._show_feedback()

    def _nothing(self) -> str:
        s = self.state
        if s.source is None:
            return "This project has no human-study store yet."
        if s.annotator is None:
            return "Sign in to take part (Ctrl+Shift+U)."
        if s.progress[1] == 0:
            return (
                "No questions to rate."
                if s.task == RATE
                else "No JRDB questions to answer: "
                "the human baseline is measured on JRDB-Reasoning questions."
            )
        if s.task == RATE:
            return "You have rated every question. Thank you!"
        return "You have answered every JRDB question. Thank you!"

    def _show_scale(self) -> None:
        s = self.state
        own = s.own_rating() if s.reviewing else None
        for value in RATING_WORDS:
            button = self.scale.button(value)
            button.setChecked(value == own)
            button.setEnabled(s.current is not None)
        self.back_button.setEnabled(bool(s.history) and s.position != 0)
        self.forward_button.setEnabled(s.reviewing)
        self.review_note.setText(
            f"<i>Rated earlier: {own} ({RATING_WORDS[own]}). A new key replaces it.</i>"
            if own is not None
            else ""
        )

    def _show_answer_input(self) -> None:
        kind = self.state.kind
        self.answer_prompt.setText(PROMPTS.get(kind, ""))
        self.count_field.setVisible(kind == "count")
        self.text_field.setVisible(kind == "text")
        self.box_label.setVisible(kind == "box")
        self.clear_button.setVisible(kind == "box")
        self.submit_button.setEnabled(kind is not None)
        self.count_field.clear()
        self.text_field.clear()
        field = {"count": self.count_field, "text": self.text_field}.get(kind)
        if field is not None:
            field.setFocus()  # type at once
        elif self._typing():
            self.setFocus()  # the keys go back to the mode's actions
        self._show_box()

    def _show_box(self) -> None:
        boxes = self.state.boxes
        if not boxes:
            self.box_label.setText("<i>no box drawn yet</i>")
        else:
            shown = "; ".join(f"({x:.0f}, {y:.0f}) {w:.0f} × {h:.0f} px" for x, y, w, h in boxes)
            self.box_label.setText(f"{'Box' if len(boxes) == 1 else 'Boxes'}: {shown}")

    def _show_progress(self) -> None:
        self.progress.setText(self.state.progress_text() if self.state.ready else "")

    def _show_feedback(self) -> None:
        right = self.state.last_correct
        colour = "" if right is None else ("color: #1e7b34" if right else ERROR_STYLE)
        self.feedback.setStyleSheet(colour + ("; font-weight: bold" if colour else ""))
        self.feedback.setText(self.state.feedback)
        self.feedback.setVisible(bool(self.state.feedback))

    # -- input -----------------------------------------------------------------------------------
    def submit(self) -> None:
        """Submit what the open question's input holds (Enter)."""
        kind, s = self.state.kind, self.state
        if kind == "box":
            s.submit_box()
        elif kind == "count":
            s.submit_count(self.count_field.text())
        elif kind == "text":
            s.submit_text(self.text_field.text())

    def _typing(self) -> bool:
        return self.count_field.hasFocus() or self.text_field.hasFocus()

    def _set_message(self, text: str, *, error: bool = False) -> None:
        self.message.setStyleSheet(ERROR_STYLE if error else "")
        self.message.setText(text)
        self.message.setVisible(bool(text))
