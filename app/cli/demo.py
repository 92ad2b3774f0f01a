"""`reasonscope demo`: build (or complete) the demo project without a screen."""

from __future__ import annotations

import argparse
import json

from app.cli.support import CommandTree, TerminalProgress, db_arg, default_db


def add_parser(commands: CommandTree) -> None:
    """Register `demo`."""
    p = commands.add_parser(
        "demo",
        help="build the demo project headless",
        description="Build (or complete) the demo project without a screen.",
    )
    db_arg(p, help_text="where to build it (default: the demo project in the user data folder)")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    from app.demo import build_demo

    path = default_db(args)
    with TerminalProgress() as progress:
        added = build_demo(path, progress)
    if args.json:
        print(json.dumps({"path": str(path), "added_parts": added}))
    elif added:
        print(f"Demo project {path}: added {', '.join(added)}")
    else:
        print(f"Demo project {path} is already complete")
    return 0
