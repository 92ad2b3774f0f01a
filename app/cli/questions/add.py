"""`reasonscope questions add`: a question authored on a chosen scene, with the generators'
checks (docs/scene-authoring.md#authoring-a-question)."""

from __future__ import annotations

import argparse
import json

from app.cli.support import CommandTree, db_arg, default_db, fail
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `questions add` on the `questions` group."""
    p = commands.group("questions").add_parser(
        "add",
        help="author a question on a stored scene, checked as generated ones are",
        description="Name the objects (catalog names, or object ids where a name is shared): "
        "count and find one kind; beneath the cover, then the hidden object; compare three "
        "boxes, lettered A, B, C in that order. The answer and the criteria are computed in "
        "the scene: at most --max-visibility of the hidden evidence in the model's top-down "
        "view, Beneath's reveal when the cover is made transparent, Compare's occluded "
        "letter. A passing question is stored pending, for two verifiers, tagged 'authored'; "
        "a failing one exits 2 naming the criterion and the measured value, storing nothing.",
    )
    p.add_argument("--scene", type=int, required=True, metavar="ID", help="the scene's id")
    p.add_argument("--task", required=True, choices=["count", "find", "beneath", "compare"])
    p.add_argument(
        "--target",
        action="append",
        required=True,
        metavar="NAME",
        help="an object the question is about (repeat for beneath and compare)",
    )
    p.add_argument(
        "--tag",
        action="append",
        default=[],
        metavar="TAG",
        help="a tag besides 'authored' (e.g. hard); repeatable",
    )
    p.add_argument(
        "--extreme",
        choices=["largest", "smallest"],
        default="largest",
        help="compare: which one the question asks for (largest)",
    )
    p.add_argument(
        "--max-visibility",
        type=float,
        default=0.10,
        metavar="FRACTION",
        help="largest visible fraction of hidden evidence (default 0.10)",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--json", action="store_true", help='print {"question_id": ...}')
    p.set_defaults(func=cmd_questions_add)


def cmd_questions_add(args: argparse.Namespace) -> int:
    from app.jobs.questions import add_question
    from sim.tabletop.authoring.questions import CriterionFailed

    if not 0 < args.max_visibility < 1:
        return fail(f"--max-visibility {args.max_visibility}: give a fraction between 0 and 1")
    path = default_db(args)
    open_project(path).close()
    try:
        question_id = add_question(
            path,
            args.scene,
            args.task,
            args.target,
            tags=args.tag,
            threshold=args.max_visibility,
            extreme=args.extreme,
        )
    except CriterionFailed as exc:
        return fail(f"scene {args.scene}: {args.task} question fails {exc}")
    if args.json:
        print(json.dumps({"question_id": question_id}))
    else:
        print(f"Stored question #{question_id} ({args.task}, pending verification) in {path}")
    return 0
