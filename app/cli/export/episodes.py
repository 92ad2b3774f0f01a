"""`reasonscope export episodes`: episodes with their steps as reasonscope-episode/1 JSON Lines."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.support import CommandTree, TerminalProgress, db_arg, default_db, fail


def add_parser(commands: CommandTree) -> None:
    """Register `export episodes`."""
    p = commands.group("export").add_parser(
        "episodes",
        help="episodes with their steps as reasonscope-episode/1 JSON Lines",
        description="Write every episode, one JSON object a line, with its steps and their "
        "state snapshots (docs/episode-format.md); with --format rerun, a Rerun recording "
        "of the scene, images, texts and grasps at every step (docs/sharing.md#rerun).",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE", help="output file")
    p.add_argument(
        "--format",
        choices=("reasonscope", "rerun"),
        default="reasonscope",
        help="reasonscope: reasonscope-episode/1 JSON Lines (default); rerun: a Rerun "
        "recording (FILE.rrd) the Rerun viewer opens, needs reasonscope[rerun] "
        "(docs/sharing.md#rerun)",
    )
    p.add_argument(
        "ids",
        nargs="*",
        metavar="EPISODE",
        help="with --format rerun: the episodes to write, by uid or number (default: all)",
    )
    p.set_defaults(func=cmd_export_episodes)


def cmd_export_episodes(args: argparse.Namespace) -> int:
    if args.format == "rerun":
        return _export_rerun(args)
    if args.ids:
        return fail("naming episodes goes with --format rerun; JSON Lines holds them all")
    from app.io.episodes import export_episodes

    count = export_episodes(default_db(args), args.out)
    print(f"Wrote {count} episodes to {args.out}")
    return 0


def _export_rerun(args: argparse.Namespace) -> int:
    from app.io.rerun.export import RerunMissing, export_rerun, rerun_module

    try:
        rerun_module()
    except RerunMissing as exc:
        return fail(str(exc))
    with TerminalProgress() as progress:
        count = export_rerun(default_db(args), args.out, args.ids, progress)
    print(f"Wrote {count} episodes to {args.out} (open it with: rerun {args.out})")
    return 0
