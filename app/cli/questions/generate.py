"""`reasonscope questions generate`: MG-VQA questions with hidden evidence (mgvqa), or
JRDB-Reasoning questions by the adaptive query engine (jrdb)."""

from __future__ import annotations

import argparse
import json

from annotation.query.model import (
    MODALITIES,
    REQUIRABLE_KEYS,
    SCOPES,
    SUBJECTS,
    Preferences,
    parse_keys,
)
from app.cli.support import (
    CommandTree,
    TerminalProgress,
    batch_args,
    batch_problem,
    db_arg,
    default_db,
    fail,
    gripper_arg,
)
from store import open_project

JRDB_TASKS = ("vg", "vqa-wh", "vqa-count")


def add_parser(commands: CommandTree) -> None:
    """Register `questions generate`."""
    p = commands.group("questions").add_parser(
        "generate",
        help="generate tabletop (mgvqa) or JRDB-Reasoning (jrdb) questions",
        description="mgvqa: MG-VQA questions whose answer-critical objects are hidden in the "
        "model's first view (visibility at most --max-visibility), each with its own scene; "
        "--n questions per task, and a summary of what each criterion rejected. jrdb: questions "
        "of controlled difficulty from a JRDB sequence's scene graphs by the adaptive query "
        "engine (docs/jrdb-questions.md), with their step-by-step annotations.",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument(
        "--benchmark", default="mgvqa", choices=["mgvqa", "jrdb"], help="benchmark (mgvqa)"
    )
    p.add_argument(
        "--task",
        choices=["count", "find", "beneath", "compare", "all", "vg", "vqa-wh", "vqa-count"],
        required=True,
        help="mgvqa: count, find, beneath, compare or all; jrdb: vg, vqa-wh or vqa-count",
    )
    p.add_argument("--n", type=int, required=True, help="questions (per task for mgvqa)")
    p.add_argument("--seed", type=int, required=True, help="first generator seed")
    p.add_argument(
        "--max-visibility",
        type=float,
        default=0.10,
        metavar="FRACTION",
        help="mgvqa: largest visible fraction of an answer-critical object (default 0.10)",
    )
    add_jrdb_generate_options(p)
    gripper_arg(p)
    batch_args(
        p,
        resume="mgvqa: count the questions already stored from these seeds and "
        "do not try their seeds again",
    )
    prerender_arg(p)
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_questions_generate)


def prerender_arg(p: argparse.ArgumentParser) -> None:
    """`--prerender`: store the Direct-mode first view of every new question's scene."""
    p.add_argument(
        "--prerender",
        action="store_true",
        help="mgvqa: render each question's first view (top-down, the model's image size) "
        "now and store it, so that model runs send it without rebuilding the scene",
    )


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
    p.add_argument(
        "--require",
        metavar="KEY[,KEY...]",
        default="",
        help="jrdb: keep only combinations that use all these sub-question keys, in "
        "JRDB-Reasoning's names: " + ", ".join(REQUIRABLE_KEYS),
    )
    p.add_argument("--sequence", metavar="NAME", help="jrdb: the sequence (when several)")
    p.add_argument(
        "--window",
        type=int,
        default=5,
        metavar="FRAMES",
        help="jrdb video: frames in a question's window (default 5)",
    )


def cmd_questions_generate(args: argparse.Namespace) -> int:
    from app.jobs.batch import BatchSetupError
    from app.jobs.questions import BUILT_TASKS, generate_questions

    if args.require and args.benchmark != "jrdb":
        return fail("--require is for --benchmark jrdb (the query engine's sub-question keys)")
    if args.benchmark == "jrdb":
        if args.prerender:
            return fail("--prerender is for --benchmark mgvqa (JRDB questions show frames)")
        if args.workers != 1 or args.ray_address or args.resume:
            return fail(
                "--workers, --ray-address and --resume are for --benchmark mgvqa; "
                "JRDB questions are generated in this process (docs/scale-out.md)"
            )
        return cmd_generate_jrdb(args)
    if args.task in ("vg", "vqa-wh", "vqa-count"):
        return fail(
            f"--task {args.task} is a jrdb task; mgvqa tasks: count, find, beneath, compare"
        )
    tasks = list(BUILT_TASKS) if args.task == "all" else [args.task]
    if args.n < 1:
        return fail(f"--n {args.n}: need at least one question")
    if not 0.0 <= args.max_visibility <= 1.0:
        return fail(f"--max-visibility {args.max_visibility}: must lie within 0-1")
    problem = batch_problem(args)
    if problem:
        return fail(problem)
    path = default_db(args)
    open_project(path).close()  # refuse a bad project before any simulation
    with TerminalProgress() as progress:
        try:
            summary = generate_questions(
                path,
                tasks=tasks,
                n=args.n,
                seed=args.seed,
                threshold=args.max_visibility,
                gripper=args.gripper,
                progress=progress,
                workers=args.workers,
                ray_address=args.ray_address,
                resume=args.resume,
            )
        except BatchSetupError as exc:
            return fail(str(exc))
        rendered = None
        if args.prerender and summary.question_ids:
            from app.jobs.first_views import prerender_questions

            rendered = prerender_questions(path, summary.question_ids, progress=progress)
    if args.json:
        print(json.dumps({**summary.as_dict(), "prerendered": rendered}, indent=2))
        return 1 if summary.failed else 0
    if rendered is not None:
        print(f"first views prerendered: {rendered}")
    for task, count in summary.accepted.items():
        print(f"{task:<8} {count} accepted")
    print(f"{summary.attempts} candidates tried; rejected:")
    for reason, count in summary.rejected.most_common() or [("none", 0)]:
        print(f"  {count:>4}  {reason}")
    print(f"time: settling {summary.scene_s:.1f} s, visibility checks {summary.visibility_s:.1f} s")
    return 1 if summary.failed else 0


def cmd_generate_jrdb(args: argparse.Namespace) -> int:
    from app.jobs.reasoning import generate_jrdb_questions

    if args.task not in JRDB_TASKS:
        return fail(f"--task {args.task} is an mgvqa task; jrdb tasks: {', '.join(JRDB_TASKS)}")
    if args.n < 1:
        return fail(f"--n {args.n}: need at least one question")
    if args.window < 1:
        return fail(f"--window {args.window}: need at least one frame")
    try:
        require = parse_keys(args.require)
    except ValueError as exc:
        return fail(f"--require {args.require}: {exc}")
    try:
        prefs = Preferences(
            args.task, args.modality, args.subject, args.spatial, args.temporal, require
        )
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
