"""`reasonscope verify`, `review` and `queue`: a person's verification and HOI review work,
headless, under the rules the GUI works under (docs/cli.md#reasonscope-verify).

The rules live in the store: `project.verifications.submit` (blind pairs, one slot a person,
adjudication only of a disagreement) and `project.hoi.review` (no self-review, two reviewers
a round, QC by a third). A refused action raises `ProjectError`, which `app.cli.main` prints
as one line naming the file; nothing is written, not even a first sign-in. In a work package
(project_meta `package`) only the package's person may work.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from annotation.jrdb.hoi_review import QC, REVIEW, LabelRecord
from annotation.models import Annotator, Question
from annotation.verification import CRITERIA, Verdict
from app.cli.support import CommandTree, db_arg, default_db, fail
from store import ProjectError, open_for_reading, open_project
from store.project import Project

CRITERION_NUMBERS = {str(i): name for i, name in enumerate(CRITERIA, start=1)}
SHOWN_PER_LIST = 5  # items per list in `queue`'s text output


def add_parser(commands: CommandTree) -> None:
    """Register `verify`, `review` and `queue`."""
    p = commands.add_parser(
        "verify",
        help="give a verification verdict on a question as a named person",
        description="A verdict on a question under the blind two-verifier protocol, as the "
        "Verify mode gives it: the three criteria that hold (1 the wording, options and "
        "answer are unambiguous, 2 the first view withholds the evidence, 3 clutter removal "
        "recovers it), then approve, correct (edit --text, --options or --answer) or reject "
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
        metavar="1,2,3",
        help="the criteria that hold, by number (or name); 'none' if none does",
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

    p = commands.add_parser(
        "review",
        help="review or quality-check an HOI label as a named person",
        description="A review of an HOI label's current round, as the Annotate mode's review "
        "panel gives it: accept, or reject with a comment; with --qc a quality check of a "
        "sampled, accepted label. Nobody reviews their own label, a round takes two reviews "
        "by two people (giving yours again replaces it), a QC check comes from a third. A "
        "refused review exits 2 naming the rule; nothing is written.",
    )
    p.add_argument("label_id", type=int, metavar="LABEL_ID", help="the HOI label's id")
    p.add_argument(
        "--as",
        dest="person",
        required=True,
        metavar="NAME",
        help="who reviews (signed in; created on first use)",
    )
    p.add_argument("--decision", required=True, choices=("accept", "reject"))
    p.add_argument(
        "--difficulty",
        type=int,
        choices=(1, 2, 3),
        help="your own difficulty: 1 easy, 2 medium, 3 hard (the app asks for it "
        "before an accept; reviewer agreement counts only reviews with one)",
    )
    p.add_argument(
        "--comment", default="", metavar="TEXT", help="what is wrong (a reject needs one)"
    )
    p.add_argument("--qc", action="store_true", help="a quality check, not a review")
    db_arg(p, help_text="project or work package file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="print what was recorded as JSON")
    p.set_defaults(func=cmd_review)

    p = commands.add_parser(
        "queue",
        help="what a person may do next: verify, adjudicate, review, QC",
        description="The lists the app shows a signed-in person: questions to verify, "
        "disagreements to adjudicate (never one's own), HOI labels to review, one's labels "
        "returned by a reviewer, and labels to quality-check. Reads only: a name the project "
        "does not know is not created; it gets the lists anyone new would get.",
    )
    p.add_argument("--as", dest="person", required=True, metavar="NAME", help="whose lists")
    p.add_argument(
        "--limit", type=int, default=50, metavar="N", help="at most N items per list (default 50)"
    )
    db_arg(p, help_text="project or work package file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="print the lists as one JSON object")
    p.set_defaults(func=cmd_queue)


# -- who works ------------------------------------------------------------------------------
def _clean(name: str) -> str:
    return " ".join(name.split())


def check_package(project: Project, name: str) -> None:
    """Refuse (`ProjectError`) a nameless person, and anyone but its person in a work
    package: a package holds one person's assignment, and only that person works in it."""
    if not _clean(name):
        raise ProjectError(f"{project.path}: --as needs a person's name")
    project.packages.check_person(name)


def person_in(project: Project, name: str, *, create: bool) -> Annotator | None:
    """The annotator `name` after `check_package`: signed in (created if new) when
    `create`, else found or None."""
    check_package(project, name)
    if create:
        return project.annotators.sign_in(name)
    return project.annotators.find(_clean(name))


