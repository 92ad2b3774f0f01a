"""`reasonscope scenes export`: the project's scenes as JSON Lines."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.support import (
    CommandTree,
    db_arg,
    default_db,
)


def add_parser(commands: CommandTree) -> None:
    """Register `scenes export`."""
    p = commands.group("scenes").add_parser(
        "export",
        help="write scenes as JSON Lines",
        description="Write every scene of the project, one JSON object a line, in the "
        "self-contained scene form of reasonscope-benchmark/1 (camera and every body, fixtures "
        "and robot included).",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl", help="output file")
    p.set_defaults(func=cmd_scenes_export)


def cmd_scenes_export(args: argparse.Namespace) -> int:
    from app.jobs.scenes import export_scenes

    count = export_scenes(default_db(args), args.out)
    print(f"Wrote {count} scenes to {args.out}")
    return 0
