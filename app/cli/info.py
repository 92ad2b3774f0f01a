"""`reasonscope info`: count what a project holds."""

from __future__ import annotations

import argparse
import json

from app.cli.support import CommandTree, db_arg, default_db
from store import open_for_reading


def add_parser(commands: CommandTree) -> None:
    """Register `info`."""
    p = commands.add_parser(
        "info",
        help="show what a project holds",
        description="Count what a project holds: annotators, scenes, "
        "sequences, labels, questions by status, episodes, steps.",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.set_defaults(func=cmd_info)


def cmd_info(args: argparse.Namespace) -> int:
    with open_for_reading(default_db(args)) as project:
        summary = project.summary.summary().as_dict()
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    width = max(len(k) for k in summary)
    for key, value in summary.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        print(f"{key.replace('_', ' '):<{width}}  {value}")
    return 0
