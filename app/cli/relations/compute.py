"""`reasonscope relations compute`: the geometric relations of JRDB frames, headless, with the
code the Annotate mode's Ctrl+Alt+R runs (docs/cli.md, docs/relations.md)."""

from __future__ import annotations

import argparse
import json

from app.cli.support import (
    CommandTree,
    TerminalProgress,
    batch_args,
    batch_problem,
    db_arg,
    default_db,
    fail,
    report_failures,
)
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `relations compute`."""
    p = commands.group("relations").add_parser(
        "compute",
        help="compute and store the geometric relations of JRDB frames",
        description="Compute the geometric relations of every frame of the project's JRDB "
        "sequences (or of one) from their 3D boxes and lidar points, and store each frame's "
        "as it is done, replacing what it had. The same computation as Ctrl+Alt+R in "
        "Annotate HOI. An interrupted run keeps the frames it finished: run again with "
        "--missing-only to compute the rest.",
    )
    p.add_argument("--sequence", metavar="NAME", help="only this sequence (default: all)")
    p.add_argument(
        "--missing-only",
        action="store_true",
        help="skip frames that have relations already (resume an interrupted run)",
    )
    batch_args(p)
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_relations_compute)


def cmd_relations_compute(args: argparse.Namespace) -> int:
    from app.jobs.relations import compute_relations_batch

    problem = batch_problem(args)
    if problem:
        return fail(problem)
    path = default_db(args)
    with open_project(path) as project:
        sequences = project.sequences.list()
        if args.sequence is not None:
            sequences = [s for s in sequences if s.name == args.sequence]
            if not sequences:
                known = ", ".join(s.name for s in project.sequences.list()) or "none"
                return fail(f"{path}: no sequence {args.sequence!r} (sequences: {known})")
        elif not sequences:
            return fail(f"{path}: no JRDB sequences (import one with `reasonscope import jrdb`)")
        with TerminalProgress() as progress:
            report = compute_relations_batch(
                project,
                [s.id for s in sequences],
                progress,
                missing_only=args.missing_only,
                workers=args.workers,
                ray_address=args.ray_address,
            )
    names = [s.name for s in sequences]
    if args.json:
        failed = [{"frame": item, "error": why} for item, why in report.failed]
        out = {"path": str(path), "sequences": names, "frames": report.stored}
        print(json.dumps({**out, "failed": failed, "backend": report.backend}, indent=2))
    else:
        which = names[0] if len(names) == 1 else f"{len(names)} sequences"
        print(
            f"Relations computed and stored for {report.stored} frame"
            f"{'s' if report.stored != 1 else ''} of {which} in {path} ({report.backend})"
        )
    return report_failures(report)
