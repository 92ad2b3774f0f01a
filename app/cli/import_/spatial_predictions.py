"""`reasonscope import spatial-predictions`: a model's replies to ST-BiBench's spatial grounding
items, scored on import (docs/spatial-grounding.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from annotation.averages import average_text
from annotation.bimanual.spatial_grounding import DEFAULT_SIGMA, SETTINGS
from app.cli.support import (
    CommandTree,
    db_arg,
    default_db,
    fail,
)
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `import spatial-predictions`."""
    p = commands.group("import").add_parser(
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
