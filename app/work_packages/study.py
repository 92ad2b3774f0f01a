"""Human-study work packages: a rater's difficulty ratings and a human-baseline answerer's
answers, handed out blind and merged back (docs/work-packages.md, docs/human-study.md).

Which questions go out is the store's own queue (`project.reasoning.rating_queue` and
`answer_queue`: current, not excluded, not yet rated or answered by the person, in their
own order), less what has been handed to them already. The package holds its questions
blind (`store.package_io.BLIND_QUESTIONS`: no S, R, T, D, answer, evidence or steps) and
nobody's ratings or answers. Merging goes through `project.reasoning.rate` and `answer`,
as the Human study mode does, so an answer is scored here, against the project's gold
answer, whatever the package says of it.
"""

from __future__ import annotations

from typing import Any, Protocol

from annotation.models import Annotator, Question
from store import Project, ProjectError
from store.packages import ROLE_KIND

#: The roles whose packages hold their questions blind.
BLIND_ROLES = ("rater", "human-baseline")
#: The human baseline answers JRDB-Reasoning questions only, as in the paper (and the app).
BASELINE_BENCHMARK = "jrdb"
_DONE = {"rating": "rated", "answer": "answered"}


class StudyRequest(Protocol):
    """What of a package request the choice reads (`app.work_packages.create`)."""

    role: str
    questions: str | list[int] | None
    benchmark: str | None
    task: str | None
    limit: int | None


def study_questions(project: Project, person: Annotator, request: StudyRequest) -> list[Question]:
    """The questions a rater or human-baseline package hands to `person`. With
    `request.questions` "pending": their queue, less what was handed to them already, of
    `request.benchmark` and `request.task` when given, up to `request.limit`. With ids:
    those, in that order; one that cannot go raises `ProjectError` naming it and the rule."""
    kind = ROLE_KIND[request.role]
    benchmark = request.benchmark
    if kind == "answer":
        benchmark = benchmark or BASELINE_BENCHMARK
        if benchmark != BASELINE_BENCHMARK:
            raise ProjectError(
                f"{project.path}: --benchmark {benchmark}: the human baseline answers "
                f"{BASELINE_BENCHMARK} questions only"
            )
    if kind == "rating":
        queue = project.reasoning.rating_queue(person, benchmark)
    else:
        queue = project.reasoning.answer_queue(person, benchmark)
    if request.questions == "pending":
        limit = request.limit or len(queue)
        chosen: list[Question] = []
        for question_id in queue:
            if len(chosen) >= limit:
                break
            question = project.questions.get(question_id)
            if request.task in (None, question.task) and not _handed(
                project, person, kind, question
            ):
                chosen.append(question)
        return chosen
    waiting = set(queue)
    chosen = []
    for question_id in request.questions or []:
        question = project.questions.get(question_id)
        refusal = _refusal(project, person, kind, question, benchmark, waiting)
        if refusal:
            raise ProjectError(f"{project.path}: question {question_id}: {refusal}")
        chosen.append(question)
    return chosen


def _handed(project: Project, person: Annotator, kind: str, question: Question) -> bool:
    return project.packages.handed_to(kind, question.id, str(question.version), person.id)


def _refusal(
    project: Project,
    person: Annotator,
    kind: str,
    question: Question,
    benchmark: str | None,
    waiting: set[int],
) -> str | None:
    """Why this question cannot go to this person to rate or answer, or None."""
    if not question.is_current:
        return "is not current (corrected since): send its current version"
    if question.status == "excluded":
        return "is excluded from the benchmark"
    if benchmark is not None and question.benchmark != benchmark:
        if kind == "answer":
            return (
                f"is a {question.benchmark} question; the human baseline answers {benchmark} ones"
            )
        return f"is a {question.benchmark} question, not {benchmark}"
    if _handed(project, person, kind, question):
        return f"already handed to {person.name} (nothing goes to a person twice)"
    if question.id not in waiting:
        return f"{person.name} {_DONE[kind]} it already"
    return None


# -- merging back ------------------------------------------------------------------------------
def apply_rating(
    project: Project, person: Annotator, row: dict[str, Any], version: str | None, context: dict
) -> int:
    """Rate the question here as the package's person did (at their time); the row it
    became. `ProjectError` when the question was not in the package or was corrected."""
    question = _as_sent(project, row, version)
    project.reasoning.rate(question.id, person, row["rating"], created_at=row["created_at"])
    return project.reasoning.ratings(question.id, annotator=person)[-1].id


def apply_answer(
    project: Project, person: Annotator, row: dict[str, Any], version: str | None, context: dict
) -> int:
    """Answer the question here with the package's answer, scored against this project's
    gold answer (the package's own score is not read); the row it became."""
    question = _as_sent(project, row, version)
    project.reasoning.answer(question.id, person, row["answer"], created_at=row["created_at"])
    return project.reasoning.human_answers(question.id, annotator=person)[-1].id


def _as_sent(project: Project, row: dict[str, Any], version: str | None) -> Question:
    """The question a rating or answer is about, as it went out (`version`)."""
    if version is None:
        raise ProjectError(f"question {row['question_id']} was not in this package")
    question = project.questions.get(row["question_id"])
    if str(question.version) != version or not question.is_current:
        raise ProjectError(
            f"question {question.id} has been corrected here since (no longer current)"
        )
    return question
