"""The Human study mode's state: rating question difficulty blind, and the human baseline.

Two tasks share one object:

* ``rate``: the next question the annotator has not rated; a rating 1..5 is
  saved at once and the next one opens. Back reopens the questions the
  annotator rated, newest first (a new rating replaces the old one), Forward
  returns.
* ``answer``: the next question the annotator has not answered (the human
  baseline), answered without its answer: a count, a word, or boxes on the
  panorama (a drag draws the box, Shift+drag adds another for questions about
  several people). A baseline answer is final: there is no Back.

The state never exposes a question's difficulty, answer, evidence or steps to
the panels: they read `header`, `text` and `options` (see `blind_text`). It
writes only through the reasoning repository (`project.reasoning`), so it is
testable without a screen: pass any object with that repository's methods.
"""

from __future__ import annotations

from collections.abc import Sequence as Seq
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from annotation.jrdb.reasoning_eval import NO_GOLD
from annotation.models import Annotator, Question

RATE, ANSWER = "rate", "answer"
TASKS = (RATE, ANSWER)
RATING_WORDS = {1: "very easy", 2: "easy", 3: "moderate", 4: "hard", 5: "very hard"}
TASK_WORDS = {
    "vg": "Visual grounding",
    "vqa-count": "Counting",
    "vqa-wh": "What / which / who",
    "count": "Count",
    "find": "Find",
    "beneath": "Beneath",
    "compare": "Compare",
}
BASELINE_BENCHMARK = "jrdb"  # the paper's human evaluation rows are JRDB-Reasoning's


class ReasoningSource(Protocol):
    """What the state needs of `project.reasoning`."""

    def rate(self, question_id: int, annotator: Annotator, rating: int) -> None: ...
    def ratings(
        self, question_id: int | None = None, *, annotator: Annotator | None = None
    ) -> list[Any]: ...
    def next_to_rate(self, annotator: Annotator, benchmark: str | None = None) -> Any: ...
    def rating_progress(
        self, annotator: Annotator, benchmark: str | None = None
    ) -> tuple[int, int]: ...
    def answer(self, question_id: int, annotator: Annotator, answer: Any) -> Any: ...
    def next_to_answer(self, annotator: Annotator, benchmark: str = "jrdb") -> Any: ...
    def answer_progress(self, annotator: Annotator) -> tuple[int, int]: ...


class QuestionSource(Protocol):
    """What the state needs of `project.questions` (Back reopens rated questions)."""

    def get(self, question_id: int) -> Question: ...
    def versions(self, uid: str) -> list[Question]: ...


# -- pure helpers ----------------------------------------------------------------------------
def answer_kind(question: Question | None) -> str | None:
    """How a person answers: "box" (draw it), "count" (a number) or "text" (a word)."""
    if question is None:
        return None
    if question.task in ("vg", "find") and not question.options:
        return "box"
    if question.task in ("vqa-count", "count") and not question.options:
        return "count"
    return "text"


def blind_header(question: Question) -> str:
    """What the question is, without anything that gives away how hard it is or its answer."""
    task = TASK_WORDS.get(question.task, question.task)
    return f"{task} · {question.benchmark} · question #{question.id}"


def blind_text(question: Question) -> str:
    """Everything the person may read of a question: its text and its options."""
    text = question.text.strip()
    if question.options:
        text += "\nOptions: " + ", ".join(str(o) for o in question.options)
    return text


def parse_count(text: str) -> int | None:
    """A typed count (None when it is not a whole number ≥ 0)."""
    text = text.strip()
    return int(text) if text.isdigit() else None


def question_slots(question: Question | None) -> list[str]:
    """The images the question is asked on, one per time slot (JRDB `criteria.image_ids`)."""
    if question is None:
        return []
    criteria = question.criteria or {}
    images = [str(i) for i in criteria.get("image_ids") or []]
    if images:
        return images
    return [f"frame {f}" for f in criteria.get("frame_ids") or []]


def describe_score(score: Any) -> str:
    """One line about a scored answer (shown only with feedback on)."""
    if getattr(score, "reason", "") == NO_GOLD:  # a blind work package: scored when merged
        return "saved; it is scored when the work package is merged"
    correct = bool(getattr(score, "correct", False))
    line = "Right" if correct else "Wrong"
    iou = getattr(score, "iou", None)
    if iou is not None:
        line += f" (IoU {iou:.2f})"
    reason = getattr(score, "reason", "")
    if correct or not reason or reason.startswith("IoU"):
        return line  # the IoU is said already
    return f"{line}: {reason}"


