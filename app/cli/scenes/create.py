"""`reasonscope scenes create`: a scene built from a spec of placements and stored
(docs/scene-authoring.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli.support import (
    CommandTree,
    db_arg,
    default_db,
    gripper_arg,
)
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `scenes create`."""
    p = commands.group("scenes").add_parser(
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
