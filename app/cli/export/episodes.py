"""`reasonscope export episodes`: episodes with their steps as reasonscope-episode/1 JSON Lines."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.support import CommandTree, db_arg, default_db


def add_parser(commands: CommandTree) -> None:
    """Register `export episodes`."""
    p = commands.group("export").add_parser(
        "episodes",
        help="episodes with their steps as reasonscope-episode/1 JSON Lines",
        description="Write every episode, one JSON object a line, with its steps and their "
        "state snapshots (docs/episode-format.md).",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl", help="output file")
    p.set_defaults(func=cmd_export_episodes)


def cmd_export_episodes(args: argparse.Namespace) -> int:
    from app.io.episodes import export_episodes

    count = export_episodes(default_db(args), args.out)
    print(f"Wrote {count} episodes to {args.out}")
    return 0
