"""`reasonscope review`: a review or quality check of an HOI label as a named person
(`project.hoi.review`; who may work: `app/cli/person.py`)."""

from __future__ import annotations

import argparse
import json

from annotation.jrdb.hoi_review import QC, REVIEW
from app.cli.person import person_in
from app.cli.support import CommandTree, db_arg, default_db, fail
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `review`."""
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
