"""`reasonscope queue`: what a person may do next (verify, adjudicate, review, QC), the
lists the app shows them; reads only."""

from __future__ import annotations

import argparse
import json
from typing import Any

from annotation.jrdb.hoi_review import QC, REVIEW, LabelRecord
from annotation.models import Annotator, Question
from app.cli.person import clean_name, person_in
from app.cli.support import CommandTree, db_arg, default_db, fail
from store import open_for_reading
from store.project import Project

SHOWN_PER_LIST = 5  # items per list in `queue`'s text output


def add_parser(commands: CommandTree) -> None:
    """Register `queue`."""
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
    who = person or Annotator(id=0, name=clean_name(name), created_at="")
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
