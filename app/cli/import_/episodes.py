"""`reasonscope import episodes`: recorded episodes (reasonscope, MG-VQA transcripts, BiManiBench /
EmbodiedBench logs) read into a project."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.support import CommandTree, db_arg, default_db


def add_parser(commands: CommandTree) -> None:
    """Register `import episodes`."""
    p = commands.group("import").add_parser(
        "episodes",
        help="read recorded episodes",
        description="Read episodes in one transaction. Model replies that cannot be read "
        "become format-error steps, recorded rather than refused.",
    )
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument(
        "--format",
        default="reasonscope",
        choices=["reasonscope", "mgvqa", "bimanibench", "embodiedbench"],
        help="reasonscope (a reasonscope-episode/1 file), mgvqa (an MG-VQA transcript "
        "file, or a folder of *.json transcripts; docs/mgvqa-transcripts.md), bimanibench "
        "(a BiManiBench / ST-BiBench evaluation folder) or embodiedbench (a folder of "
        "episode_*_step_*.json logs); docs/bimanual-logs.md",
    )
    p.add_argument(
        "--model",
        help="bimanibench/embodiedbench: the model's name (default: "
        "from the log's folder or model_name.txt)",
    )
    p.add_argument(
        "--pose-order",
        default="xyz_wxyz",
        choices=["xyz_wxyz", "xyz_xyzw"],
        help="bimanibench/embodiedbench: how poses are written in the log (default "
        "xyz_wxyz, RoboTwin's [x, y, z, qw, qx, qy, qz])",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.set_defaults(func=cmd_import_episodes)


def cmd_import_episodes(args: argparse.Namespace) -> int:
    from app.io.episodes import import_episodes

    count, format_errors = import_episodes(
        default_db(args), args.file, args.format, model=args.model, pose_order=args.pose_order
    )
    print(
        f"Imported {count} episodes from {args.file} ({format_errors} format-error steps recorded)"
    )
    return 0
