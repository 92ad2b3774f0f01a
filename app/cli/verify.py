"""`reasonscope verify`: a verification verdict on a question as a named person, under the blind
two-verifier protocol (`project.verifications.submit`; who may work: `app/cli/person.py`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from annotation.models import Question
from annotation.verification import ALL_CRITERIA, Verdict, asked_criteria
from app.cli.person import check_package, person_in
from app.cli.support import CommandTree, db_arg, default_db, fail
from store import open_project

CRITERION_NUMBERS = {str(i): name for i, name in enumerate(ALL_CRITERIA, start=1)}


def add_parser(commands: CommandTree) -> None:
    """Register `verify`."""
    p = commands.add_parser(
        "verify",
        help="give a verification verdict on a question as a named person",
        description="A verdict on a question under the blind two-verifier protocol, as the "
        "Verify mode gives it: the three criteria that hold (1 the wording, options and "
        "answer are unambiguous, 2 the first view withholds the evidence, 3 clutter removal "
        "recovers it; for a Compare question also 4 the three labelled objects are visibly "
        "distinct in volume, which only Compare questions ask), then approve, correct (edit --text, --options or --answer) or reject "
        "(with --reason). The first two people fill the first round; a third may adjudicate "
        "only a disagreement. A refused verdict (one person in two slots, a decided "
        "question, a decision the criteria rule out) exits 2 naming the rule; nothing is "
        "written. Prints the question's status as far as the person may see it.",
    )
    p.add_argument("question_id", type=int, metavar="QUESTION_ID", help="the question's id")
    p.add_argument(
        "--as",
        dest="person",
        required=True,
        metavar="NAME",
        help="who gives the verdict (signed in; created on first use)",
    )
    p.add_argument("--decision", required=True, choices=("approve", "reject", "correct"))
    p.add_argument(
        "--criteria",
        required=True,
        metavar="1,2,3[,4]",
        help="the criteria that hold, by number (or name); 'none' if none does. A Compare "
        "question asks 4 too (volumes visibly distinct): left out, it does not hold",
    )
    p.add_argument("--reason", default="", metavar="TEXT", help="why (a reject needs one)")
    p.add_argument("--text", metavar="T", help="correct: the question's new wording")
    p.add_argument(
        "--options",
        metavar="JSON",
        help="correct: the new options as a JSON list (null: an open question)",
    )
    p.add_argument(
        "--answer",
        metavar="A",
        help="correct: the new answer (JSON unless the "
        "question's answer is text, as in the Verify mode's editor)",
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=0.0,
        metavar="S",
        help="seconds spent on the question (default 0)",
    )
    db_arg(p, help_text="project or work package file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="print what was recorded as JSON")
    p.set_defaults(func=cmd_verify)


def _held(text: str) -> set[str] | str:
    """--criteria as the names of the criteria that hold, or what is wrong with it."""
    held: set[str] = set()
    if text.strip().lower() not in ("", "none"):
        for item in (part.strip() for part in text.split(",")):
            name = CRITERION_NUMBERS.get(item, item.lower().replace("-", "_"))
            if name not in ALL_CRITERIA:
                return (
                    f"--criteria {text}: {item!r} is no criterion; give numbers "
                    "(1 unambiguous, 2 evidence_withheld, 3 evidence_recoverable, "
                    "4 volumes_distinct: Compare only) or 'none'"
                )
            held.add(name)
    return held


def _criteria(held: set[str], task: str) -> dict[str, bool]:
    """The yes/no answers to what a question of this task asks (Compare: 4 too); one that
    holds but is not asked is passed on, for the store to refuse by its rule."""
    answers = {name: name in held for name in asked_criteria(task)}
    return {**answers, **{name: True for name in held if name not in answers}}


def _corrections(args: argparse.Namespace, question: Question) -> dict[str, Any]:
    """The edits of --text, --options and --answer (ValueError: --options is not JSON)."""
    edits: dict[str, Any] = {}
    if args.text is not None:
        edits["text"] = args.text
    if args.options is not None:
        try:
            edits["options"] = json.loads(args.options)
        except ValueError:
            raise ValueError(f"--options {args.options}: not JSON (give a list)") from None
    if args.answer is not None:
        answer = args.answer.strip()
        if not isinstance(question.answer, str):  # typed like the question's: as the app does
            try:
                answer = json.loads(answer)
            except ValueError:
                pass
        edits["answer"] = answer
    return edits


def cmd_verify(args: argparse.Namespace) -> int:
    held = _held(args.criteria)
    if isinstance(held, str):
        return fail(held)
    path = default_db(args)
    with open_project(path) as project:
        check_package(project, args.person)
        question = project.questions.get(args.question_id)
        where = f"{project.path}: question {args.question_id}"
        criteria = _criteria(held, question.task)
        try:
            verdict = Verdict(
                decision=args.decision,
                reason=args.reason,
                corrections=_corrections(args, question),
                **criteria,
            )
        except ValueError as exc:
            return fail(f"{where}: {exc}")
        try:
            with project.write():  # a first sign-in is undone with a refused verdict
                person = person_in(project, args.person, create=True)
                assert person is not None
                record = project.verifications.submit(
                    args.question_id, person, verdict, args.seconds
                )
        except ValueError as exc:  # e.g. --seconds -1
            return fail(f"{where}: {exc}")
        outcome = project.verifications.outcome(args.question_id)
        result = {
            "verification_id": record.id,
            "question_id": record.question_id,
            "person": person.name,
            "round": record.round,
            "decision": record.decision,
            "proposed_question_id": record.proposed_question_id,
            "status": outcome.status,
            "needs_adjudication": outcome.needs_adjudication,
        }
    if args.json:
        print(json.dumps(result))
        return 0
    met = [name.replace("_", " ") for name in ALL_CRITERIA if criteria.get(name)]
    print(
        f"Recorded {person.name}'s {record.round}-round verdict #{record.id} on question "
        f"{record.question_id}: {record.decision} (criteria met: {', '.join(met) or 'none'})"
    )
    if record.proposed_question_id is not None:
        print(
            f"  proposed version: question #{record.proposed_question_id} (current only if "
            "the outcome is corrected)"
        )
    print(f"  status: {_status_words(result)}")
    return 0


def _status_words(result: dict[str, Any]) -> str:
    """The question's status as the person who just gave a verdict may read it."""
    if result["needs_adjudication"]:
        return "pending: the two verdicts disagree; a third person adjudicates"
    if result["status"] == "pending":
        return "pending: waiting for a second verifier"
    return result["status"]
