"""`reasonscope export benchmark` and `export episodes`: the project in interchange formats.

`export labels` is in `app/cli/labels.py`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.support import CommandTree, db_arg, default_db


def add_parser(commands: CommandTree) -> None:
    """Register `export benchmark` and `export episodes`."""
    export = commands.group("export")
    p = export.add_parser(
        "benchmark",
        help="questions with their scenes as reasonscope-benchmark/1 JSON Lines",
        description="Write the current version of each question, one JSON object a line, with "
        "its self-contained scene (docs/benchmark-format.md).",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl", help="output file")
    p.add_argument(
        "--status",
        choices=["approved", "any"],
        default="approved",
        help="approved (and corrected) questions only, or any (default approved)",
    )
    p.add_argument(
        "--format",
        default="reasonscope-benchmark/1",
        choices=["reasonscope-benchmark/1", "jrdb-reasoning-vg"],
        help="reasonscope-benchmark/1 JSON Lines (default), or the JRDB-Reasoning VG "
        "question list (a JSON list of the jrdb VG questions)",
    )
    p.set_defaults(func=cmd_export_benchmark)

    p = export.add_parser(
        "episodes",
        help="episodes with their steps as reasonscope-episode/1 JSON Lines",
        description="Write every episode, one JSON object a line, with its steps and their "
        "state snapshots (docs/episode-format.md).",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl", help="output file")
    p.set_defaults(func=cmd_export_episodes)


def cmd_export_benchmark(args: argparse.Namespace) -> int:
    from app.io.benchmark import export_benchmark

    if args.format == "jrdb-reasoning-vg":
        from app.io.jrdb_reasoning import export_jrdb_reasoning_vg

        count, skipped = export_jrdb_reasoning_vg(default_db(args), args.out, status=args.status)
        print(f"Wrote {count} VG questions to {args.out} ({skipped} other questions left out)")
        return 0
    count = export_benchmark(default_db(args), args.out, status=args.status)
    print(f"Wrote {count} questions to {args.out}")
    return 0


def cmd_export_episodes(args: argparse.Namespace) -> int:
    from app.io.episodes import export_episodes

    count = export_episodes(default_db(args), args.out)
    print(f"Wrote {count} episodes to {args.out}")
    return 0