class StudyState(QObject):
    question_opened = Signal()  # `current` is another question (or None)
    progress_changed = Signal()
    draft_changed = Signal()  # the drawn box or the time slot shown
    saved = Signal(str)  # a one-line message: what was saved
    refused = Signal(str)  # a one-line reason nothing was saved
    feedback_changed = Signal()

    def __init__(
        self,
        source: ReasoningSource | None = None,
        annotator: Annotator | None = None,
        questions: QuestionSource | None = None,
    ) -> None:
        super().__init__()
        self.task = RATE
        self.benchmark: str | None = None  # rate only this benchmark's questions (None: all)
        self.show_feedback = False  # the baseline does not learn from feedback unless asked
        self.feedback = ""  # the last answer's result (with feedback on) or "saved"
        self.last_correct: bool | None = None  # the last answer's score, with feedback on
        self.current: Question | None = None
        self.history: list[int] = []  # the questions the annotator rated, oldest first
        self.position: int | None = None  # where Back has gone in `history` (None: the next)
        self.progress = (0, 0)
        self.boxes: list[list[float]] = []  # the drawn answer boxes
        self.slot = 0
        self.set_source(source, annotator, questions)

    # -- where the questions come from -----------------------------------------------------
    def set_source(
        self,
        source: ReasoningSource | None,
        annotator: Annotator | None,
        questions: QuestionSource | None = None,
    ) -> None:
        """Another project or another person: start at their next question."""
        self.source, self.annotator, self.questions = source, annotator, questions
        self.position, self.feedback, self.last_correct = None, "", None
        self.history = (
            [r.question_id for r in source.ratings(annotator=annotator)]
            if source is not None and annotator is not None
            else []
        )
        self._open_next()

    def set_task(self, task: str) -> None:
        if task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, not {task!r}")
        if task != self.task:
            self.task, self.position = task, None
            self.feedback, self.last_correct = "", None
            self.feedback_changed.emit()
            self._open_next()

    def set_benchmark(self, benchmark: str | None) -> None:
        """Rate only one benchmark's questions (None: every benchmark)."""
        if benchmark != self.benchmark:
            self.benchmark = benchmark
            if self.task == RATE and self.position is None:
                self._open_next()
            else:
                self._read_progress()

    def set_show_feedback(self, on: bool) -> None:
        self.show_feedback = bool(on)
        self.feedback, self.last_correct = "", None
        self.feedback_changed.emit()

    @property
    def ready(self) -> bool:
        return self.source is not None and self.annotator is not None

    def refresh(self) -> None:
        """Data changed elsewhere: read the progress again; open a question if none is."""
        if self.current is None:
            self._open_next()
        else:
            self._read_progress()

    def _read_progress(self) -> None:
        if not self.ready:
            self.progress = (0, 0)
        elif self.task == RATE:
            self.progress = tuple(self.source.rating_progress(self.annotator, self.benchmark))
        else:
            self.progress = tuple(self.source.answer_progress(self.annotator))
        self.progress_changed.emit()

    def _open_next(self) -> None:
        question = None
        if self.ready:
            if self.task == RATE:
                question = self.source.next_to_rate(self.annotator, self.benchmark)
            else:
                question = self.source.next_to_answer(self.annotator, BASELINE_BENCHMARK)
        self.position = None
        self._open(question)

    def _open(self, question: Question | None) -> None:
        self.current, self.boxes = question, []
        self.slot = max(len(question_slots(question)) - 1, 0)  # the answer's slot: the last
        self._read_progress()
        self.question_opened.emit()
        self.draft_changed.emit()

    # -- what the panels show ----------------------------------------------------------------
    @property
    def kind(self) -> str | None:
        """How the open question is answered in the baseline (None when rating)."""
        return answer_kind(self.current) if self.task == ANSWER else None

    @property
    def reviewing(self) -> bool:
        """Back has reopened a question rated earlier in this sitting."""
        return self.position is not None

    def progress_text(self) -> str:
        done, total = self.progress
        return f"{done} / {total} {'rated' if self.task == RATE else 'answered'}"

    def own_rating(self) -> int | None:
        """The annotator's stored rating of the open question (of any version), if any."""
        if self.current is None or not self.ready:
            return None
        uid = self.current.uid
        mine = [r for r in self.source.ratings(annotator=self.annotator) if r.question_uid == uid]
        return int(mine[-1].rating) if mine else None

    def set_slot(self, slot: int) -> None:
        slots = question_slots(self.current)
        slot = min(max(int(slot), 0), max(len(slots) - 1, 0))
        if slot != self.slot:
            self.slot = slot
            self.draft_changed.emit()

    # -- rating -------------------------------------------------------------------------------
    def rate(self, rating: int) -> bool:
        """Save the annotator's rating of the open question, then open the next one."""
        q = self.current
        if not self.ready or q is None:
            self.refused.emit(self._why_nothing())
            return False
        if self.task != RATE:
            self.refused.emit("Ratings are given in Rate difficulty (Alt+R)")
            return False
        try:
            self.source.rate(q.id, self.annotator, int(rating))
        except Exception as exc:  # the store's refusal, in one line
            self.refused.emit(_one_line(exc))
            return False
        word = RATING_WORDS.get(int(rating), "")
        if self.position is None:
            self.history = [i for i in self.history if i != q.id] + [q.id]
            self._open_next()
        else:
            self._go(self.position + 1)
        self.saved.emit(f"Rated question #{q.id}: {rating} ({word})")
        return True

    def back(self) -> bool:
        """Reopen the question rated before this one (in this sitting)."""
        if self.task != RATE or not self.history:
            self.refused.emit("Nothing rated yet")
            return False
        if self.position == 0:
            self.refused.emit("This is the first question you rated")
            return False
        self._go(len(self.history) - 1 if self.position is None else self.position - 1)
        return True

    def forward(self) -> bool:
        """After Back: the question rated after this one, or the next unrated one."""
        if self.position is None:
            self.refused.emit("This is the next question to rate")
            return False
        self._go(self.position + 1)
        return True

    def _go(self, position: int) -> None:
        if position >= len(self.history) or self.questions is None:
            self._open_next()
            return
        self.position = position
        question = self.questions.get(self.history[position])
        if not question.is_current:  # corrected since: rate its current version
            current = [v for v in self.questions.versions(question.uid) if v.is_current]
            question = current[-1] if current else question
        self._open(question)

    # -- the human baseline ---------------------------------------------------------------------
    def set_box(self, box: Seq[float], *, add: bool = False) -> None:
        """A drawn answer box [x, y, w, h]: it replaces the boxes drawn so far, or joins
        them (`add`, Shift+drag: a question about several people)."""
        box = [float(v) for v in box]
        self.boxes = [*self.boxes, box] if add else [box]
        self.draft_changed.emit()

    def clear_boxes(self) -> None:
        if self.boxes:
            self.boxes = []
            self.draft_changed.emit()

    def submit_box(self) -> Any:
        """Submit the drawn box ([x, y, w, h]), or the boxes ([[x, y, w, h], ...])."""
        if not self.boxes:
            self.refused.emit("Draw a box around the answer first (drag on the image)")
            return None
        boxes = [list(b) for b in self.boxes]
        return self.submit(boxes[0] if len(boxes) == 1 else boxes)

    def submit_count(self, text: str) -> Any:
        count = parse_count(text)
        if count is None:
            self.refused.emit("Type a whole number, then press Enter")
            return None
        return self.submit(count)

    def submit_text(self, text: str) -> Any:
        if not text.strip():
            self.refused.emit("Type an answer, then press Enter")
            return None
        return self.submit(text.strip())

    def submit(self, answer: Any) -> Any:
        """Save the annotator's answer to the open question, score it, open the next one."""
        q = self.current
        if not self.ready or q is None:
            self.refused.emit(self._why_nothing())
            return None
        if self.task != ANSWER:
            self.refused.emit("Answers are given in Human baseline (Alt+B)")
            return None
        try:
            score = self.source.answer(q.id, self.annotator, answer)
        except Exception as exc:  # the store's refusal, in one line
            self.refused.emit(_one_line(exc))
            return None
        if self.show_feedback:
            self.feedback = f"Question #{q.id}: {describe_score(score)}"
            self.last_correct = bool(getattr(score, "correct", False))
        else:
            self.feedback, self.last_correct = f"Question #{q.id}: answer saved", None
        self.feedback_changed.emit()
        self._open_next()
        self.saved.emit(f"Answer to question #{q.id} saved")
        return score

    def _why_nothing(self) -> str:
        if self.source is None:
            return "This project has no human-study store"
        if self.annotator is None:
            return "Sign in first (Ctrl+Shift+U)"
        return "No question left: every one is done"


def _one_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
