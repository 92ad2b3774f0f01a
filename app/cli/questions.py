"""`reasonscope questions generate --benchmark jrdb`: the adaptive query engine from the CLI."""

from __future__ import annotations

import argparse
import json

from annotation.query.model import MODALITIES, SCOPES, SUBJECTS, Preferences
from app.cli.support import TerminalProgress, default_db, fail
from store import open_project

JRDB_TASKS = ("vg", "vqa-wh", "vqa-count")


def add_jrdb_generate_options(p: argparse.ArgumentParser) -> None:
    """The jrdb-only options of `questions generate`."""
    p.add_argument(
        "--modality", choices=MODALITIES, default="image", help="jrdb: image or video (image)"
    )
    p.add_argument(
        "--subject", choices=SUBJECTS, default="human", help="jrdb: who the question is about"
    )
    p.add_argument(
        "--spatial", choices=SCOPES, default="single", help="jrdb: entities involved (S 1/2/3)"
    )
    p.add_argument(
        "--temporal",
        choices=SCOPES,
        default="single",
        help="jrdb: time slots involved (T 1/2/3; video only)",
    )
    p.add_argument("--sequence", metavar="NAME", help="jrdb: the sequence (when several)")
    p.add_argument(
        "--window",
        type=int,
        default=5,
        metavar="FRAMES",
        help="jrdb video: frames in a question's window (default 5)",
    )


def cmd_generate_jrdb(args: argparse.Namespace) -> int:
    from app.jobs.reasoning import generate_jrdb_questions

    if args.task not in JRDB_TASKS:
        return fail(f"--task {args.task} is an mgvqa task; jrdb tasks: {', '.join(JRDB_TASKS)}")
    if args.n < 1:
        return fail(f"--n {args.n}: need at least one question")
    if args.window < 1:
        return fail(f"--window {args.window}: need at least one frame")
    try:
        prefs = Preferences(args.task, args.modality, args.subject, args.spatial, args.temporal)
    except ValueError as exc:
        return fail(f"preferences: {exc}")
    path = default_db(args)
    open_project(path).close()  # refuse a bad project before any work
    try:
        with TerminalProgress() as progress:
            summary = generate_jrdb_questions(
                path,
                prefs=prefs,
                n=args.n,
                seed=args.seed,
                sequence=args.sequence,
                window=args.window,
                progress=progress,
            )
    except ValueError as exc:
        return fail(str(exc))
    if args.json:
        print(json.dumps(summary.as_dict(), indent=2))
        return 0
    print(f"{summary.accepted} {args.task} questions stored ({summary.attempts} tries)")
    for level, count in sorted(summary.by_level.items()):
        print(f"  {count:>4}  {level}")
    if summary.rejected:
        print("not generated:")
        for reason, count in summary.rejected.most_common():
            print(f"  {count:>4}  {reason}")
    return 0 if summary.accepted else 1
