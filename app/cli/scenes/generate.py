"""`reasonscope scenes generate`: seeded cluttered tabletop scenes, settled, checked and stored."""

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
    gripper_arg,
    report_failures,
)
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `scenes generate`."""
    p = commands.group("scenes").add_parser(
        "generate",
        help="generate seeded scenes and store them",
        description="Sample objects into the 50 x 50 cm workspace, drop them, settle, discard "
        "scenes where an object left the table or the top-down view, and store each scene's "
        "full state.",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--n", type=int, required=True, help="how many scenes")
    p.add_argument(
        "--seed", type=int, required=True, help="seed of the first scene; the rest follow"
    )
    p.add_argument(
        "--objects",
        default="8-15",
        metavar="LOW-HIGH",
        help="objects per scene, a count or a range within 1-15 (default 8-15)",
    )
    gripper_arg(p)
    batch_args(p, resume="skip seeds that already have a scene in the project")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_scenes_generate)


def cmd_scenes_generate(args: argparse.Namespace) -> int:
    from app.jobs.batch import BatchSetupError
    from app.jobs.scenes import generate_and_store, parse_object_range

    if args.n < 1:
        return fail(f"--n {args.n}: need at least one scene")
    try:
        objects = parse_object_range(args.objects)
    except ValueError as exc:
        return fail(str(exc))
    problem = batch_problem(args)
    if problem:
        return fail(problem)
    path = default_db(args)
    open_project(path).close()  # refuse a bad project before any simulation
    reports: list = []
    with TerminalProgress() as progress:
        try:
            ids = generate_and_store(
                path,
                n=args.n,
                seed=args.seed,
                objects=objects,
                gripper=args.gripper,
                progress=progress,
                workers=args.workers,
                ray_address=args.ray_address,
                resume=args.resume,
                report=reports,
            )
        except BatchSetupError as exc:
            return fail(str(exc))
    (report,) = reports
    if args.json:
        print(
            json.dumps(
                {
                    "path": str(path),
                    "scene_ids": ids,
                    "failed": [{"item": i, "error": e} for i, e in report.failed],
                    "backend": report.backend,
                }
            )
        )
    elif ids:
        print(f"Stored {len(ids)} scenes in {path} (ids {ids[0]}..{ids[-1]}; {report.backend})")
    else:
        print(f"Stored no new scenes in {path} ({report.backend})")
    return report_failures(report)