# -- verify ---------------------------------------------------------------------------------
def _criteria(text: str) -> dict[str, bool] | str:
    """--criteria as the three yes/no answers, or what is wrong with it."""
    held: set[str] = set()
    if text.strip().lower() not in ("", "none"):
        for item in (part.strip() for part in text.split(",")):
            name = CRITERION_NUMBERS.get(item, item.lower().replace("-", "_"))
            if name not in CRITERIA:
                return (
                    f"--criteria {text}: {item!r} is no criterion; give numbers "
                    "(1 unambiguous, 2 evidence_withheld, 3 evidence_recoverable) or 'none'"
                )
            held.add(name)
    return {name: name in held for name in CRITERIA}


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
    criteria = _criteria(args.criteria)
    if isinstance(criteria, str):
        return fail(criteria)
    path = default_db(args)
    with open_project(path) as project:
        check_package(project, args.person)
        question = project.questions.get(args.question_id)
        where = f"{project.path}: question {args.question_id}"
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
    held = [name.replace("_", " ") for name in CRITERIA if criteria[name]]
    print(
        f"Recorded {person.name}'s {record.round}-round verdict #{record.id} on question "
        f"{record.question_id}: {record.decision} (criteria met: {', '.join(held) or 'none'})"
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


# -- review ---------------------------------------------------------------------------------
def cmd_review(args: argparse.Namespace) -> int:
    path = default_db(args)
    kind = QC if args.qc else REVIEW
    with open_project(path) as project:
        try:
            with project.write():  # a first sign-in is undone with a refused review
                person = person_in(project, args.person, create=True)
                assert person is not None
                review = project.hoi.review(
                    args.label_id,
                    reviewer=person,
                    verdict=args.decision,
                    difficulty=args.difficulty,
                    comment=args.comment,
                    kind=kind,
                )
        except ValueError as exc:  # a reject without a comment
            return fail(f"{project.path}: label {args.label_id}: {exc}")
        except project.db.conn.IntegrityError as exc:  # the triggers of migration 0005
            return fail(f"{project.path}: label {args.label_id}: {exc}")
        record = project.hoi.record(args.label_id)
        assert record is not None
        result = {
            "review_id": review.id,
            "label_id": args.label_id,
            "person": person.name,
            "kind": kind,
            "round": record.round,
            "decision": review.verdict,
            "difficulty": review.difficulty,
            # how many, never what the other said: the review form is blind
            "reviews_in_round": len(record.current(kind)),
        }
    if args.json:
        print(json.dumps(result))
        return 0
    what = "quality check" if args.qc else "review"
    mine = f" (difficulty {review.difficulty})" if review.difficulty else ""
    print(
        f"Recorded {person.name}'s {what} #{review.id} of label #{args.label_id}, round "
        f"{record.round}: {review.verdict}{mine}"
    )
    if not args.qc:
        print(f"  reviews in this round: {result['reviews_in_round']}/2")
    return 0


# -- queue ----------------------------------------------------------------------------------
def _question_item(question: Question) -> dict[str, Any]:
    return {
        "question_id": question.id,
        "benchmark": question.benchmark,
        "task": question.task,
        "text": question.text,
    }


def _label_item(record: LabelRecord, *, own: bool) -> dict[str, Any]:
    """A label in a list. Someone else's shows neither its difficulty nor its reviews (the
    review form is blind); one's own returned label shows both, as the app does."""
    label = record.label
    item = {
        "label_id": label.id,
        "frame_id": label.frame_id,
        "sequence_id": record.sequence_id,
        "frame_index": record.frame_index,
        "subject_entity_id": label.subject_entity_id,
        "object_entity_id": label.object_entity_id,
        "category": label.category,
        "predicate": label.predicate,
        "round": record.round,
        "author": record.author_name,
        "reviews_in_round": len(record.current(REVIEW)),
    }
    if own:
        item["difficulty"] = label.difficulty
        item["reviews"] = [
            {
                "reviewer": r.reviewer_name,
                "kind": r.kind,
                "decision": r.verdict,
                "difficulty": r.difficulty,
                "comment": r.comment,
            }
            for r in record.current(REVIEW) + record.current(QC)
        ]
    return item


def person_queues(project: Project, name: str, limit: int) -> dict[str, Any]:
    """Every list `name` may work through next, `limit` items each (plus one, to tell a
    full list from a cut one). A name the project does not know gets a stand-in annotator
    with id 0, which SQLite never gives a row: the lists anyone new would get."""
    person = person_in(project, name, create=False)
    who = person or Annotator(id=0, name=_clean(name), created_at="")
    hoi = project.hoi.queues(who)
    return {
        "person": who.name,
        "known": person is not None,
        "verify": [_question_item(q) for q in project.verifications.queue(who, limit + 1)],
        "adjudicate": [
            _question_item(q) for q in project.verifications.adjudication_queue(who, limit + 1)
        ],
        "review": [_label_item(r, own=False) for r in hoi["review"][: limit + 1]],
        "returned": [_label_item(r, own=True) for r in hoi["returned"][: limit + 1]],
        "qc": [_label_item(r, own=False) for r in hoi["qc"][: limit + 1]],
    }


LISTS = {
    "verify": "to verify",
    "adjudicate": "to adjudicate",
    "review": "HOI labels to review",
    "returned": "own HOI labels returned",
    "qc": "HOI labels to quality-check",
}


def cmd_queue(args: argparse.Namespace) -> int:
    if args.limit < 1:
        return fail(f"--limit {args.limit}: need at least one")
    path = default_db(args)
    with open_for_reading(path) as project:
        queues = person_queues(project, args.person, args.limit)
    queues["truncated"] = [name for name in LISTS if len(queues[name]) > args.limit]
    for name in LISTS:
        del queues[name][args.limit :]
    if args.json:
        print(json.dumps(queues, indent=2))
        return 0
    known = "" if queues["known"] else " (not in the project yet)"
    print(f"{queues['person']}{known} may work on:")
    for name, words in LISTS.items():
        items = queues[name]
        more = "+" if name in queues["truncated"] else ""
        print(f"  {len(items)}{more} {words}")
        for item in items[:SHOWN_PER_LIST]:
            print(f"    {_item_line(item)}")
        if len(items) > SHOWN_PER_LIST:
            print(f"    ... and {len(items) - SHOWN_PER_LIST} more (--json lists them)")
    return 0


def _item_line(item: dict[str, Any]) -> str:
    if "question_id" in item:
        text = item["text"] if len(item["text"]) <= 60 else item["text"][:57] + "..."
        return f"question #{item['question_id']} ({item['benchmark']} {item['task']}): {text}"
    target = f" -> entity {item['object_entity_id']}" if item["object_entity_id"] else ""
    return (
        f"label #{item['label_id']}: frame {item['frame_index']}, entity "
        f"{item['subject_entity_id']} {item['predicate']}{target} (by {item['author']}, "
        f"round {item['round']}, {item['reviews_in_round']}/2 reviews)"
    )
