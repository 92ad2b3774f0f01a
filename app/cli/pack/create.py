"""`reasonscope pack create`: one person's assignment written to a package file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli.support import CommandTree, db_arg, default_db, fail


def add_parser(commands: CommandTree) -> None:
    """Register `pack create`."""
    p = commands.group("pack").add_parser(
        "create",
        help="write one person's assignment to a package file",
        description="Choose the work under the project's rules (a question's two verifiers "
        "are two people, no one reviews their own label, nothing goes to the same person "
        "twice, adjudication goes to a third person), copy what it needs into a package "
        "file and note the items as out with that person. A rater's or human-baseline "
        "package holds its questions blind: no difficulty, answer, evidence or steps.",
    )
    p.add_argument("--for", dest="person", required=True, metavar="NAME", help="who works on it")
    p.add_argument(
        "--role",
        required=True,
        choices=["verifier", "reviewer", "adjudicator", "annotator", "rater", "human-baseline"],
        help="rater: rate question difficulty 1-5 blind; human-baseline: answer questions "
        "as the human baseline (docs/human-study.md)",
    )
    p.add_argument(
        "--questions",
        metavar="pending|ID,...",
        help="verifier/adjudicator/rater/human-baseline: 'pending' (all the person may take, "
        "not yet rated or answered by them) or ids",
    )
    p.add_argument(
        "--benchmark",
        help="only questions of this benchmark (jrdb, mgvqa); a human-baseline package is jrdb",
    )
    p.add_argument("--task", help="only questions of this task")
    p.add_argument(
        "--labels",
        nargs="?",
        const="all",
        metavar="ID,...",
        help="reviewer: HOI labels to review (all the person may review, or ids)",
    )
    p.add_argument("--sequence", metavar="NAME", help="annotator: the sequence to label")
    p.add_argument(
        "--episodes",
        metavar="all|failed|ID,...",
        help="annotator: recorded episodes to label errors in",
    )
    p.add_argument("--frames", metavar="A-B", help="annotator: frame indices A to B")
    p.add_argument("--limit", type=int, metavar="N", help="at most N items")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.rspack")
    db_arg(p, help_text="the project that sends it (default: the demo project)")
    p.add_argument("--json", action="store_true", help="print the manifest")
    p.set_defaults(func=cmd_create)


def cmd_create(args: argparse.Namespace) -> int:
    from app.work_packages.create import create_package, package_request

    if args.limit is not None and args.limit < 1:
        return fail(f"--limit {args.limit}: need at least one item")
    request = package_request(
        args.person,
        args.role,
        questions=args.questions,
        labels=args.labels,
        sequence=args.sequence,
        frames=args.frames,
        limit=args.limit,
        episodes=args.episodes,
        benchmark=args.benchmark,
        task=args.task,
    )
    manifest = create_package(default_db(args), request, args.out)
    if args.json:
        shown = {k: v for k, v in manifest.items() if k != "copied"}
        print(json.dumps(shown, indent=2))
        return 0
    size = args.out.stat().st_size / 1e6
    print(
        f"Wrote {args.out} ({size:.1f} MB): {len(manifest['items'])} "
        f"{manifest['items'][0]['kind']}s for {manifest['person']} as {manifest['role']}, "
        f"package {manifest['package_id']}"
    )
    for note in manifest["notes"]:
        print(f"note: {note}")
    return 0
