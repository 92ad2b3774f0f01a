"""`reasonscope spatial generate`: seeded spatial grounding items, rendered from the head camera
and stored (docs/spatial-grounding.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import SimpleNamespace

from annotation.bimanual.spatial_grounding import SETTINGS
from app.cli.support import (
    CommandTree,
    TerminalProgress,
    batch_args,
    batch_problem,
    db_arg,
    default_db,
    fail,
    report_failures,
)
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `spatial generate`."""
    p = commands.group("spatial").add_parser(
        "generate",
        help="generate seeded items, render their images and store them",
        description="Sample N items per setting from the seed (sparse: red, green and blue "
        "blocks; dense: five blocks; cluttered: three blocks among a mug, a bowl, bread, a "
        "tray and a sponge), render each in the dual-arm world from the head camera, write "
        "DIR/items.jsonl (one item a line, with its answers and the prompt to give a model) "
        "and DIR/<item id>.png, and store the items in the project. All or nothing.",
    )
    p.add_argument(
        "--setting",
        required=True,
        choices=[*SETTINGS, "all"],
        help="which setting, or all three",
    )
    p.add_argument("--n", type=int, required=True, help="items per setting")
    p.add_argument("--seed", type=int, required=True, help="generator seed")
    p.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="folder for items.jsonl and images"
    )
    p.add_argument(
        "--image-size",
        type=int,
        default=640,
        metavar="W",
        help="image width in pixels; the height follows at 4:3 (default 640)",
    )
    batch_args(p)
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_spatial_generate)


def cmd_spatial_generate(args: argparse.Namespace) -> int:
    from app.jobs.spatial import generate_spatial_items

    if args.n < 1:
        return fail(f"--n {args.n}: need at least one item per setting")
    if not 16 <= args.image_size <= 4096:
        return fail(f"--image-size {args.image_size}: give a width of 16 to 4096 pixels")
    problem = batch_problem(args)
    if problem:
        return fail(problem)
    settings = list(SETTINGS) if args.setting == "all" else [args.setting]
    path = default_db(args)
    with open_project(path) as project:
        with TerminalProgress() as progress:
            report = generate_spatial_items(
                project,
                settings,
                args.n,
                args.seed,
                args.out,
                image_width=args.image_size,
                progress=progress,
                workers=args.workers,
                ray_address=args.ray_address,
            )
    failed = report.pop("failed")
    if args.json:
        print(json.dumps({"path": str(path), **report, "failed": failed}, indent=2))
    else:
        parts = ", ".join(f"{n} {s}" for s, n in report["by_setting"].items())
        w, h = report["image_size"]
        print(
            f"Wrote {report['items']} items ({parts}) with {w} x {h} images to {args.out}; "
            f"{report['new_in_project']} new in {path}"
        )
    return report_failures(SimpleNamespace(failed=failed))
