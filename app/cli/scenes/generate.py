"""`reasonscope scenes generate` and `scenes export`: cluttered tabletop scenes."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

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
    """Register `scenes generate` and `scenes export`."""
    scenes = commands.group("scenes")
    p = scenes.add_parser(
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

    p = scenes.add_parser(
        "create",
        help="build a scene from a spec of placements and store it",
        description="Read a reasonscope-scene-spec/1 file (docs/scene-authoring.md): catalog "
        "objects at positions in metres from the workspace centre, with a yaw. Each is dropped "
        "in list order onto whatever lies below its spot and left to come to rest; the scene "
        "is settled, checked as generated scenes are, and stored.",
    )
    p.add_argument(
        "--from", dest="spec", type=Path, required=True, metavar="SPEC.json", help="the scene spec"
    )
    db_arg(p, help_text="project file (default: the demo project)")
    gripper_arg(p)
    p.add_argument("--json", action="store_true", help='print {"scene_id": ...}')
    p.set_defaults(func=cmd_scenes_create)

    p = scenes.add_parser(
        "export",
        help="write scenes as JSON Lines",
        description="Write every scene of the project, one JSON object a line, in the "
        "self-contained scene form of reasonscope-benchmark/1 (camera and every body, fixtures "
        "and robot included).",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl", help="output file")
    p.set_defaults(func=cmd_scenes_export)


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


def cmd_scenes_create(args: argparse.Namespace) -> int:
    from app.jobs.scenes import create_scene

    path = default_db(args)
    open_project(path).close()  # refuse a bad project before any simulation
    scene_id = create_scene(path, args.spec, gripper=args.gripper)
    if args.json:
        print(json.dumps({"scene_id": scene_id}))
    else:
        print(f"Stored scene #{scene_id} from {args.spec} in {path}")
    return 0


def cmd_scenes_export(args: argparse.Namespace) -> int:
    from app.jobs.scenes import export_scenes

    count = export_scenes(default_db(args), args.out)
    print(f"Wrote {count} scenes to {args.out}")
    return 0
