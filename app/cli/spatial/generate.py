"""`reasonscope spatial generate` and `reasonscope import spatial-predictions`: ST-BiBench's
foundational spatial grounding tier (docs/spatial-grounding.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import SimpleNamespace

from annotation.averages import average_text
from annotation.bimanual.spatial_grounding import DEFAULT_SIGMA, SETTINGS
from app.cli.support import (
    CommandTree,
    Subcommands,
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
    """Register `spatial generate` and `import spatial-predictions`."""
    add_generate_parser(commands.group("spatial"))
    add_predictions_parser(commands.group("import"))


def add_generate_parser(spatial: Subcommands) -> None:
    """`spatial generate`, on the `spatial` group."""
    p = spatial.add_parser(
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


def add_predictions_parser(imports: Subcommands) -> None:
    """`import spatial-predictions`, on the `import` group."""
    p = imports.add_parser(
        "spatial-predictions",
        help="read a model's spatial grounding replies (JSON Lines) and score them",
        description="Read a model's replies to the project's spatial grounding items, one "
        'JSON object a line: {"id": "<item id>", "reply": "<the model\'s raw text>"} or '
        '{"id": ..., "results": [{"object": ..., "use_arm": "left" | "right"}, ...]}. Replies '
        "are read tolerantly; one that cannot be read is stored with notes and scores 0. "
        "Each asked object scores 100 for the proximal arm and 100 exp(-x^2 / 2 sigma^2) for "
        "the other. A malformed line (not JSON, no id, an unknown item) is reported as "
        "FILE:LINE: problem and nothing is imported. Importing the same items for a model "
        "again replaces its earlier replies to them.",
    )
    p.add_argument("file", type=Path, metavar="FILE.jsonl", help="the predictions file")
    p.add_argument("--model", required=True, metavar="NAME", help="the model's name")
    p.add_argument(
        "--sigma",
        type=float,
        default=DEFAULT_SIGMA,
        metavar="S",
        help=f"sigma of the Gaussian-weighted score in metres (default {DEFAULT_SIGMA})",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_import_spatial_predictions)


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


def cmd_import_spatial_predictions(args: argparse.Namespace) -> int:
    from app.jobs.spatial import import_spatial_predictions, spatial_metrics

    if not args.sigma > 0:
        return fail(f"--sigma {args.sigma}: must be a positive distance in metres")
    if not args.model.strip():
        return fail("--model: give the model's name")
    path = default_db(args)
    with open_project(path) as project:
        report = import_spatial_predictions(project, args.file, args.model, sigma=args.sigma)
        row = spatial_metrics(project, args.sigma)["by_model"].get(args.model.strip(), {})
    if args.json:
        print(
            json.dumps(
                {"path": str(path), "file": str(args.file), **report.as_dict(), "results": row},
                indent=2,
            )
        )
        return 0
    replaced = f", replacing {report.replaced} earlier" if report.replaced else ""
    unreadable = f" ({report.unreadable} unreadable, scored 0)" if report.unreadable else ""
    scores = ", ".join(f"{s} {row[s]['score']:.1f}" for s in SETTINGS if s in row)
    print(
        f"Imported {report.imported} replies of {args.model.strip()}{unreadable}{replaced}: "
        f"{scores}, Avg. {average_text(row.get('average'), row.get('missing', []))} "
        f"(sigma {args.sigma:g} m)"
    )
    return 0
